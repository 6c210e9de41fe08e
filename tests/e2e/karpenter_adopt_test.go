//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// TestKarpenterAdoption: a Karpenter 1.14.1 install made the getting-started way (the template's
// IAM and queue, eksctl's Pod Identity and aws-auth mapping, `helm install`, the guide's NodePool
// and EC2NodeClass: lab.GettingStarted) runs a node for a workload when a program first adds the
// component. Without `adopt` the preview fails, naming it. With it, the preview imports what
// exists (updating in place what differs) and creates only what the install lacks; `up` takes it
// over with the same instance, the same NodeClaim and the workload Running throughout (sampled
// every 2 s), the CRDs now belong to the component's CRD release, and a second preview has
// nothing to do. A program that would change what drifts the install's node (the component's
// tags on its class) is refused at preview. Then `up` to 1.15.2 keeps the node; a program without
// adopt is refused; the program grows (access entries instead of the aws-auth mapping, a pool and
// class beside the install's), which is created rather than imported, and the new pool's node
// joins; and `destroy` leaves nothing running.
func TestKarpenterAdoption(t *testing.T) {
	t.Parallel()
	w := newKarpenterWorld(t)
	ctx := context.Background()
	from, to := strings.TrimPrefix(lab.KarpenterPreviousVersion, "v"), strings.TrimPrefix(lab.KarpenterVersion, "v")
	k8s, err := lab.ClusterVersionFor(from)
	if err != nil {
		t.Fatal(err)
	}
	// The cluster alone first, as the guide's eksctl makes it; the install goes on it outside
	// the stack.
	w.stackWith(lab.ProgramOptions{NoComponent: true, KubernetesVersion: k8s})
	w.up(t)
	cluster := str(w.outputs(t)["clusterName"])
	var gs *lab.GettingStarted
	var node lab.Instance
	var claim string
	controllerRole := "arn:aws:iam::" + lab.MotoAccount + ":role/" + cluster + "-karpenter" // eksctl's

	t.Run("the getting-started install runs a node", func(t *testing.T) {
		if gs, err = w.InstallGettingStarted(ctx, cluster, from); err != nil {
			t.Fatal(err)
		}
		w.waitController(t, time.Minute, from)
		node, claim = w.m5LargeWorkload(t)
		// What a destroy must return the cluster to: it as the install left it (aws-auth, say).
		w.rebaseline(t)
	})
	if t.Failed() {
		return
	}

	// docs/migrating.md's program for the install: as it runs, at version ("": the default),
	// with the value the install set on the release that the component does not set itself
	// (dnsPolicy) unless dropValues. The guide tagged the subnets and the
	// security group: no discovery input.
	dropValues, grown, tagged := false, false, false
	program := func(version string, adopt bool) lab.ProgramOptions {
		in := "controllerIdentity: podIdentity\nnodeAccess: awsAuth\ncreateInstanceProfile: false\n"
		if grown {
			// After the adoption the program grows: access entries instead of the aws-auth
			// mapping, and a pool and class beside the install's (declared as the component's
			// default pool and class are, so those stay as they are).
			in = "controllerIdentity: podIdentity\nnodeAccess: accessEntry\ncreateInstanceProfile: false\n" +
				"nodeClasses:\n  - name: default\n  - name: batch\n" +
				"nodePools:\n  - name: default\n    nodeClassRef: default\n    limits:\n      cpu: \"" + catalog.DefaultPoolCPULimit + "\"\n" +
				"  - name: batch\n    nodeClassRef: batch\n"
		}
		if gs != nil && len(gs.Values) > 0 && !dropValues {
			in += "values:\n  dnsPolicy: Default\n"
		}
		if version != "" {
			in = "version: " + version + "\n" + in
		}
		if tagged {
			in += "tags:\n  team: platform\n"
		}
		if adopt {
			var rules []string
			for key, name := range gs.RuleNames {
				rules = append(rules, fmt.Sprintf("    %s: %s\n", key, name))
			}
			sort.Strings(rules)
			in += "adopt:\n  podIdentityAssociationId: " + gs.PodIdentityAssociationID + "\n  interruptionRuleNames:\n" + strings.Join(rules, "")
		}
		return lab.ProgramOptions{NoDiscovery: true, Inputs: in}
	}

	// The same program without adopt: a second install beside the running one would fail in the
	// middle of `up` (Helm refuses its CRD release over CRDs no release owns), so the preview
	// fails, naming adopt and the install's node role.
	t.Run("without adopt the preview fails naming adopt", func(t *testing.T) {
		w.programWith(program(from, false))
		stdout, stderr, err := w.run(t, "preview", "--non-interactive")
		if err == nil {
			t.Fatalf("preview succeeded:\n%s", stdout)
		}
		want := "adopt: unset, and the IAM role KarpenterNodeRole-" + cluster + " and the queue " + cluster + " exist"
		if !strings.Contains(stdout, want) {
			t.Errorf("preview output does not say %q:\n%s\n%s", want, stdout, stderr)
		}
	})

	// The install set dnsPolicy on the release. A program without it would upgrade the release
	// without it — Helm takes the new values only — so the preview names it, and the input that
	// keeps it.
	t.Run("a value set outside the program is named at preview", func(t *testing.T) {
		if len(gs.Values) == 0 {
			t.Fatalf("the getting-started install of %s set no value outside what the component sets: this check needs one", from)
		}
		dropValues = true
		defer func() { dropValues = false }()
		w.programWith(program(from, true))
		p := w.preview(t)
		want := "values.dnsPolicy: Default on the running release kube-system/karpenter, set outside this program"
		if !slices.ContainsFunc(p.Diagnostics, func(d diagnostic) bool { return strings.Contains(d.Message, want) }) {
			t.Errorf("the preview does not say %q: %+v", want, p.Diagnostics)
		}
	})

	// The component's tags go onto every node class, and a class's tags are in Karpenter's drift
	// hash: adopting with tags would replace the install's node. The preview reads the class as
	// the API server holds it and refuses, naming it and the way out.
	t.Run("a change that would replace the install's nodes is refused at preview", func(t *testing.T) {
		tagged = true
		defer func() { tagged = false }()
		w.programWith(program(from, true))
		stdout, _, err := w.run(t, "preview", "--non-interactive")
		want := "the install's EC2NodeClass default runs with other values of tags.team than this program sets"
		if err == nil || !strings.Contains(stdout, want) || !strings.Contains(stdout, "adopt.allowNodeReplacement") {
			t.Errorf("preview with tags (err %v) does not say %q:\n%s", err, want, lastLines(stdout, 30))
		}
	})

	t.Run("the preview imports the install and creates only what it lacks", func(t *testing.T) {
		w.programWith(program(from, true))
		// What the getting-started install lacks: the component, the CRD release with the
		// hand-over of its CRDs, and the aws-auth patch (the mapping exists: the patch keeps it).
		// The 1.x template has no instance profile, and the program (docs/migrating.md's) asks
		// for none.
		checkAdoptingPreview(t, w, from, []string{"karpenter-aws-auth"}, "karpenter-node", "karpenter-controller", "karpenter-interruption",
			"karpenter-release", "karpenter-nodepool-default", "karpenter-nodeclass-default", "karpenter-pod-identity")
	})
	if t.Failed() {
		return
	}

	t.Run("up takes the install over with the node, its claim and the workload in place", func(t *testing.T) {
		stop := w.sampleContinuity(t, node.ID, claim)
		runs := len(w.karpenter.Versions())
		w.up(t)
		// The release's values gained the cluster endpoint: the Deployment rolls, and the next
		// controller process must leave the node alone too (its disruption loop runs every 10 s).
		eventually(t, time.Minute, "the controller after the adopting up", func() error {
			if !w.karpenter.Running() || len(w.karpenter.Versions()) == runs {
				return fmt.Errorf("running %v: %v", w.karpenter.Running(), w.karpenter.History())
			}
			return nil
		})
		time.Sleep(30 * time.Second)
		if broken := stop(); len(broken) > 0 {
			t.Errorf("during and after the adopting up:\n%s", strings.Join(broken, "\n"))
		}
		t.Logf("controller processes: %v", w.karpenter.History())
		if got := str(w.outputs(t)["controllerRoleArn"]); got != controllerRole {
			t.Errorf("controllerRoleArn %s, want the install's %s", got, controllerRole)
		}
		checkCRDsHandedOver(t, w, from)
		if r := w.release(t, "karpenter-crd"); r.Status != "deployed" || r.Chart != from {
			t.Errorf("karpenter-crd release: %+v", r)
		}
		if r := w.release(t, "karpenter"); r.Status != "deployed" || r.Revision < 2 || r.Chart != from {
			t.Errorf("karpenter release: %+v, want the helm install's release upgraded (revision ≥ 2)", r)
		}
		p := w.preview(t)
		for _, s := range p.Steps {
			if s.Op != "same" && s.Op != "read" {
				t.Errorf("after the adoption the preview would still %s %s: %v", s.Op, urnName(s.URN), s.DiffReasons)
			}
		}
	})
	if t.Failed() {
		return
	}

	t.Run("up to "+to+": the node survives", func(t *testing.T) {
		w.programWith(program("", true))
		stop := w.sampleContinuity(t, node.ID, claim)
		w.up(t)
		w.waitController(t, 2*time.Minute, to)
		time.Sleep(60 * time.Second) // the 1.15.2 controller's disruption loop runs every 10 s
		if broken := stop(); len(broken) > 0 {
			t.Errorf("during and after the upgrade:\n%s", strings.Join(broken, "\n"))
		}
	})
	if t.Failed() {
		return
	}

	// After the adopting `up`, adopt is inert: that `up` described the install's roles as this
	// component's, so without adopt the preview resumes the adoption (the install's names; the
	// rules' names, which only adopt gave, as the stack has them) and has nothing to do.
	t.Run("after the adoption, a program without adopt has nothing to do", func(t *testing.T) {
		w.programWith(program("", false))
		p := w.preview(t)
		if errs := p.errors(); len(errs) > 0 {
			t.Fatalf("preview errors: %v", errs)
		}
		for name, op := range p.ops() {
			if op != "same" && op != "read" {
				t.Errorf("without adopt the preview would %s %s", op, name)
			}
		}
	})
	if t.Failed() {
		return
	}

	// What an adopted install grows by is created, not imported: the preview would otherwise fail
	// importing what does not exist. The pool's node launches and joins through the access entry.
	// The program grows without adopt; putting adopt back then changes nothing either.
	t.Run("a pool, a class and access entries added after the adoption launch a node", func(t *testing.T) {
		grown = true
		w.programWith(program("", false))
		p := w.preview(t)
		if errs := p.errors(); len(errs) > 0 {
			t.Fatalf("preview errors: %v", errs)
		}
		ops := map[string]string{}
		for _, s := range p.Steps {
			ops[urnName(s.URN)] = s.Op
			if len(s.ReplaceReasons) > 0 {
				t.Errorf("%s would be replaced: %v", urnName(s.URN), s.ReplaceReasons)
			}
		}
		for _, name := range []string{"karpenter-nodepool-batch", "karpenter-nodeclass-batch", "karpenter-node-access"} {
			if ops[name] != "create" {
				t.Errorf("the preview would %q %s, want create: %v", ops[name], name, ops)
			}
		}
		for _, name := range []string{"karpenter-nodepool-default", "karpenter-nodeclass-default"} {
			if op := ops[name]; op != "" && op != "same" { // `preview --json` leaves sames out
				t.Errorf("the preview would %s %s, declared as the component's default", op, name)
			}
		}
		w.up(t)
		if err := lab.ScaleWorkloadOn(ctx, w.cs, 2, map[string]string{"node.kubernetes.io/instance-type": "m5.large", "karpenter.sh/nodepool": "batch"}); err != nil {
			t.Fatal(err)
		}
		node = w.workloadOn(t, 2, 3*time.Minute, node.ID)
		t.Logf("the batch pool's node %s runs the workload", node.ID)
		for name, op := range w.preview(t).ops() {
			if op != "same" && op != "read" {
				t.Errorf("after the grown up the preview would still %s %s", op, name)
			}
		}
		w.programWith(program("", true))
		for name, op := range w.preview(t).ops() {
			if op != "same" && op != "read" {
				t.Errorf("with adopt back in the program the preview would %s %s", op, name)
			}
		}
	})
	if t.Failed() {
		return
	}

	t.Run("destroy with the node running leaves nothing running", func(t *testing.T) {
		w.destroyWithNodes(t)
		// Kept by design: the hand-over of the CRDs (the release deleted the CRDs themselves) and
		// the node role's aws-auth mapping (nodeAccess: awsAuth until the program grew: it stayed
		// when the program moved to access entries).
		retained := []string{"karpenter-aws-auth"}
		for _, crd := range mustRelease(t, from).CrdNames() {
			retained = append(retained, "karpenter-crd-owner-"+crd)
		}
		checkKarpenterDestroy(t, w, node, retained...)
	})

	// Before, during and after the adoption the controllers act as the install's role, through
	// its pod identity association, which the component imported and kept.
	t.Run("every AWS call of the controllers is the controller role's", func(t *testing.T) {
		checkControllerSessions(t, w.recorder.Calls(), controllerRole)
	})
}

