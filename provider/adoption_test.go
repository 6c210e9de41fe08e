package provider

import (
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A getting-started install of 1.14.1 on cluster demo (render's account 123456789012, us-west-2),
// adopted with its rule names: every child of it is imported by the id pulumi-aws and
// pulumi-kubernetes document, under its existing name.
const adoptGettingStarted = `{"clusterName":"demo","version":"1.14.1","controllerIdentity":"podIdentity",
	"adopt":{"podIdentityAssociationId":"a-0123456789abcdef0","interruptionRuleNames":{
		"scheduledChange":"Karpenter-demo-ScheduledChangeRule-1A2B3C4D5E6F",
		"spotInterruption":"Karpenter-demo-SpotInterruptionRule-2B3C4D5E6F7A",
		"rebalance":"Karpenter-demo-RebalanceRule-3C4D5E6F7A8B",
		"stateChange":"Karpenter-demo-InstanceStateChangeRule-4D5E6F7A8B9C",
		"capacityReservation":"Karpenter-demo-CapacityReservationInterruptionRule-5E6F7A8B"}}}`

func TestAdoptionImportsEveryChildOfTheInstall(t *testing.T) {
	r := renderArgs(t, adoptGettingStarted)
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
		assert.Equal(t, id, r.get(name).ImportID, name)
	}
	assert.Equal(t, []string{"description", "path"}, r.get("karpenter-controller-interruption").IgnoreChanges, "IAM cannot change a policy's description or path")
	assert.Equal(t, "KarpenterControllerEKSIntegrationPolicy-demo", r.get("karpenter-controller-eks-integration").String("name"))
	assert.Equal(t, "demo", r.get("karpenter-release").String("values.settings.interruptionQueue"), "the controller keeps reading the install's queue")

	// The only children created: the CRD release and the patches that hand it the install's CRDs,
	// and the instance profile the component makes by default (the 1.x template makes none;
	// createInstanceProfile: false leaves it out).
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
	// chart's crds/ directory), and the running release's values, which the preview compares
	// with the component's.
	assert.ElementsMatch(t, []string{"karpenter-crd-current", "karpenter-release-running"}, read)
	// 1.14.1's karpenter-crd chart has five CRDs (tests/harness checks the catalog's list against
	// each chart).
	crds := []string{"capacitybuffers.autoscaling.x-k8s.io", "ec2nodeclasses.karpenter.k8s.aws", "nodeclaims.karpenter.sh", "nodeoverlays.karpenter.sh", "nodepools.karpenter.sh"}
	want := []string{"karpenter-node-profile", "karpenter-crd-release"}
	for _, crd := range crds {
		want = append(want, "karpenter-crd-owner-"+crd)
	}
	assert.ElementsMatch(t, want, created)
	for _, crd := range crds {
		patch := r.get("karpenter-crd-owner-" + crd)
		assert.Equal(t, "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinitionPatch", patch.Type)
		assert.Equal(t, crd, patch.String("metadata.name"))
		// Helm installs karpenter-crd over an object only with its ownership metadata.
		labels, _ := format.Lookup(patch.Inputs, "metadata.labels").(map[string]any)
		annotations, _ := format.Lookup(patch.Inputs, "metadata.annotations").(map[string]any)
		assert.Equal(t, "Helm", labels["app.kubernetes.io/managed-by"])
		assert.Equal(t, map[string]any{"meta.helm.sh/release-name": "karpenter-crd", "meta.helm.sh/release-namespace": "kube-system"}, annotations)
		assert.True(t, patch.RetainOnDelete)
		assert.Contains(t, r.get("karpenter-crd-release").DependsOn, patch.Name, "the release waits for the hand-over")
	}
}

// Without adopt, nothing is imported.
func TestNoImportWithoutAdopt(t *testing.T) {
	r := renderDefault(t)
	for _, res := range r.Resources {
		assert.Empty(t, res.ImportID, res.Name)
		assert.False(t, strings.Contains(res.Name, "crd-owner"), res.Name)
	}
}

func TestAdoptionRefusedWhenRulesAreNotNamed(t *testing.T) {
	msg := renderError(t, `{"clusterName":"demo","version":"1.14.1","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE","adopt":{}}`)
	require.Contains(t, msg, `adopt.interruptionRuleNames["scheduledChange"]: required`)
}

// A rule named "" is one the install lacks: created under the component's name, not imported.
func TestAdoptionCreatesTheRuleTheInstallLacks(t *testing.T) {
	r := renderArgs(t, strings.Replace(adoptGettingStarted, `"Karpenter-demo-CapacityReservationInterruptionRule-5E6F7A8B"`, `""`, 1))
	rule := r.get("karpenter-capacity-reservation")
	assert.Empty(t, rule.ImportID)
	assert.Regexp(t, `^karpenter-capacity-reservation-[0-9a-f]{7}$`, rule.String("name"))
	assert.Empty(t, r.get("karpenter-capacity-reservation-target").ImportID)
	assert.Equal(t, "Karpenter-demo-RebalanceRule-3C4D5E6F7A8B", r.get("karpenter-rebalance").ImportID)
}

// adoptWithCluster is the getting-started adoption rendered against a cluster that holds
// what cluster (render's Cluster fields) says.
func adoptWithCluster(t *testing.T, cluster string) string {
	t.Helper()
	return mergeArgs(t, adoptGettingStarted, `{"cluster":`+cluster+`}`)
}

// An install whose CRDs a karpenter-crd release holds (Karpenter's upgrade guide installs them
// with `helm upgrade --install karpenter-crd`) has that release imported, not created beside it
// (Helm: "cannot re-use a name that is still in use"); the hand-over patches, which set the
// ownership the CRDs already have, are the same as for an install whose CRDs no release holds,
// so the preview after the adopting `up` (the CRDs then the release's) has nothing to do. CRDs
// another release holds are refused with the ways out.
func TestAdoptionTakesOverAnExistingCrdRelease(t *testing.T) {
	none := renderArgs(t, adoptWithCluster(t, `{}`))
	assert.Empty(t, none.get("karpenter-crd-release").ImportID, "no release holds the CRDs: the component creates its own")
	held := renderArgs(t, adoptWithCluster(t, `{"crdRelease":"kube-system/karpenter-crd"}`))
	assert.Equal(t, "kube-system/karpenter-crd", held.get("karpenter-crd-release").ImportID)
	for _, res := range none.Resources {
		if strings.HasPrefix(res.Name, "karpenter-crd-owner-") {
			assert.Equal(t, res.Inputs, held.get(res.Name).Inputs, "the same hand-over patch %s either way", res.Name)
		}
	}

	msg := renderError(t, adoptWithCluster(t, `{"crdRelease":"platform/crds"}`))
	assert.Contains(t, msg, "adopt: the install's CRDs (capacitybuffers.autoscaling.x-k8s.io, ...) belong to the Helm release platform/crds, and the component's CRD release is kube-system/karpenter-crd")
	assert.Contains(t, msg, "or set installCrds: false and leave them to platform/crds")
}

// A value set on the running release outside the program (`helm upgrade --set
// settings.enableZonalShift=true`, as the v1.12–1.14 guides do) that the adopting upgrade would
// not set is named at preview, with the input that keeps it; set there, it is not.
func TestAdoptionNamesValuesSetOutside(t *testing.T) {
	running := `{"releaseValues":{"settings":{"clusterName":"demo","interruptionQueue":"demo","enableZonalShift":true},
		"controller":{"resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"1","memory":"1Gi"}}}}}`
	warnings := renderWarnings(t, adoptWithCluster(t, running))
	var named []string
	for _, w := range warnings {
		if strings.Contains(w, "on the running release") {
			named = append(named, w)
		}
	}
	require.Len(t, named, 1, "only the value the component does not set: %q", warnings)
	assert.Contains(t, named[0], "values.settings.enableZonalShift: true on the running release kube-system/karpenter, set outside this program")
	assert.Contains(t, named[0], "the chart's default (charts/karpenter/values.yaml of 1.14.1) would apply; set values.settings.enableZonalShift to keep it")

	kept := mergeArgs(t, adoptWithCluster(t, running), `{"values":{"settings":{"enableZonalShift":true}}}`)
	for _, w := range renderWarnings(t, kept) {
		assert.NotContains(t, w, "on the running release")
	}
}
