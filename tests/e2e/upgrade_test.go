//go:build e2e

package e2e

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// The split controller policies of 1.9+ (six from 1.12), their attachments, and the capacity
// reservation rule and target of 1.10+: what an upgrade from 1.8 creates.
var splitPolicies = []string{"node-lifecycle", "iam-integration", "eks-integration", "interruption", "resource-discovery", "zonal-shift"}

func upgradeCreates() []string {
	out := []string{"karpenter-capacity-reservation", "karpenter-capacity-reservation-target"}
	for _, p := range splitPolicies {
		out = append(out, "karpenter-controller-"+p, "karpenter-controller-"+p+"-attach")
	}
	sort.Strings(out)
	return out
}

// TestUpgrade upgrades an install across generations through the engine: 1.8.6 (one controller
// policy) → 1.14.1 (the policy split by concern) → the default 1.15.2 (the node-lifecycle policy
// gains ec2:RebootInstances). README "Upgrading across generations": the roles stay (same ARN and
// role ID: never replaced), the one policy is replaced by the split ones (attached before the
// old one is detached), 1.14 → 1.15 updates the node-lifecycle policy in place, the releases are
// upgraded, and the NodePool and EC2NodeClass are left as they are.
func TestUpgrade(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.stack("version: 1.8.6")
	w.up(t)
	before := w.aws(t)
	out := w.outputs(t)
	if v := str(out["version"]); v != "1.8.6" {
		t.Fatalf("installed version %q, want 1.8.6", v)
	}
	if p := strs(out["controllerPolicyArns"]); len(p) != 1 || !strings.Contains(p[0], ":policy/karpenter-controller-policy-") {
		t.Fatalf("1.8.6: want one controller policy, got %v", p)
	}
	for _, name := range []string{"karpenter-crd", "karpenter"} {
		if got := w.release(t, name); got != (releaseInfo{Status: "deployed", Revision: 1, Chart: "1.8.6"}) {
			t.Errorf("helm status %s: %+v", name, got)
		}
	}
	uids := w.customResourceUIDs(t)
	initial := out
	roles := map[string]lab.Role{}
	for _, r := range before.Roles {
		roles[r.Name] = r
	}

	// rolesKept: the same roles, by ARN and by role ID (a replaced role gets a new ID).
	rolesKept := func(t *testing.T, inv *lab.AWSInventory, out map[string]any) {
		t.Helper()
		if len(inv.Roles) != len(roles) {
			t.Errorf("moto holds %d roles, had %d", len(inv.Roles), len(roles))
		}
		for _, r := range inv.Roles {
			if old, ok := roles[r.Name]; !ok || old.RoleID != r.RoleID || old.Arn != r.Arn {
				t.Errorf("role %s (id %s) is not the role created at 1.8.6 (%+v)", r.Name, r.RoleID, old)
			}
		}
		for _, k := range []string{"controllerRoleArn", "nodeRoleArn", "instanceProfileName", "interruptionQueueArn"} {
			if out[k] != initial[k] {
				t.Errorf("output %s changed: %v", k, out[k])
			}
		}
		if got := w.customResourceUIDs(t); !reflect.DeepEqual(got, uids) {
			t.Errorf("NodePool/EC2NodeClass objects: %v, want the same objects as before (%v)", got, uids)
		}
		checkCRDsUpgradedFirst(t, w)
		checkControllerRunning(t, w)
	}

	t.Run("1.8.6 to 1.14.1 replaces the one policy with the split ones", func(t *testing.T) {
		w.program("version: 1.14.1")
		p := w.preview(t)
		var creates, deletes, updates []string
		for name, op := range p.ops() {
			if name == "karpenter" {
				continue // the component itself (the engine plans a remote component by its children)
			}
			switch op {
			case "create":
				creates = append(creates, name)
			case "delete":
				deletes = append(deletes, name)
			case "update":
				updates = append(updates, name)
			case "same":
			default:
				t.Errorf("%s: %s, want no replacement", name, op)
			}
		}
		sort.Strings(creates)
		sort.Strings(deletes)
		sort.Strings(updates)
		if !reflect.DeepEqual(creates, upgradeCreates()) {
			t.Errorf("creates:\n got %v\nwant %v", creates, upgradeCreates())
		}
		if want := []string{"karpenter-controller-policy", "karpenter-controller-policy-attach"}; !reflect.DeepEqual(deletes, want) {
			t.Errorf("deletes: got %v, want %v", deletes, want)
		}
		if want := []string{"karpenter-crd-release", "karpenter-release"}; !reflect.DeepEqual(updates, want) {
			t.Errorf("updates: got %v, want %v (the two releases)", updates, want)
		}

		w.up(t)
		inv := w.aws(t)
		out := w.outputs(t)
		rolesKept(t, inv, out)
		ctl := inv.Role(roleName(str(out["controllerRoleArn"])))
		want := strs(out["controllerPolicyArns"])
		sort.Strings(want)
		if ctl == nil || len(want) != 6 || !reflect.DeepEqual(ctl.AttachedPolicyArns, want) {
			t.Errorf("controller role's policies: %v, want the six split ones %v", ctl, want)
		}
		if before.Policy(strs(initial["controllerPolicyArns"])[0]) == nil || inv.Policy(strs(initial["controllerPolicyArns"])[0]) != nil {
			t.Errorf("the 1.8.6 policy should be gone from moto")
		}
		for _, name := range []string{"karpenter-crd", "karpenter"} {
			if got := w.release(t, name); got != (releaseInfo{Status: "deployed", Revision: 2, Chart: "1.14.1"}) {
				t.Errorf("helm status %s: %+v, want revision 2 of chart 1.14.1", name, got)
			}
		}
		// The new policies were attached before the old one was detached.
		ops, err := w.Ops()
		if err != nil {
			t.Fatal(err)
		}
		var detached *lab.Op
		for i, op := range ops {
			if op.Op == "Delete" && op.Name == "karpenter-controller-policy-attach" {
				detached = &ops[i]
			}
		}
		if detached == nil {
			t.Fatal("the stand-ins logged no Delete of karpenter-controller-policy-attach")
		}
		for _, op := range ops {
			if op.Op == "Create" && strings.HasSuffix(op.Name, "-attach") && op.Name != "karpenter-controller-policy-attach" &&
				!op.Time.Before(detached.Time) {
				t.Errorf("%s was attached at %s, after the old policy was detached (%s)", op.Name, op.Time, detached.Time)
			}
		}
	})
	if t.Failed() {
		return
	}

	t.Run("1.14.1 to the default 1.15.2 updates the node-lifecycle policy in place", func(t *testing.T) {
		mid := w.aws(t)
		w.program("")
		p := w.preview(t)
		var changed []string
		for name, op := range p.ops() {
			if op != "same" && name != "karpenter" {
				changed = append(changed, name+" "+op)
			}
		}
		sort.Strings(changed)
		want := []string{"karpenter-controller-node-lifecycle update", "karpenter-crd-release update", "karpenter-release update"}
		if !reflect.DeepEqual(changed, want) {
			t.Errorf("planned changes:\n got %v\nwant %v", changed, want)
		}
		w.up(t)
		inv := w.aws(t)
		out := w.outputs(t)
		rolesKept(t, inv, out)
		if str(out["version"]) != "1.15.2" {
			t.Errorf("installed version %v, want the default 1.15.2", out["version"])
		}
		for _, old := range mid.Policies {
			now := inv.Policy(old.Arn)
			switch {
			case now == nil:
				t.Errorf("policy %s is gone", old.Name)
			case strings.Contains(old.Name, "node-lifecycle"):
				// Same policy, a new default version: an update in place.
				if now.Versions != old.Versions+1 || strings.Contains(old.Document, "ec2:RebootInstances") || !strings.Contains(now.Document, "ec2:RebootInstances") {
					t.Errorf("%s: %d versions (was %d); want a new version adding ec2:RebootInstances:\n%s", old.Name, now.Versions, old.Versions, now.Document)
				}
			case now.Document != old.Document || now.Versions != old.Versions:
				t.Errorf("policy %s changed", old.Name)
			}
		}
		for _, name := range []string{"karpenter-crd", "karpenter"} {
			if got := w.release(t, name); got != (releaseInfo{Status: "deployed", Revision: 3, Chart: "1.15.2"}) {
				t.Errorf("helm status %s: %+v, want revision 3 of chart 1.15.2", name, got)
			}
		}
		w.must(t, "preview", "--expect-no-changes", "--non-interactive")
	})

	t.Run("destroy after the upgrades leaves nothing", func(t *testing.T) {
		w.must(t, "destroy", "--yes", "--non-interactive", "--skip-preview")
		w.assertNothingLeft(t)
	})
}

