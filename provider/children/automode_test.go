package children_test

import (
	"encoding/json"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Expectations come from the Amazon EKS User Guide ("UG <page>":
// https://docs.aws.amazon.com/eks/latest/userguide/<page>.html), not from the catalog: a wrong
// entry there must fail here.

func types(r *rendertest.Rendered) []string {
	var out []string
	for _, res := range r.Resources {
		out = append(out, res.Type)
	}
	sort.Strings(out)
	return out
}

func TestAutoModeCreatesNodeAccessAndProvisioningOnly(t *testing.T) {
	r := rendertest.Args(t, argstest.AutoModeArgs)
	assert.Equal(t, []string{
		"aws:eks/accessEntry:AccessEntry",
		"aws:eks/accessPolicyAssociation:AccessPolicyAssociation",
		"aws:iam/role:Role",
		"aws:iam/rolePolicyAttachment:RolePolicyAttachment",
		"aws:iam/rolePolicyAttachment:RolePolicyAttachment",
		"kubernetes:eks.amazonaws.com/v1:NodeClass",
		"kubernetes:karpenter.sh/v1:NodePool",
	}, types(r), "no controller, CRD release, controller IAM, queue, rules or instance profile")

	// UG auto-create-node-role: the two managed policies, and nothing Karpenter's node role has besides.
	var policies []string
	for _, a := range r.ByType("aws:iam/rolePolicyAttachment:RolePolicyAttachment") {
		policies = append(policies, a.Inputs["policyArn"].(string))
	}
	assert.ElementsMatch(t, []string{
		"arn:aws:iam::aws:policy/AmazonEKSWorkerNodeMinimalPolicy",
		"arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
	}, policies)
	assert.Contains(t, r.Get("karpenter-node").Inputs["assumeRolePolicy"], `"Service":"ec2.amazonaws.com"`)

	// UG create-node-class, auto-cluster-iam-role: an EC2 entry (not EC2_LINUX) and the AmazonEKSAutoNodePolicy association, cluster scope.
	roleArn := "arn:aws:iam::123456789012:role/" + r.Get("karpenter-node").Inputs["name"].(string)
	entry := r.Get("karpenter-node-access")
	assert.Equal(t, "EC2", entry.Inputs["type"])
	assert.Equal(t, roleArn, entry.Inputs["principalArn"])
	assoc := r.Get("karpenter-node-access-policy")
	assert.Equal(t, "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy", assoc.Inputs["policyArn"])
	assert.Equal(t, map[string]any{"type": "cluster"}, assoc.Inputs["accessScope"])
	assert.Equal(t, roleArn, assoc.Inputs["principalArn"])
	assert.Equal(t, "demo", assoc.Inputs["clusterName"])

	// Nodes never launch before they can join: the class and pool wait for the entry and its policy.
	for _, name := range []string{"karpenter-nodeclass-auto-default", "karpenter-nodepool-auto-default"} {
		assert.Subset(t, r.Get(name).DependsOn, []string{"karpenter-node-access", "karpenter-node-access-policy", "karpenter-node-minimal", "karpenter-node-ecr"}, name)
	}

	outputs := r.Outputs
	assert.Equal(t, "autoMode", outputs["mode"])
	for _, empty := range []string{"version", "releaseName", "crdReleaseName", "controllerRoleArn", "interruptionQueueName", "namespace", "serviceAccountName", "instanceProfileName"} {
		assert.Equal(t, "", outputs[empty], empty)
	}
	assert.Equal(t, roleArn, outputs["nodeRoleArn"])
}

func TestAutoModeDefaultClassAndPool(t *testing.T) {
	r := rendertest.Args(t, argstest.AutoModeArgs)
	class := r.Get("karpenter-nodeclass-auto-default").Inputs
	assert.Equal(t, "eks.amazonaws.com/v1", class["apiVersion"])
	assert.Equal(t, "NodeClass", class["kind"])
	spec := class["spec"].(map[string]any)
	// UG create-node-class, auto-networking defaults, written out; the role is the component's node role, by name.
	assert.Equal(t, map[string]any{"size": "80Gi", "iops": float64(3000), "throughput": float64(125)}, spec["ephemeralStorage"])
	assert.Equal(t, "DefaultAllow", spec["networkPolicy"])
	assert.Equal(t, "Disabled", spec["networkPolicyEventLogs"])
	assert.Equal(t, "Random", spec["snatPolicy"])
	assert.Equal(t, r.Get("karpenter-node").Inputs["name"], spec["role"])
	for _, gone := range []string{"amiSelectorTerms", "amiFamily", "kubelet", "blockDeviceMappings", "metadataOptions"} {
		assert.NotContains(t, spec, gone)
	}

	pool := r.Get("karpenter-nodepool-auto-default").Inputs["spec"].(map[string]any)
	tmpl := rendertest.Dig(pool, "template", "spec").(map[string]any)
	assert.Equal(t, map[string]any{"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "auto-default"}, tmpl["nodeClassRef"])
	assert.Equal(t, "336h", tmpl["expireAfter"], "UG create-node-pool: Auto Mode's default, within its 21-day limit")
	raw, _ := json.Marshal(tmpl["requirements"])
	assert.NotContains(t, string(raw), "karpenter.k8s.aws", "UG automode-learn-instances: Auto Mode labels its nodes under eks.amazonaws.com")
	assert.NotContains(t, string(raw), "kubernetes.io/os", "UG automode-learn-instances: not a supported Auto Mode label")
	assert.Contains(t, string(raw), `"eks.amazonaws.com/instance-category"`)
}

func TestAutoModeNodeAccess(t *testing.T) {
	t.Run("awsAuth cannot admit Auto Mode nodes", func(t *testing.T) {
		assert.Contains(t, rendertest.Error(t, argstest.AutoModeWith(t, `{"nodeAccess":"awsAuth"}`)), "nodeAccess: awsAuth does not admit Auto Mode nodes")
	})
	t.Run("CONFIG_MAP clusters cannot run Auto Mode", func(t *testing.T) {
		assert.Contains(t, rendertest.Error(t, argstest.AutoModeWith(t, `{"clusterAuthenticationMode":"CONFIG_MAP"}`)), "clusterAuthenticationMode:")
	})
	t.Run("nodeRoleArn still gets its entry, under its own ARN", func(t *testing.T) {
		r := rendertest.Args(t, argstest.AutoModeWith(t, `{"nodeRoleArn":"arn:aws:iam::123456789012:role/teams/AmazonEKSAutoNodeRole"}`))
		assert.False(t, r.Has("karpenter-node"))
		assert.Equal(t, "arn:aws:iam::123456789012:role/teams/AmazonEKSAutoNodeRole", r.Get("karpenter-node-access").Inputs["principalArn"])
		assert.Equal(t, "AmazonEKSAutoNodeRole", rendertest.Dig(r.Get("karpenter-nodeclass-auto-default").Inputs, "spec", "role"), "a NodeClass takes the role's name")
	})
	t.Run("none: the entry EKS created for the cluster's node role", func(t *testing.T) {
		r := rendertest.Args(t, argstest.AutoModeWith(t, `{"nodeRoleArn":"arn:aws:iam::123456789012:role/AmazonEKSAutoNodeRole","nodeAccess":"none"}`))
		assert.Empty(t, r.ByType("aws:eks/accessEntry:AccessEntry"))
		assert.Empty(t, r.ByType("aws:eks/accessPolicyAssociation:AccessPolicyAssociation"))
	})
	t.Run("a class with its own role gets an entry for that role", func(t *testing.T) {
		r := rendertest.Args(t, argstest.AutoModeWith(t, `{"nodeClasses":[{"name":"general"},{"name":"gpu","role":"gpu-nodes"}],"nodePools":[{"name":"gpu","nodeClassRef":"gpu"}]}`))
		assert.Equal(t, "arn:aws:iam::123456789012:role/gpu-nodes", r.Get("karpenter-nodeclass-gpu-access").Inputs["principalArn"])
		assert.Equal(t, "EC2", r.Get("karpenter-nodeclass-gpu-access").Inputs["type"])
		assert.Equal(t, "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy", r.Get("karpenter-nodeclass-gpu-access-policy").Inputs["policyArn"])
		assert.Subset(t, r.Get("karpenter-nodepool-gpu").DependsOn, []string{"karpenter-nodeclass-gpu-access", "karpenter-nodeclass-gpu-access-policy"})
	})
	t.Run("two classes cannot share a custom role (one entry per principal)", func(t *testing.T) {
		msg := rendertest.Error(t, argstest.AutoModeWith(t, `{"nodeClasses":[{"name":"a","role":"shared"},{"name":"b","role":"shared"}],"nodePools":[{"name":"a","nodeClassRef":"a"}]}`))
		assert.Contains(t, msg, "nodeClasses[1].role: arn:aws:iam::123456789012:role/shared is also nodeClasses[0].role's role")
	})
	t.Run("a role ARN where a NodeClass wants a name", func(t *testing.T) {
		msg := rendertest.Error(t, argstest.AutoModeWith(t, `{"nodeClasses":[{"name":"a","role":"arn:aws:iam::123456789012:role/x"}]}`))
		assert.Contains(t, msg, `nodeClasses[0].role: "arn:aws:iam::123456789012:role/x" is an ARN; an EKS Auto Mode NodeClass takes the role's name (x)`)
	})
}

func TestAutoModePoolLabels(t *testing.T) {
	pool := func(req string) string {
		return argstest.AutoModeWith(t, `{"nodePools":[{"name":"p","requirements":[`+req+`]}]}`)
	}
	t.Run("eks.amazonaws.com keys UG automode-learn-instances documents are accepted", func(t *testing.T) {
		for _, key := range []string{"eks.amazonaws.com/instance-gpu-count", "eks.amazonaws.com/instance-family", "eks.amazonaws.com/compute-type", "eks.amazonaws.com/instance-local-nvme", "topology.kubernetes.io/zone", "karpenter.sh/capacity-type", "node.kubernetes.io/instance-type"} {
			rendertest.Args(t, pool(`{"key":"`+key+`","operator":"Exists"}`))
		}
	})
	t.Run("a karpenter.k8s.aws key names its Auto Mode equivalent", func(t *testing.T) {
		msg := rendertest.Error(t, pool(`{"key":"karpenter.k8s.aws/instance-family","operator":"In","values":["g6"]}`))
		assert.Contains(t, msg, `nodePools[0].requirements[0].key: "karpenter.k8s.aws/instance-family" is self-managed Karpenter's label; EKS Auto Mode labels its nodes "eks.amazonaws.com/instance-family"`)
		msg = rendertest.Error(t, pool(`{"key":"karpenter.k8s.aws/capacity-reservation-id","operator":"Exists"}`))
		assert.Contains(t, msg, "has no equivalent")
	})
	t.Run("the eks.amazonaws.com domain and its subdomains are restricted", func(t *testing.T) {
		msg := rendertest.Error(t, pool(`{"key":"ai.eks.amazonaws.com/amiFamily","operator":"Exists"}`))
		assert.Contains(t, msg, `nodePools[0].requirements[0].key: label domain "eks.amazonaws.com" is restricted`)
		msg = rendertest.Error(t, argstest.AutoModeWith(t, `{"nodePools":[{"name":"p","labels":{"eks.amazonaws.com/team":"a"}}]}`))
		assert.Contains(t, msg, `nodePools[0].labels["eks.amazonaws.com/team"]: label domain "eks.amazonaws.com" is restricted`)
	})
	t.Run("Linux only", func(t *testing.T) {
		assert.Contains(t, rendertest.Error(t, pool(`{"key":"kubernetes.io/os","operator":"In","values":["linux"]}`)), "Auto Mode runs Linux nodes only")
	})
	t.Run("operators Auto Mode's NodePool API does not serve", func(t *testing.T) {
		msg := rendertest.Error(t, pool(`{"key":"eks.amazonaws.com/instance-cpu","operator":"Gte","values":["4"]}`))
		assert.Contains(t, msg, "nodePools[0].requirements[0].operator: needs the Gte and Lte requirement operators, which EKS Auto Mode does not serve")
	})
	t.Run("EKS's built-in pool names", func(t *testing.T) {
		for _, name := range []string{"system", "general-purpose"} {
			assert.Contains(t, rendertest.Error(t, argstest.AutoModeWith(t, `{"nodePools":[{"name":"`+name+`"}]}`)), "is an EKS built-in pool")
		}
		assert.Contains(t, rendertest.Error(t, argstest.AutoModeWith(t, `{"nodeClasses":[{"name":"default"}]}`)), `nodeClasses[0].name: "default" is EKS's built-in NodeClass`)
	})
}

func TestAutoModeNodeLifetime(t *testing.T) {
	pool := func(fields string) string {
		return argstest.AutoModeWith(t, `{"nodePools":[{"name":"p",`+fields+`}]}`)
	}
	assert.Contains(t, rendertest.Error(t, pool(`"expireAfter":"Never"`)), "nodePools[0].expireAfter: EKS Auto Mode does not allow Never")
	// UG create-node-pool: expireAfter + terminationGracePeriod ≤ 504h, with the 24h default grace period.
	assert.Contains(t, rendertest.Error(t, pool(`"expireAfter":"481h"`)), "nodePools[0].expireAfter: 481h plus terminationGracePeriod 24h is more than EKS Auto Mode's 504h")
	rendertest.Args(t, pool(`"expireAfter":"480h"`))
	assert.Contains(t, rendertest.Error(t, pool(`"expireAfter":"400h","terminationGracePeriod":"105h"`)), "400h plus terminationGracePeriod 105h")
	rendertest.Args(t, pool(`"expireAfter":"400h","terminationGracePeriod":"104h"`))
	// Self-managed Karpenter has no such limit.
	rendertest.Args(t, argstest.WithDefaults(t, `{"nodePools":[{"name":"p","expireAfter":"Never"}]}`))
}

func TestAutoModeDisruption(t *testing.T) {
	budgets := func(reason string) string {
		return argstest.AutoModeWith(t, `{"nodePools":[{"name":"p","disruption":{"budgets":[{"nodes":"1","reasons":["`+reason+`"]}]}}]}`)
	}
	rendertest.Args(t, budgets("NodeNotHealthy"))
	assert.Contains(t, rendertest.Error(t, budgets("Unhealthy")), "nodePools[0].disruption.budgets[0].reasons[0]: EKS Auto Mode names node repair NodeNotHealthy")
	assert.Contains(t, rendertest.Error(t, argstest.WithDefaults(t, `{"nodePools":[{"name":"p","disruption":{"budgets":[{"nodes":"1","reasons":["NodeNotHealthy"]}]}}]}`)), "reasons[0]")
	// Balanced (2026-07) and static pools (2025-11) are served.
	r := rendertest.Args(t, argstest.AutoModeWith(t, `{"nodePools":[{"name":"b","disruption":{"consolidationPolicy":"Balanced"}},{"name":"s","replicas":3,"limits":{"nodes":"5"}}]}`))
	assert.Equal(t, "Balanced", rendertest.Dig(r.Get("karpenter-nodepool-b").Inputs, "spec", "disruption", "consolidationPolicy"))
	assert.Equal(t, float64(3), rendertest.Dig(r.Get("karpenter-nodepool-s").Inputs, "spec", "replicas"))
}

func TestAutoModeStandaloneResources(t *testing.T) {
	class := rendertest.Args(t, `{"type":"karpenter:index:NodeClass","name":"team-a","mode":"autoMode","clusterName":"demo","spec":{"name":"team-a","role":"AmazonEKSAutoNodeRole","ephemeralStorage":{"size":"200Gi"}}}`)
	require.Len(t, class.Resources, 1)
	res := class.Resources[0]
	assert.Equal(t, "kubernetes:eks.amazonaws.com/v1:NodeClass", res.Type)
	assert.Equal(t, "200Gi", rendertest.Dig(res.Inputs, "spec", "ephemeralStorage", "size"))
	assert.Equal(t, "", class.Outputs["version"])

	pool := rendertest.Args(t, `{"type":"karpenter:index:NodePool","name":"team-a","mode":"autoMode","spec":{"name":"team-a","nodeClassRef":"team-a"}}`)
	require.Len(t, pool.Resources, 1)
	assert.Equal(t, map[string]any{"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "team-a"}, rendertest.Dig(pool.Resources[0].Inputs, "spec", "template", "spec", "nodeClassRef"))

	assert.Contains(t, rendertest.Error(t, `{"type":"karpenter:index:NodeClass","mode":"autoMode","clusterName":"demo","spec":{"name":"a"}}`), "spec.role: required")
	assert.Contains(t, rendertest.Error(t, `{"type":"karpenter:index:NodePool","mode":"autoMode","version":"1.15.1","spec":{"name":"a","nodeClassRef":"a"}}`), "version: not used with mode autoMode")
	assert.Contains(t, rendertest.Error(t, `{"type":"karpenter:index:NodePool","mode":"autoMode","spec":{"name":"a","nodeClassRef":"a","requirements":[{"key":"karpenter.k8s.aws/instance-gpu-count","operator":"Exists"}]}}`), `"eks.amazonaws.com/instance-gpu-count"`)
	assert.Contains(t, rendertest.Error(t, `{"type":"karpenter:index:NodeClass","clusterName":"demo","spec":{"name":"a","role":"r","snatPolicy":"Disabled"}}`), "spec.snatPolicy: an EKS Auto Mode NodeClass field")
	assert.Contains(t, rendertest.Error(t, `{"mode":"automode","clusterName":"demo"}`), "mode:")
}

// The migration from self-managed Karpenter to Auto Mode (docs/auto-mode.md, Migrating to EKS Auto Mode;
// UG auto-migrate-karpenter), one render per step, as the two components' inputs change.
func TestMigrationToAutoMode(t *testing.T) {
	const karpenter = `"name":"karpenter","clusterName":"demo","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE"`
	const auto = `"name":"auto","mode":"autoMode","clusterName":"demo","defaultNodePool":false,"nodeClasses":[{"name":"auto"}]`
	const autoPool = `{"name":"auto-general","nodeClassRef":"auto","requirements":[{"key":"eks.amazonaws.com/instance-category","operator":"In","values":["c","m","r"]}]`
	const taint = `,"taints":[{"key":"eks-auto-mode","effect":"NoSchedule"}]`

	// Step 0: self-managed Karpenter, as installed today.
	before := rendertest.Args(t, `{`+karpenter+`}`)
	require.True(t, before.Has("karpenter-crd-release"))

	// Step 2: a second component, mode autoMode, adds a tainted Auto Mode pool beside
	// Karpenter's; the self-managed component's inputs do not change.
	step2 := rendertest.Args(t, `{`+auto+`,"nodePools":[`+autoPool+taint+`}]}`)
	assert.ElementsMatch(t, []string{"auto-node", "auto-node-access", "auto-node-access-policy", "auto-node-ecr", "auto-node-minimal", "auto-nodeclass-auto", "auto-nodepool-auto-general"}, step2.Names())
	assert.Equal(t, []any{map[string]any{"key": "eks-auto-mode", "effect": "NoSchedule"}}, rendertest.Dig(step2.Get("auto-nodepool-auto-general").Inputs, "spec", "template", "spec", "taints"))
	for _, res := range step2.Resources {
		assert.False(t, strings.HasPrefix(res.Name, "karpenter"), "the Auto Mode component names nothing the self-managed one owns: %s", res.Name)
	}

	// Step 5: Karpenter's pools go (while its controller still runs, so it drains their nodes).
	step5 := rendertest.Args(t, `{`+karpenter+`,"defaultNodePool":false}`)
	assert.Empty(t, step5.ByType("kubernetes:karpenter.sh/v1:NodePool"))
	assert.Empty(t, step5.ByType("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"))
	assert.True(t, step5.Has("karpenter-release"), "the controller stays until its nodes are gone")

	// Step 6: the Auto Mode pool loses its taint.
	step6 := rendertest.Args(t, `{`+auto+`,"nodePools":[`+autoPool+`}]}`)
	assert.Nil(t, rendertest.Dig(step6.Get("auto-nodepool-auto-general").Inputs, "spec", "template", "spec", "taints"))

	// Step 8a: retainCrdsOnDelete marks the CRD release to be kept; nothing else changes.
	step8a := rendertest.Args(t, `{`+karpenter+`,"defaultNodePool":false,"retainCrdsOnDelete":true}`)
	assert.Equal(t, step5.Names(), step8a.Names())
	for _, res := range step8a.Resources {
		assert.Equal(t, res.Name == "karpenter-crd-release", res.RetainOnDelete, res.Name)
		assert.Equal(t, step5.Get(res.Name).Inputs, res.Inputs, "%s: setting retainCrdsOnDelete changes nothing in the cluster", res.Name)
	}

	// Step 8b: removing the self-managed component deletes everything but the retained CRD
	// release, so the shared CRDs — and every Auto Mode NodePool — stay.
	var deleted []string
	for _, res := range step8a.Resources {
		if !res.RetainOnDelete {
			deleted = append(deleted, res.Type)
		}
	}
	assert.Contains(t, deleted, "kubernetes:helm.sh/v3:Release", "the controller release is uninstalled")
	assert.Equal(t, 1, len(step8a.Resources)-len(deleted), "only the CRD release is kept")
	assert.True(t, slices.ContainsFunc(step8a.Resources, func(r format.Resource) bool {
		return r.Name == "karpenter-crd-release" && r.RetainOnDelete
	}))

	// Flipping mode on the self-managed component itself is not the path: without
	// retainCrdsOnDelete its CRD release would be uninstalled, and with it the shared CRDs.
	flipped := rendertest.Args(t, `{"name":"karpenter","mode":"autoMode","clusterName":"demo"}`)
	assert.False(t, flipped.Has("karpenter-crd-release"))
}

func TestRetainCrdsOnDeleteNeedsTheCrdRelease(t *testing.T) {
	assert.Contains(t, rendertest.Error(t, argstest.WithDefaults(t, `{"installCrds":false,"retainCrdsOnDelete":true}`)), "retainCrdsOnDelete: only for the karpenter-crd release")
	assert.Contains(t, rendertest.Error(t, argstest.WithDefaults(t, `{"version":"0.31.0","retainCrdsOnDelete":true}`)), "retainCrdsOnDelete:")
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"retainCrdsOnDelete":true}`))
	assert.True(t, r.Get("karpenter-crd-release").RetainOnDelete)
	assert.False(t, r.Get("karpenter-release").RetainOnDelete)
}

// The args file of the Auto Mode golden render is also what the harness installs on the
// Auto Mode CRDs; keep it parseable and complete.
func TestAutoModeGoldenArgsUseEveryAutoModeField(t *testing.T) {
	data, err := os.ReadFile(rendertest.Testdata("args", "automode.yaml"))
	require.NoError(t, err)
	for _, f := range inputs.AutoModeOnlyFields {
		assert.Contains(t, string(data), f.Name+":", "testdata/args/automode.yaml sets no %s", f.Name)
	}
}

// A valid Auto Mode class that needs something outside the component (the cluster role's tag
// permissions, the KMS key policy) or changes other classes (capacity reservations) is said as
// a warning on the component at every preview; an EC2NodeClass with the same tags is not.
func TestAutoModeClassWarnings(t *testing.T) {
	warnings := func(args string) []string { return rendertest.Warnings(t, args) }
	got := warnings(argstest.AutoModeWith(t, `{"nodeClasses":[{"name":"a","tags":{"team":"a"},"ephemeralStorage":{"kmsKeyID":"alias/k"},"capacityReservationSelectorTerms":[{"id":"cr-0123456789abcdef0"}]}]}`))
	require.Len(t, got, 3)
	assert.Contains(t, got[0], "nodeClasses[0].tags: EKS Auto Mode applies them only if the cluster's IAM role may tag")
	assert.Contains(t, got[1], "nodeClasses[0].ephemeralStorage.kmsKeyID: the key policy must let the cluster's IAM role use the key")
	assert.Contains(t, got[2], "nodeClasses[0].capacityReservationSelectorTerms: while any NodeClass selects capacity reservations")
	assert.Empty(t, warnings(argstest.AutoModeArgs))
	assert.Empty(t, warnings(argstest.WithDefaults(t, `{"nodeClasses":[{"name":"a","tags":{"team":"a"}}]}`)))
	standalone := warnings(`{"type":"karpenter:index:NodeClass","name":"karpenter","mode":"autoMode","clusterName":"demo","spec":{"name":"a","role":"r","tags":{"team":"a"}}}`)
	require.Len(t, standalone, 1)
	assert.Contains(t, standalone[0], "spec.tags: EKS Auto Mode applies them only if")
}

// An Auto Mode Spot pool needs nothing of the account: EKS creates the Spot service-linked role
// through the cluster role's AmazonEKSComputePolicy. A self-managed one in the same account is
// refused without it.
func TestAutoModeSpotNeedsNoServiceLinkedRole(t *testing.T) {
	spot := `{"nodePools":[{"name":"spot","requirements":[{"key":"karpenter.sh/capacity-type","operator":"In","values":["spot"]}]}]}`
	rendertest.Args(t, argstest.Merge(t, argstest.AutoModeWith(t, spot), `{"cluster":{"autoMode":true,"noSpotServiceLinkedRole":true}}`))
	assert.Contains(t, rendertest.Error(t, rendertest.WithCluster(t, `{"noSpotServiceLinkedRole":true}`, spot)), "allows Spot, and this account has no AWSServiceRoleForEC2Spot service-linked role")
}
