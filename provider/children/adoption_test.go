package children_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A getting-started install of 1.14.1 on cluster demo (argstest.AdoptGettingStarted), adopted
// with its rule names: every child of it is imported by the id pulumi-aws and pulumi-kubernetes
// document, under its existing name.
func TestAdoptionImportsEveryChildOfTheInstall(t *testing.T) {
	r := rendertest.Args(t, argstest.AdoptGettingStarted)
	policy := func(name string) string { return "arn:aws:iam::123456789012:policy/" + name }
	aws := func(name string) string { return "arn:aws:iam::aws:policy/" + name }
	imported := map[string]string{
		// The template's node role and its four managed policies.
		"karpenter-node":        "KarpenterNodeRole-demo",
		"karpenter-node-worker": "KarpenterNodeRole-demo/" + aws("AmazonEKSWorkerNodePolicy"),
		"karpenter-node-cni":    "KarpenterNodeRole-demo/" + aws("AmazonEKS_CNI_Policy"),
		"karpenter-node-ecr":    "KarpenterNodeRole-demo/" + aws("AmazonEC2ContainerRegistryPullOnly"),
		"karpenter-node-ssm":    "KarpenterNodeRole-demo/" + aws("AmazonSSMManagedInstanceCore"),
		"karpenter-node-access": "demo:arn:aws:iam::123456789012:role/KarpenterNodeRole-demo",
		// The queue the template names after the cluster, its policy, rules and targets.
		"karpenter-interruption":                "https://sqs.us-west-2.amazonaws.com/123456789012/demo",
		"karpenter-interruption-policy":         "https://sqs.us-west-2.amazonaws.com/123456789012/demo",
		"karpenter-scheduled-change":            "Karpenter-demo-ScheduledChangeRule-1A2B3C4D5E6F",
		"karpenter-scheduled-change-target":     "Karpenter-demo-ScheduledChangeRule-1A2B3C4D5E6F/KarpenterInterruptionQueueTarget",
		"karpenter-capacity-reservation-target": "Karpenter-demo-CapacityReservationInterruptionRule-5E6F7A8B/KarpenterInterruptionQueueTarget",
		// eksctl's controller role with the template's six policies, and its association.
		"karpenter-controller":                           "demo-karpenter",
		"karpenter-controller-node-lifecycle":            policy("KarpenterControllerNodeLifecyclePolicy-demo"),
		"karpenter-controller-node-lifecycle-attach":     "demo-karpenter/" + policy("KarpenterControllerNodeLifecyclePolicy-demo"),
		"karpenter-controller-zonal-shift":               policy("KarpenterControllerZonalShiftPolicy-demo"),
		"karpenter-controller-resource-discovery-attach": "demo-karpenter/" + policy("KarpenterControllerResourceDiscoveryPolicy-demo"),
		"karpenter-pod-identity":                         "demo,a-0123456789abcdef0",
		// helm install karpenter -n kube-system, and the guide's NodePool and EC2NodeClass.
		"karpenter-release":           "kube-system/karpenter",
		"karpenter-nodepool-default":  "default",
		"karpenter-nodeclass-default": "default",
	}
	for name, id := range imported {
		assert.Equal(t, id, r.Get(name).ImportID, name)
	}
	assert.Equal(t, []string{"description", "path"}, r.Get("karpenter-controller-interruption").IgnoreChanges, "IAM cannot change a policy's description or path")
	assert.Equal(t, "KarpenterControllerEKSIntegrationPolicy-demo", r.Get("karpenter-controller-eks-integration").String("name"))
	assert.Equal(t, "demo", r.Get("karpenter-release").String("values.settings.interruptionQueue"), "the controller keeps reading the install's queue")

	// The only children created: the CRD release and the patches that hand it the install's CRDs,
	// and the instance profile the component makes by default (the 1.x template makes none, and
	// this install was not made before 0.32; createInstanceProfile: false leaves it out).
	r = rendertest.Args(t, adoptWithCluster(t, `{"absent":["KarpenterNodeInstanceProfile-demo"]}`))
	var created, read []string
	for _, res := range r.Resources {
		switch {
		case res.IsRead():
			read = append(read, res.Name)
		case res.ImportID == "":
			created = append(created, res.Name)
		}
	}
	// Read first: which release holds the install's CRDs (none: they came with the controller
	// chart's crds/ directory), the running release's values, which the preview compares
	// with the component's, and the pool and class as they run (checked for drift).
	assert.ElementsMatch(t, []string{"karpenter-crd-current", "karpenter-release-running", "karpenter-nodepool-default-current", "karpenter-nodeclass-default-current"}, read)
	// 1.14.1's karpenter-crd chart has five CRDs (tests/harness checks the catalog's list against
	// each chart).
	crds := []string{"capacitybuffers.autoscaling.x-k8s.io", "ec2nodeclasses.karpenter.k8s.aws", "nodeclaims.karpenter.sh", "nodeoverlays.karpenter.sh", "nodepools.karpenter.sh"}
	want := []string{"karpenter-node-profile", "karpenter-crd-release"}
	for _, crd := range crds {
		want = append(want, "karpenter-crd-owner-"+crd)
	}
	assert.ElementsMatch(t, want, created)
	for _, crd := range crds {
		patch := r.Get("karpenter-crd-owner-" + crd)
		assert.Equal(t, "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinitionPatch", patch.Type)
		assert.Equal(t, crd, patch.String("metadata.name"))
		// Helm installs karpenter-crd over an object only with its ownership metadata.
		labels, _ := format.Lookup(patch.Inputs, "metadata.labels").(map[string]any)
		annotations, _ := format.Lookup(patch.Inputs, "metadata.annotations").(map[string]any)
		assert.Equal(t, "Helm", labels["app.kubernetes.io/managed-by"])
		assert.Equal(t, map[string]any{"meta.helm.sh/release-name": "karpenter-crd", "meta.helm.sh/release-namespace": "kube-system"}, annotations)
		assert.True(t, patch.RetainOnDelete)
		assert.Contains(t, r.Get("karpenter-crd-release").DependsOn, patch.Name, "the release waits for the hand-over")
	}
}

