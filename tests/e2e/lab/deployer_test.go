//go:build e2e

package lab

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// TestDeployerActionsFollowTheOperations: the component's operations of the stand-in's log turn
// into terraform-provider-aws's actions for them — a create with tags also tags, an update only
// what its changed inputs call for, a policy read by name lists the policies — and the program's
// own resources are not the deployer's business here; an operation the tables do not know fails,
// naming it.
func TestDeployerActionsFollowTheOperations(t *testing.T) {
	log := filepath.Join(t.TempDir(), "ops.log")
	lines := []string{
		"2026-11-29T00:00:00.000000000Z aws Create aws:iam/role:Role karpenter-node karpenter-node-1 karpenter:index:Karpenter assumeRolePolicy,name,tags",
		"2026-11-29T00:00:01.000000000Z aws Update aws:sqs/queue:Queue karpenter-queue https://q karpenter:index:Karpenter tags",
		"2026-11-29T00:00:02.000000000Z aws Invoke aws:iam/getPolicy:getPolicy - - - name",
		"2026-11-29T00:00:03.000000000Z aws Create aws:iam/role:Role cluster-role cluster-role-1 eks:index:Cluster name",
		"2026-11-29T00:00:04.000000000Z aws Delete aws:eks/accessEntry:AccessEntry karpenter-node-access c:r karpenter:index:Karpenter -",
	}
	if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ops, err := ReadOpLog(log)
	if err != nil {
		t.Fatal(err)
	}
	actions, err := DeployerActions(ops)
	if err != nil {
		t.Fatal(err)
	}
	got := sortedActionNames(actions)
	want := []string{
		"eks:DeleteAccessEntry",
		"iam:CreateRole", "iam:GetPolicy", "iam:GetPolicyVersion", "iam:GetRole", "iam:ListAttachedRolePolicies",
		"iam:ListPolicies", "iam:ListRolePolicies", "iam:TagRole",
		"sqs:GetQueueAttributes", "sqs:ListQueueTags", "sqs:TagQueue", "sqs:UntagQueue",
	}
	if !slices.Equal(got, want) {
		t.Errorf("actions:\n%v\nwant\n%v", got, want)
	}
	if why := actions["iam:GetRole"]; !slices.Equal(why, []string{"Create aws:iam/role:Role"}) {
		t.Errorf("iam:GetRole is needed for %v, want the role's create only (the cluster's role is the program's)", why)
	}

	_, err = DeployerActions([]StandInOp{{Op: "Update", Type: "aws:iam/role:Role", Parents: componentType, Keys: []string{"maxSessionDuration"}}})
	if err == nil || !strings.Contains(err.Error(), "an update of aws:iam/role:Role changing maxSessionDuration") {
		t.Errorf("an update the table does not know: %v", err)
	}
	_, err = DeployerActions([]StandInOp{{Op: "Create", Type: "aws:s3/bucket:Bucket", Parents: componentType}})
	if err == nil || !strings.Contains(err.Error(), "the resource type aws:s3/bucket:Bucket") {
		t.Errorf("a type the table does not know: %v", err)
	}
}

// TestDeployerPolicyDeniesWhatItDoesNotList: the simulator's verdict on the shipped policy — an
// action it lists is allowed, and the statement that alone allows it is named; one it does not
// list (iam:CreateUser) is denied; the Spot service-linked role only for Spot.
func TestDeployerPolicyDeniesWhatItDoesNotList(t *testing.T) {
	v, err := CheckDeployerPolicy(map[string][]string{
		"iam:CreateRole": {"Create aws:iam/role:Role"}, "iam:CreateUser": {"Create aws:iam/user:User"},
		"iam:PassRole":                {"Create aws:eks/podIdentityAssociation:PodIdentityAssociation"},
		"iam:CreateServiceLinkedRole": {"Create aws:iam/serviceLinkedRole:ServiceLinkedRole"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Denied) != 1 || v.Denied["iam:CreateUser"] == nil {
		t.Errorf("denied %v, want iam:CreateUser only", v.Denied)
	}
	for sid, action := range map[string]string{"Roles": "iam:CreateRole", "PassTheRoles": "iam:PassRole", "SpotServiceLinkedRole": "iam:CreateServiceLinkedRole"} {
		if !slices.Contains(v.OnlyBy[sid], action) {
			t.Errorf("statement %s alone allows %v, want %s among them", sid, v.OnlyBy[sid], action)
		}
	}
	saved := deployerContext["iam:CreateServiceLinkedRole"]
	deployerContext["iam:CreateServiceLinkedRole"] = map[string]any{"iam:AWSServiceName": "autoscaling.amazonaws.com"}
	defer func() { deployerContext["iam:CreateServiceLinkedRole"] = saved }()
	v, err = CheckDeployerPolicy(map[string][]string{"iam:CreateServiceLinkedRole": {"Create aws:iam/serviceLinkedRole:ServiceLinkedRole"}})
	if err != nil {
		t.Fatal(err)
	}
	if v.Denied["iam:CreateServiceLinkedRole"] == nil {
		t.Error("the policy allows creating another service's linked role")
	}
}

// TestDeployerTablesCoverTheComponent: every aws resource type and function the component uses
// (provider/children/resources.go) has terraform-provider-aws's calls in the tables — a new child
// or read cannot escape the deployer policy's check.
func TestDeployerTablesCoverTheComponent(t *testing.T) {
	tests, err := repo.TestsDir()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(filepath.Dir(tests), "provider", "children", "resources.go"))
	if err != nil {
		t.Fatal(err)
	}
	tokens := regexp.MustCompile(`"(aws:[^"]+)"`).FindAllStringSubmatch(string(src), -1)
	if len(tokens) < 20 {
		t.Fatalf("found %d aws tokens in provider/children/resources.go; the pattern no longer reads it", len(tokens))
	}
	for _, m := range tokens {
		_, resource := terraformCalls[m[1]]
		_, function := terraformDataSources[m[1]]
		if !resource && !function {
			t.Errorf("%s: the component uses it and the deployer tables (lab/deployer_terraform.go) do not know its calls", m[1])
		}
	}
}
