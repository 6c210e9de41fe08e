//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// The world of the scenarios with the real Karpenter controller in the loop (lab.Loop), and what
// they read of it: NodeClaims, instances, conditions, the queue's messages.

// karpenterWorld is a world with the real Karpenter controller in the loop (Loop).
type karpenterWorld struct {
	*world
	vpc       *lab.VPC
	recorder  *lab.AWSRecorder
	karpenter *lab.Karpenter
	registrar *lab.Registrar
	loop      *lab.Loop
	cs        *kubernetes.Clientset
}

func newKarpenterWorld(t *testing.T) *karpenterWorld {
	t.Helper()
	return withLoop(t, newWorld(t))
}

// withLoop puts the real controller in w's loop.
func withLoop(t *testing.T, w *world) *karpenterWorld {
	t.Helper()
	loop, err := w.StartLoop(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(loop.Close)
	cs, err := kubernetes.NewForConfig(w.ControlPlane.Config)
	if err != nil {
		t.Fatal(err)
	}
	kw := &karpenterWorld{world: w, vpc: loop.VPC, recorder: loop.Recorder, karpenter: loop.Controller, registrar: loop.Registrar, loop: loop, cs: cs}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("controller process:\n%s", strings.Join(kw.karpenter.History(), "\n"))
			t.Logf("controller log tail:\n%s", kw.karpenter.LogTail(60))
			t.Logf("moto fix-ups:\n%s", strings.Join(kw.recorder.FixUps(), "\n"))
			if errs := kw.registrar.Errors(); len(errs) > 0 {
				t.Logf("registrar errors:\n%s", strings.Join(errs, "\n"))
			}
		}
	})
	return kw
}

// karpenterInputs are the loop's component inputs (Loop.Inputs).
func (w *karpenterWorld) karpenterInputs(nodeClassExtra string) string {
	return w.loop.Inputs(nodeClassExtra)
}

// scale sets the replicas of the workload (ScaleWorkload).
func (w *karpenterWorld) scale(t *testing.T, replicas int32) {
	t.Helper()
	if err := lab.ScaleWorkload(context.Background(), w.cs, replicas); err != nil {
		t.Fatal(err)
	}
}

// waitController waits until the running controller process is version's.
func (w *karpenterWorld) waitController(t *testing.T, timeout time.Duration, version string) {
	t.Helper()
	eventually(t, timeout, "the "+version+" controller", func() error {
		if v := w.karpenter.Versions(); !w.karpenter.Running() || len(v) == 0 || v[len(v)-1] != version {
			return fmt.Errorf("running %v, versions %v: %v", w.karpenter.Running(), v, w.karpenter.History())
		}
		return nil
	})
}

// m5LargeWorkload runs the workload's two pods, asking for an m5.large, on a node the controller
// launches, and returns the node and its NodeClaim (workloadOfType).
func (w *karpenterWorld) m5LargeWorkload(t *testing.T) (node lab.Instance, claim string) {
	t.Helper()
	return w.workloadOfType(t, "m5.large")
}

// workloadOfType runs the workload's two pods, asking for instanceType, on a node the controller
// launches, and returns the node and its NodeClaim. One instance type: a pool that consolidates
// replaces an underutilized node with a cheaper type after a minute, and moto's CreateFleet
// launches whichever override comes first rather than the cheapest, as AWS's lowest-price
// strategy would — a node of a dearer type would be replaced for a reason that is moto's.
func (w *karpenterWorld) workloadOfType(t *testing.T, instanceType string) (node lab.Instance, claim string) {
	t.Helper()
	if err := lab.ScaleWorkloadOn(context.Background(), w.cs, 2, map[string]string{"node.kubernetes.io/instance-type": instanceType}); err != nil {
		t.Fatal(err)
	}
	node = w.workloadOn(t, 2, 3*time.Minute)
	if node.Type != instanceType {
		t.Fatalf("the workload runs on %s (%s), want an %s (its pods ask for one)", node.ID, node.Type, instanceType)
	}
	for name, id := range w.claims(t) {
		if id == node.ID {
			claim = name
		}
	}
	if claim == "" {
		t.Fatalf("no NodeClaim of %s: %v", node.ID, w.claims(t))
	}
	return node, claim
}