// Without adopt, nothing is imported.
func TestNoImportWithoutAdopt(t *testing.T) {
	r := rendertest.Default(t)
	for _, res := range r.Resources {
		assert.Empty(t, res.ImportID, res.Name)
		assert.False(t, strings.Contains(res.Name, "crd-owner"), res.Name)
	}
}

func TestAdoptionRefusedWhenRulesAreNotNamed(t *testing.T) {
	msg := rendertest.Error(t, `{"clusterName":"demo","version":"1.14.1","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE","adopt":{}}`)
	require.Contains(t, msg, `adopt.interruptionRuleNames["scheduledChange"]: required`)
}

// A rule named "" is one the install lacks: created under the component's name, not imported.
func TestAdoptionCreatesTheRuleTheInstallLacks(t *testing.T) {
	r := rendertest.Args(t, strings.Replace(argstest.AdoptGettingStarted, `"Karpenter-demo-CapacityReservationInterruptionRule-5E6F7A8B"`, `""`, 1))
	rule := r.Get("karpenter-capacity-reservation")
	assert.Empty(t, rule.ImportID)
	assert.Regexp(t, `^karpenter-capacity-reservation-[0-9a-f]{7}$`, rule.String("name"))
	assert.Empty(t, r.Get("karpenter-capacity-reservation-target").ImportID)
	assert.Equal(t, "Karpenter-demo-RebalanceRule-3C4D5E6F7A8B", r.Get("karpenter-rebalance").ImportID)
}

// adoptWithCluster is the getting-started adoption rendered against a cluster that holds
// what cluster (render's Cluster fields) says.
func adoptWithCluster(t *testing.T, cluster string) string {
	t.Helper()
	return argstest.Merge(t, argstest.AdoptGettingStarted, `{"cluster":`+cluster+`}`)
}

