package catalog_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func renderVersion(t *testing.T, version string, extra ...string) *rendertest.Rendered {
	t.Helper()
	more := `{"version":"` + version + `"}`
	if len(extra) > 0 {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(extra[0]), &m))
		m["version"] = version
		b, _ := json.Marshal(m)
		more = string(b)
	}
	return rendertest.Args(t, argstest.WithDefaults(t, more))
}

// Each generation's single controller policy equals its official template's, statement for
// statement.
func TestSinglePolicyGenerationsMatchTheirTemplates(t *testing.T) {
	for version, template := range map[string]string{"0.31.4": "0.31", "0.37.7": "0.37", "1.0.8": "1.0", "1.8.6": "1.8"} {
		t.Run(version, func(t *testing.T) {
			r := renderVersion(t, version)
			policies := r.ByType("aws:iam/policy:Policy")
			require.Len(t, policies, 1, "one controller policy, as the template has")
			assert.Equal(t, "karpenter-controller-policy", policies[0].Name)
			rendertest.AssertSamePolicy(t, fillTemplate(officialControllerPolicies[template], r), policies[0].Inputs["policy"].(string), version)
		})
	}
}

// v1.9 split the policy; v1.10-v1.12 added permissions and a rule (the CloudFormation templates of those releases). The
// expectation is the v1.14 template without what each release did not have yet.
func TestSplitPolicyReleasesBeforeV114(t *testing.T) {
	// without is doc without the actions and resources cut, each of which it must have.
	without := func(doc string, cut ...string) string {
		var d map[string]any
		require.NoError(t, json.Unmarshal([]byte(doc), &d))
		for _, c := range cut {
			found := false
			for _, st := range d["Statement"].([]any) {
				st := st.(map[string]any)
				for _, k := range []string{"Action", "Resource"} {
					if list, ok := st[k].([]any); ok && slices.Contains(list, any(c)) {
						st[k] = slices.DeleteFunc(slices.Clone(list), func(v any) bool { return v == c })
						found = true
					}
				}
			}
			require.True(t, found, "expectation edits must apply: %s", c)
		}
		b, err := json.Marshal(d)
		require.NoError(t, err)
		return string(b)
	}
	placementARN := "arn:aws:ec2:us-west-2:*:placement-group/*"
	for _, tc := range []struct {
		version string
		edits   map[string][]string // policy -> text removed from the v1.14 expectation
		rules   int
		zonal   bool
	}{
		{"1.9.0", map[string][]string{
			"karpenter-controller-node-lifecycle":     {placementARN},
			"karpenter-controller-resource-discovery": {"ec2:DescribeInstanceStatus", "ec2:DescribePlacementGroups"},
		}, 4, false},
		{"1.10.0", map[string][]string{
			"karpenter-controller-node-lifecycle":     {placementARN},
			"karpenter-controller-resource-discovery": {"ec2:DescribeInstanceStatus", "ec2:DescribePlacementGroups"},
		}, 5, false},
		{"1.11.1", map[string][]string{
			"karpenter-controller-resource-discovery": {"ec2:DescribeInstanceStatus"},
		}, 5, false},
		{"1.12.1", nil, 5, true},
	} {
		t.Run(tc.version, func(t *testing.T) {
			r := renderVersion(t, tc.version)
			policies := r.ByType("aws:iam/policy:Policy")
			want := 5
			if tc.zonal {
				want = 6
			}
			require.Len(t, policies, want)
			for _, p := range policies {
				expected := v114Policies[p.Name]
				require.NotEmpty(t, expected, p.Name)
				expected = without(expected, tc.edits[p.Name]...)
				rendertest.AssertSamePolicy(t, fillTemplate(expected, r), p.Inputs["policy"].(string), p.Name)
			}
			assert.Len(t, r.ByType("aws:cloudwatch/eventRule:EventRule"), tc.rules)
		})
	}
}

func TestNodeRoleECRPolicyByVersion(t *testing.T) {
	for version, policy := range map[string]string{
		"0.31.4": "AmazonEC2ContainerRegistryReadOnly", "0.37.7": "AmazonEC2ContainerRegistryReadOnly",
		"1.0.8": "AmazonEC2ContainerRegistryReadOnly", "1.3.4": "AmazonEC2ContainerRegistryReadOnly",
		"1.4.0": "AmazonEC2ContainerRegistryPullOnly", "1.14.1": "AmazonEC2ContainerRegistryPullOnly",
	} {
		r := renderVersion(t, version)
		assert.Equal(t, "arn:aws:iam::aws:policy/"+policy, r.Get("karpenter-node-ecr").Inputs["policyArn"], version)
	}
}

