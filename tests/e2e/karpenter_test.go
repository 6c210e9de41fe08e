//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

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
	w := newWorld(t)
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

// TestKarpenter is the real Karpenter controller on what the component installs, through `pulumi
// up` and `pulumi destroy`: it launches an instance for pending pods from the component's node
// class (subnets and security group found by the discovery tags the component set, the component's
// tags on the instance), handles a Spot interruption warning that reaches the component's queue
// through the component's EventBridge rule, replaces a node whose EC2NodeClass `pulumi up`
// changed, consolidates an empty node away, and — when the stack is destroyed with a node running
// — terminates it before its own controller, IAM and queue go: nothing is left running in moto,
// no NodeClaim, Node or finalizer in the cluster. Every AWS call it made is then checked against
// the controller policies the component attached to its role.
func TestKarpenter(t *testing.T) {
	t.Parallel()
	w := newKarpenterWorld(t)
	ctx := context.Background()
	// The class's own kubelet setting and user data, which must reach what each node boots with.
	const maxPods, userScript = 42, "echo user data of the lab's node class"
	nodeClass := fmt.Sprintf("    kubelet:\n      maxPods: %d\n    userData: |\n      #!/bin/bash\n      %s\n", maxPods, userScript)
	w.stack(w.karpenterInputs(nodeClass))
	var out map[string]any
	var cluster string
	var policies []lab.IAMPolicy
	var boot nodeBoot

	t.Run("up: the controller starts with the Deployment's environment and the node class becomes Ready", func(t *testing.T) {
		w.up(t)
		out = w.outputs(t)
		cluster = str(out["clusterName"])
		eventually(t, time.Minute, "the controller process", func() error {
			if !w.karpenter.Running() {
				return fmt.Errorf("not running: %v", w.karpenter.History())
			}
			return nil
		})
		checkControllerIdentity(t, w, str(out["controllerRoleArn"]))
		env := w.karpenter.Env()
		// The wiring under test is the component's: these come from the chart values it set.
		if env["CLUSTER_NAME"] != cluster || env["INTERRUPTION_QUEUE"] != str(out["interruptionQueueName"]) {
			t.Errorf("controller env CLUSTER_NAME=%q INTERRUPTION_QUEUE=%q, want %q and %q", env["CLUSTER_NAME"], env["INTERRUPTION_QUEUE"], cluster, out["interruptionQueueName"])
		}
		if env["SYSTEM_NAMESPACE"] != "kube-system" || env["MEMORY_LIMIT"] != "1073741824" || env["CPU_REQUESTS"] != "1000" {
			t.Errorf("controller env from the pod: SYSTEM_NAMESPACE=%q MEMORY_LIMIT=%q CPU_REQUESTS=%q", env["SYSTEM_NAMESPACE"], env["MEMORY_LIMIT"], env["CPU_REQUESTS"])
		}
		eventually(t, 2*time.Minute, "EC2NodeClass default Ready", func() error {
			nc, err := w.Cluster.Dynamic.Resource(ec2NodeClassGVR).Get(ctx, "default", metav1.GetOptions{})
			if err != nil {
				return err
			}
			return readyCondition(nc)
		})
		nc, _ := w.Cluster.Dynamic.Resource(ec2NodeClassGVR).Get(ctx, "default", metav1.GetOptions{})
		var subnets, groups []string
		list, _, _ := unstructured.NestedSlice(nc.Object, "status", "subnets")
		for _, s := range list {
			subnets = append(subnets, str(s.(map[string]any)["id"]))
		}
		list, _, _ = unstructured.NestedSlice(nc.Object, "status", "securityGroups")
		for _, s := range list {
			groups = append(groups, str(s.(map[string]any)["id"]))
		}
		sort.Strings(subnets)
		want := slices.Sorted(slices.Values(w.vpc.SubnetIDs))
		if !slices.Equal(subnets, want) || !slices.Equal(groups, []string{w.vpc.SecurityGroupID}) {
			t.Errorf("the node class found subnets %v and security groups %v, want the VPC's %v and %s (tagged by the component)", subnets, groups, want, w.vpc.SecurityGroupID)
		}
		policies = controllerPolicies(t, w.world, str(out["controllerRoleArn"]))
		boot = expectedNodeBoot(t, w, cluster, maxPods, userScript)
		// The instance profile Karpenter made from the component's node role.
		profile, _, _ := unstructured.NestedString(nc.Object, "status", "instanceProfile")
		ip, err := iam.NewFromConfig(w.AWS).GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(profile)})
		if err != nil || len(ip.InstanceProfile.Roles) != 1 || aws.ToString(ip.InstanceProfile.Roles[0].Arn) != str(out["nodeRoleArn"]) {
			t.Errorf("instance profile %q: %v; want it to hold the node role %s", profile, err, out["nodeRoleArn"])
		}
	})
	if t.Failed() {
		return
	}

	t.Run("STS gives the controller role to the controller's service account only", func(t *testing.T) {
		checkTrustPolicyBites(t, w, str(out["controllerRoleArn"]))
	})

	var first lab.Instance
	t.Run("pending pods get a node: an instance launched from the component's node class", func(t *testing.T) {
		w.scale(t, 2)
		first = w.workloadOn(t, 2, 3*time.Minute)
		checkKarpenterInstance(t, w, first, cluster, out)
		checkNodeBoot(t, w, first, boot)
	})
	if t.Failed() {
		return
	}

	var second lab.Instance
	t.Run("a Spot interruption warning through the component's rule and queue replaces the node", func(t *testing.T) {
		before := w.claims(t)
		// EC2 emits the warning on the default event bus; the component's rule matches it and its
		// target delivers it to the component's queue (moto's EventBridge does both; putEvent
		// checks the queue's policy lets it).
		detail, _ := json.Marshal(map[string]string{"instance-id": first.ID, "instance-action": "terminate"})
		sent := time.Now()
		putEvent(t, w, str(out["interruptionQueueName"]), ebtypes.PutEventsRequestEntry{
			Source: aws.String("aws.ec2"), DetailType: aws.String("EC2 Spot Instance Interruption Warning"), Detail: aws.String(string(detail)),
			Resources: []string{fmt.Sprintf("arn:aws:ec2:%s:123456789012:instance/%s", lab.Region, first.ID)},
		})
		second = w.workloadOn(t, 2, 3*time.Minute, first.ID)
		eventually(t, time.Minute, "the interrupted instance terminated and its NodeClaim gone", func() error {
			for _, i := range w.running(t) {
				if i.ID == first.ID {
					return fmt.Errorf("%s is %s", i.ID, i.State)
				}
			}
			for name, id := range w.claims(t) {
				if id == first.ID {
					return fmt.Errorf("NodeClaim %s of %s still exists", name, id)
				}
			}
			return nil
		})
		if after := w.claims(t); len(after) != 1 || after[firstKey(before)] != "" {
			t.Errorf("NodeClaims after the interruption: %v (before: %v), want one new one", after, before)
		}
		// The cause: the controller received the warning from the queue and deleted it, as
		// handled — not only "the queue is empty", which holds when nothing was delivered.
		eventually(t, 30*time.Second, "the controller received the warning and deleted it", func() error {
			return receivedAndDeleted(w.recorder.Calls(), sent, first.ID)
		})
		checkKarpenterInstance(t, w, second, cluster, out)
		checkNodeBoot(t, w, second, boot)
	})
	if t.Failed() {
		return
	}

	t.Run("changing the EC2NodeClass through pulumi up replaces the node (drift)", func(t *testing.T) {
		if hops := launchHopLimits(w.recorder.Calls(), second); len(hops) == 0 || slices.Contains(hops, 2) {
			t.Fatalf("the node before the change was launched from launch templates with hop limits %v, want some and none 2", hops)
		}
		claim := ""
		for name, id := range w.claims(t) {
			if id == second.ID {
				claim = name
			}
		}
		// The cause: the controller marks the node's NodeClaim Drifted before replacing it.
		drifted := make(chan string, 1)
		stop := make(chan struct{})
		go func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(250 * time.Millisecond):
				}
				nc, err := w.Cluster.Dynamic.Resource(lab.NodeClaimGVR).Get(ctx, claim, metav1.GetOptions{})
				if err != nil {
					continue
				}
				if reason := conditionTrue(nc, "Drifted"); reason != "" {
					drifted <- reason
					return
				}
			}
		}()
		w.program(w.karpenterInputs(nodeClass + "    metadataOptions:\n      httpPutResponseHopLimit: 2\n      httpTokens: required\n"))
		w.up(t)
		third := w.workloadOn(t, 2, 4*time.Minute, second.ID)
		close(stop)
		select {
		case reason := <-drifted:
			t.Logf("NodeClaim %s of %s was Drifted (%s)", claim, second.ID, reason)
		default:
			t.Errorf("NodeClaim %s of %s was never seen Drifted=True before its node was replaced", claim, second.ID)
		}
		checkKarpenterInstance(t, w, third, cluster, out)
		checkNodeBoot(t, w, third, boot)
		eventually(t, time.Minute, "the drifted instance terminated", func() error {
			for _, i := range w.running(t) {
				if i.ID == second.ID {
					return fmt.Errorf("%s is %s", i.ID, i.State)
				}
			}
			return nil
		})
		// The replacement was launched from launch templates with the new metadata options.
		if hops := launchHopLimits(w.recorder.Calls(), third); len(hops) == 0 || slices.ContainsFunc(hops, func(h int32) bool { return h != 2 }) {
			t.Errorf("the replacement %s was launched from launch templates with hop limits %v, want all 2 (the node class now asks for it)", third.ID, hops)
		}
		w.must(t, "preview", "--expect-no-changes", "--non-interactive")
	})
	if t.Failed() {
		return
	}

	t.Run("scaled to zero, the empty node is consolidated away", func(t *testing.T) {
		w.scale(t, 0)
		eventually(t, 3*time.Minute, "no Karpenter instance running, no NodeClaim", func() error {
			if r := w.running(t); len(r) > 0 {
				return fmt.Errorf("running: %v", instanceIDs(r))
			}
			if c := w.claims(t); len(c) > 0 {
				return fmt.Errorf("NodeClaims: %v", c)
			}
			return nil
		})
	})
	if t.Failed() {
		return
	}

	t.Run("the controller needed nothing its RBAC does not grant; without the rule to create NodeClaims it is refused", func(t *testing.T) {
		if got := w.karpenter.Forbidden(); len(got) > 0 {
			t.Errorf("the API server refused the controller (its service account's RBAC, from the chart):\n%s", strings.Join(got, "\n"))
		}
		biteRBAC(t, w)
	})

	t.Run("destroy with a node running leaves nothing running", func(t *testing.T) {
		w.scale(t, 2)
		running := w.workloadOn(t, 2, 3*time.Minute)
		// Bounded: a destroy that deleted the controller first would wait forever on the
		// EC2NodeClass's finalizer. The checks below then say what was left behind.
		w.Engine.Timeout = 4 * time.Minute
		defer func() { w.Engine.Timeout = 0 }()
		if stdout, stderr, err := w.run(t, "destroy", "--yes", "--non-interactive", "--skip-preview"); err != nil {
			t.Errorf("pulumi destroy: %v\n%s\n%s", err, lastLines(stdout, 30), stderr)
		}
		checkKarpenterDestroy(t, w, running)
	})

	t.Run("every AWS call the controller made is allowed by its policies", func(t *testing.T) {
		checkControllerCalls(t, w.world, w.recorder.Calls(), str(out["controllerRoleArn"]), policies)
	})
}