// An install whose CRDs a karpenter-crd release holds (Karpenter's upgrade guide installs them
// with `helm upgrade --install karpenter-crd`) has that release imported, not created beside it
// (Helm: "cannot re-use a name that is still in use"); the hand-over patches, which set the
// ownership the CRDs already have, are the same as for an install whose CRDs no release holds,
// so the preview after the adopting `up` (the CRDs then the release's) has nothing to do. CRDs
// another release holds are refused with the ways out.
func TestAdoptionTakesOverAnExistingCrdRelease(t *testing.T) {
	none := rendertest.Args(t, adoptWithCluster(t, `{}`))
	assert.Empty(t, none.Get("karpenter-crd-release").ImportID, "no release holds the CRDs: the component creates its own")
	held := rendertest.Args(t, adoptWithCluster(t, `{"crdRelease":"kube-system/karpenter-crd"}`))
	assert.Equal(t, "kube-system/karpenter-crd", held.Get("karpenter-crd-release").ImportID)
	for _, res := range none.Resources {
		if strings.HasPrefix(res.Name, "karpenter-crd-owner-") {
			assert.Equal(t, res.Inputs, held.Get(res.Name).Inputs, "the same hand-over patch %s either way", res.Name)
		}
	}

	msg := rendertest.Error(t, adoptWithCluster(t, `{"crdRelease":"platform/crds"}`))
	assert.Contains(t, msg, "adopt: the install's CRDs (capacitybuffers.autoscaling.x-k8s.io, ...) belong to the Helm release platform/crds, and the component's CRD release is kube-system/karpenter-crd")
	assert.Contains(t, msg, "or set installCrds: false and leave them to platform/crds")
}

// A value set on the running release outside the program (`helm upgrade --set
// settings.enableZonalShift=true`, as the v1.12–1.14 guides do) that the adopting upgrade would
// not set is named at preview, with the input that keeps it; set there, it is not.
func TestAdoptionNamesValuesSetOutside(t *testing.T) {
	running := `{"releaseValues":{"settings":{"clusterName":"demo","interruptionQueue":"demo","enableZonalShift":true},
		"controller":{"resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"1","memory":"1Gi"}}}}}`
	warnings := rendertest.Warnings(t, adoptWithCluster(t, running))
	var named []string
	for _, w := range warnings {
		if strings.Contains(w, "on the running release") {
			named = append(named, w)
		}
	}
	require.Len(t, named, 1, "only the value the component does not set: %q", warnings)
	assert.Contains(t, named[0], "values.settings.enableZonalShift: true on the running release kube-system/karpenter, set outside this program")
	assert.Contains(t, named[0], "the chart's default (charts/karpenter/values.yaml of 1.14.1) would apply; set values.settings.enableZonalShift to keep it")

	kept := argstest.Merge(t, adoptWithCluster(t, running), `{"values":{"settings":{"enableZonalShift":true}}}`)
	for _, w := range rendertest.Warnings(t, kept) {
		assert.NotContains(t, w, "on the running release")
	}
}

// withAdopt is args with fields set in its adopt.
func withAdopt(t *testing.T, args, fields string) string {
	t.Helper()
	var base, more map[string]any
	require.NoError(t, json.Unmarshal([]byte(args), &base))
	require.NoError(t, json.Unmarshal([]byte(fields), &more))
	adopt, _ := base["adopt"].(map[string]any)
	maps.Copy(adopt, more)
	b, err := json.Marshal(base)
	require.NoError(t, err)
	return string(b)
}

// adoptRules are the getting-started install's rule names, for versions with the capacity
// reservation rule (from 1.10) or without it.
func adoptRules(capacityReservation bool) string {
	rules := `"scheduledChange":"Karpenter-demo-ScheduledChangeRule-1A2B3C4D5E6F","spotInterruption":"Karpenter-demo-SpotInterruptionRule-2B3C4D5E6F7A","rebalance":"Karpenter-demo-RebalanceRule-3C4D5E6F7A8B","stateChange":"Karpenter-demo-InstanceStateChangeRule-4D5E6F7A8B9C"`
	if capacityReservation {
		rules += `,"capacityReservation":"Karpenter-demo-CapacityReservationInterruptionRule-5E6F7A8B"`
	}
	return rules
}

