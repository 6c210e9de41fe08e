//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// The images the al2023@latest alias resolves to for Kubernetes 1.33 and 1.34 in the world's SSM
// (lab/moto/eks-ami-parameters.json: as on AWS, each version has its own).
const (
	image133 = "ami-b112504511528ce03"
	image134 = "ami-7a0f9880363f0454c"
)

// TestClusterUpgradeRollsNodes: the cluster's Kubernetes version goes up under a running install
// — the program's cluster `version`, 1.33 → 1.34, one minor version as EKS allows — with a node
// running from the component's default class (al2023@latest) and pool. The engine updates the
// cluster first; the component then reads it (1.34) and checks its release against it (Karpenter
// 1.15.2 supports 1.34; 1.34's al2023 parameter exists) before it changes anything, and has
// nothing to change. Karpenter learns the new version from EKS (its version controller asks
// every 5 minutes; in the lab EKS_CONTROL_PLANE makes it ask EKS, whose answer is the stand-in's
// record: the API server stays v1.33.3), resolves the alias to 1.34's image, marks the node
// Drifted and replaces it with one on that image within the default pool's disruption budget
// (10% of nodes, at least one at a time); the workload moves, the old instance is terminated,
// and a preview has nothing to do.
func TestClusterUpgradeRollsNodes(t *testing.T) {
	t.Parallel()
	w := newKarpenterWorld(t)
	w.stackWith(lab.ProgramOptions{KubernetesVersion: "1.33"})
	var node lab.Instance
	var claim string

	t.Run("on 1.33 the node runs 1.33's image", func(t *testing.T) {
		w.up(t)
		node, claim = w.m5LargeWorkload(t)
		if node.ImageID != image133 {
			t.Fatalf("the node %s runs %s, want 1.33's al2023 image %s", node.ID, node.ImageID, image133)
		}
	})
	if t.Failed() {
		return
	}

	t.Run("the cluster goes to 1.34: the component checks it, Karpenter rolls the node", func(t *testing.T) {
		stopWatching := w.watchDrift(claim)
		w.programWith(lab.ProgramOptions{KubernetesVersion: "1.34"})
		out := w.up(t)
		rec, err := w.EKSRecord()
		if err != nil {
			t.Fatal(err)
		}
		cluster := str(w.outputs(t)["clusterName"])
		if v := rec.Clusters[cluster].Version; v != "1.34" {
			t.Fatalf("the cluster's version after up is %q, want 1.34:\n%s", v, tail(out, 30))
		}
		// The component's checks followed the cluster: they read 1.34's parameter for the
		// default class's alias.
		if read := parametersRead(t, w.world); !slices.ContainsFunc(read, func(p string) bool {
			return strings.Contains(p, "/optimized-ami/1.34/amazon-linux-2023/")
		}) {
			t.Errorf("the component read no 1.34 al2023 parameter; it read %q", read)
		}
		// Karpenter's version controller asks EKS every 5 minutes.
		next := w.workloadOn(t, 2, 8*time.Minute, node.ID)
		if reason := stopWatching(); reason == "" {
			t.Errorf("NodeClaim %s of %s was never seen Drifted=True before its node was replaced", claim, node.ID)
		} else {
			t.Logf("NodeClaim %s of %s was Drifted (%s)", claim, node.ID, reason)
		}
		if next.ImageID != image134 {
			t.Errorf("the replacement %s runs %s, want 1.34's al2023 image %s", next.ID, next.ImageID, image134)
		}
		eventually(t, time.Minute, "the drifted instance terminated", func() error {
			for _, i := range w.running(t) {
				if i.ID == node.ID {
					return fmt.Errorf("%s is %s", i.ID, i.State)
				}
			}
			return nil
		})
		w.must(t, "preview", "--expect-no-changes", "--non-interactive")
	})

	t.Run("destroy leaves nothing", func(t *testing.T) {
		if err := lab.DeleteWorkload(context.Background(), w.cs); err != nil { // the test's, not the stack's
			t.Fatal(err)
		}
		w.must(t, "destroy", "--yes", "--non-interactive", "--skip-preview")
		w.assertNothingLeft(t)
	})
}

// parametersRead are the SSM parameters the programs' components read (getParameter invokes in
// the engine's gRPC log), in order.
func parametersRead(t *testing.T, w *world) []string {
	t.Helper()
	calls, err := w.Engine.GRPCCalls()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range calls.Started("ResourceMonitor/Invoke") {
		var inv struct {
			Tok  string
			Args struct{ Name string }
		}
		if err := c.Decode(&inv); err != nil {
			t.Fatal(err)
		}
		if inv.Tok == "aws:ssm/getParameter:getParameter" {
			out = append(out, inv.Args.Name)
		}
	}
	return out
}