// eventually polls check every half second until it returns nil, failing the test with its last
// error after timeout.
func eventually(t *testing.T, timeout time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %v", what, timeout, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// claims are the NodeClaims by name, each with its instance id ("" before launch).
func (w *karpenterWorld) claims(t *testing.T) map[string]string {
	t.Helper()
	list, err := w.Cluster.Dynamic.Resource(lab.NodeClaimGVR).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range list.Items {
		id, _, _ := unstructured.NestedString(c.Object, "status", "providerID")
		out[c.GetName()] = id[strings.LastIndex(id, "/")+1:]
	}
	return out
}

// running are moto's instances that are pending or running.
func (w *karpenterWorld) running(t *testing.T) []lab.Instance {
	t.Helper()
	all, _, err := lab.ReadEC2(context.Background(), w.AWS)
	if err != nil {
		t.Fatal(err)
	}
	var out []lab.Instance
	for _, i := range all {
		if i.State == "pending" || i.State == "running" {
			out = append(out, i)
		}
	}
	return out
}

// workloadOn is WaitWorkload, failing the test.
func (w *karpenterWorld) workloadOn(t *testing.T, replicas int, timeout time.Duration, not ...string) lab.Instance {
	t.Helper()
	i, err := lab.WaitWorkload(context.Background(), w.cs, w.AWS, replicas, timeout, not...)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

var ec2NodeClassGVR = schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}

// destroyWithNodes runs `pulumi destroy` on a stack with Karpenter's nodes running, bounded: a
// destroy that deleted the controller first would wait forever on the EC2NodeClass's finalizer,
// and the checks after it then say what was left behind. It reports a failed destroy (its output's
// tail) and says whether it succeeded.
func (w *karpenterWorld) destroyWithNodes(t *testing.T) bool {
	t.Helper()
	w.Engine.Timeout = 4 * time.Minute
	defer func() { w.Engine.Timeout = 0 }()
	stdout, stderr, err := w.run(t, "destroy", "--yes", "--non-interactive", "--skip-preview")
	if err != nil {
		t.Errorf("pulumi destroy: %v\n%s\n%s", err, lastLines(stdout, 30), stderr)
	}
	return err == nil
}

// lastLines are the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func firstKey(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}

func instanceIDs(in []lab.Instance) []string {
	var out []string
	for _, i := range in {
		out = append(out, i.ID+" "+i.State)
	}
	return out
}

// launchHopLimits are the metadata hop limits of the launch templates the instance was launched
// from (LaunchTemplatesOf).
func launchHopLimits(calls []lab.AWSCall, i lab.Instance) []int32 {
	var out []int32
	for _, lt := range lab.LaunchTemplatesOf(calls, i.ID, i.Type) {
		out = append(out, lt.HopLimit)
	}
	return out
}

// conditionTrue is the reason of the object's condition of that type when it is True ("" when not).
// watchDrift watches the NodeClaim until stop is called, which returns the reason of its
// Drifted condition if it was ever seen True ("" if not): a node replaced for drift is marked
// Drifted before it goes.
func (w *karpenterWorld) watchDrift(claim string) (stop func() string) {
	drifted := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(250 * time.Millisecond):
			}
			nc, err := w.Cluster.Dynamic.Resource(lab.NodeClaimGVR).Get(context.Background(), claim, metav1.GetOptions{})
			if err != nil {
				continue
			}
			if reason := conditionTrue(nc, "Drifted"); reason != "" {
				drifted <- reason
				return
			}
		}
	}()
	return func() string {
		close(done)
		select {
		case reason := <-drifted:
			return reason
		default:
			return ""
		}
	}
}

func conditionTrue(obj *unstructured.Unstructured, typ string) string {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ && m["status"] == "True" {
			return fmt.Sprintf("%v", m["reason"])
		}
	}
	return ""
}

// receivedAndDeleted: after since, the controller received a message naming the instance from the
// queue and deleted it with the receipt handle it was given.
func receivedAndDeleted(calls []lab.AWSCall, since time.Time, instance string) error {
	handles := map[string]string{}
	for _, c := range calls {
		if c.Time.Before(since) {
			continue
		}
		switch c.Action {
		case "ReceiveMessage":
			for _, m := range c.Received {
				if strings.Contains(m.Body, instance) {
					handles[m.ReceiptHandle] = m.MessageId
				}
			}
		case "DeleteMessage":
			if _, ok := handles[c.Params.Get("ReceiptHandle")]; ok && c.Status == 200 {
				return nil
			}
		}
	}
	if len(handles) == 0 {
		return fmt.Errorf("no message about %s was received from the queue", instance)
	}
	return fmt.Errorf("message(s) %v about %s were received but not deleted", handles, instance)
}

// readyCondition: the object's Ready condition is True.
func readyCondition(obj *unstructured.Unstructured) error {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m := c.(map[string]any)
		if m["type"] == "Ready" {
			if m["status"] == "True" {
				return nil
			}
			return fmt.Errorf("Ready=%v: %v", m["status"], m["message"])
		}
	}
	return fmt.Errorf("no Ready condition: %v", conds)
}
