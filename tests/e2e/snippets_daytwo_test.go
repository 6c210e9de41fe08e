//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// The README programs' second day. A stack lives on after its first `up`: a refresh reads what AWS
// and the cluster hold into the state, a teammate changes the cluster's own inputs, the next `up`
// applies them. Objects the component shares with another owner break there (the owner's next
// update takes them back: README.md, Shared objects), so each program goes through it:
//   - `pulumi refresh`, then `pulumi preview --expect-no-changes`: nothing to do — no tag to remove
//     from a resource that manages its own, no ConfigMap to replace;
//   - pulumi-eks's own inputs change (neighbourChange: a tag on its node security group, an access
//     entry of its own) and `up` applies them; the security group keeps its discovery tag and the
//     node role its access entry, and a preview then has nothing to do;
//   - pending pods get a node the real controller launches from the default node class, in a
//     subnet and security group it finds by their discovery tags, which joins the cluster (the
//     registrar lets an instance's kubelet in only through its role's node access, as EKS does:
//     lab/nodeaccess.go) and runs them; every node class is Ready.

// neighbourRole is the principal of the access entry pulumi-eks gets on the second day (a role of
// the account the test makes, as a platform team's would exist).
const neighbourRole = "platform-admins"

// neighbourChange is each README program with pulumi-eks's inputs changed as a teammate would: a
// tag on its node security group and an access entry for the platform team. Each is a text edit
// of the program as README.md has it; the test fails, naming it, when the README's line changed.
var neighbourChange = map[string][2]string{
	"typescript": {
		`    nodeSecurityGroupTags: { "karpenter.sh/discovery": clusterName },` + "\n",
		`    nodeSecurityGroupTags: { "karpenter.sh/discovery": clusterName, team: "platform" },` + "\n" +
			`    accessEntries: { admins: { principalArn: "ROLE", kubernetesGroups: ["platform-admins"] } },` + "\n",
	},
	"python": {
		`                      node_security_group_tags={"karpenter.sh/discovery": cluster_name},` + "\n",
		`                      node_security_group_tags={"karpenter.sh/discovery": cluster_name, "team": "platform"},` + "\n" +
			`                      access_entries={"admins": eks.AccessEntryArgs(principal_arn="ROLE", kubernetes_groups=["platform-admins"])},` + "\n",
	},
	"yaml": {
		"      nodeSecurityGroupTags:\n        karpenter.sh/discovery: karpenter-demo\n",
		"      nodeSecurityGroupTags:\n        karpenter.sh/discovery: karpenter-demo\n        team: platform\n" +
			"      accessEntries:\n        admins:\n          principalArn: ROLE\n          kubernetesGroups:\n            - platform-admins\n",
	},
}

// secondDay: refresh, the neighbour's change, a node that joins.
func (r *snippetRun) secondDay(t *testing.T) {
	t.Run("refresh, then nothing to do", func(t *testing.T) {
		r.step(t, "refresh")
		r.step(t, "preview-no-changes")
	})
	if t.Failed() {
		return
	}
	t.Run("pulumi-eks changes, and up", func(t *testing.T) {
		cluster := r.eksCluster(t)
		before := r.nodeAccessEntries(t, cluster)
		role := r.createNeighbourPrincipal(t)
		edit := neighbourChange[r.lang]
		if strings.Count(r.snippet, edit[0]) != 1 {
			t.Fatalf("the README's %s program has no line %q, which the second day changes: update neighbourChange", r.lang, edit[0])
		}
		r.write(t, strings.Replace(r.snippet, edit[0], strings.ReplaceAll(edit[1], "ROLE", role), 1))
		r.step(t, "up")

		group := r.discoveredGroup(t, cluster)
		if tag(group.Tags, "team") != "platform" {
			t.Errorf("pulumi-eks's node security group %s: tags %v, want its new tag team: platform", aws.ToString(group.GroupId), group.Tags)
		}
		after := r.nodeAccessEntries(t, cluster)
		for principal, typ := range before {
			if after[principal] != typ {
				t.Errorf("access entry of %s (%s) changed by pulumi-eks's update: now %q", principal, typ, after[principal])
			}
		}
		if after[role] != "STANDARD" {
			t.Errorf("access entries %v: want pulumi-eks's new entry for %s", after, role)
		}
		r.step(t, "preview-no-changes")
	})
	if t.Failed() {
		return
	}
	t.Run("pending pods get a node that joins", func(t *testing.T) {
		kw := r.kw
		pool, selector, tolerations := r.programPool(t)
		if err := lab.ScaleWorkloadTolerating(context.Background(), kw.cs, 2, selector, tolerations); err != nil {
			t.Fatal(err)
		}
		node := kw.workloadOn(t, 2, 4*time.Minute)
		if refused := kw.registrar.Refused(); len(refused) > 0 {
			t.Errorf("instances the cluster did not let in: %q", refused)
		}
		r.checkClassesReady(t)
		t.Logf("the workload runs on %s (%s) of pool %s, joined with the node role's access entry", node.ID, node.Type, pool)
		// The workload is the test's, not the stack's: gone before the destroy, which then also
		// removes the empty node.
		if err := lab.DeleteWorkload(context.Background(), kw.cs); err != nil {
			t.Fatal(err)
		}
	})
}

