//go:build e2e

package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// classRole is the node class's own role: another team's, made outside the stack.
const classRole = "team-a-nodes"

// TestClassWithItsOwnRole: a node class whose `role` is one the user made (here before the stack,
// as another team's role would be) gets node access like the component's own node role — an
// EC2_LINUX access entry on the world's API_AND_CONFIG_MAP cluster — and the controller may pass
// it; the real controller makes the class's instance profile from it, launches a node for the
// class's pool with that profile, and the node joins: the registrar lets a kubelet in only when
// the cluster gives the role of its instance's profile access (lab/nodeaccess.go), as EKS's
// authenticator does. Without that entry the node launches and never joins (its NodeClaim stays
// unregistered). The account has never used Spot: the component creates its Spot service-linked
// role (createSpotServiceLinkedRole), which the pool's Spot launch needs. Then `destroy` leaves
// nothing running, the role as it was and the service-linked role in place.
func TestClassWithItsOwnRole(t *testing.T) {
	t.Parallel()
	fresh := newWorld(t)
	fresh.NoSpotHistory = true
	w := withLoop(t, fresh)
	ctx := context.Background()
	iamc := iam.NewFromConfig(w.AWS)
	if _, err := iamc.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(classRole),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`)}); err != nil {
		t.Fatal(err)
	}
	w.stack(`tags:
  team: platform
createSpotServiceLinkedRole: true
nodeClasses:
  - name: team-a
    role: ` + classRole + `
    amiFamily: AL2023
    amiSelectorTerms:
      - id: ami-ekslinux
nodePools:
  - name: team-a
    nodeClassRef: team-a
    requirements:
      - key: karpenter.sh/capacity-type
        operator: In
        values: [spot]
      - key: node.kubernetes.io/instance-type
        operator: In
        values: [m5.large]
`)
	var node lab.Instance

	t.Run("the class's role gets an access entry and its node joins", func(t *testing.T) {
		w.up(t)
		if _, err := iamc.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("AWSServiceRoleForEC2Spot")}); err != nil {
			t.Errorf("no Spot service-linked role after `up` with createSpotServiceLinkedRole: %v", err)
		}
		entries := w.aws(t).AccessEntries
		if !slices.ContainsFunc(entries, func(e string) bool { return strings.HasSuffix(e, ":role/"+classRole) }) {
			t.Errorf("no access entry for the class's role %s after `up`: %v", classRole, entries)
		}
		if err := lab.ScaleWorkloadOn(ctx, w.cs, 2, map[string]string{"karpenter.sh/nodepool": "team-a"}); err != nil {
			t.Fatal(err)
		}
		var err error
		if node, err = lab.WaitWorkload(ctx, w.cs, w.AWS, 2, 3*time.Minute); err != nil {
			t.Fatalf("%v; kubelets the cluster refused: %v", err, w.registrar.Refused())
		}
		if refused := w.registrar.Refused(); len(refused) > 0 {
			t.Errorf("the cluster refused kubelets: %v", refused)
		}
		// The node is the class's: launched with an instance profile that holds the class's role.
		_, lts, err := lab.ReadEC2(ctx, w.AWS)
		if err != nil {
			t.Fatal(err)
		}
		var profiles []string
		for _, lt := range lts {
			if lt.Tags["karpenter.k8s.aws/ec2nodeclass"] == "team-a" {
				profiles = append(profiles, lt.InstanceProfile)
			}
		}
		if len(profiles) == 0 {
			t.Fatalf("no launch template of the class team-a: %+v", lts)
		}
		for _, p := range profiles {
			ip, err := iamc.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(p)})
			if err != nil || len(ip.InstanceProfile.Roles) != 1 || aws.ToString(ip.InstanceProfile.Roles[0].RoleName) != classRole {
				t.Errorf("launch template's instance profile %s (%v) does not hold the class's role %s", p, err, classRole)
			}
		}
	})
	if t.Failed() {
		return
	}

	t.Run("destroy leaves nothing running and the class's role as it was", func(t *testing.T) {
		if !w.destroyWithNodes(t) {
			t.FailNow()
		}
		if _, err := iamc.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(classRole)}); err != nil {
			t.Errorf("the class's role, made outside the stack, is gone after the destroy: %v", err)
		}
		if _, err := iamc.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("AWSServiceRoleForEC2Spot")}); err != nil {
			t.Errorf("the Spot service-linked role the component created is gone after the destroy (it is account-wide and kept): %v", err)
		}
		// The role is the user's: deleted by the user, then the account is as it started.
		if _, err := iamc.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(classRole)}); err != nil {
			t.Fatal(err)
		}
		checkKarpenterDestroy(t, w, node, "karpenter-spot-service-linked-role")
	})
}
