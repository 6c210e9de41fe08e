package provider_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func TestDefaultInstallGraph(t *testing.T) {
	r := rendertest.Default(t)
	assert.Equal(t, format.Component{Type: "karpenter:index:Karpenter", Name: "karpenter"}, r.Component)

	type child struct{ typ, name string }
	var got []child
	for _, res := range r.Resources {
		got = append(got, child{res.Type, res.Name})
		assert.Equal(t, "karpenter", res.Parent, "%s is parented to the component", res.Name)
	}
	policy := func(key string) []child {
		return []child{
			{"aws:iam/policy:Policy", "karpenter-controller-" + key},
			{"aws:iam/rolePolicyAttachment:RolePolicyAttachment", "karpenter-controller-" + key + "-attach"},
		}
	}
	rule := func(key string) []child {
		return []child{
			{"aws:cloudwatch/eventRule:EventRule", "karpenter-" + key},
			{"aws:cloudwatch/eventTarget:EventTarget", "karpenter-" + key + "-target"},
		}
	}
	want := []child{
		{"aws:iam/role:Role", "karpenter-node"},
		{"aws:iam/rolePolicyAttachment:RolePolicyAttachment", "karpenter-node-worker"},
		{"aws:iam/rolePolicyAttachment:RolePolicyAttachment", "karpenter-node-cni"},
		{"aws:iam/rolePolicyAttachment:RolePolicyAttachment", "karpenter-node-ecr"},
		{"aws:iam/rolePolicyAttachment:RolePolicyAttachment", "karpenter-node-ssm"},
		{"aws:iam/instanceProfile:InstanceProfile", "karpenter-node-profile"},
		{"aws:eks/accessEntry:AccessEntry", "karpenter-node-access"},
		{"aws:sqs/queue:Queue", "karpenter-interruption"},
		{"aws:sqs/queuePolicy:QueuePolicy", "karpenter-interruption-policy"},
	}
	for _, key := range []string{"scheduled-change", "spot-interruption", "rebalance", "state-change", "capacity-reservation"} {
		want = append(want, rule(key)...)
	}
	want = append(want, child{"aws:iam/role:Role", "karpenter-controller"})
	for _, key := range []string{"node-lifecycle", "iam-integration", "eks-integration", "interruption", "resource-discovery", "zonal-shift"} {
		want = append(want, policy(key)...)
	}
	want = append(want,
		child{"kubernetes:helm.sh/v3:Release", "karpenter-crd-release"},
		child{"kubernetes:helm.sh/v3:Release", "karpenter-release"},
		child{"kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "karpenter-nodeclass-default"},
		child{"kubernetes:karpenter.sh/v1:NodePool", "karpenter-nodepool-default"},
	)
	assert.Equal(t, want, got, "children in registration order")

	// The controller waits for everything it uses; the custom resources wait for the
	// controller, the CRDs and the node IAM (so a destroy removes them first).
	release := r.Get("karpenter-release")
	for _, dep := range []string{
		"karpenter-crd-release", "karpenter-controller", "karpenter-interruption", "karpenter-interruption-policy",
		"karpenter-controller-node-lifecycle-attach", "karpenter-controller-iam-integration-attach",
		"karpenter-controller-eks-integration-attach", "karpenter-controller-interruption-attach",
		"karpenter-controller-resource-discovery-attach", "karpenter-controller-zonal-shift-attach",
		"karpenter-spot-interruption", "karpenter-spot-interruption-target", "karpenter-capacity-reservation-target",
	} {
		assert.Contains(t, release.DependsOn, dep, "controller release waits for %s", dep)
	}
	assert.Empty(t, r.Get("karpenter-crd-release").DependsOn, "CRDs install in parallel with IAM and the queue")
	for _, cr := range []string{"karpenter-nodeclass-default", "karpenter-nodepool-default"} {
		deps := r.Get(cr).DependsOn
		for _, dep := range []string{"karpenter-release", "karpenter-crd-release", "karpenter-node", "karpenter-node-access", "karpenter-node-profile", "karpenter-node-worker"} {
			assert.Contains(t, deps, dep, "%s waits for %s", cr, dep)
		}
	}
	// The pool waits for its class, so a destroy deletes the pool (Karpenter terminates its
	// nodes) before the class, whose finalizer waits for them; the class never waits for a pool.
	assert.Contains(t, r.Get("karpenter-nodepool-default").DependsOn, "karpenter-nodeclass-default")
	assert.NotContains(t, r.Get("karpenter-nodeclass-default").DependsOn, "karpenter-nodepool-default")
	// Policies name the node role and queue by ARN without waiting for them.
	assert.Empty(t, r.Get("karpenter-controller-iam-integration").DependsOn)
	assert.Empty(t, r.Get("karpenter-controller-interruption").DependsOn)
}

func TestDefaultReleases(t *testing.T) {
	r := rendertest.Default(t)
	crd := r.Get("karpenter-crd-release").Inputs
	assert.Equal(t, "karpenter-crd", crd["name"])
	assert.Equal(t, "oci://public.ecr.aws/karpenter/karpenter-crd", crd["chart"])
	assert.Equal(t, "1.15.2", crd["version"])
	assert.Equal(t, "kube-system", crd["namespace"])
	assert.Nil(t, crd["skipCrds"])

	rel := r.Get("karpenter-release").Inputs
	assert.Equal(t, "karpenter", rel["name"])
	assert.Equal(t, "oci://public.ecr.aws/karpenter/karpenter", rel["chart"])
	assert.Equal(t, "1.15.2", rel["version"])
	assert.Equal(t, "kube-system", rel["namespace"])
	assert.Equal(t, true, rel["skipCrds"])
	values := rel["values"].(map[string]any)
	assert.Equal(t, "demo", rendertest.Dig(values, "settings", "clusterName"))
	assert.Equal(t, r.Outputs["interruptionQueueName"], rendertest.Dig(values, "settings", "interruptionQueue"))
	assert.Equal(t, r.Get("karpenter-interruption").Inputs["name"], rendertest.Dig(values, "settings", "interruptionQueue"))
	assert.Nil(t, rendertest.Dig(values, "settings", "clusterEndpoint"), "endpoint left to discovery when not given")
	assert.Equal(t, "karpenter", rendertest.Dig(values, "serviceAccount", "name"))
	assert.Equal(t, r.Outputs["controllerRoleArn"], rendertest.Dig(values, "serviceAccount", "annotations", "eks.amazonaws.com/role-arn"))
	for _, kind := range []string{"requests", "limits"} {
		assert.Equal(t, "1", rendertest.Dig(values, "controller", "resources", kind, "cpu"))
		assert.Equal(t, "1Gi", rendertest.Dig(values, "controller", "resources", kind, "memory"))
	}
}

func TestDefaultNodePoolAndClass(t *testing.T) {
	r := rendertest.Default(t)
	class := r.Get("karpenter-nodeclass-default").Inputs
	assert.Equal(t, "karpenter.k8s.aws/v1", class["apiVersion"])
	assert.Equal(t, "EC2NodeClass", class["kind"])
	assert.Equal(t, "default", rendertest.Dig(class, "metadata", "name"))
	spec := class["spec"].(map[string]any)
	assert.Equal(t, []any{map[string]any{"alias": "al2023@latest"}}, spec["amiSelectorTerms"])
	discovery := []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "demo"}}}
	assert.Equal(t, discovery, spec["subnetSelectorTerms"])
	assert.Equal(t, discovery, spec["securityGroupSelectorTerms"])
	assert.Equal(t, r.Outputs["nodeRoleName"], spec["role"])
	assert.NotContains(t, spec, "instanceProfile")

	pool := r.Get("karpenter-nodepool-default").Inputs
	assert.Equal(t, "karpenter.sh/v1", pool["apiVersion"])
	assert.Equal(t, "NodePool", pool["kind"])
	ps := pool["spec"].(map[string]any)
	tmpl := rendertest.Dig(ps, "template", "spec").(map[string]any)
	assert.Equal(t, map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}, tmpl["nodeClassRef"])
	assert.Equal(t, "720h", tmpl["expireAfter"])
	assert.ElementsMatch(t, []any{
		map[string]any{"key": "kubernetes.io/os", "operator": "In", "values": []any{"linux"}},
		map[string]any{"key": "kubernetes.io/arch", "operator": "In", "values": []any{"amd64"}},
		map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"on-demand"}},
		map[string]any{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": []any{"c", "m", "r"}},
		map[string]any{"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": []any{"2"}},
	}, tmpl["requirements"])
	assert.Equal(t, map[string]any{"cpu": "1000"}, ps["limits"])
	assert.Equal(t, map[string]any{"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "1m"}, ps["disruption"])
}

func TestOutputsArePlainValues(t *testing.T) {
	r := rendertest.Default(t)
	hex7 := `-[0-9a-f]{7}$`
	for key, pattern := range map[string]string{
		"controllerRoleArn":     `^arn:aws:iam::123456789012:role/karpenter-controller` + hex7,
		"controllerRoleName":    `^karpenter-controller` + hex7,
		"nodeRoleArn":           `^arn:aws:iam::123456789012:role/karpenter-node` + hex7,
		"nodeRoleName":          `^karpenter-node` + hex7,
		"instanceProfileName":   `^karpenter-node-profile` + hex7,
		"interruptionQueueName": `^karpenter-interruption` + hex7,
		"interruptionQueueArn":  `^arn:aws:sqs:us-west-2:123456789012:karpenter-interruption` + hex7,
		"interruptionQueueUrl":  `^https://sqs.us-west-2.amazonaws.com/123456789012/karpenter-interruption` + hex7,
		"namespace":             `^kube-system$`,
		"serviceAccountName":    `^karpenter$`,
		"releaseName":           `^karpenter$`,
		"crdReleaseName":        `^karpenter-crd$`,
		"version":               `^1\.15\.2$`,
	} {
		v, ok := r.Outputs[key].(string)
		require.True(t, ok, "%s is a string, got %#v", key, r.Outputs[key])
		assert.Regexp(t, regexp.MustCompile(pattern), v, key)
	}
	assert.Len(t, r.Outputs["controllerPolicyArns"], 6)
	assert.Equal(t, []any{"default"}, r.Outputs["nodePoolNames"])
	assert.Equal(t, []any{"default"}, r.Outputs["nodeClassNames"])
}

func TestRenderIsDeterministic(t *testing.T) {
	first, err := rendertest.JSON(context.Background(), []byte(rendertest.RichArgs(t)))
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		again, err := rendertest.JSON(context.Background(), []byte(rendertest.RichArgs(t)))
		require.NoError(t, err)
		require.Equal(t, string(first), string(again), "render %d differs", i)
	}
}