func TestChartValuesByGeneration(t *testing.T) {
	endpoint := `{"clusterEndpoint":"https://ABC.gr7.us-west-2.eks.amazonaws.com"}`
	alpha := renderVersion(t, "0.31.4", endpoint)
	values := alpha.Get("karpenter-release").Inputs["values"].(map[string]any)
	assert.Equal(t, map[string]any{"aws": map[string]any{
		"clusterName":            "demo",
		"clusterEndpoint":        "https://ABC.gr7.us-west-2.eks.amazonaws.com",
		"interruptionQueueName":  alpha.Outputs["interruptionQueueName"],
		"defaultInstanceProfile": alpha.Outputs["instanceProfileName"],
	}}, values["settings"], "the Provisioner era reads settings.aws.*")
	assert.Contains(t, alpha.Get("karpenter-release").DependsOn, "karpenter-node-profile", "the default instance profile exists before the controller starts")

	for _, version := range []string{"0.37.7", "1.0.8", "1.14.1", "1.15.1"} {
		r := renderVersion(t, version, endpoint)
		values := r.Get("karpenter-release").Inputs["values"].(map[string]any)
		assert.Equal(t, map[string]any{
			"clusterName":       "demo",
			"clusterEndpoint":   "https://ABC.gr7.us-west-2.eks.amazonaws.com",
			"interruptionQueue": r.Outputs["interruptionQueueName"],
		}, values["settings"], version)
	}
}

func TestProvisionerEraInstallsCRDsWithTheChart(t *testing.T) {
	r := renderVersion(t, "0.31.4")
	assert.False(t, r.Has("karpenter-crd-release"), "no karpenter-crd chart before 0.32")
	rel := r.Get("karpenter-release").Inputs
	assert.Nil(t, rel["skipCrds"], "the chart installs its crds/")
	assert.Equal(t, "karpenter", rel["namespace"], "the Provisioner-era guides install into karpenter")
	assert.Equal(t, "", r.Outputs["crdReleaseName"])

	for _, version := range []string{"0.32.10", "0.37.7", "1.0.8"} {
		r := renderVersion(t, version)
		assert.True(t, r.Has("karpenter-crd-release"), version)
		assert.Equal(t, "kube-system", r.Get("karpenter-release").Inputs["namespace"], version)
	}
}

func TestCustomResourceKindsByGeneration(t *testing.T) {
	for version, kinds := range map[string][2]string{
		"0.19.3": {"kubernetes:karpenter.sh/v1alpha5:Provisioner", "kubernetes:karpenter.k8s.aws/v1alpha1:AWSNodeTemplate"},
		"0.31.4": {"kubernetes:karpenter.sh/v1alpha5:Provisioner", "kubernetes:karpenter.k8s.aws/v1alpha1:AWSNodeTemplate"},
		"0.32.1": {"kubernetes:karpenter.sh/v1beta1:NodePool", "kubernetes:karpenter.k8s.aws/v1beta1:EC2NodeClass"},
		"0.37.7": {"kubernetes:karpenter.sh/v1beta1:NodePool", "kubernetes:karpenter.k8s.aws/v1beta1:EC2NodeClass"},
		"1.0.0":  {"kubernetes:karpenter.sh/v1:NodePool", "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"},
		"1.14.1": {"kubernetes:karpenter.sh/v1:NodePool", "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"},
		"1.15.1": {"kubernetes:karpenter.sh/v1:NodePool", "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"},
	} {
		r := renderVersion(t, version)
		assert.Equal(t, kinds[0], r.Get("karpenter-nodepool-default").Type, version)
		assert.Equal(t, kinds[1], r.Get("karpenter-nodeclass-default").Type, version)
	}
}

func TestProvisionerRendering(t *testing.T) {
	r := renderVersion(t, "0.31.4", `{"nodePools":[{"name":"spot","requirements":[{"key":"karpenter.sh/capacity-type","operator":"In","values":["spot"]}],
		"labels":{"team":"a"},"taints":[{"key":"spot","effect":"NoSchedule"}],"limits":{"cpu":"100"},"weight":5,"expireAfter":"24h",
		"disruption":{"consolidationPolicy":"WhenEmpty","consolidateAfter":"30s"}}],
		"nodeClasses":[{"name":"default","subnetSelectorTerms":[{"id":"subnet-1"},{"id":"subnet-2"}],"tags":{"team":"a"},
		"kubelet":{"maxPods":50}}]}`)
	spec := r.Get("karpenter-nodepool-spot").Inputs["spec"].(map[string]any)
	assert.Equal(t, map[string]any{
		"providerRef":            map[string]any{"name": "default"},
		"requirements":           []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"spot"}}},
		"labels":                 map[string]any{"team": "a"},
		"taints":                 []any{map[string]any{"key": "spot", "effect": "NoSchedule"}},
		"limits":                 map[string]any{"resources": map[string]any{"cpu": "100"}},
		"weight":                 float64(5),
		"ttlSecondsUntilExpired": float64(86400),
		"ttlSecondsAfterEmpty":   float64(30),
		"kubeletConfiguration":   map[string]any{"maxPods": float64(50)},
	}, spec)
	template := r.Get("karpenter-nodeclass-default").Inputs["spec"].(map[string]any)
	assert.Equal(t, map[string]any{
		"amiFamily":             "AL2",
		"subnetSelector":        map[string]any{"aws-ids": "subnet-1,subnet-2"},
		"securityGroupSelector": map[string]any{"karpenter.sh/discovery": "demo"},
		"tags":                  map[string]any{"team": "a"},
	}, template)
}

