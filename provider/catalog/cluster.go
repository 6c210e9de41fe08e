package catalog

import (
	"fmt"
	"strings"
)

// What the component checks a cluster against, beyond the compatibility matrix
// (versions.go): EKS's optimized AMIs per Kubernetes version, and the account-wide role
// Spot launches need. Facts that change with AWS, with their source.

// SpotServiceLinkedRole is the role EC2 needs in an account before its first Spot launch; the
// Karpenter controller may not create it (its policy has no iam:CreateServiceLinkedRole), so
// every Spot launch fails without it (Karpenter getting-started guide, "Create the EC2 Spot
// service-linked role").
const SpotServiceLinkedRole = "AWSServiceRoleForEC2Spot"

// IRSAAudience is the audience EKS's pod identity webhook requests for IRSA tokens; the
// cluster's OIDC provider must list it as a client ID, or STS refuses the token.
const IRSAAudience = "sts.amazonaws.com"

// amiFamilyLastKubernetes is the last Kubernetes minor version for which EKS publishes the
// optimized AMIs an alias family resolves to (families not listed: still published).
var amiFamilyLastKubernetes = map[string]struct{ last, source string }{
	// "Kubernetes version 1.32 is the last version for which Amazon EKS will release AL2 AMIs.
	// From version 1.33 onwards, Amazon EKS will continue to release AL2023 and Bottlerocket based
	// AMIs." (EKS User Guide, "Build a custom Amazon Linux AMI", eks-ami-build-scripts.html.)
	"al2": {"1.32", "EKS published its last AL2 optimized AMIs for Kubernetes 1.32 (EKS User Guide, \"Build a custom Amazon Linux AMI\")"},
}

// CheckAliasKubernetes says why an AMI alias family has no optimized AMI for a Kubernetes
// version, from the catalog ("" when it has, or the catalog cannot tell).
func CheckAliasKubernetes(family, kubernetes string) string {
	f, ok := amiFamilyLastKubernetes[family]
	if !ok || compareMinor(MinorOf(kubernetes), f.last) <= 0 {
		return ""
	}
	return f.source
}

// AmiParameters are the SSM parameters Karpenter reads to resolve an AMI alias (`<family>@<version>`)
// on a cluster of the given Kubernetes version, for the standard amd64 image and then the standard
// arm64 one: the alias resolves when either exists (Karpenter also tries GPU variants, which exist
// only beside these). Empty for a family Karpenter resolves without SSM. From
// karpenter-provider-aws 1.15.1, pkg/providers/amifamily/{al2,al2023,bottlerocket,windows}.go.
func AmiParameters(family, version, kubernetes string) []string {
	k := MinorOf(kubernetes)
	latest := version == "latest"
	switch family {
	case "al2":
		var out []string
		for _, suffix := range []string{"", "-arm64"} {
			name := "recommended"
			if !latest {
				name = fmt.Sprintf("amazon-eks%s-node-%s-%s", suffix, k, version)
			}
			out = append(out, fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2%s/%s/image_id", k, suffix, name))
		}
		return out
	case "al2023":
		var out []string
		for _, arch := range []string{"x86_64", "arm64"} {
			name := "recommended"
			if !latest {
				name = fmt.Sprintf("amazon-eks-node-al2023-%s-standard-%s-%s", arch, k, version)
			}
			out = append(out, fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2023/%s/standard/%s/image_id", k, arch, name))
		}
		return out
	case "bottlerocket":
		// Bottlerocket's versions carry a "v" on GitHub, not in SSM.
		v := strings.TrimLeft(version, "v")
		return []string{
			fmt.Sprintf("/aws/service/bottlerocket/aws-k8s-%s/x86_64/%s/image_id", k, v),
			fmt.Sprintf("/aws/service/bottlerocket/aws-k8s-%s/arm64/%s/image_id", k, v),
		}
	case "windows2019", "windows2022", "windows2025":
		// Windows aliases take only `latest` (the CRD's rule); one image, amd64.
		return []string{fmt.Sprintf("/aws/service/ami-windows-latest/Windows_Server-%s-English-Core-EKS_Optimized-%s/image_id", strings.TrimPrefix(family, "windows"), k)}
	}
	return nil
}

// MinorOf is a Kubernetes version's major.minor (`v1.33.2` and `1.33` are both `1.33`).
func MinorOf(k8s string) string {
	parts := strings.Split(strings.TrimPrefix(k8s, "v"), ".")
	if len(parts) >= 2 {
		return parts[0] + "." + parts[1]
	}
	return k8s
}

// compareMinor orders two major.minor versions numerically (1.9 < 1.10).
func compareMinor(a, b string) int {
	var am, an, bm, bn int
	fmt.Sscanf(a, "%d.%d", &am, &an)
	fmt.Sscanf(b, "%d.%d", &bm, &bn)
	switch {
	case am != bm:
		return am - bm
	default:
		return an - bn
	}
}