func TestPhysicalNamesDependOnStackAndComponent(t *testing.T) {
	a := rendertest.Default(t)
	b := rendertest.Args(t, argstest.WithDefaults(t, `{"stack":"prod"}`))
	c := rendertest.Args(t, argstest.WithDefaults(t, `{"name":"other"}`))
	assert.NotEqual(t, a.Outputs["nodeRoleName"], b.Outputs["nodeRoleName"], "two stacks in one account never collide")
	assert.NotEqual(t, a.Outputs["interruptionQueueName"], b.Outputs["interruptionQueueName"])
	assert.Regexp(t, `^other-node-[0-9a-f]{7}$`, c.Outputs["nodeRoleName"])
	assert.True(t, c.Has("other-release"))
}

// The golden files pin the complete render: a change to any child's inputs shows up in
// review as a diff of testdata/golden. Regenerate with `go test ./provider -run Golden -update`.
func TestGoldenRenders(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "args", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			got, err := rendertest.JSON(context.Background(), data)
			require.NoError(t, err)
			golden := filepath.Join("testdata", "golden", name[:len(name)-len(filepath.Ext(name))]+".json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, got, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "missing golden file; run with -update and review it")
			assert.Equal(t, string(want), string(got))
		})
	}
}

// getRegion answers `name` in pulumi-aws v6 and `region` (plus a deprecated `name`) in v7;
// the invoke goes to whichever aws provider the program passes. Every shape must give the
// same regional ARNs, and an answer with neither must fail rather than build empty ARNs.
func TestRegionFromEitherGetRegionShape(t *testing.T) {
	parsed, err := rendertest.ParseArgs([]byte(argstest.DefaultArgs))
	require.NoError(t, err)
	var queueArns []any
	for _, shape := range []string{"v6", "v7", "v7-no-name"} {
		out, err := rendertest.RenderWith(t.Context(), parsed, &render.Mocks{RegionShape: shape})
		require.NoError(t, err, shape)
		arn := out.Outputs["interruptionQueueArn"]
		assert.Regexp(t, `^arn:aws:sqs:us-west-2:123456789012:`, arn, shape)
		queueArns = append(queueArns, arn)
	}
	assert.Equal(t, queueArns[0], queueArns[1])
	assert.Equal(t, queueArns[0], queueArns[2])

	_, err = rendertest.RenderWith(t.Context(), parsed, &render.Mocks{RegionShape: "empty"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `region ""`)
}