func TestV1beta1Rendering(t *testing.T) {
	r := renderVersion(t, "0.37.7", `{"nodePools":[{"name":"p","expireAfter":"Never","disruption":{"budgets":[{"nodes":"1"}]}}],
		"nodeClasses":[{"name":"c","amiAlias":"bottlerocket@latest","kubelet":{"maxPods":20}}]}`)
	spec := r.Get("karpenter-nodepool-p").Inputs["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"consolidationPolicy": "WhenUnderutilized", "expireAfter": "Never", "budgets": []any{map[string]any{"nodes": "1"}}}, spec["disruption"])
	assert.Equal(t, map[string]any{"maxPods": float64(20)}, rendertest.Dig(spec, "template", "spec", "kubelet"), "kubelet lives on the v1beta1 pool")
	assert.Equal(t, map[string]any{"apiVersion": "karpenter.k8s.aws/v1beta1", "kind": "EC2NodeClass", "name": "c"}, rendertest.Dig(spec, "template", "spec", "nodeClassRef"))
	class := r.Get("karpenter-nodeclass-c").Inputs["spec"].(map[string]any)
	assert.Equal(t, "Bottlerocket", class["amiFamily"], "bottlerocket@latest is v1beta1's amiFamily Bottlerocket")
	assert.NotContains(t, class, "kubelet")
	assert.NotContains(t, class, "amiSelectorTerms")
}

// A 100-character cluster name would push the single v1 policy past IAM's 6,144 characters;
// the component then uses the split layout. Every document stays within the limit.
func TestLongClusterNamesStayWithinIAMLimits(t *testing.T) {
	long := strings.Repeat("c", 100)
	for _, version := range []string{"0.31.4", "0.37.7", "1.0.8", "1.8.6", "1.14.1", "1.15.1"} {
		r := rendertest.Args(t, fmt.Sprintf(`{"clusterName":%q,"oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE","version":%q}`, long, version))
		for _, p := range r.ByType("aws:iam/policy:Policy") {
			assert.LessOrEqual(t, len(p.Inputs["policy"].(string)), catalog.MaxManagedPolicyLength, "%s %s", version, p.Name)
		}
		if version == "1.8.6" || version == "1.0.8" {
			assert.False(t, r.Has("karpenter-controller-policy"), "%s splits", version)
			assert.True(t, r.Has("karpenter-controller-node-lifecycle"), "%s splits", version)
		}
	}
	// With a short name the template's single policy is kept.
	assert.True(t, renderVersion(t, "1.8.6").Has("karpenter-controller-policy"))
}

// An upgrade across a generation boundary keeps both roles (same names, same inputs), updates
// the policies, and changes the custom resources: v1beta1 -> v1 in place (aliases: same
// objects on the server); Provisioner -> NodePool by replacement (different kinds).
func TestUpgradesAcrossGenerations(t *testing.T) {
	for _, tc := range []struct{ from, to string }{{"0.31.4", "0.32.10"}, {"0.37.7", "1.0.8"}, {"1.8.6", "1.9.0"}, {"1.11.1", "1.14.1"}, {"1.14.1", "1.15.1"}} {
		t.Run(tc.from+"->"+tc.to, func(t *testing.T) {
			// Pin the namespace: the Provisioner era defaults to another one.
			before := renderVersion(t, tc.from, `{"namespace":"karpenter"}`)
			after := renderVersion(t, tc.to, `{"namespace":"karpenter"}`)
			for _, role := range []string{"karpenter-controller", "karpenter-node"} {
				assert.Equal(t, before.Get(role).Inputs, after.Get(role).Inputs, "%s is untouched", role)
			}
			assert.Equal(t, before.Outputs["controllerRoleArn"], after.Outputs["controllerRoleArn"])
			assert.Equal(t, before.Outputs["interruptionQueueName"], after.Outputs["interruptionQueueName"])
			assert.NotEqual(t, policiesOf(before), policiesOf(after), "policies change")

			pool, newPool := before.Get("karpenter-nodepool-default"), after.Get("karpenter-nodepool-default")
			if pool.Type != newPool.Type {
				if strings.Contains(pool.Type, "Provisioner") {
					assert.Empty(t, newPool.Aliases, "a NodePool is a new object, not the Provisioner renamed")
				} else {
					assert.Contains(t, newPool.Aliases, pool.Type, "same object under a new API version: updated in place")
					assert.Contains(t, after.Get("karpenter-nodeclass-default").Aliases, before.Get("karpenter-nodeclass-default").Type)
				}
			}
		})
	}
}

func policiesOf(r *rendertest.Rendered) map[string]string {
	out := map[string]string{}
	for _, p := range r.ByType("aws:iam/policy:Policy") {
		out[p.Name] = p.Inputs["policy"].(string)
	}
	return out
}