// The parts an adoption names and the account lacks are created, not imported: the preview of
// an adopted install that grows (an access entry after aws-auth, a queue it never had) would
// otherwise fail in the engine's import ("resource does not exist").
func TestAdoptionCreatesWhatTheInstallLacks(t *testing.T) {
	r := rendertest.Args(t, adoptWithCluster(t, `{"absent":["access-entry","demo","KarpenterControllerZonalShiftPolicy-demo"]}`))
	for _, name := range []string{"karpenter-node-access", "karpenter-interruption", "karpenter-interruption-policy", "karpenter-controller-zonal-shift", "karpenter-controller-zonal-shift-attach"} {
		assert.Empty(t, r.Get(name).ImportID, "%s: the install lacks it, so it is created", name)
	}
	assert.Regexp(t, `^karpenter-interruption-[0-9a-f]{7}$`, r.Get("karpenter-interruption").String("name"), "a created part has the component's name")
	assert.Regexp(t, `^karpenter-controller-zonal-shift-[0-9a-f]{7}$`, r.Get("karpenter-controller-zonal-shift").String("name"))
	assert.Equal(t, "KarpenterNodeRole-demo", r.Get("karpenter-node").ImportID, "what exists is still imported")
	assert.Equal(t, "arn:aws:iam::123456789012:policy/KarpenterControllerNodeLifecyclePolicy-demo", r.Get("karpenter-controller-node-lifecycle").ImportID)
	// The rules the install has now feed the new queue: each target is updated in place.
	assert.Equal(t, "Karpenter-demo-RebalanceRule-3C4D5E6F7A8B/KarpenterInterruptionQueueTarget", r.Get("karpenter-rebalance-target").ImportID)

	withAgent := argstest.Merge(t, adoptWithCluster(t, `{"absent":["eks-pod-identity-agent"]}`), `{"createPodIdentityAgent":true}`)
	assert.Empty(t, rendertest.Args(t, withAgent).Get("karpenter-pod-identity-agent").ImportID, "the agent turned on after adoption is installed")
	assert.Equal(t, "demo:eks-pod-identity-agent", rendertest.Args(t, argstest.Merge(t, adoptWithCluster(t, `{}`), `{"createPodIdentityAgent":true}`)).Get("karpenter-pod-identity-agent").ImportID)

	spot := `{"createSpotServiceLinkedRole":true}`
	assert.Empty(t, rendertest.Args(t, argstest.Merge(t, adoptWithCluster(t, `{"noSpotServiceLinkedRole":true}`), spot)).Get("karpenter-spot-service-linked-role").ImportID)
	assert.Equal(t, "arn:aws:iam::123456789012:role/aws-service-role/spot.amazonaws.com/AWSServiceRoleForEC2Spot",
		rendertest.Args(t, argstest.Merge(t, adoptWithCluster(t, `{}`), spot)).Get("karpenter-spot-service-linked-role").ImportID)

	// An install that ran with IRSA has no association to import ("").
	irsaBefore := withAdopt(t, argstest.AdoptGettingStarted, `{"podIdentityAssociationId":""}`)
	assert.Empty(t, rendertest.Args(t, irsaBefore).Get("karpenter-pod-identity").ImportID)
	assert.Contains(t, rendertest.Error(t, withAdopt(t, argstest.AdoptGettingStarted, `{"podIdentityAssociationId":"assoc-1"}`)), `adopt.podIdentityAssociationId: "assoc-1" is not a pod identity association id`)
}

// A name the user gave adopt that does not exist is refused at its field, not left to the
// engine's import error.
func TestAdoptionRefusesAGivenNameThatDoesNotExist(t *testing.T) {
	args := withAdopt(t, adoptWithCluster(t, `{"absent":["platform-karpenter-nodes","KarpenterControllerInterruptionPolicy-platform"]}`),
		`{"nodeRoleName":"platform-karpenter-nodes","controllerPolicyNames":{"interruption":"KarpenterControllerInterruptionPolicy-platform"}}`)
	msg := rendertest.Error(t, args)
	assert.Contains(t, msg, `adopt.nodeRoleName: "platform-karpenter-nodes": no IAM role of that name exists where the aws provider looks`)
	assert.Contains(t, msg, `adopt.controllerPolicyNames["interruption"]: "KarpenterControllerInterruptionPolicy-platform": no IAM policy of that name exists`)
}

