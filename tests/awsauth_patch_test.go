package tests

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// On a CONFIG_MAP cluster EKS has written kube-system/aws-auth (mapping the managed node
// group's role) before the component runs. eksFieldManager stands for EKS's writer.
const (
	eksFieldManager = "eks"
	managedNodeRole = "arn:aws:iam::123456789012:role/managed-node-group"
	nodeUsername    = "system:node:{{EC2PrivateDNSName}}"
	// What EKS writes (the render's mock read returns the same entry), plus a user mapping
	// in another key the patch must not touch.
	eksMapRoles = "- groups:\n  - system:bootstrappers\n  - system:nodes\n  rolearn: " + managedNodeRole + "\n  username: " + nodeUsername + "\n"
	eksMapUsers = "- userarn: arn:aws:iam::123456789012:user/admin\n  username: admin\n  groups:\n  - system:masters\n"
)

// createAWSAuth creates kube-system/aws-auth the way EKS would, with its own field manager.
func createAWSAuth(t *testing.T, ctx context.Context, c *harness.Cluster) *unstructured.Unstructured {
	t.Helper()
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "aws-auth", "namespace": "kube-system"},
		"data":     map[string]any{"mapRoles": eksMapRoles, "mapUsers": eksMapUsers},
	}}
	got, err := c.Dynamic.Resource(configMapGVR).Namespace("kube-system").Create(ctx, cm, metav1.CreateOptions{FieldManager: eksFieldManager})
	if err != nil {
		t.Fatalf("create kube-system/aws-auth as EKS: %v", err)
	}
	return got
}

func getAWSAuth(t *testing.T, ctx context.Context, c *harness.Cluster) *unstructured.Unstructured {
	t.Helper()
	got, err := c.Dynamic.Resource(configMapGVR).Namespace("kube-system").Get(ctx, "aws-auth", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get kube-system/aws-auth: %v", err)
	}
	return got
}

// mapRoleEntry is one aws-auth mapRoles entry.
type mapRoleEntry struct {
	RoleARN  string   `json:"rolearn"`
	Username string   `json:"username"`
	Groups   []string `json:"groups"`
}

func parseMapRoles(t *testing.T, s string) map[string]mapRoleEntry {
	t.Helper()
	var entries []mapRoleEntry
	if err := yaml.UnmarshalStrict([]byte(s), &entries); err != nil {
		t.Fatalf("mapRoles is not a list of role mappings: %v\n%s", err, s)
	}
	out := map[string]mapRoleEntry{}
	for _, e := range entries {
		if _, dup := out[e.RoleARN]; dup {
			t.Errorf("mapRoles maps %s twice:\n%s", e.RoleARN, s)
		}
		out[e.RoleARN] = e
	}
	return out
}

// managers returns, per field manager, the data keys it owns on a ConfigMap.
func managers(obj *unstructured.Unstructured) map[string][]string {
	out := map[string][]string{}
	for _, mf := range obj.GetManagedFields() {
		var fields map[string]any
		if mf.FieldsV1 != nil {
			_ = yaml.Unmarshal(mf.FieldsV1.Raw, &fields)
		}
		data, _ := fields["f:data"].(map[string]any)
		keys := []string{}
		for k := range data {
			if k != "." { // the data map itself
				keys = append(keys, strings.TrimPrefix(k, "f:"))
			}
		}
		out[mf.Manager] = append(out[mf.Manager], sortedKeys(toSet(keys))...)
	}
	return out
}

