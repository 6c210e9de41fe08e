package plan

import (
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The plan is pure: these tests build plans from inputs alone, with no Pulumi context, engine or
// mocks. (Pulumi's Input values in the args are plain values here; nothing resolves them.)

func args() inputs.KarpenterArgs {
	return inputs.KarpenterArgs{
		ClusterName:     pulumi.String("demo"),
		OidcProviderArn: pulumi.String("arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE"),
	}
}

func TestDefaultPlan(t *testing.T) {
	p, err := New("karpenter", args(), Known{}, nil)
	require.NoError(t, err)
	assert.Equal(t, catalog.DefaultVersion, p.Release.Version.String())
	assert.Equal(t, "kube-system", p.Namespace)
	assert.Equal(t, "karpenter", p.ServiceAccount)
	assert.True(t, p.CreateControllerIAM && p.CreateNodeRole && p.CreateInstanceProfile && p.Interruption && p.CrdRelease)
	assert.False(t, p.ChartCrds, "the CRDs come from the karpenter-crd release")
	assert.True(t, p.TrustIRSA)
	assert.False(t, p.PodIdentity)
	assert.Equal(t, inputs.NodeAccess("accessEntry"), p.NodeAccess)
	require.Len(t, p.Pools, 1)
	require.Len(t, p.Classes, 1)
	assert.Equal(t, "default", p.Pools[0].Name)
	assert.Equal(t, "default", *p.Pools[0].NodeClassRef, "the default pool refers to the default class")
	assert.Equal(t, "al2023@latest", p.DefaultAmiAlias)

	assert.Empty(t, p.Warnings())

	ref, version, repo := p.ChartSource("karpenter")
	assert.Equal(t, []string{"oci://public.ecr.aws/karpenter/karpenter", catalog.DefaultVersion, ""}, []string{ref, version, repo})
}

// A generation's shape is data: the Provisioner era installs into `karpenter` with the CRDs in
// the controller chart, an instance profile it must create, and AL2 by default.
func TestPlanFollowsTheGeneration(t *testing.T) {
	a := args()
	a.Version = new("0.31.0")
	p, err := New("karpenter", a, Known{}, nil)
	require.NoError(t, err)
	assert.Equal(t, "karpenter", p.Namespace)
	assert.False(t, p.CrdRelease)
	assert.True(t, p.ChartCrds)
	assert.Equal(t, "al2@latest", p.DefaultAmiAlias)

	a.CreateInstanceProfile = new(false)
	_, err = New("karpenter", a, Known{}, nil)
	assert.ErrorContains(t, err, "createInstanceProfile: Karpenter 0.31.0 launches nodes with the instance profile in settings.aws.defaultInstanceProfile")
}

func TestAutoModePlan(t *testing.T) {
	p, err := New("karpenter", inputs.KarpenterArgs{ClusterName: pulumi.String("demo"), Mode: new(inputs.ModeAutoMode)}, Known{}, nil)
	require.NoError(t, err)
	assert.False(t, p.CreateControllerIAM || p.Interruption || p.CrdRelease || p.ChartCrds || p.CreateInstanceProfile)
	assert.True(t, p.CreateNodeRole)
	assert.Equal(t, inputs.NodeAccess("accessEntry"), p.NodeAccess)
	require.Len(t, p.Pools, 1)
	assert.Equal(t, "auto-default", p.Pools[0].Name, "named apart from EKS's built-in pools and class")
}

// Every problem of the plain inputs is reported at once, each naming its field.
func TestPlanReportsEveryProblemTogether(t *testing.T) {
	a := args()
	a.Namespace = new("Not_A_Namespace")
	a.ControllerRoleArn = pulumi.String("arn:aws:iam::123456789012:role/existing")
	a.ControllerPolicyArns = map[string]pulumi.StringInput{"extra": pulumi.String("arn:aws:iam::aws:policy/ReadOnlyAccess")}
	a.NodePools = []inputs.NodePoolSpec{{Name: "a", NodeClassRef: new("missing")}}
	a.ChartRepository = new("oci://registry.example.com/karpenter")
	a.RepositoryUsername = pulumi.String("me")
	_, err := New("karpenter", a, Known{}, nil)
	require.Error(t, err)
	for _, want := range []string{
		`namespace: "Not_A_Namespace" is not a valid name`,
		"controllerPolicyArns: cannot be used with controllerRoleArn",
		`nodePools[0].nodeClassRef: "missing" names no node class`,
		"repositoryUsername: the kubernetes provider does not send credentials to an OCI registry",
	} {
		assert.Contains(t, err.Error(), want)
	}
	assert.Len(t, strings.Split(err.Error(), "\n"), 4)
}

func TestChartSources(t *testing.T) {
	for repository, want := range map[string][3]string{
		"https://charts.example.com/": {"karpenter", catalog.DefaultVersion, "https://charts.example.com"},
		"./charts":                    {"charts/karpenter", "", ""},
	} {
		a := args()
		a.ChartRepository = new(repository)
		p, err := New("karpenter", a, Known{}, nil)
		require.NoError(t, err)
		ref, version, repo := p.ChartSource("karpenter")
		assert.Equal(t, want, [3]string{ref, version, repo}, repository)
	}
}

// Valid pools no instance can match are created as written, with a warning at every preview.
func TestPoolWarnings(t *testing.T) {
	req := func(key, op string, values ...string) []inputs.Requirement {
		return []inputs.Requirement{{Key: key, Operator: inputs.RequirementOperator(op), Values: values}}
	}
	for _, c := range []struct {
		name  string
		pool  []inputs.Requirement
		class inputs.NodeClassSpec
		want  string
	}{
		{"reserved only, no reservations", req("karpenter.sh/capacity-type", "In", "reserved"), inputs.NodeClassSpec{Name: "c"},
			`nodePools[0].requirements[0]: only reserved capacity, and node class "c" selects no capacity reservation`},
		{"windows pool, linux class", req("kubernetes.io/os", "In", "windows"), inputs.NodeClassSpec{Name: "c"},
			`nodePools[0].requirements[0]: windows only, and node class "c" launches Linux (AL2023): the pool never launches a node`},
		{"linux pool, windows class", req("kubernetes.io/os", "In", "linux"), inputs.NodeClassSpec{Name: "c", AmiAlias: new("windows2022@latest")},
			`node class "c" launches Windows (Windows2022)`},
		{"every architecture excluded", req("kubernetes.io/arch", "NotIn", "amd64", "arm64"), inputs.NodeClassSpec{Name: "c"},
			"nodePools[0].requirements[0]: NotIn every value Karpenter sets on kubernetes.io/arch (amd64, arm64)"},
		{"a meetable pool", req("karpenter.sh/capacity-type", "In", "spot", "reserved"), inputs.NodeClassSpec{Name: "c"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := args()
			a.NodeClasses = []inputs.NodeClassSpec{c.class}
			a.NodePools = []inputs.NodePoolSpec{{Name: "p", Requirements: c.pool}}
			p, err := New("karpenter", a, Known{}, nil)
			require.NoError(t, err, "valid input: created as written")
			if c.want == "" {
				assert.Empty(t, p.Warnings())
				return
			}
			require.Len(t, p.Warnings(), 1)
			assert.Contains(t, p.Warnings()[0].String(), c.want)
		})
	}
}

// The plan's pools are complete: a pool that sets no requirements or expireAfter gets the
// release's, which the children render as they are; one that sets them keeps its own, and the
// args keep what the program wrote.
func TestPoolsAreComplete(t *testing.T) {
	a := args()
	arm := []inputs.Requirement{{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"arm64"}}}
	a.NodePools = []inputs.NodePoolSpec{{Name: "a"}, {Name: "b", ExpireAfter: new("24h"), Requirements: arm}}
	p, err := New("karpenter", a, Known{}, nil)
	require.NoError(t, err)
	assert.Equal(t, catalog.DefaultExpireAfter, *p.Pools[0].ExpireAfter)
	assert.Len(t, p.Pools[0].Requirements, len(catalog.DefaultRequirements))
	assert.Equal(t, "24h", *p.Pools[1].ExpireAfter)
	assert.Equal(t, arm, p.Pools[1].Requirements)
	assert.Nil(t, a.NodePools[0].ExpireAfter)
	assert.Empty(t, a.NodePools[0].Requirements)

	auto := inputs.KarpenterArgs{ClusterName: a.ClusterName, Mode: new(inputs.ModeAutoMode)}
	p, err = New("karpenter", auto, Known{}, nil)
	require.NoError(t, err)
	assert.Equal(t, catalog.AutoModeRelease().AutoMode.DefaultExpireAfter, *p.Pools[0].ExpireAfter)
}

// The warnings are one list, in one order: the unverified release first, then the inputs'.
func TestWarningsSayTheReleaseFirst(t *testing.T) {
	a := args()
	a.Version, a.AllowUnverifiedVersion = new("1.99.0"), new(true)
	a.NodePools = []inputs.NodePoolSpec{{Name: "p", Requirements: []inputs.Requirement{{Key: "kubernetes.io/arch", Operator: "NotIn", Values: []string{"amd64", "arm64"}}}}}
	p, err := New("karpenter", a, Known{}, nil)
	require.NoError(t, err)
	warnings := p.Warnings()
	require.Len(t, warnings, 2)
	assert.Equal(t, "version", warnings[0].Path.String())
	assert.Contains(t, warnings[0].String(), "version: Karpenter 1.99.0 is newer than the newest release this component has verified")
	assert.Equal(t, "nodePools[0].requirements[0]", warnings[1].Path.String())
}