// The pools and classes adopt names are imported; a pool or class added to the program later is
// created beside them; one adopt names that the program does not declare is said to stay as it is.
func TestAdoptionImportsOnlyTheNamedPoolsAndClasses(t *testing.T) {
	grown := argstest.Merge(t, argstest.AdoptGettingStarted, `{"nodeClasses":[{"name":"default"},{"name":"arm"}],
		"nodePools":[{"name":"default","nodeClassRef":"default"},{"name":"arm","nodeClassRef":"arm"}]}`)
	r := rendertest.Args(t, grown)
	assert.Equal(t, "default", r.Get("karpenter-nodepool-default").ImportID)
	assert.Equal(t, "default", r.Get("karpenter-nodeclass-default").ImportID)
	assert.Empty(t, r.Get("karpenter-nodepool-arm").ImportID, "a pool added after adoption is created")
	assert.Empty(t, r.Get("karpenter-nodeclass-arm").ImportID, "a class added after adoption is created")
	// kubectl's client-side apply owns the install's fields: the takeover forces the component's apply.
	patchForce := func(name string) any {
		annotations, _ := format.Lookup(r.Get(name).Inputs, "metadata.annotations").(map[string]any)
		return annotations["pulumi.com/patchForce"]
	}
	assert.Equal(t, "true", patchForce("karpenter-nodepool-default"))
	assert.Equal(t, "true", patchForce("karpenter-nodeclass-default"))
	assert.Nil(t, patchForce("karpenter-nodepool-arm"), "a pool the component creates is its own")

	named := withAdopt(t, argstest.AdoptGettingStarted, `{"nodePoolNames":["default","batch"]}`)
	var said []string
	for _, w := range rendertest.Warnings(t, named) {
		if strings.HasPrefix(w, "adopt.") {
			said = append(said, w)
		}
	}
	require.Len(t, said, 1, "%q", said)
	assert.Contains(t, said[0], "adopt.nodePoolNames: the install's NodePool batch is not among nodePools: it stays in the cluster as it is, not managed by the component")

	msg := rendertest.Error(t, withAdopt(t, argstest.AdoptGettingStarted, `{"nodeClassNames":["Default"]}`))
	assert.Contains(t, msg, "adopt.nodeClassNames[0]")
}

// The controller policies of an adopted install across each split of the official template
// (v1.8.6 one policy, v1.9.0 five, v1.12.0 six): after the install was adopted at `from`, a
// `version` of `to` imports the template's policies that `from` had and creates those `to` adds,
// under the component's names; a policy `to` no longer has is not in the program (the engine
// deletes it after the new ones are attached). Plan level: the lab upgrades 1.14 to 1.15 only.
func TestAdoptedInstallUpgradesAcrossPolicySplits(t *testing.T) {
	single := []string{"policy"}
	five := []string{"node-lifecycle", "iam-integration", "eks-integration", "interruption", "resource-discovery"}
	six := append(slices.Clone(five), "zonal-shift")
	template := func(key string) string { return catalog.TemplatePolicyName(key, "demo") }
	for _, c := range []struct {
		from, to     string
		had, now     []string
		capacityRule bool
	}{
		{"1.8.6", "1.9.3", single, five, false},
		{"1.8.6", "1.15.1", single, six, true},
		{"1.9.3", "1.12.1", five, six, true},
		{"1.11.6", "1.12.1", five, six, true},
		{"1.12.1", "1.15.1", six, six, true},
	} {
		t.Run(c.from+"->"+c.to, func(t *testing.T) {
			var absent []string
			for _, key := range c.now {
				if !slices.Contains(c.had, key) {
					absent = append(absent, `"`+template(key)+`"`)
				}
			}
			args := fmt.Sprintf(`{"clusterName":"demo","version":%q,"controllerIdentity":"irsa","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE",
				"adopt":{"interruptionRuleNames":{%s}},"cluster":{"absent":[%s]}}`, c.to, adoptRules(c.capacityRule), strings.Join(absent, ","))
			r := rendertest.Args(t, args)
			var keys []string
			for _, res := range r.Resources {
				if key, ok := strings.CutPrefix(res.Name, "karpenter-controller-"); ok && res.Type == "aws:iam/policy:Policy" {
					keys = append(keys, key)
				}
			}
			assert.ElementsMatch(t, c.now, keys, "the policies of %s", c.to)
			for _, key := range c.now {
				policy := r.Get("karpenter-controller-" + key)
				if slices.Contains(c.had, key) {
					assert.Equal(t, "arn:aws:iam::123456789012:policy/"+template(key), policy.ImportID, "%s: %s had it", key, c.from)
					assert.Equal(t, "demo-karpenter/arn:aws:iam::123456789012:policy/"+template(key), r.Get("karpenter-controller-"+key+"-attach").ImportID)
					continue
				}
				assert.Empty(t, policy.ImportID, "%s: new in %s, created", key, c.to)
				assert.Regexp(t, `^karpenter-controller-`+key+`-[0-9a-f]{7}$`, policy.String("name"))
				assert.Empty(t, r.Get("karpenter-controller-"+key+"-attach").ImportID)
			}
		})
	}
}