// checkCRDsUpgradedFirst: in the last upgrade, the karpenter-crd release's update (new CRDs) had
// completed before the controller release's update began, so the new controller never runs
// against old CRDs.
func checkCRDsUpgradedFirst(t *testing.T, w *world) {
	t.Helper()
	ops, err := w.Ops()
	if err != nil {
		t.Fatal(err)
	}
	var crds, controller *lab.Op
	for i, op := range ops {
		if op.Op != "Update" || op.Failed {
			continue
		}
		switch op.Name {
		case "karpenter-crd-release":
			crds = &ops[i]
		case "karpenter-release":
			controller = &ops[i]
		}
	}
	switch {
	case crds == nil || controller == nil:
		t.Errorf("want both releases updated; updates: crd %v, controller %v", crds, controller)
	case !crds.Time.Before(controller.Start):
		t.Errorf("the CRD release's update completed at %s, after the controller release's began (%s)",
			crds.Time.Format("15:04:05.000000"), controller.Start.Format("15:04:05.000000"))
	}
}

func roleName(arn string) string { return arn[strings.LastIndex(arn, "/")+1:] }

// customResourceUIDs are the uids of the NodePools and EC2NodeClasses (v1), by kind and name.
func (w *world) customResourceUIDs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, gvr := range []schema.GroupVersionResource{
		{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"},
		{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"},
	} {
		l, err := w.Cluster.Dynamic.Resource(gvr).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range l.Items {
			out[gvr.Resource+"/"+o.GetName()] = string(o.GetUID())
		}
	}
	if len(out) != 2 {
		t.Errorf("want one NodePool and one EC2NodeClass, got %v", out)
	}
	return out
}

// TestUpgradeV1beta1ToV1Plan: 0.36.2 (NodePool/EC2NodeClass v1beta1) → 1.0.8 (v1). The engine
// plans the custom resources as updates of the same objects — their aliases name the v1beta1
// types, so the new v1 resources are the old ones — not as replacements (README "Upgrading
// across generations"); the one controller policy gains 1.0's statements in place, the releases
// are upgraded, nothing else changes. Only the plan is checked: applying it needs Karpenter's
// conversion webhook, which the 1.0 CRDs route every v1beta1 read through and which the 1.0
// controller pod serves — none runs here (kwok starts no container, and the only controller built
// is 1.15.2), so the API server could not read the stored objects at v1.
func TestUpgradeV1beta1ToV1Plan(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.stack("version: 0.36.2")
	w.up(t)
	w.program("version: 1.0.8")
	p := w.preview(t)
	var changed []string
	for _, s := range p.Steps {
		name := urnName(s.URN)
		if s.Op == "same" || name == "karpenter" {
			continue
		}
		changed = append(changed, name+" "+s.Op)
		if s.NewState != nil && strings.HasPrefix(s.NewState.Type, "kubernetes:karpenter.") && !strings.Contains(s.NewState.Type, "/v1:") {
			t.Errorf("%s: type %s, want the v1 type", name, s.NewState.Type)
		}
	}
	sort.Strings(changed)
	want := []string{
		"karpenter-controller-policy update",
		"karpenter-crd-release update",
		"karpenter-nodeclass-default update",
		"karpenter-nodepool-default update",
		"karpenter-release update",
	}
	if !reflect.DeepEqual(changed, want) {
		t.Errorf("planned changes:\n got %v\nwant %v", changed, want)
	}
}