var ec2NodeClassGVR = schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}

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

// checkDefaultInstance: an instance launched for the default pool from the default class runs
// the image EKS publishes for AL2023 on the cluster's Kubernetes version (the SSM parameter the
// alias al2023@latest reads, as the world's moto holds it), on-demand, in a subnet of the cluster.
func checkDefaultInstance(t *testing.T, w *karpenterWorld, i lab.Instance) {
	t.Helper()
	name := fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2023/x86_64/standard/recommended/image_id", lab.ClusterKubernetesVersion)
	p, err := ssm.NewFromConfig(w.AWS).GetParameter(context.Background(), &ssm.GetParameterInput{Name: aws.String(name)})
	if err != nil {
		t.Fatalf("SSM parameter %s: %v", name, err)
	}
	if i.ImageID != aws.ToString(p.Parameter.Value) || i.Lifecycle == "spot" || !slices.Contains(w.vpc.SubnetIDs, i.SubnetID) {
		t.Errorf("instance %s: image %s, lifecycle %q, subnet %s; want %s (%s), on-demand, one of %v", i.ID, i.ImageID, i.Lifecycle, i.SubnetID,
			aws.ToString(p.Parameter.Value), name, w.vpc.SubnetIDs)
	}
}

// checkKarpenterInstance: an instance Karpenter launched for the default pool runs in one of the
// VPC's subnets, with the component's and Karpenter's tags, from a launch template of the node
// class that carries the instance profile of the component's node role and the VPC's security
// group.
func checkKarpenterInstance(t *testing.T, w *karpenterWorld, i lab.Instance, cluster string, out map[string]any) {
	t.Helper()
	if !slices.Contains(w.vpc.SubnetIDs, i.SubnetID) {
		t.Errorf("instance %s in subnet %s, want one of the tagged subnets %v", i.ID, i.SubnetID, w.vpc.SubnetIDs)
	}
	for k, v := range map[string]string{
		"team":                             "platform", // the component's tags
		"karpenter.sh/nodepool":            "default",
		"karpenter.k8s.aws/ec2nodeclass":   "default",
		"kubernetes.io/cluster/" + cluster: "owned",
		"eks:eks-cluster-name":             cluster,
	} {
		if i.Tags[k] != v {
			t.Errorf("instance %s: tag %s=%q, want %q (tags: %v)", i.ID, k, i.Tags[k], v, i.Tags)
		}
	}
	if i.Lifecycle != "spot" {
		t.Errorf("instance %s: lifecycle %q, want spot (the pool's only capacity type)", i.ID, i.Lifecycle)
	}
	_, lts, err := lab.ReadEC2(context.Background(), w.AWS)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, lt := range lts {
		if lt.Tags["karpenter.k8s.aws/ec2nodeclass"] != "default" || lt.Tags["kubernetes.io/cluster/"+cluster] != "owned" {
			continue
		}
		found = true
		if !slices.Equal(lt.SecurityGroupIDs, []string{w.vpc.SecurityGroupID}) || lt.Tags["team"] != "platform" {
			t.Errorf("launch template %s: security groups %v, tags %v; want the tagged group %s and the component's tags", lt.Name, lt.SecurityGroupIDs, lt.Tags, w.vpc.SecurityGroupID)
		}
		ip, err := iam.NewFromConfig(w.AWS).GetInstanceProfile(context.Background(), &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(lt.InstanceProfile)})
		if err != nil || len(ip.InstanceProfile.Roles) != 1 || aws.ToString(ip.InstanceProfile.Roles[0].Arn) != str(out["nodeRoleArn"]) {
			t.Errorf("launch template %s: instance profile %q (%v), want one holding the node role %s", lt.Name, lt.InstanceProfile, err, out["nodeRoleArn"])
		}
	}
	if !found {
		t.Errorf("no launch template of the default node class in moto: %+v", lts)
	}
}

