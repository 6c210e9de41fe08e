//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// TestKarpenterUpgrade: Karpenter 1.14.1 → 1.15.2 through `pulumi up` with a node running, on the
// component's defaults (only the version set). The 1.14.1 controller launches a node for the
// workload from the default node class and pool (the image the al2023@latest alias resolves to
// through SSM, on-demand); `pulumi up` to 1.15.2 upgrades the CRD release,
// then the controller release (the component's policies gain ec2:RebootInstances); the Deployment
// rolls, so the 1.14.1 process stops with its pod and the 1.15.2 one starts beside a new pod. 1.15
// changed the EC2NodeClass hash (version v5 → v6); by design (its nodeclass.hash controller) the new
// controller re-stamps the NodeClaims of the class with the new hash instead of finding them drifted.
// The node survives: for 90 s after the 1.15.2 controller started (its disruption loop runs every
// 10 s) the same instance runs, under the same NodeClaim, with the workload on it, and the claim
// carries the v6 hash version — so the 1.15.2 controller did reconcile it. The destroy then
// leaves nothing running.
func TestKarpenterUpgrade(t *testing.T) {
	t.Parallel()
	w := newKarpenterWorld(t)
	from, to := strings.TrimPrefix(lab.KarpenterPreviousVersion, "v"), strings.TrimPrefix(lab.KarpenterVersion, "v")
	// The install every user gets: the component's default EC2NodeClass (al2023@latest, resolved
	// through the EKS optimized-AMI SSM parameter for the cluster's Kubernetes version) and
	// default NodePool (on-demand), only the version pinned.
	w.stack("version: " + from + "\n")
	var node lab.Instance
	var claim, role string
	var policies map[string][]lab.IAMPolicy // by version
	var upgradeStart, upgradeEnd time.Time

	t.Run("at "+from+" the controller launches a node", func(t *testing.T) {
		w.up(t)
		role = str(w.outputs(t)["controllerRoleArn"])
		policies = map[string][]lab.IAMPolicy{from: controllerPolicies(t, w.world, role)}
		w.waitController(t, time.Minute, from)
		node, claim = w.m5LargeWorkload(t)
		checkDefaultInstance(t, w, node)
		// The default class sets no maxPods: Karpenter writes the instance type's pod capacity,
		// which the NodeClaim (so the node) has.
		nc, err := w.Cluster.Dynamic.Resource(lab.NodeClaimGVR).Get(context.Background(), claim, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pods, _, _ := unstructured.NestedString(nc.Object, "status", "capacity", "pods")
		maxPods, err := strconv.Atoi(pods)
		if err != nil {
			t.Fatalf("NodeClaim %s: capacity pods %q", claim, pods)
		}
		checkNodeBoot(t, w, node, expectedNodeBoot(t, w, str(w.outputs(t)["clusterName"]), maxPods, ""))
	})
	if t.Failed() {
		return
	}

	t.Run("pulumi up to "+to+": the controller is replaced and the node survives", func(t *testing.T) {
		w.program("")
		upgradeStart = time.Now()
		w.up(t)
		upgradeEnd = time.Now()
		policies[to] = controllerPolicies(t, w.world, role)
		checkCRDsUpgradedFirst(t, w.world)
		var started time.Time
		eventually(t, 2*time.Minute, "the "+to+" controller", func() error {
			if v := w.karpenter.Versions(); !w.karpenter.Running() || v[len(v)-1] != to {
				return fmt.Errorf("running %v, versions %v", w.karpenter.Running(), v)
			}
			started = time.Now()
			return nil
		})
		for time.Since(started) < 90*time.Second {
			if got := w.workloadOn(t, 2, 30*time.Second); got.ID != node.ID {
				t.Fatalf("the workload moved from %s to %s after the upgrade", node.ID, got.ID)
			}
			if claims := w.claims(t); len(claims) != 1 || claims[claim] != node.ID {
				t.Fatalf("NodeClaims after the upgrade: %v, want only %s of %s", claims, claim, node.ID)
			}
			time.Sleep(5 * time.Second)
		}
		nc, err := w.Cluster.Dynamic.Resource(lab.NodeClaimGVR).Get(context.Background(), claim, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if v := nc.GetAnnotations()["karpenter.k8s.aws/ec2nodeclass-hash-version"]; v != "v6" {
			t.Errorf("NodeClaim %s: ec2nodeclass-hash-version %q, want v6 (re-stamped by the %s controller)", claim, v, to)
		}
		if v := w.karpenter.Versions(); len(v) != 2 || v[0] != from || v[1] != to {
			t.Errorf("controller processes %v, want %s then %s: %v", v, from, to, w.karpenter.History())
		}
		// Before the destroy: Helm's uninstall deletes the RBAC while the last process may still
		// run for a moment.
		if got, err := w.karpenter.Forbidden(); err != nil || len(got) > 0 {
			t.Errorf("the API server refused a controller (its service account's RBAC, from the chart), or its log could not be read (%v):\n%s", err, strings.Join(got, "\n"))
		}
	})
	if t.Failed() {
		return
	}

	t.Run("destroy with the node running leaves nothing running", func(t *testing.T) {
		w.destroyWithNodes(t)
		checkKarpenterDestroy(t, w, node)
	})

	// AWS evaluates a call against the role's policies when it is made: before the upgrade's
	// `up` those of from, after it those of to; a call during it must be allowed by both.
	t.Run("every AWS call each controller made is allowed by the policies in force", func(t *testing.T) {
		calls := w.recorder.Calls()
		checkControllerSessions(t, calls, role)
		before, during, after := callsAround(calls, upgradeStart, upgradeEnd)
		for _, part := range []struct {
			calls    []lab.AWSCall
			versions []string
		}{{before, []string{from}}, {during, []string{from, to}}, {after, []string{to}}} {
			for _, v := range part.versions {
				msgs, _, _ := denials(t, part.calls, role, policies[v])
				for _, m := range msgs {
					t.Errorf("under the %s policies: %s", v, m)
				}
			}
		}
		t.Logf("%d calls before the upgrade, %d during, %d after", len(before), len(during), len(after))
	})
}
