//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// TestTerraformModuleAdoption: a Karpenter 1.14.1 install made with terraform-aws-modules' karpenter
// module v21.19.0 and its example (lab.TerraformKarpenter: the module's own files evaluated, its
// names made with name_prefix, one controller policy, a node role with three AWS policies, Pod
// Identity, access entries) runs a node for a workload when a program first adds the component
// with docs/migrating.md's program for it. The preview imports what the module made and creates
// only what the install lacks (the template's other five controller policies, the node role's
// AmazonSSMManagedInstanceCore, the CRD release); `up` takes it over with the same instance,
// NodeClaim and pods (sampled every 2 s), the next preview has nothing to do, and every AWS call
// of the controller was allowed: before the adoption by the module's policy, after it by the
// component's, and during it by either.
func TestTerraformModuleAdoption(t *testing.T) {
	t.Parallel()
	w, tf, node, claim := terraformInstalled(t)
	if t.Failed() {
		return
	}
	version := tf.Version

	// docs/migrating.md's program for the module's install: the module's outputs in adopt.
	var rules []string
	for key, name := range tf.RuleNames {
		rules = append(rules, fmt.Sprintf("    %s: %s\n", key, name))
	}
	sort.Strings(rules)
	w.programWith(lab.ProgramOptions{NoDiscovery: true, Inputs: "controllerIdentity: podIdentity\nnodeAccess: accessEntry\ncreateInstanceProfile: false\n" +
		terraformExampleInputs(t, tf, nil) +
		"adopt:\n  controllerRoleName: " + tf.ControllerRoleName + "\n  nodeRoleName: " + tf.NodeRoleName +
		"\n  interruptionQueueName: " + tf.QueueName + "\n  podIdentityAssociationId: " + tf.PodIdentityAssociationID +
		"\n  controllerPolicyNames:\n    node-lifecycle: " + tf.ControllerPolicyName +
		"\n  nodeRolePolicies: [" + strings.Join(tf.NodeRolePolicies, ", ") + "]\n  interruptionRuleNames:\n" + strings.Join(rules, "")})

	t.Run("the preview imports the install and creates only what it lacks", func(t *testing.T) {
		// What the module's install lacks: the template's other five controller policies, the
		// node role's fourth AWS policy, and the CRD release with the hand-over of its CRDs.
		created := []string{"karpenter-node-ssm"}
		for _, key := range []string{"iam-integration", "eks-integration", "interruption", "resource-discovery", "zonal-shift"} {
			created = append(created, "karpenter-controller-"+key, "karpenter-controller-"+key+"-attach")
		}
		checkAdoptingPreview(t, w, version, created, "karpenter-node", "karpenter-node-worker", "karpenter-node-cni", "karpenter-node-ecr",
			"karpenter-node-access", "karpenter-controller", "karpenter-controller-node-lifecycle", "karpenter-controller-node-lifecycle-attach",
			"karpenter-pod-identity", "karpenter-interruption", "karpenter-release", "karpenter-nodepool-default", "karpenter-nodeclass-default")
	})
	if t.Failed() {
		return
	}

	role := "arn:aws:iam::" + lab.MotoAccount + ":role/" + tf.ControllerRoleName
	var upStart, upEnd time.Time
	t.Run("up takes the install over with the node, its claim and the workload in place", func(t *testing.T) {
		upStart, upEnd = upKeepingTheNode(t, w, node, claim)
		out := w.outputs(t)
		if got := str(out["controllerRoleArn"]); got != role {
			t.Errorf("controllerRoleArn %s, want the module's %s", got, role)
		}
		// The module's policy, under its own path, found by name and kept where it is.
		modulePolicy := "arn:aws:iam::" + lab.MotoAccount + ":policy" + lab.TerraformPolicyPath + tf.ControllerPolicyName
		if arns, _ := out["controllerPolicyArns"].([]any); !slices.Contains(arns, any(modulePolicy)) {
			t.Errorf("controllerPolicyArns %v, want the module's %s among them", arns, modulePolicy)
		}
		checkCRDsHandedOver(t, w, version)
	})
	if t.Failed() {
		return
	}

	// Before the adoption the controller ran under the module's one policy; after it, under the
	// component's six (the module's narrowed to node-lifecycle); the `up` attached the five new
	// ones before it narrowed the module's, so any call in between is allowed by one or the other.
	t.Run("every AWS call of the controller was allowed, before, during and after", func(t *testing.T) {
		calls := w.recorder.Calls()
		checkControllerSessions(t, calls, role)
		modulePolicies := terraformModulePolicies(t, tf)
		components := controllerPolicies(t, w.world, role)
		before, during, after := callsAround(calls, upStart, upEnd)
		for _, part := range []struct {
			what     string
			calls    []lab.AWSCall
			policies []lab.IAMPolicy
		}{{"before, the module's policy", before, modulePolicies}, {"after, the component's", after, components}} {
			msgs, _, _ := denials(t, part.calls, role, part.policies)
			for _, m := range msgs {
				t.Errorf("%s: %s", part.what, m)
			}
		}
		_, requests, byModule := denials(t, during, role, modulePolicies)
		_, _, byComponent := denials(t, during, role, components)
		allowed := func(results []lab.IAMResult, id int) bool {
			for _, r := range results {
				if r.ID == id {
					return permitted(requests[id], r)
				}
			}
			return false
		}
		for _, q := range requests {
			if !allowed(byModule, q.ID) && !allowed(byComponent, q.ID) {
				t.Errorf("during the up: %s: %s on %s is allowed neither by the module's policy nor by the component's", q.Call, q.Action, q.Resource)
			}
		}
		t.Logf("%d calls before the adoption, %d during, %d after", len(before), len(during), len(after))
	})

	t.Run("destroy with the node running leaves nothing running", func(t *testing.T) {
		w.destroyWithNodes(t)
		var retained []string
		for _, crd := range mustRelease(t, version).CrdNames() {
			retained = append(retained, "karpenter-crd-owner-"+crd)
		}
		checkKarpenterDestroy(t, w, node, retained...)
	})
}