// checkKarpenterDestroy: after `pulumi destroy` with the node running, moto has no instance
// pending or running and none of Karpenter's launch templates or instance profiles; the cluster
// has no NodeClaim, no Karpenter node (and, the CRD release gone, no Karpenter CRD: a finalizer
// left would have blocked its deletion). The node's instance was terminated before the
// controller process stopped (its pod went with the release), and before the deletes of the
// controller's IAM and queue began, which came after the release's (checkDestroyOrder). (Helm's
// uninstall returns once the Deployment is deleted; its pods terminate in the background, so the
// IAM deletes may begin while the controller process is still shutting down — with no NodeClaim
// left to act on.)
func checkKarpenterDestroy(t *testing.T, w *karpenterWorld, node lab.Instance) {
	t.Helper()
	ctx := context.Background()
	if r := w.running(t); len(r) > 0 {
		t.Errorf("instances still running after the destroy: %v", instanceIDs(r))
	}
	_, lts, err := lab.ReadEC2(ctx, w.AWS)
	if err != nil {
		t.Fatal(err)
	}
	for _, lt := range lts {
		t.Errorf("launch template %s (%v) left after the destroy", lt.Name, lt.Tags)
	}
	nodes, err := w.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "karpenter.sh/nodepool"})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		t.Errorf("Karpenter node %s (finalizers %v) left after the destroy", n.Name, n.Finalizers)
	}
	for _, crd := range []string{"nodeclaims.karpenter.sh", "nodepools.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws"} {
		if _, err := w.Cluster.CRD(ctx, crd); err == nil {
			t.Errorf("CRD %s is still there after the destroy", crd)
		}
	}
	// When the instance was terminated, when the controller stopped, when its IAM went.
	var terminated time.Time
	for _, c := range w.recorder.Calls() {
		if c.Action == "TerminateInstances" && c.Status == 200 && slices.Contains(c.Params["InstanceId.1"], node.ID) {
			terminated = c.Time
		}
	}
	stopped := w.karpenter.LastStop()
	switch {
	case terminated.IsZero():
		t.Errorf("the controller never terminated %s", node.ID)
	case stopped.IsZero() || w.karpenter.Running():
		t.Errorf("the controller process was not stopped by the destroy: %v", w.karpenter.History())
	case !terminated.Before(stopped):
		t.Errorf("%s was terminated at %s, after the controller stopped at %s", node.ID, terminated.Format("15:04:05.000"), stopped.Format("15:04:05.000"))
	}
	ops, err := w.Ops()
	if err != nil {
		t.Fatal(err)
	}
	checkDestroyOrder(t, ops)
	for _, op := range ops {
		if op.Op == "Delete" && (strings.HasPrefix(op.Name, "karpenter-controller") || strings.HasPrefix(op.Name, "karpenter-interruption")) && !op.Start.After(terminated) {
			t.Errorf("%s's delete began at %s, before the node's instance was terminated (%s)", op.Name, op.Start.Format("15:04:05.000"), terminated.Format("15:04:05.000"))
		}
	}
	// The workload is the user's, not the stack's: once it is gone the cluster is as it started.
	if err := lab.DeleteWorkload(ctx, w.cs); err != nil {
		t.Fatal(err)
	}
	w.assertNothingLeft(t)
}