// An adopting update that would change what Karpenter's drift hash covers in a running pool or
// class (the component's tags on every class, a pinned AMI, a pool's taints) would replace every
// node of it: refused at preview, naming the object, the fields and the two ways out; fields the
// hash ignores (the subnet selector) and what the component leaves to the install's other managers
// (the API server's defaults) are not changes.
func TestAdoptionRefusesAChangeThatDriftsTheNodes(t *testing.T) {
	// The guide's EC2NodeClass and NodePool as kubectl applied them, with the API server's defaults.
	guideClass := `{"role":"KarpenterNodeRole-demo","amiSelectorTerms":[{"alias":"al2023@latest"}],
		"subnetSelectorTerms":[{"tags":{"karpenter.sh/discovery":"demo"}}],"securityGroupSelectorTerms":[{"tags":{"karpenter.sh/discovery":"demo"}}],
		"metadataOptions":{"httpEndpoint":"enabled","httpProtocolIPv6":"disabled","httpPutResponseHopLimit":1,"httpTokens":"required"}}`
	guidePool := `{"template":{"spec":{"nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"},"expireAfter":"720h",
		"requirements":[{"key":"kubernetes.io/arch","operator":"In","values":["amd64"]}]}},"limits":{"cpu":1000},"disruption":{"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"1m"}}`
	installed := func(class, pool string) string {
		return adoptWithCluster(t, `{"installed":{"EC2NodeClass/default":`+class+`,"NodePool/default":`+pool+`}}`)
	}
	asRun := installed(guideClass, guidePool)
	r := rendertest.Args(t, asRun)
	assert.Equal(t, "default", r.Get("karpenter-nodeclass-default").ImportID, "the guide's pair as it runs: adopted as it is")

	tagged := argstest.Merge(t, asRun, `{"tags":{"team":"platform"}}`)
	msg := rendertest.Error(t, tagged)
	assert.Contains(t, msg, "nodeClasses[0]: the install's EC2NodeClass default runs with other values of tags.team than this program sets (the component's `tags` go onto every node class")
	assert.Contains(t, msg, "or set adopt.allowNodeReplacement: true to accept the rollout")
	rendertest.Args(t, withAdopt(t, tagged, `{"allowNodeReplacement":true}`)) // accepted

	pinned := installed(strings.Replace(guideClass, "al2023@latest", "al2023@v20260901", 1), guidePool)
	assert.Contains(t, rendertest.Error(t, pinned), "other values of amiSelectorTerms than this program sets")

	tainted := installed(guideClass, strings.Replace(guidePool, `"expireAfter":"720h"`, `"expireAfter":"720h","taints":[{"key":"dedicated","value":"batch","effect":"NoSchedule"}]`, 1))
	rendertest.Args(t, tainted) // a field the component leaves alone stays as it runs: no drift
	withTaint := argstest.Merge(t, tainted, `{"nodePools":[{"name":"default","limits":{"cpu":"1000"},"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]}]}`)
	assert.Contains(t, rendertest.Error(t, withTaint), "nodePools[0]: the install's NodePool default runs with other values of template.spec.taints")

	otherSubnets := installed(strings.Replace(guideClass, `"subnetSelectorTerms":[{"tags":{"karpenter.sh/discovery":"demo"}}]`, `"subnetSelectorTerms":[{"id":"subnet-0a"}]`, 1), guidePool)
	rendertest.Args(t, otherSubnets) // the hash ignores the subnet selector
}