// sampleContinuity checks every 2 s, until the returned stop is called, that the workload's pods
// are the ones running now (none evicted and replaced), on instance under NodeClaim claim and
// nothing else: stop returns what broke, once each.
func (w *karpenterWorld) sampleContinuity(t *testing.T, instance, claim string) (stop func() []string) {
	t.Helper()
	workloadPods := func() ([]string, error) {
		pods, err := w.cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + lab.WorkloadName})
		if err != nil {
			return nil, err
		}
		var names []string
		for _, p := range pods.Items {
			names = append(names, p.Name)
		}
		sort.Strings(names)
		return names, nil
	}
	pods, err := workloadPods()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	var broken []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		if !seen[s] {
			seen[s] = true
			broken = append(broken, time.Now().Format("15:04:05")+" "+s)
		}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			ctx := context.Background()
			if got, err := lab.WaitWorkload(ctx, w.cs, w.AWS, 2, 0); err != nil {
				note("workload: " + err.Error())
			} else if got.ID != instance {
				note("the workload runs on " + got.ID + ", not " + instance)
			}
			if now, err := workloadPods(); err != nil {
				note("pods: " + err.Error())
			} else if !slices.Equal(now, pods) {
				note(fmt.Sprintf("the workload's pods are %v, were %v", now, pods))
			}
			list, err := w.Cluster.Dynamic.Resource(lab.NodeClaimGVR).List(ctx, metav1.ListOptions{})
			if err != nil {
				note("NodeClaims: " + err.Error())
			} else if len(list.Items) != 1 || list.Items[0].GetName() != claim || list.Items[0].GetDeletionTimestamp() != nil {
				var names []string
				for _, c := range list.Items {
					names = append(names, c.GetName())
				}
				note(fmt.Sprintf("NodeClaims %v, want only %s", names, claim))
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Second):
			}
		}
	}()
	return func() []string {
		close(done)
		<-finished
		mu.Lock()
		defer mu.Unlock()
		return broken
	}
}

func mustRelease(t *testing.T, version string) catalog.Release {
	t.Helper()
	r, err := catalog.LookupRelease(version, false)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
