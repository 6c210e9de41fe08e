package provider_test

import (
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The standalone NodePool and NodeClass: the same spec code as the component's lists, for
// one custom resource (golden renders: testdata/golden/node{pool,class}-team-a.json).

func TestStandaloneNodePoolRendersLikeTheComponentsPool(t *testing.T) {
	pool := `{"name": "spot", "nodeClassRef": "default", "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}]}`
	comp := rendertest.Args(t, argstest.WithDefaults(t, `{"nodePools": [`+pool+`]}`))
	standalone := rendertest.Args(t, `{"type": "karpenter:index:NodePool", "name": "team", "spec": `+pool+`}`)
	require.Len(t, standalone.Resources, 1)
	assert.Equal(t, comp.Get("karpenter-nodepool-spot").Inputs, standalone.Get("team").Inputs)
	assert.Equal(t, "karpenter:index:NodePool", standalone.Component.Type)
	assert.Equal(t, map[string]any{"nodePoolName": "spot", "version": catalog.DefaultVersion}, standalone.Outputs)
}

func TestStandaloneNodeClassRendersLikeTheComponentsClass(t *testing.T) {
	class := `{"name": "default", "role": "my-node-role", "amiAlias": "al2023@latest"}`
	comp := rendertest.Args(t, argstest.WithDefaults(t, `{"nodeClasses": [`+class+`]}`))
	standalone := rendertest.Args(t, `{"type": "karpenter:index:NodeClass", "name": "team", "clusterName": "demo", "spec": `+class+`}`)
	require.Len(t, standalone.Resources, 1)
	assert.Equal(t, comp.Get("karpenter-nodeclass-default").Inputs, standalone.Get("team").Inputs)
	assert.Equal(t, map[string]any{"nodeClassName": "default", "version": catalog.DefaultVersion}, standalone.Outputs)
}

func TestStandaloneResourcesFollowTheVersion(t *testing.T) {
	pool := rendertest.Args(t, `{"type": "karpenter:index:NodePool", "version": "0.37.7", "spec": {"name": "p", "nodeClassRef": "c"}}`)
	assert.Equal(t, "kubernetes:karpenter.sh/v1beta1:NodePool", pool.Resources[0].Type)
	assert.Equal(t, "WhenUnderutilized", rendertest.Dig(pool.Resources[0].Inputs, "spec", "disruption", "consolidationPolicy"))

	class := rendertest.Args(t, `{"type": "karpenter:index:NodeClass", "version": "0.31.4", "clusterName": "demo", "spec": {"name": "c"}}`)
	assert.Equal(t, "kubernetes:karpenter.k8s.aws/v1alpha1:AWSNodeTemplate", class.Resources[0].Type)
	assert.Equal(t, map[string]any{catalog.DiscoveryTag: "demo"}, rendertest.Dig(class.Resources[0].Inputs, "spec", "subnetSelector"))

	msg := rendertest.Error(t, `{"type": "karpenter:index:NodePool", "version": "1.17.0", "spec": {"name": "p", "nodeClassRef": "c"}}`)
	assert.Contains(t, msg, "allowUnverifiedVersion")
	unverified := rendertest.Args(t, `{"type": "karpenter:index:NodePool", "version": "1.17.0", "allowUnverifiedVersion": true, "spec": {"name": "p", "nodeClassRef": "c"}}`)
	assert.Equal(t, "1.17.0", unverified.Outputs["version"])
}

func TestStandaloneResourcesValidateLikeTheComponent(t *testing.T) {
	for args, want := range map[string]string{
		`{"type": "karpenter:index:NodePool", "spec": {"name": "p"}}`:                                                                               "spec.nodeClassRef: required",
		`{"type": "karpenter:index:NodePool", "spec": {"name": "P_", "nodeClassRef": "c"}}`:                                                         "spec.name:",
		`{"type": "karpenter:index:NodePool", "spec": {"name": "p", "nodeClassRef": "c", "weight": 500}}`:                                           "spec.weight",
		`{"type": "karpenter:index:NodePool", "spec": {"name": "p", "nodeClassRef": "c", "wieght": 5}}`:                                             "spec.wieght: unknown property (did you mean weight?)",
		`{"type": "karpenter:index:NodePool", "clusterName": "demo", "spec": {"name": "p", "nodeClassRef": "c"}}`:                                   "clusterName: unknown property",
		`{"type": "karpenter:index:NodeClass", "clusterName": "demo", "spec": {"name": "c"}}`:                                                       "spec.role: required unless instanceProfile is set",
		`{"type": "karpenter:index:NodeClass", "spec": {"name": "c", "role": "r"}}`:                                                                 "clusterName: required",
		`{"type": "karpenter:index:NodeClass", "clusterName": "-bad", "spec": {"name": "c", "role": "r"}}`:                                          "clusterName",
		`{"type": "karpenter:index:NodeClass", "clusterName": "demo", "spec": {"name": "c", "role": "r", "amiAlias": "x"}}`:                         "spec.amiAlias",
		`{"type": "karpenter:index:NodeClass", "clusterName": "demo", "spec": {"name": "c", "role": "r", "subnetSelectorTerms": [{"id": "sg-1"}]}}`: "spec.subnetSelectorTerms[0].id",
		`{"type": "karpenter:index:Nodepool", "spec": {}}`:                                                                                          `type: "karpenter:index:Nodepool" is not a component of this package`,
	} {
		assert.Contains(t, rendertest.Error(t, args), want, args)
	}
}

// The standalone resources name no AWS resource, so the component's AWS name limits do not
// apply to their names.
func TestStandaloneNamesAreNotAWSNames(t *testing.T) {
	long := strings.Repeat("team-a-", 8) + "spot"
	args, err := rendertest.ParseArgs([]byte(`{"type": "karpenter:index:NodePool", "name": "` + long + `", "spec": {"name": "spot", "nodeClassRef": "default"}}`))
	require.NoError(t, err)
	_, err = rendertest.Render(t.Context(), args)
	require.NoError(t, err)
}
