package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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
//
// The cluster shapes add resources with their own place in that order: the node role's
// access (an EKS access entry, or the aws-auth ConfigMapPatch on CONFIG_MAP clusters) and the
// discovery tags outlive the custom resources (nodes must keep joining and their subnets and
// security groups must stay discoverable while Karpenter drains them); the controller's Pod
// Identity association and the Spot service-linked role outlive the controller.
func TestDestroyOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range destroyCases {
		t.Run(strings.TrimSuffix(tc.file, ".json"), func(t *testing.T) {
			t.Parallel()
			r := render(t, args(tc.file))
			for typ, n := range tc.want {
				if got := len(r.OfType(typ)); got != n {
					t.Errorf("render has %d %s, want %d", got, typ, n)
				}
			}
			assertDestroyOrder(t, r)
			performDestroy(t, r, tc)
		})
	}
}

// Types of the cluster-shape resources.
const (
	accessEntryType   = "aws:eks/accessEntry:AccessEntry"
	awsAuthPatchType  = "kubernetes:core/v1:ConfigMapPatch"
	discoveryTagType  = "aws:ec2/tag:Tag"
	podIdentityType   = "aws:eks/podIdentityAssociation:PodIdentityAssociation"
	spotLinkedRole    = "aws:iam/serviceLinkedRole:ServiceLinkedRole"
	configMapReadType = "kubernetes:core/v1:ConfigMap"
)

type destroyCase struct {
	file string
	want map[string]int // resources of these types the render must have (so the order checks bite)
	// awsAuth: the cluster has kube-system/aws-auth (EKS writes it in CONFIG_MAP mode).
	awsAuth bool
	// retained: Patch resources `pulumi destroy` must leave in place (the render marks them
	// retainOnDelete). The aws-auth patch is one: removing it would remove the whole mapRoles,
	// see TestAWSAuthPatch.
	retained []string
}

var destroyCases = []destroyCase{
	{file: "default.json", want: map[string]int{accessEntryType: 1, awsAuthPatchType: 0}},
	{file: "rich.json", want: map[string]int{accessEntryType: 1}},
	{file: "cluster-shapes.json", want: map[string]int{accessEntryType: 1, discoveryTagType: 3, podIdentityType: 1, spotLinkedRole: 1}},
	{file: "config-map.json", want: map[string]int{accessEntryType: 0, awsAuthPatchType: 1, configMapReadType: 1},
		awsAuth: true, retained: []string{"karpenter-aws-auth"}},
}

func assertDestroyOrder(t testing.TB, r *harness.Render) {
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

	var crs, controllerIAM, nodeRoles, nodeSide, controllerSide []harness.Resource
	var controllerRole string
	for _, res := range r.Resources {
		switch {
		case res.IsCustomResource():
			crs = append(crs, res)
		case res.Type == accessEntryType, res.Type == awsAuthPatchType, res.Type == discoveryTagType:
			nodeSide = append(nodeSide, res)
		case res.Type == podIdentityType, res.Type == spotLinkedRole:
			controllerSide = append(controllerSide, res)
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
		for _, res := range nodeSide {
			switch res.Type {
			case discoveryTagType:
				mustPrecede(cr.Name, res.Name, "the node class keeps finding its subnets and security groups while its nodes drain")
			default:
				mustPrecede(cr.Name, res.Name, "draining nodes keep their access to the cluster until they are terminated")
			}
		}
	}
	// A pool goes before its class: the class's finalizer waits for the nodes the pool keeps, so
	// with the class deleted first the destroy would wait for ever.
	classes := map[string]string{} // the class's metadata.name -> its resource
	for _, cr := range crs {
		if name, ok := nested(cr.Inputs, "metadata", "name").(string); ok && isNodeClass(cr.Type) {
			classes[name] = cr.Name
		}
	}
	for _, cr := range crs {
		ref, _ := nested(cr.Inputs, "spec", "template", "spec", "nodeClassRef", "name").(string) // NodePool
		if ref == "" {
			ref, _ = nested(cr.Inputs, "spec", "providerRef", "name").(string) // Provisioner
		}
		if class, ok := classes[ref]; ok {
			mustPrecede(cr.Name, class, "the class's finalizer waits for the nodes its pool keeps")
		}
	}
	for _, res := range controllerIAM {
		mustPrecede(ctrl.Name, res.Name, "the controller keeps its permissions and queue while it runs")
	}
	for _, res := range controllerSide {
		switch res.Type {
		case podIdentityType:
			mustPrecede(ctrl.Name, res.Name, "the controller keeps its Pod Identity credentials while it runs")
		default:
			mustPrecede(ctrl.Name, res.Name, "the controller can launch Spot instances while it runs")
		}
	}
	// The node role goes after its access and its tags' users: an access entry or aws-auth
	// mapping outliving the role is harmless; the reverse would lock draining nodes out.
	for _, res := range nodeSide {
		if res.Type != discoveryTagType && !r.DependsOnTransitively(res.Name, nodeRoles[0].Name) {
			t.Errorf("%s must be deleted before the node role %s (it names the role), but does not depend on it", res.Name, nodeRoles[0].Name)
		}
	}

	var names []string
	for _, res := range order {
		names = append(names, res.Name)
	}
	t.Logf("derived delete order: %s", strings.Join(names, " -> "))
}

// nested is the value at a path of maps ("" keys absent: nil).
func nested(m map[string]any, path ...string) any {
	var v any = m
	for _, k := range path {
		next, _ := v.(map[string]any)
		v = next[k]
	}
	return v
}

// isNodeClass: an EC2NodeClass, or an AWSNodeTemplate of the Provisioner era.
func isNodeClass(typ string) bool {
	return strings.HasSuffix(typ, ":EC2NodeClass") || strings.HasSuffix(typ, ":AWSNodeTemplate")
}

// trusts reports whether a role's trust policy names a principal containing s.
func trusts(res harness.Resource, s string) bool {
	b, _ := json.Marshal(res.Inputs["assumeRolePolicy"])
	return strings.Contains(string(b), s)
}

// performDestroy installs the render and deletes its Kubernetes resources in the derived
// order, checking at each step that what must still exist does.
func performDestroy(t *testing.T, r *harness.Render, tc destroyCase) {
	c, ctx := cluster(t)
	if tc.awsAuth {
		createAWSAuth(t, ctx, c)
	}
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
		case res.IsRead():
			continue // `pulumi destroy` never deletes what a program only read
		case res.IsPatch():
			if !slices.Contains(tc.retained, res.Name) {
				t.Fatalf("%s is a Patch resource the test does not know the delete behaviour of (retained: %v)", res.Name, tc.retained)
			}
			if !res.RetainOnDelete {
				t.Fatalf("%s: the render does not mark it retainOnDelete, so destroy would remove the fields it applied", res.Name)
			}
			continue
		case res.IsCustomResource():
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
		case res.IsKubernetes():
			t.Fatalf("%s (%s): the destroy walk does not know this kubernetes resource", res.Name, res.Type)
		default:
			continue // AWS resources: nothing to delete here
		}
		deleted = append(deleted, res.Name)
	}
	t.Logf("deleted from the API server in order: %s", strings.Join(deleted, " -> "))
	if tc.awsAuth {
		// The retained patch leaves aws-auth as it was: the managed node group still joins.
		roles := parseMapRoles(t, field(getAWSAuth(t, ctx, c), "data", "mapRoles").(string))
		if _, ok := roles[managedNodeRole]; !ok {
			t.Errorf("after destroy aws-auth no longer maps the managed node group: %v", roles)
		}
	}
	// CRD deletion finishes asynchronously (the API server first removes the stored objects).
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := c.CRD(ctx, "nodepools.karpenter.sh")
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("nodepools CRD still served after uninstalling karpenter-crd: %v", err)
	}
}