// TestHelmOnlyAdoption: the same install with its AWS side left where it is (another stack, here
// terraform-aws-modules', keeps the IAM and the queue), adopted on the Kubernetes side only with
// docs/migrating.md's Helm-only program: the roles by ARN, interruptionHandling false with the
// queue in the values, `adopt` naming only the Pod Identity association. The preview imports the
// release, the pool, the class and the association and creates only the CRD release; `up` keeps
// the node, its claim and the pods; the next preview has nothing to do; IAM and the queue are as
// the module made them, and every AWS call of the controller was allowed by the module's policy.
func TestHelmOnlyAdoption(t *testing.T) {
	t.Parallel()
	w, tf, node, claim := terraformInstalled(t)
	if t.Failed() {
		return
	}
	arn := func(role string) string { return "arn:aws:iam::" + lab.MotoAccount + ":role/" + role }
	w.programWith(lab.ProgramOptions{NoDiscovery: true, Inputs: "controllerIdentity: podIdentity\ninterruptionHandling: false\n" +
		"controllerRoleArn: " + arn(tf.ControllerRoleName) + "\nnodeRoleArn: " + arn(tf.NodeRoleName) + "\n" +
		terraformExampleInputs(t, tf, map[string]any{"settings": map[string]any{"interruptionQueue": tf.QueueName}}) +
		"adopt:\n  podIdentityAssociationId: " + tf.PodIdentityAssociationID + "\n"})
	before := w.aws(t)

	t.Run("the preview imports the Kubernetes side and creates only the CRD release", func(t *testing.T) {
		checkAdoptingPreview(t, w, tf.Version, nil, "karpenter-pod-identity", "karpenter-release", "karpenter-nodepool-default", "karpenter-nodeclass-default")
	})
	if t.Failed() {
		return
	}
	t.Run("up takes it over with the node, its claim and the workload in place, and leaves IAM and the queue as they are", func(t *testing.T) {
		upKeepingTheNode(t, w, node, claim)
		after := w.aws(t)
		for _, role := range []string{tf.ControllerRoleName, tf.NodeRoleName} {
			if b, a := before.Role(role), after.Role(role); b == nil || a == nil || fmt.Sprint(*b) != fmt.Sprint(*a) {
				t.Errorf("role %s changed: %+v -> %+v", role, b, a)
			}
		}
		for _, p := range before.Policies {
			if a := after.Policy(p.Arn); a == nil || a.Document != p.Document {
				t.Errorf("policy %s changed: %+v -> %+v", p.Name, p, a)
			}
		}
		queue := func(inv *lab.AWSInventory) string {
			for _, q := range inv.Queues {
				if q.Name == tf.QueueName {
					return q.Attributes["Policy"] + " " + q.Attributes["MessageRetentionPeriod"] + " " + q.Attributes["SqsManagedSseEnabled"]
				}
			}
			return "no queue " + tf.QueueName
		}
		if b, a := queue(before), queue(after); b != a {
			t.Errorf("the queue changed: %s -> %s", b, a)
		}
		calls := w.recorder.Calls()
		checkControllerSessions(t, calls, arn(tf.ControllerRoleName))
		msgs, _, _ := denials(t, calls, arn(tf.ControllerRoleName), terraformModulePolicies(t, tf))
		for _, m := range msgs {
			t.Errorf("under the module's policy: %s", m)
		}
	})
}