func toSet(keys []string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// awsAuthResources finds the read of kube-system/aws-auth and the ConfigMapPatch in a render.
func awsAuthResources(t *testing.T, r *harness.Render) (read, patch harness.Resource) {
	t.Helper()
	var reads, patches []harness.Resource
	for _, res := range r.Resources {
		switch {
		case res.IsRead():
			reads = append(reads, res)
		case res.IsPatch():
			patches = append(patches, res)
		}
	}
	if len(reads) != 1 || reads[0].Type != "kubernetes:core/v1:ConfigMap" || reads[0].ReadID != "kube-system/aws-auth" {
		t.Fatalf("render reads %v, want one kubernetes:core/v1:ConfigMap with readId kube-system/aws-auth", reads)
	}
	if len(patches) != 1 || patches[0].Type != "kubernetes:core/v1:ConfigMapPatch" {
		t.Fatalf("render has patches %v, want one kubernetes:core/v1:ConfigMapPatch", patches)
	}
	if !r.DependsOnTransitively(patches[0].Name, reads[0].Name) {
		t.Errorf("%s does not depend on %s: the merge must be computed from what was read", patches[0].Name, reads[0].Name)
	}
	return reads[0], patches[0]
}

// TestAWSAuthPatch applies the rendered aws-auth merge (clusterAuthenticationMode CONFIG_MAP)
// the way pulumi-kubernetes applies a ConfigMapPatch: server-side apply under its own field
// manager, forced (pulumi.com/patchForce), onto the aws-auth EKS wrote.
func TestAWSAuthPatch(t *testing.T) {
	t.Parallel()
	r := render(t, args("config-map.json"))
	read, patch := awsAuthResources(t, r)
	if n := len(r.OfType("aws:eks/accessEntry:AccessEntry")); n != 0 {
		t.Errorf("CONFIG_MAP cluster: render has %d access entries, want 0 (the cluster ignores them)", n)
	}
	patchObj, err := harness.Object(patch)
	if err != nil {
		t.Fatal(err)
	}
	if got := patchObj.GetNamespace() + "/" + patchObj.GetName(); got != "kube-system/aws-auth" {
		t.Fatalf("%s patches %s, want kube-system/aws-auth", patch.Name, got)
	}
	if got := patchObj.GetAnnotations()[harness.PatchForceAnnotation]; got != "true" {
		t.Errorf("%s annotation %s = %q, want \"true\" (mapRoles is one string EKS owns)", patch.Name, harness.PatchForceAnnotation, got)
	}
	if keys := sortedKeys(field(patchObj, "data").(map[string]any)); !reflect.DeepEqual(keys, []string{"mapRoles"}) {
		t.Errorf("%s patches data keys %v, want only mapRoles", patch.Name, keys)
	}
	nodeRole := outputString(t, r, "nodeRoleArn")
	c, ctx := cluster(t)

	t.Run("read resource is never created", func(t *testing.T) {
		// Without aws-auth the install stops at the read, naming it, and creates nothing.
		applied, err := c.Install(ctx, r)
		if err == nil {
			t.Fatal("install succeeded without kube-system/aws-auth; the read must fail")
		}
		if !strings.Contains(err.Error(), read.Name) || !apierrors.IsNotFound(err) {
			t.Errorf("install error %v: want a NotFound naming %s", err, read.Name)
		}
		if len(applied) != 0 {
			t.Errorf("applied %d resources before the read failed, want 0 (the read comes first)", len(applied))
		}
		_, err = c.Dynamic.Resource(configMapGVR).Namespace("kube-system").Get(ctx, "aws-auth", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("kube-system/aws-auth after the failed install: %v, want NotFound (the harness must not create a read resource)", err)
		}
	})
	if t.Failed() {
		return
	}

	eks := createAWSAuth(t, ctx, c)

	t.Run("unforced apply conflicts", func(t *testing.T) {
		// Why the patch forces: EKS owns mapRoles, and a second manager setting it to
		// another value is a conflict.
		_, err := c.Apply(ctx, patchObj.DeepCopy(), "pulumi-kubernetes-unforced", false)
		if code := statusCode(err); code != http.StatusConflict || !strings.Contains(err.Error(), ".data.mapRoles") {
			t.Errorf("unforced apply: %d %v, want 409 Conflict on .data.mapRoles", code, err)
		}
	})

	applied := install(t, ctx, c, r)
	var readBack, patched *harness.Applied
	for i := range applied {
		switch applied[i].Resource.Name {
		case read.Name:
			readBack = &applied[i]
		case patch.Name:
			patched = &applied[i]
		}
	}
	if readBack == nil || patched == nil {
		t.Fatalf("install did not read %s and apply %s", read.Name, patch.Name)
	}
	if got := readBack.Got.GetUID(); got != eks.GetUID() {
		t.Errorf("%s read aws-auth uid %s, want EKS's %s", read.Name, got, eks.GetUID())
	}
	if readBack.Sent != nil {
		t.Errorf("the harness sent %s (a read resource)", read.Name)
	}

	got := getAWSAuth(t, ctx, c)
	if got.GetUID() != eks.GetUID() {
		t.Errorf("aws-auth was replaced (uid %s, EKS created %s)", got.GetUID(), eks.GetUID())
	}
	data := field(got, "data").(map[string]any)
	roles := parseMapRoles(t, data["mapRoles"].(string))
	wantGroups := []string{"system:bootstrappers", "system:nodes"}
	if mng, ok := roles[managedNodeRole]; !ok || mng.Username != nodeUsername || !reflect.DeepEqual(mng.Groups, wantGroups) {
		t.Errorf("managed node group mapping after the patch: %+v (present %v), want it unchanged", mng, ok)
	}
	if node, ok := roles[nodeRole]; !ok || node.Username != nodeUsername || !reflect.DeepEqual(node.Groups, wantGroups) {
		t.Errorf("node role mapping after the patch: %+v (present %v), want %s with groups %v and username %s",
			node, ok, nodeRole, wantGroups, nodeUsername)
	}
	if len(roles) != 2 {
		t.Errorf("mapRoles has %d entries, want 2:\n%s", len(roles), data["mapRoles"])
	}
	if data["mapUsers"] != eksMapUsers {
		t.Errorf("mapUsers changed:\n%v\nwant\n%s", data["mapUsers"], eksMapUsers)
	}

	// Ownership: the patch's manager took mapRoles only; EKS keeps mapUsers; the harness's
	// create manager never touched aws-auth.
	owners := managers(got)
	t.Logf("aws-auth field managers (data keys): %v", owners)
	if !reflect.DeepEqual(owners[patched.FieldManager], []string{"mapRoles"}) {
		t.Errorf("patch manager %s owns %v, want [mapRoles]", patched.FieldManager, owners[patched.FieldManager])
	}
	if !reflect.DeepEqual(owners[eksFieldManager], []string{"mapUsers"}) {
		t.Errorf("EKS's manager owns %v, want [mapUsers] (mapRoles forced over)", owners[eksFieldManager])
	}
	if _, ok := owners["pulumi-kubernetes"]; ok {
		t.Error("aws-auth has fields of the harness's create manager: the read resource was written")
	}

	// A second `pulumi up` applies the same patch: nothing changes.
	again, err := c.Apply(ctx, patchObj.DeepCopy(), patched.FieldManager, true)
	if err != nil {
		t.Fatal(err)
	}
	if again.GetResourceVersion() != got.GetResourceVersion() {
		t.Errorf("re-applying the same patch changed aws-auth (resourceVersion %s -> %s)", got.GetResourceVersion(), again.GetResourceVersion())
	}

	// Deleting a Patch resource in pulumi-kubernetes relinquishes its fields. mapRoles is
	// then owned by nobody and is removed, managed node group and all — which is why the
	// component registers the patch with retainOnDelete (provider/children/access.go; the render
	// does not show resource options). This documents the API server's behaviour.
	after, err := c.Relinquish(ctx, patchObj, patched.FieldManager)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := field(after, "data").(map[string]any)["mapRoles"]; ok {
		t.Errorf("relinquishing the patch kept mapRoles; the retainOnDelete rationale no longer holds:\n%v", field(after, "data"))
	} else {
		t.Logf("relinquishing %s (what deleting a Patch does) removes mapRoles entirely: the patch must be retained on delete", patched.FieldManager)
	}
}