// controllerPolicies are the identity policies of the controller's role as moto holds them (the
// role the service account's IRSA annotation names: the component's output).
func controllerPolicies(t *testing.T, w *world, roleArn string) []lab.IAMPolicy {
	t.Helper()
	inv := w.aws(t)
	role := inv.Role(roleArn[strings.LastIndex(roleArn, "/")+1:])
	if role == nil {
		t.Fatalf("no role %s in moto", roleArn)
	}
	var out []lab.IAMPolicy
	for _, arn := range role.AttachedPolicyArns {
		p := inv.Policy(arn)
		if p == nil {
			t.Fatalf("policy %s attached to the controller role is not a customer-managed policy of moto", arn)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(p.Document), &doc); err != nil {
			t.Fatal(err)
		}
		out = append(out, lab.IAMPolicy{Name: p.Name, Policy: doc})
	}
	return out
}

// denials evaluates the calls against the policies and returns one message per denied request.
func denials(t *testing.T, calls []lab.AWSCall, principal string, policies []lab.IAMPolicy) (msgs []string, requests []lab.IAMRequest, results []lab.IAMResult) {
	t.Helper()
	requests, err := lab.IAMRequests(calls)
	if err != nil {
		t.Error(err)
	}
	results, err = lab.Simulate(principal, policies, requests)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		q := requests[r.ID]
		if r.Result == "Allowed" || (q.Dependent && r.Result == "Error" && strings.Contains(r.Errors, "no.resource.types")) {
			continue
		}
		var cands []string
		for _, c := range r.Candidates {
			cands = append(cands, c.Statement+" (failed: "+c.Failed+")")
		}
		msg := fmt.Sprintf("%s: %s on %s is %s", q.Call, q.Action, q.Resource, r.Result)
		if r.Errors != "" {
			msg += ": " + r.Errors
		}
		if len(cands) > 0 {
			msg += "; statements for the action: " + strings.Join(cands, ", ")
		} else {
			msg += "; no statement of the controller policies names the action"
		}
		msgs = append(msgs, msg)
	}
	return msgs, requests, results
}

