//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestControllerNotReady is a failure users meet: the controller's pods cannot be scheduled (here
// a nodeSelector naming a node group the cluster does not have, as a typo in `values` would).
// The real provider's Helm waits for the Deployment, so `pulumi up` fails once releaseTimeout has
// passed, with the provider's message naming the release; nothing that needs a running controller
// (the NodePool, the EC2NodeClass) is created. Fixing the input and running `up` again converges:
// the failed release is upgraded, the pods run on the system nodes, the custom resources follow.
func TestControllerNotReady(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const timeout = 30
	broken := "releaseTimeout: 30\nvalues:\n  nodeSelector:\n    eks.amazonaws.com/nodegroup: karpenter-system\n"
	w.stack(broken)

	t.Run("up fails within the release timeout, naming the release", func(t *testing.T) {
		start := time.Now()
		stdout, stderr, err := w.run(t, "up", "--yes", "--non-interactive", "--skip-preview")
		took := time.Since(start)
		if err == nil {
			t.Fatalf("up succeeded with unschedulable controller pods:\n%s", stdout)
		}
		// The timeout bounds the wait: up fails after it, not much later (the AWS side and the
		// CRD release take a few seconds before the controller release starts waiting).
		if took < timeout*time.Second || took > (timeout+90)*time.Second {
			t.Errorf("up failed after %s, want between %ds and %ds", took.Round(time.Second), timeout, timeout+90)
		}
		for _, want := range []string{
			"kubernetes:helm.sh/v3:Release (karpenter-release):",
			"Helm Release kube-system/karpenter:",
			"failed to become available within allocated timeout",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("up output does not say %q:\n%s\n%s", want, stdout, stderr)
			}
		}
		t.Logf("pulumi up failed after %s", took.Round(time.Second))
		// The real scheduler's verdict on the controller's pods.
		pods := w.controllerPods(t)
		if len(pods) == 0 {
			t.Fatal("the controller Deployment has no pods")
		}
		for _, p := range pods {
			if p.Spec.NodeName != "" {
				t.Errorf("pod %s was scheduled onto %s", p.Name, p.Spec.NodeName)
			}
			var unschedulable string
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable {
					unschedulable = c.Message
				}
			}
			if !strings.Contains(unschedulable, "didn't match Pod's node affinity/selector") {
				t.Errorf("pod %s: want Unschedulable for its node selector, got %q", p.Name, unschedulable)
			}
		}
		// Nothing that needs a controller exists: the custom resources wait for the release.
		state, err := w.StateResources()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range state {
			if strings.HasPrefix(r.Type, "kubernetes:karpenter.") {
				t.Errorf("%s was created although the controller never became ready", r.URN)
			}
		}
	})
	if t.Failed() {
		return
	}

	t.Run("a second up after the fix converges", func(t *testing.T) {
		w.program("releaseTimeout: 30\n")
		stdout := w.up(t)
		// The failed release is in the state (with its initialization error) and is updated;
		// the NodePool and EC2NodeClass are created.
		if !strings.Contains(stdout, "1 updated") || !strings.Contains(stdout, "2 created") {
			t.Errorf("pulumi up: want the failed release updated and the two custom resources created:\n%s", stdout)
		}
		if got := w.release(t, "karpenter"); got.Status != "deployed" || got.Revision != 2 {
			t.Errorf("helm status karpenter: %+v, want deployed at revision 2", got)
		}
		for _, p := range w.controllerPods(t) {
			if p.Spec.NodeName == "" || p.Status.Phase != corev1.PodRunning {
				t.Errorf("pod %s: node %q, phase %s; want running on a system node", p.Name, p.Spec.NodeName, p.Status.Phase)
			}
		}
		w.must(t, "preview", "--expect-no-changes", "--non-interactive")
	})

	t.Run("destroy removes everything", func(t *testing.T) {
		w.must(t, "destroy", "--yes", "--non-interactive", "--skip-preview")
		w.assertNothingLeft(t)
	})
}

// controllerPods are the pods of the controller Deployment kube-system/karpenter that are not
// being deleted (a rollout replaces them).
func (w *world) controllerPods(t *testing.T) []corev1.Pod {
	t.Helper()
	cs, err := kubernetes.NewForConfig(w.ControlPlane.Config)
	if err != nil {
		t.Fatal(err)
	}
	list, err := cs.CoreV1().Pods("kube-system").List(context.Background(), metav1.ListOptions{
		LabelSelector: "app.kubernetes.io/name=karpenter,app.kubernetes.io/instance=karpenter",
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}
