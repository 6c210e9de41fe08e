//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// What EKS writes into kube-system/aws-auth on a CONFIG_MAP cluster before the component runs: the
// managed node group's role, and (in another key) a user mapping nothing of ours may touch.
// otherStackManager is the field manager of a Pulumi kubernetes:core/v1:ConfigMap in another stack
// (pulumi-kubernetes names each resource's manager pulumi-kubernetes-<8 hex>).
const otherStackManager = "pulumi-kubernetes-1a2b3c4d"

const (
	managedNodeGroupRole = "arn:aws:iam::123456789012:role/managed-node-group"
	eksMapRoles          = "- groups:\n  - system:bootstrappers\n  - system:nodes\n  rolearn: " + managedNodeGroupRole + "\n  username: system:node:{{EC2PrivateDNSName}}\n"
	eksMapUsers          = "- userarn: arn:aws:iam::123456789012:user/admin\n  username: admin\n  groups:\n  - system:masters\n"
)

// TestAwsAuth: on a CONFIG_MAP cluster — EKS's default, which pulumi-eks leaves — node access
// follows the cluster's mode: the first preview cannot read the cluster (the update creates it),
// so it shows an access entry and says it assumes API_AND_CONFIG_MAP; `up` reads the cluster first
// and maps the node role in kube-system/aws-auth instead, through the real provider's
// ConfigMapPatch (server-side apply, forced: it takes over the one mapRoles string EKS wrote):
// mapRoles then holds EKS's entry and the node role's, mapUsers is untouched, and no access entry
// exists (EKS would refuse one). A second preview shows no changes (the read returns the patched
// document, and merging into it is stable). The patch is kept on destroy, as documented: removing
// it would remove the mapRoles field it took over, locking out the managed node group too.
func TestAwsAuth(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(w.ControlPlane.Config)
	if err != nil {
		t.Fatal(err)
	}
	awsAuth := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "aws-auth", Namespace: "kube-system"},
		Data:       map[string]string{"mapRoles": eksMapRoles, "mapUsers": eksMapUsers},
	}
	if _, err := cs.CoreV1().ConfigMaps("kube-system").Create(ctx, awsAuth, metav1.CreateOptions{FieldManager: "eks"}); err != nil {
		t.Fatal(err)
	}
	w.rebaseline(t) // aws-auth is the cluster's, from before the component
	w.stackWith(lab.ProgramOptions{AuthenticationMode: "CONFIG_MAP"})

	t.Run("the first preview assumes an access entry, and says so", func(t *testing.T) {
		p := w.preview(t)
		if _, byName := plannedChildren(t, p); byName["karpenter-node-access"] == nil || byName["karpenter-aws-auth"] != nil {
			t.Errorf("the preview should plan an access entry and no aws-auth mapping: %v", p.ops())
		}
		if !slices.ContainsFunc(p.Diagnostics, func(d diagnostic) bool {
			return strings.Contains(d.Message, "this preview assumes API_AND_CONFIG_MAP: an access entry for the node role")
		}) {
			t.Errorf("the preview does not say what it assumes: %+v", p.Diagnostics)
		}
	})

	var out map[string]any
	t.Run("up maps the node role next to EKS's entry", func(t *testing.T) {
		w.up(t)
		out = w.outputs(t)
		cm, err := cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "aws-auth", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		roles := mapRoles(t, cm.Data["mapRoles"])
		if len(roles) != 2 || roles[managedNodeGroupRole] == "" || roles[str(out["nodeRoleArn"])] != "system:node:{{EC2PrivateDNSName}}" {
			t.Errorf("mapRoles: want EKS's entry and the node role %s, got:\n%s", out["nodeRoleArn"], cm.Data["mapRoles"])
		}
		if cm.Data["mapUsers"] != eksMapUsers {
			t.Errorf("mapUsers changed:\n%s", cm.Data["mapUsers"])
		}
		if inv := w.aws(t); len(inv.AccessEntries) != 0 {
			t.Errorf("access entries on a CONFIG_MAP cluster: %v", inv.AccessEntries)
		}
	})
	if t.Failed() {
		return
	}
	t.Run("a second preview shows no changes", func(t *testing.T) {
		w.must(t, "preview", "--expect-no-changes", "--non-interactive")
	})
	// Another owner applies its own aws-auth (a Pulumi kubernetes:core/v1:ConfigMap in another
	// stack, server-side apply, which maps the node role itself as the README says to). From then
	// on its next apply decides mapRoles: the component does not co-own it, and the next preview
	// refuses, naming the manager and the ways out.
	t.Run("another owner applies aws-auth: the preview refuses, naming it", func(t *testing.T) {
		theirs := eksMapRoles + "- groups:\n  - system:bootstrappers\n  - system:nodes\n  rolearn: " + str(out["nodeRoleArn"]) + "\n  username: system:node:{{EC2PrivateDNSName}}\n"
		owned := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"aws-auth","namespace":"kube-system"},"data":{"mapRoles":%q}}`, theirs)
		force := true
		if _, err := cs.CoreV1().ConfigMaps("kube-system").Patch(ctx, "aws-auth", types.ApplyPatchType, []byte(owned),
			metav1.PatchOptions{FieldManager: otherStackManager, Force: &force}); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, err := w.run(t, "preview", "--non-interactive")
		out := stdout + stderr
		if err == nil {
			t.Fatalf("the preview passed with aws-auth's mapRoles applied by %s:\n%s", otherStackManager, tail(out, 40))
		}
		for _, want := range []string{
			"nodeAccess: awsAuth (the component follows the cluster's CONFIG_MAP mode), but kube-system/aws-auth's mapRoles belongs to field manager " + otherStackManager + ", which applies its own mapRoles",
			"switch the cluster to access entries",
			"(the component's nodeRoleMapping output is the entry) and set nodeAccess: none",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("the preview's refusal does not say %q:\n%s", want, tail(out, 40))
			}
		}
	})
	t.Run("destroy keeps the mapping and removes everything else", func(t *testing.T) {
		w.must(t, "destroy", "--yes", "--non-interactive", "--skip-preview")
		w.assertNothingLeft(t, "karpenter-aws-auth")
		cm, err := cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "aws-auth", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if roles := mapRoles(t, cm.Data["mapRoles"]); len(roles) != 2 || roles[managedNodeGroupRole] == "" {
			t.Errorf("mapRoles after destroy: want EKS's entry and the retained node role entry:\n%s", cm.Data["mapRoles"])
		}
	})
}

// mapRoles maps each role ARN of an aws-auth mapRoles document to its username.
func mapRoles(t *testing.T, doc string) map[string]string {
	t.Helper()
	var entries []struct {
		RoleARN  string   `json:"rolearn"`
		Username string   `json:"username"`
		Groups   []string `json:"groups"`
	}
	if err := yaml.UnmarshalStrict([]byte(doc), &entries); err != nil {
		t.Fatalf("mapRoles is not a list of role mappings: %v\n%s", err, doc)
	}
	out := map[string]string{}
	for _, e := range entries {
		if strings.Join(e.Groups, ",") != "system:bootstrappers,system:nodes" {
			t.Errorf("%s: groups %v", e.RoleARN, e.Groups)
		}
		out[e.RoleARN] = e.Username
	}
	return out
}