// terraformInstalled is a world with Karpenter 1.14.1 installed the terraform-aws-modules way
// (lab.TerraformKarpenter) on a cluster of a stack without the component, running the workload on
// a node the controller launched.
func terraformInstalled(t *testing.T) (w *karpenterWorld, tf *lab.TerraformKarpenter, node lab.Instance, claim string) {
	t.Helper()
	w = newKarpenterWorld(t)
	version := strings.TrimPrefix(lab.KarpenterPreviousVersion, "v")
	k8s, err := lab.ClusterVersionFor(version)
	if err != nil {
		t.Fatal(err)
	}
	w.stackWith(lab.ProgramOptions{NoComponent: true, KubernetesVersion: k8s})
	w.up(t)
	cluster := str(w.outputs(t)["clusterName"])
	t.Run("the terraform-aws-modules install runs a node", func(t *testing.T) {
		if tf, err = w.InstallTerraformKarpenter(context.Background(), cluster, version); err != nil {
			t.Fatal(err)
		}
		w.waitController(t, time.Minute, version)
		// The example's pool asks for 4 to 32 vCPUs.
		node, claim = w.workloadOfType(t, "m5.xlarge")
		w.rebaseline(t)
	})
	return w, tf, node, claim
}

// terraformExampleInputs declare the example's class and pool as they run, and the release values
// the example set that the component does not set itself (with more, e.g. the queue).
func terraformExampleInputs(t *testing.T, tf *lab.TerraformKarpenter, more map[string]any) string {
	t.Helper()
	values := map[string]any{}
	for k, v := range tf.Values {
		values[k] = v
	}
	for k, v := range more {
		values[k] = v
	}
	b, err := json.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	return "values: " + string(b) + "\n" +
		"nodeClasses:\n  - name: default\n    amiAlias: bottlerocket@latest\n    tags:\n      karpenter.sh/discovery: " + tf.Cluster + "\n" +
		"nodePools:\n  - name: default\n    nodeClassRef: default\n    limits:\n      cpu: \"1000\"\n" +
		"    requirements:\n" +
		"      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}\n" +
		"      - {key: karpenter.k8s.aws/instance-cpu, operator: In, values: [\"4\", \"8\", \"16\", \"32\"]}\n" +
		"      - {key: karpenter.k8s.aws/instance-hypervisor, operator: In, values: [nitro]}\n" +
		"      - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: [\"2\"]}\n" +
		"    disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 30s}\n"
}