// An install made before 0.32 has the template's instance profile, which its nodes run with: when
// it is adopted at (or upgraded to) a version whose template makes none, the profile keeps its
// name, imported, rather than being replaced by one of the component's.
func TestAdoptionKeepsThePreV032InstanceProfile(t *testing.T) {
	args := `{"clusterName":"demo","version":"1.14.1","controllerIdentity":"irsa","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE",
		"adopt":{"interruptionRuleNames":{` + adoptRules(true) + `}}}`
	profile := rendertest.Args(t, args).Get("karpenter-node-profile")
	assert.Equal(t, "KarpenterNodeInstanceProfile-demo", profile.ImportID)
	assert.Equal(t, "KarpenterNodeInstanceProfile-demo", profile.String("name"))
	created := rendertest.Args(t, argstest.Merge(t, args, `{"cluster":{"absent":["KarpenterNodeInstanceProfile-demo"]}}`)).Get("karpenter-node-profile")
	assert.Empty(t, created.ImportID, "an install made from 0.32 has none: the component creates its own")
	assert.Regexp(t, `^karpenter-node-profile-[0-9a-f]{7}$`, created.String("name"))
}

// A terraform-aws-modules v21 install's node role has three of the component's four AWS managed
// policies (modules/karpenter: AmazonEKSWorkerNodePolicy, AmazonEKS_CNI_Policy,
// AmazonEC2ContainerRegistryPullOnly): named in adopt.nodeRolePolicies, their attachments are
// imported and the fourth is attached, where importing it would fail.
func TestAdoptionAttachesTheNodePoliciesTheRoleLacks(t *testing.T) {
	args := withAdopt(t, argstest.AdoptGettingStarted, `{"nodeRoleName":"Karpenter-demo-20261128","nodeRolePolicies":["AmazonEKSWorkerNodePolicy","AmazonEKS_CNI_Policy","AmazonEC2ContainerRegistryPullOnly"]}`)
	r := rendertest.Args(t, args)
	for _, name := range []string{"karpenter-node-worker", "karpenter-node-cni", "karpenter-node-ecr"} {
		assert.Contains(t, r.Get(name).ImportID, "Karpenter-demo-20261128/arn:aws:iam::aws:policy/", name)
	}
	assert.Empty(t, r.Get("karpenter-node-ssm").ImportID, "the role lacks AmazonSSMManagedInstanceCore: attached")
	assert.Contains(t, rendertest.Error(t, withAdopt(t, argstest.AdoptGettingStarted, `{"nodeRolePolicies":["arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"]}`)),
		`adopt.nodeRolePolicies[0]: "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy" is not an IAM policy name`)
}

// terraform-aws-modules' module makes one controller policy: adopted under node-lifecycle, its
// update narrows it to that share, and the template's other five do not exist, so they are
// created. IAM applies each change at once: the narrowing waits until the five are attached, so
// the controller never runs with less than it needs. An install that has every policy (the
// guide's) imports them with no such wait.
func TestAdoptionNarrowsAPolicyOnlyOnceTheOthersAreAttached(t *testing.T) {
	tf := "KarpenterController-20261129100000000000000001"
	var absent []string
	for _, key := range []string{"node-lifecycle", "iam-integration", "eks-integration", "interruption", "resource-discovery", "zonal-shift"} {
		absent = append(absent, `"`+catalog.TemplatePolicyName(key, "demo")+`"`)
	}
	r := rendertest.Args(t, argstest.Merge(t, withAdopt(t, argstest.AdoptGettingStarted, `{"controllerPolicyNames":{"node-lifecycle":"`+tf+`"}}`),
		`{"cluster":{"absent":[`+strings.Join(absent, ",")+`]}}`))
	narrowed := r.Get("karpenter-controller-node-lifecycle")
	assert.Equal(t, "arn:aws:iam::123456789012:policy/"+tf, narrowed.ImportID)
	for _, key := range []string{"iam-integration", "eks-integration", "interruption", "resource-discovery", "zonal-shift"} {
		assert.Empty(t, r.Get("karpenter-controller-"+key).ImportID, "%s: the install lacks it", key)
		assert.Contains(t, narrowed.DependsOn, "karpenter-controller-"+key+"-attach", "the narrowing waits for %s's attachment", key)
	}
	for _, res := range rendertest.Args(t, argstest.AdoptGettingStarted).Resources {
		if strings.HasPrefix(res.Name, "karpenter-controller-") && res.Type == "aws:iam/policy:Policy" {
			for _, dep := range res.DependsOn {
				assert.NotContains(t, dep, "-attach", "%s: every policy of the guide's install is imported, none waits", res.Name)
			}
		}
	}
}