// checkControllerSessions: the controller acted only as the role: it had its credentials from an
// assumption of the role that the checks of STS (a web identity: its service account's token, the
// role's trust policy) or EKS Auth (Pod Identity: the association, the trust policy with the
// session tags) allowed, and signed every other call with them.
func checkControllerSessions(t *testing.T, calls []lab.AWSCall, role string) {
	t.Helper()
	roleName := role[strings.LastIndex(role, "/")+1:]
	var assumed int
	for i, c := range calls {
		if c.Action == "AssumeRoleWithWebIdentity" && c.Params.Get("RoleSessionName") == trustBiteSession {
			continue // the bites' (checkTrustPolicyBites), not the controller's
		}
		if c.Action == "AssumeRoleWithWebIdentity" || c.Action == "AssumeRoleForPodIdentity" {
			switch {
			case c.Trust == nil:
				t.Errorf("call %d: %s without its checks", i, c.Action)
			case c.Trust.Code != "":
				t.Errorf("call %d: %s of %s as %s refused: %s: %s", i, c.Action, c.Trust.Role, c.Trust.Subject, c.Trust.Code, c.Trust.Message)
			case c.Trust.Role != role:
				t.Errorf("call %d: %s of %s, want the controller role %s", i, c.Action, c.Trust.Role, role)
			default:
				assumed++
			}
			continue
		}
		// arn:aws:sts::<account>:assumed-role/<role name>/<session name>
		parts := strings.Split(c.Session, "/")
		if len(parts) != 3 || parts[1] != roleName {
			t.Errorf("call %d %s signed with access key %q: session %q, want one of the controller role %s", i, c.IAMAction(), c.AccessKey, c.Session, role)
		}
	}
	if assumed == 0 {
		t.Errorf("the controller never assumed its role (%d calls)", len(calls))
	}
}