// programPool is the first NodePool of the program (the default one, or the Python program's
// arm64 pool) and how a workload lands there: its name in the node selector, an instance type of
// its architecture, and tolerations of its taints. One instance type: moto's CreateFleet launches
// the first override rather than the cheapest (karpenter_world_test.go, m5LargeWorkload).
func (r *snippetRun) programPool(t *testing.T) (name string, selector map[string]string, tolerations []corev1.Toleration) {
	t.Helper()
	pools, err := r.w.Cluster.Dynamic.Resource(nodePoolGVR).List(context.Background(), metav1.ListOptions{})
	if err != nil || len(pools.Items) == 0 {
		t.Fatalf("NodePools: %v %v", pools, err)
	}
	pool := pools.Items[0]
	instanceType := "m5.large"
	requirements, _, _ := unstructured.NestedSlice(pool.Object, "spec", "template", "spec", "requirements")
	for _, req := range requirements {
		m, _ := req.(map[string]any)
		if m["key"] == corev1.LabelArchStable && fmt.Sprint(m["values"]) == "[arm64]" {
			instanceType = "m6g.large"
		}
	}
	taints, _, _ := unstructured.NestedSlice(pool.Object, "spec", "template", "spec", "taints")
	for _, taint := range taints {
		m, _ := taint.(map[string]any)
		tol := corev1.Toleration{Key: fmt.Sprint(m["key"]), Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffect(fmt.Sprint(m["effect"]))}
		if v, ok := m["value"].(string); ok {
			tol.Operator, tol.Value = corev1.TolerationOpEqual, v
		}
		tolerations = append(tolerations, tol)
	}
	return pool.GetName(), map[string]string{"karpenter.sh/nodepool": pool.GetName(), corev1.LabelInstanceTypeStable: instanceType}, tolerations
}

// createNeighbourPrincipal makes the platform team's role (EKS refuses an access entry for a
// principal that does not exist) and returns its ARN.
func (r *snippetRun) createNeighbourPrincipal(t *testing.T) string {
	t.Helper()
	out, err := iam.NewFromConfig(r.w.AWS).CreateRole(context.Background(), &iam.CreateRoleInput{
		RoleName:                 aws.String(neighbourRole),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"sts:AssumeRole"}]}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.Role.Arn)
}

// removeNeighbourPrincipal deletes that role after the destroy (not the program's).
func (r *snippetRun) removeNeighbourPrincipal(t *testing.T) {
	t.Helper()
	_, err := iam.NewFromConfig(r.w.AWS).DeleteRole(context.Background(), &iam.DeleteRoleInput{RoleName: aws.String(neighbourRole)})
	var missing *iamtypes.NoSuchEntityException
	if err != nil && !errors.As(err, &missing) {
		t.Error(err)
	}
}

// checkClassesReady: every EC2NodeClass's Ready condition is True.
func (r *snippetRun) checkClassesReady(t *testing.T) {
	t.Helper()
	classes, err := r.w.Cluster.Dynamic.Resource(ec2NodeClassGVR).List(context.Background(), metav1.ListOptions{})
	if err != nil || len(classes.Items) == 0 {
		t.Fatalf("EC2NodeClasses: %v %v", classes, err)
	}
	for _, c := range classes.Items {
		if conditionTrue(&c, "Ready") == "" {
			t.Errorf("EC2NodeClass %s is not Ready: %v", c.GetName(), c.Object["status"])
		}
	}
}
