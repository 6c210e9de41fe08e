//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// What the instances Karpenter launches carry, and what a destroy with a node running leaves.

// checkDefaultInstance: an instance launched for the default pool from the default class runs
// the image EKS publishes for AL2023 on the cluster's Kubernetes version (the SSM parameter the
// alias al2023@latest reads, as the world's moto holds it), on-demand, in a subnet of the cluster.
// Each seeded parameter names an image of its own (lab/moto/eks-ami-parameters.json), so the image
// tells the path; and the controller read that parameter, and only AL2023 ones of the cluster's
// version (ssm:GetParameter, as recorded).
func checkDefaultInstance(t *testing.T, w *karpenterWorld, i lab.Instance) {
	t.Helper()
	name := fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2023/x86_64/standard/recommended/image_id", lab.ClusterKubernetesVersion)
	var read []string
	for _, c := range w.recorder.Calls() {
		if c.Service == "ssm" && c.Action == "GetParameter" {
			read = append(read, c.Params.Get("Name"))
		}
	}
	// (The alias resolves every variant of the family — arm64, nvidia, neuron — for the instance
	// types the pool allows; each must be the family's, for the cluster's version.)
	family := fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2023/", lab.ClusterKubernetesVersion)
	if !slices.Contains(read, name) || slices.ContainsFunc(read, func(n string) bool { return !strings.HasPrefix(n, family) }) {
		t.Errorf("the controller read the SSM parameters %v, want %s among them and none but %s*", read, name, family)
	}
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
func checkKarpenterDestroy(t *testing.T, w *karpenterWorld, node lab.Instance, retained ...string) {
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
		if c.Action == "TerminateInstances" && c.Status == 200 && slices.Contains(c.ListParam("InstanceId"), node.ID) {
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
	w.assertNothingLeft(t, retained...)
}
