package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The SSM parameters an alias resolves through, as karpenter-provider-aws 1.15.1 builds them
// (pkg/providers/amifamily/al2.go, al2023.go, bottlerocket.go, windows.go), for the standard amd64
// and arm64 images.
func TestAmiParameters(t *testing.T) {
	for _, tc := range []struct {
		family, version, k8s string
		want                 []string
	}{
		{"al2023", "latest", "1.33", []string{
			"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id",
			"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/arm64/standard/recommended/image_id"}},
		{"al2023", "v20250101", "v1.33.2", []string{
			"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.33-v20250101/image_id",
			"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/arm64/standard/amazon-eks-node-al2023-arm64-standard-1.33-v20250101/image_id"}},
		{"al2", "latest", "1.32", []string{
			"/aws/service/eks/optimized-ami/1.32/amazon-linux-2/recommended/image_id",
			"/aws/service/eks/optimized-ami/1.32/amazon-linux-2-arm64/recommended/image_id"}},
		{"al2", "v20240807", "1.30", []string{
			"/aws/service/eks/optimized-ami/1.30/amazon-linux-2/amazon-eks-node-1.30-v20240807/image_id",
			"/aws/service/eks/optimized-ami/1.30/amazon-linux-2-arm64/amazon-eks-arm64-node-1.30-v20240807/image_id"}},
		{"bottlerocket", "v1.20.0", "1.33", []string{
			"/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.20.0/image_id",
			"/aws/service/bottlerocket/aws-k8s-1.33/arm64/1.20.0/image_id"}},
		{"windows2022", "latest", "1.33", []string{"/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.33/image_id"}},
		{"custom", "latest", "1.33", nil},
	} {
		assert.Equal(t, tc.want, AmiParameters(tc.family, tc.version, tc.k8s), "%s@%s on %s", tc.family, tc.version, tc.k8s)
	}
}

func TestAliasKubernetes(t *testing.T) {
	assert.Empty(t, CheckAliasKubernetes("al2", "1.32"))
	assert.Contains(t, CheckAliasKubernetes("al2", "1.33"), "last AL2 optimized AMIs for Kubernetes 1.32")
	assert.Contains(t, CheckAliasKubernetes("al2", "1.100"), "1.32", "1.100 is after 1.32, not before")
	assert.Empty(t, CheckAliasKubernetes("al2023", "1.37"))
}

func TestKubernetesSupport(t *testing.T) {
	r, err := LookupRelease("1.8.6", false)
	assert.NoError(t, err)
	ok, needs, known := r.SupportsKubernetes("1.35")
	assert.False(t, ok)
	assert.Equal(t, "1.9.0", needs.String())
	assert.True(t, known)
	ok, _, known = r.SupportsKubernetes("v1.34.1")
	assert.True(t, ok)
	assert.True(t, known)
	ok, _, known = r.SupportsKubernetes("1.99")
	assert.True(t, ok, "not refused: the matrix does not cover it")
	assert.False(t, known)
}