// TestDestroyOrderChecksBite removes, one at a time, the dependency edges that put the
// cluster-shape resources in their place, and expects assertDestroyOrder to object each time
// (and not to object to the unmodified render), so the passing checks above mean something.
func TestDestroyOrderChecksBite(t *testing.T) {
	cases := []struct {
		file, from, to string // drop the edge from -> to
		want           string // a violation naming both
	}{
		{"cluster-shapes.json", "karpenter-nodeclass-default", "karpenter-discovery-subnet-0", "karpenter-discovery-subnet-0"},
		{"cluster-shapes.json", "karpenter-nodeclass-default", "karpenter-node-access", "karpenter-node-access"},
		{"cluster-shapes.json", "karpenter-nodepool-default", "karpenter-nodeclass-default", "the class's finalizer waits"},
		{"cluster-shapes.json", "karpenter-release", "karpenter-pod-identity", "karpenter-pod-identity"},
		{"cluster-shapes.json", "karpenter-release", "karpenter-spot-service-linked-role", "karpenter-spot-service-linked-role"},
		{"config-map.json", "karpenter-nodeclass-default", "karpenter-aws-auth", "karpenter-aws-auth"},
		{"config-map.json", "karpenter-aws-auth", "karpenter-node", "karpenter-aws-auth"},
	}
	renders := map[string]*harness.Render{}
	for _, tc := range cases {
		t.Run(tc.from+"->"+tc.to, func(t *testing.T) {
			if renders[tc.file] == nil {
				renders[tc.file] = render(t, args(tc.file))
				if errs := recordViolations(renders[tc.file]); len(errs) > 0 {
					t.Fatalf("unmodified %s: %v", tc.file, errs)
				}
			}
			r := *renders[tc.file]
			r.Resources = slices.Clone(r.Resources)
			found := false
			for i, res := range r.Resources {
				if res.Name == tc.from {
					if !slices.Contains(res.DependsOn, tc.to) {
						t.Fatalf("%s does not depend on %s in the render; update the case", tc.from, tc.to)
					}
					res.DependsOn = slices.DeleteFunc(slices.Clone(res.DependsOn), func(d string) bool { return d == tc.to })
					r.Resources[i] = res
					found = true
				}
			}
			if !found {
				t.Fatalf("render has no %s", tc.from)
			}
			errs := recordViolations(&r)
			hit := false
			for _, e := range errs {
				hit = hit || strings.Contains(e, tc.want)
			}
			if !hit {
				t.Errorf("without %s -> %s, assertDestroyOrder reported %v; want a violation naming %s", tc.from, tc.to, errs, tc.want)
			}
		})
	}
}

// recordViolations runs assertDestroyOrder and returns what it reported.
func recordViolations(r *harness.Render) []string {
	rec := &recorder{}
	func() {
		defer func() {
			if p := recover(); p != nil && p != errFatal {
				panic(p)
			}
		}()
		assertDestroyOrder(rec, r)
	}()
	return rec.errs
}

var errFatal = new(int)

// recorder is a testing.TB that collects failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()             {}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatal(a ...any) { r.errs = append(r.errs, fmt.Sprint(a...)); panic(errFatal) }
func (r *recorder) Fatalf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
	panic(errFatal)
}