// checkControllerCalls: every AWS call the controller made in the scenario is allowed by the
// policies the component attached to its role (IAMRequests says how calls become authorizations);
// and the check bites: without the statement that allows terminating the cluster's instances and
// deleting its launch templates, exactly the TerminateInstances and DeleteLaunchTemplate
// authorizations are denied, both.
func checkControllerCalls(t *testing.T, w *world, calls []lab.AWSCall, principal string, policies []lab.IAMPolicy) {
	t.Helper()
	_ = os.MkdirAll(w.outDir, 0o755)
	b, _ := json.MarshalIndent(calls, "", " ")
	_ = os.WriteFile(filepath.Join(w.outDir, "aws-calls.json"), b, 0o644)
	checkControllerSessions(t, calls, principal)
	msgs, requests, results := denials(t, calls, principal, policies)
	for _, m := range msgs {
		t.Error(m)
	}
	actions := map[string]bool{}
	grants := map[string]map[string]bool{}
	var dropped int
	for _, r := range results {
		q := requests[r.ID]
		if r.Result == "Error" && q.Dependent {
			dropped++
		}
		actions[strings.SplitN(q.Call, " ", 3)[1]] = true
		for _, s := range r.AllowedBy {
			if grants[s] == nil {
				grants[s] = map[string]bool{}
			}
			grants[s][q.Action] = true
		}
	}
	b, _ = json.MarshalIndent(map[string]any{"requests": requests, "results": results}, "", " ")
	_ = os.WriteFile(filepath.Join(w.outDir, "iam-check.json"), b, 0o644)
	var lines []string
	for _, s := range sortedKeys(grants) {
		lines = append(lines, fmt.Sprintf("  %s: %s", s, strings.Join(sortedKeys(grants[s]), ", ")))
	}
	t.Logf("%d calls (%d actions: %s), %d authorizations (%d launch pairings IAM does not make dropped); allowed by:\n%s", len(calls), len(actions),
		strings.Join(sortedKeys(actions), ", "), len(requests)-dropped, dropped, strings.Join(lines, "\n"))

	t.Run("the check bites: without AllowScopedDeletion, TerminateInstances is denied", func(t *testing.T) {
		var cut []lab.IAMPolicy
		removed := 0
		for _, p := range policies {
			stmts, _ := p.Policy["Statement"].([]any)
			var kept []any
			for _, s := range stmts {
				if m, _ := s.(map[string]any); m["Sid"] == "AllowScopedDeletion" {
					removed++
					continue
				}
				kept = append(kept, s)
			}
			doc := map[string]any{"Version": p.Policy["Version"], "Statement": kept}
			cut = append(cut, lab.IAMPolicy{Name: p.Name, Policy: doc})
		}
		if removed != 1 {
			t.Fatalf("found %d AllowScopedDeletion statements, want 1", removed)
		}
		msgs, _, _ := denials(t, calls, principal, cut)
		var terminate, deleteTemplate int
		for _, m := range msgs {
			switch {
			case strings.Contains(m, ": ec2:TerminateInstances on "):
				terminate++
			case strings.Contains(m, ": ec2:DeleteLaunchTemplate on "):
				deleteTemplate++
			default:
				t.Errorf("unexpected denial without AllowScopedDeletion: %s", m)
			}
		}
		if terminate == 0 || deleteTemplate == 0 {
			t.Errorf("without AllowScopedDeletion %d TerminateInstances and %d DeleteLaunchTemplate authorizations denied, want both: the check does not bite:\n%s",
				terminate, deleteTemplate, strings.Join(msgs, "\n"))
		}
		t.Logf("denied without AllowScopedDeletion:\n%s", strings.Join(msgs, "\n"))
	})
}

