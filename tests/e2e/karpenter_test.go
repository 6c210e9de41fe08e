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

	"github.com/aws/aws-sdk-go-v2/aws"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

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
		stopWatching := w.watchDrift(claim)
		w.program(w.karpenterInputs(nodeClass + "    metadataOptions:\n      httpPutResponseHopLimit: 2\n      httpTokens: required\n"))
		w.up(t)
		third := w.workloadOn(t, 2, 4*time.Minute, second.ID)
		if reason := stopWatching(); reason != "" {
			t.Logf("NodeClaim %s of %s was Drifted (%s)", claim, second.ID, reason)
		} else {
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
		if got, err := w.karpenter.Forbidden(); err != nil || len(got) > 0 {
			t.Errorf("the API server refused the controller (its service account's RBAC, from the chart), or its log could not be read (%v):\n%s", err, strings.Join(got, "\n"))
		}
		biteRBAC(t, w)
	})

	t.Run("destroy with a node running leaves nothing running", func(t *testing.T) {
		w.scale(t, 2)
		running := w.workloadOn(t, 2, 3*time.Minute)
		w.destroyWithNodes(t)
		checkKarpenterDestroy(t, w, running)
	})

	t.Run("every AWS call the controller made is allowed by its policies", func(t *testing.T) {
		checkControllerCalls(t, w.world, w.recorder.Calls(), str(out["controllerRoleArn"]), policies)
	})
}