// After the adopting `up`, adopt is inert: that `up` described the install's roles as this
// component's, so the same program without adopt resumes the adoption — the install's names, the
// same imports, the interruption rules' names (CloudFormation's, which only adopt gave) kept as
// the stack has them — where it would otherwise refuse a second install beside a running one.
func TestAdoptionResumesWithoutAdopt(t *testing.T) {
	withoutAdopt := strings.Replace(argstest.AdoptGettingStarted, `,
	"adopt":`, `,"unused":`, 1)
	ours := `{"roles":["KarpenterNodeRole-demo","demo-karpenter"],"roleDescriptions":{"KarpenterNodeRole-demo":"Karpenter node role (Pulumi project/stack, component karpenter)"}}`
	r := rendertest.Args(t, argstest.Merge(t, withoutUnused(t, withoutAdopt), `{"cluster":`+ours+`}`))
	for name, id := range map[string]string{
		"karpenter-node":             "KarpenterNodeRole-demo",
		"karpenter-controller":       "demo-karpenter",
		"karpenter-interruption":     "https://sqs.us-west-2.amazonaws.com/123456789012/demo",
		"karpenter-release":          "kube-system/karpenter",
		"karpenter-nodepool-default": "default",
	} {
		assert.Equal(t, id, r.Get(name).ImportID, name)
	}
	rule := r.Get("karpenter-scheduled-change")
	assert.Empty(t, rule.ImportID, "the rule's name is not known without adopt")
	assert.Equal(t, []string{"name"}, rule.IgnoreChanges, "the rule keeps the name the adoption imported")
	assert.Equal(t, "demo", r.Get("karpenter-release").String("values.settings.interruptionQueue"))

	// Another stack's component, or no description: a running install beside this one.
	for description, want := range map[string]string{
		"Karpenter node role (Pulumi project/prod, component karpenter)": `which the Pulumi component its description names manages ("Karpenter node role (Pulumi project/prod, component karpenter)")`,
		"": "set adopt to take it over",
	} {
		other := strings.Replace(ours, "project/stack", "project/prod", 1)
		if description == "" {
			other = `{"roles":["KarpenterNodeRole-demo"]}`
		}
		msg := rendertest.Error(t, argstest.Merge(t, withoutUnused(t, withoutAdopt), `{"cluster":`+other+`}`))
		assert.Contains(t, msg, "adopt: unset, and the IAM role KarpenterNodeRole-demo and the queue demo exist")
		assert.Contains(t, msg, want)
	}
}

// After an `up` without adopt (resumed), the state's children have no import id; the rules'
// targets and the pod identity association, whose provider id is not their import id, would
// then be imported again — and the old ones deleted — if adopt came back. Once the install's
// controller role is described as this component's, adopt imports neither.
func TestAdoptionPutBackDoesNotImportAgain(t *testing.T) {
	taken := `{"roleDescriptions":{"demo-karpenter":"Karpenter controller role (Pulumi project/stack, component karpenter)"}}`
	r := rendertest.Args(t, adoptWithCluster(t, taken))
	assert.Empty(t, r.Get("karpenter-pod-identity").ImportID)
	assert.Empty(t, r.Get("karpenter-scheduled-change-target").ImportID)
	assert.Equal(t, "Karpenter-demo-ScheduledChangeRule-1A2B3C4D5E6F", r.Get("karpenter-scheduled-change").ImportID, "an import the stack has is no change")
	assert.Equal(t, "demo,a-0123456789abcdef0", rendertest.Args(t, argstest.AdoptGettingStarted).Get("karpenter-pod-identity").ImportID, "not taken yet: imported")
}

// withoutUnused drops the "unused" input withoutAdopt parks adopt under.
func withoutUnused(t *testing.T, args string) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(args), &m))
	delete(m, "unused")
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return string(out)
}