// TestKarpenterUpgrade: Karpenter 1.14.1 → 1.15.1 through `pulumi up` with a node running, on the
// component's defaults (only the version set). The 1.14.1 controller launches a node for the
// workload from the default node class and pool (the image the al2023@latest alias resolves to
// through SSM, on-demand); `pulumi up` to 1.15.1 upgrades the CRD release,
// then the controller release (the component's policies gain ec2:RebootInstances); the Deployment
// rolls, so the 1.14.1 process stops with its pod and the 1.15.1 one starts beside a new pod. 1.15
// changed the EC2NodeClass hash (version v5 → v6); by design (its nodeclass.hash controller) the new
// controller re-stamps the NodeClaims of the class with the new hash instead of finding them drifted.
// The node survives: for 90 s after the 1.15.1 controller started (its disruption loop runs every
// 10 s) the same instance runs, under the same NodeClaim, with the workload on it, and the claim
// carries the v6 hash version — so the 1.15.1 controller did reconcile it. The destroy then
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
		eventually(t, time.Minute, "the "+from+" controller", func() error {
			if v := w.karpenter.Versions(); !w.karpenter.Running() || len(v) == 0 || v[len(v)-1] != from {
				return fmt.Errorf("running %v, versions %v: %v", w.karpenter.Running(), v, w.karpenter.History())
			}
			return nil
		})
		// The pods ask for one instance type: the default pool consolidates an underutilized node
		// onto a cheaper type after a minute, and moto's CreateFleet launches whichever override
		// comes first rather than the cheapest, as AWS's lowest-price strategy would — so a node
		// of a dearer type would be replaced during the 90 s below for a reason that is moto's.
		if err := lab.ScaleWorkloadOn(context.Background(), w.cs, 2, map[string]string{"node.kubernetes.io/instance-type": "m5.large"}); err != nil {
			t.Fatal(err)
		}
		node = w.workloadOn(t, 2, 3*time.Minute)
		if node.Type != "m5.large" {
			t.Fatalf("the workload runs on %s (%s), want an m5.large (its pods ask for one)", node.ID, node.Type)
		}
		checkDefaultInstance(t, w, node)
		for name, id := range w.claims(t) {
			if id == node.ID {
				claim = name
			}
		}
		if claim == "" {
			t.Fatalf("no NodeClaim of %s: %v", node.ID, w.claims(t))
		}
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
		if got := w.karpenter.Forbidden(); len(got) > 0 {
			t.Errorf("the API server refused a controller (its service account's RBAC, from the chart):\n%s", strings.Join(got, "\n"))
		}
	})
	if t.Failed() {
		return
	}

	t.Run("destroy with the node running leaves nothing running", func(t *testing.T) {
		w.Engine.Timeout = 4 * time.Minute
		defer func() { w.Engine.Timeout = 0 }()
		if stdout, stderr, err := w.run(t, "destroy", "--yes", "--non-interactive", "--skip-preview"); err != nil {
			t.Errorf("pulumi destroy: %v\n%s\n%s", err, lastLines(stdout, 30), stderr)
		}
		checkKarpenterDestroy(t, w, node)
	})

	// AWS evaluates a call against the role's policies when it is made: before the upgrade's
	// `up` those of from, after it those of to; a call during it must be allowed by both.
	t.Run("every AWS call each controller made is allowed by the policies in force", func(t *testing.T) {
		calls := w.recorder.Calls()
		checkControllerSessions(t, calls, role)
		var before, during, after []lab.AWSCall
		for _, c := range calls {
			switch {
			case c.Time.Before(upgradeStart):
				before = append(before, c)
			case c.Time.Before(upgradeEnd):
				during = append(during, c)
			default:
				after = append(after, c)
			}
		}
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
