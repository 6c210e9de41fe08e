package tests

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// TestDestroyOrder checks the rendered dependency graph makes `pulumi destroy` remove the
// provisioning custom resources while Karpenter still runs with its permissions, then the
// controller, then its IAM and queue; and walks that order against the API server.
func TestDestroyOrder(t *testing.T) {
	for _, file := range []string{"default.json", "rich.json"} {
		t.Run(strings.TrimSuffix(file, ".json"), func(t *testing.T) {
			r := render(t, args(file))
			assertDestroyOrder(t, r)
			performDestroy(t, r)
		})
	}
}

func assertDestroyOrder(t *testing.T, r *harness.Render) {
	order, err := r.DeleteOrder()
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, res := range order {
		pos[res.Name] = i
	}
	ctrl, ok := r.Release("karpenter")
	if !ok {
		t.Fatal("render has no karpenter release")
	}

	var crs, controllerIAM, nodeRoles []harness.Resource
	var controllerRole string
	for _, res := range r.Resources {
		switch {
		case res.IsKubernetes() && !res.IsRelease():
			crs = append(crs, res)
		case res.Type == "aws:iam/role:Role":
			// The trust policy tells the two roles apart: EC2 assumes the node role, the
			// cluster's OIDC provider (IRSA) or EKS Pod Identity the controller role.
			if trusts(res, "ec2.") {
				nodeRoles = append(nodeRoles, res)
			} else {
				controllerRole = res.Name
				controllerIAM = append(controllerIAM, res)
			}
		case res.Type == "aws:iam/policy:Policy", res.Type == "aws:sqs/queue:Queue":
			controllerIAM = append(controllerIAM, res)
		}
	}
	if len(crs) == 0 || len(nodeRoles) != 1 || controllerRole == "" {
		t.Fatalf("render has %d custom resources, %d node roles, controller role %q; want >0, 1, set", len(crs), len(nodeRoles), controllerRole)
	}
	// Attachments of the controller role's policies go with it: Karpenter must keep its
	// permissions until it is gone.
	for _, res := range r.OfType("aws:iam/rolePolicyAttachment:RolePolicyAttachment") {
		if r.DependsOnTransitively(res.Name, controllerRole) {
			controllerIAM = append(controllerIAM, res)
		}
	}

	// mustPrecede: a is deleted before b in every order Pulumi may use, i.e. a (transitively)
	// depends on b; the derived order agrees.
	mustPrecede := func(a, b, why string) {
		t.Helper()
		if !r.DependsOnTransitively(a, b) {
			t.Errorf("%s must be deleted before %s (%s), but %s does not depend on %s in the rendered graph", a, b, why, a, b)
		}
		if pos[a] > pos[b] {
			t.Errorf("derived delete order has %s (#%d) after %s (#%d)", a, pos[a], b, pos[b])
		}
	}
	for _, cr := range crs {
		mustPrecede(cr.Name, ctrl.Name, "Karpenter drains and terminates the nodes while it still runs")
		mustPrecede(cr.Name, nodeRoles[0].Name, "nodes keep their role until they are terminated")
	}
	for _, res := range controllerIAM {
		mustPrecede(ctrl.Name, res.Name, "the controller keeps its permissions and queue while it runs")
	}

	var names []string
	for _, res := range order {
		names = append(names, res.Name)
	}
	t.Logf("derived delete order: %s", strings.Join(names, " -> "))
}

// trusts reports whether a role's trust policy names a principal containing s.
func trusts(res harness.Resource, s string) bool {
	b, _ := json.Marshal(res.Inputs["assumeRolePolicy"])
	return strings.Contains(string(b), s)
}

// performDestroy installs the render and deletes its Kubernetes resources in the derived
// order, checking at each step that what must still exist does.
func performDestroy(t *testing.T, r *harness.Render) {
	c, ctx := cluster(t)
	applied := install(t, ctx, c, r)
	releases := map[string]harness.Applied{}
	for _, a := range applied {
		if a.Release != nil {
			releases[a.Resource.Name] = a
		}
	}
	ctrl, _ := r.Release("karpenter")
	ctrlRel := releases[ctrl.Name].Release
	dep := manifestObject(t, ctrlRel.Manifest, "Deployment")
	deploymentExists := func() bool {
		_, err := c.Dynamic.Resource(deploymentGVR).Namespace(ctrlRel.Namespace).Get(ctx, dep.GetName(), metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}

	order, err := r.DeleteOrder()
	if err != nil {
		t.Fatal(err)
	}
	var deleted []string
	for _, res := range order {
		switch {
		case res.IsRelease():
			if res.Name == ctrl.Name {
				// By now every NodePool and EC2NodeClass must be gone.
				if left := append(names(t, ctx, c, nodePoolsGVR), names(t, ctx, c, nodeClassGVR)...); len(left) > 0 {
					t.Errorf("uninstalling the controller while custom resources remain: %v", left)
				}
			}
			if err := c.UninstallRelease(res); err != nil {
				t.Fatalf("helm uninstall %s: %v", res.Name, err)
			}
			if res.Name == ctrl.Name && deploymentExists() {
				t.Errorf("controller Deployment still exists after uninstalling %s", res.Name)
			}
		case res.IsKubernetes():
			// Karpenter must still be running to drain this object's nodes.
			if !deploymentExists() {
				t.Errorf("deleting %s after the controller Deployment is gone", res.Name)
			}
			obj, err := harness.Object(res)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Delete(ctx, obj); err != nil {
				t.Fatalf("delete %s: %v", res.Name, err)
			}
		default:
			continue // AWS resources: nothing to delete here
		}
		deleted = append(deleted, res.Name)
	}
	t.Logf("deleted from the API server in order: %s", strings.Join(deleted, " -> "))
	// CRD deletion finishes asynchronously (the API server first removes the stored objects).
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := c.CRD(ctx, "nodepools.karpenter.sh")
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("nodepools CRD still served after uninstalling karpenter-crd: %v", err)
	}
}