// terraformModulePolicies is the module's controller policy, as the simulator takes it.
func terraformModulePolicies(t *testing.T, tf *lab.TerraformKarpenter) []lab.IAMPolicy {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(tf.ControllerPolicy), &doc); err != nil {
		t.Fatal(err)
	}
	return []lab.IAMPolicy{{Name: tf.ControllerPolicyName, Policy: doc}}
}

// checkAdoptingPreview: the preview of an adopting program has no error and replaces nothing; it
// creates the component, the CRD release with the hand-over of version's CRDs and the extra
// children, nothing else, and imports at least the named children.
func checkAdoptingPreview(t *testing.T, w *karpenterWorld, version string, extra []string, imported ...string) {
	t.Helper()
	p := w.preview(t)
	if errs := p.errors(); len(errs) > 0 {
		t.Fatalf("preview errors: %v", errs)
	}
	byOp := map[string][]string{}
	for _, s := range p.Steps {
		byOp[s.Op] = append(byOp[s.Op], urnName(s.URN))
		if len(s.ReplaceReasons) > 0 {
			t.Errorf("%s would be replaced: %v", urnName(s.URN), s.ReplaceReasons)
		}
		if s.Op == "update" {
			t.Logf("%s is updated: %v", urnName(s.URN), s.DiffReasons)
		}
	}
	for op := range byOp {
		sort.Strings(byOp[op])
	}
	t.Logf("preview: %v", byOp)
	created := map[string]bool{"karpenter": true, "karpenter-crd-release": true}
	for _, name := range extra {
		created[name] = true
	}
	for _, crd := range mustRelease(t, version).CrdNames() {
		created["karpenter-crd-owner-"+crd] = true
	}
	for _, name := range byOp["create"] {
		if !created[name] {
			t.Errorf("the preview creates %s, which the install has", name)
		}
		delete(created, name)
	}
	if len(created) > 0 {
		t.Errorf("the preview does not create %v, which the install lacks", created)
	}
	for op, names := range byOp {
		switch op {
		case "create", "import", "update", "read", "same":
		default:
			t.Errorf("the preview would %s %v", op, names)
		}
	}
	for _, want := range imported {
		if !slices.Contains(byOp["import"], want) {
			t.Errorf("the preview does not import %s: %v", want, byOp)
		}
	}
}

// checkCRDsHandedOver: every CRD of version belongs to the component's karpenter-crd release.
func checkCRDsHandedOver(t *testing.T, w *karpenterWorld, version string) {
	t.Helper()
	for _, crd := range mustRelease(t, version).CrdNames() {
		obj, err := w.Cluster.CRD(context.Background(), crd)
		if err != nil {
			t.Fatal(err)
		}
		if got := obj.GetAnnotations()[catalog.HelmReleaseNameAnnotation]; got != "karpenter-crd" {
			t.Errorf("CRD %s belongs to release %q, want karpenter-crd", crd, got)
		}
	}
}

// upKeepingTheNode runs the adopting `up` while the workload's node, claim and pods are sampled,
// then 30 s more (the controller's disruption loop runs every 10 s), and checks that nothing
// broke and that the next preview has nothing to do. It returns when the `up` started and ended.
func upKeepingTheNode(t *testing.T, w *karpenterWorld, node lab.Instance, claim string) (start, end time.Time) {
	t.Helper()
	stop := w.sampleContinuity(t, node.ID, claim)
	start = time.Now()
	w.up(t)
	end = time.Now()
	time.Sleep(30 * time.Second)
	if broken := stop(); len(broken) > 0 {
		t.Errorf("during and after the adopting up:\n%s", strings.Join(broken, "\n"))
	}
	for name, op := range w.preview(t).ops() {
		if op != "same" && op != "read" {
			t.Errorf("after the adoption the preview would still %s %s", op, name)
		}
	}
	return start, end
}
