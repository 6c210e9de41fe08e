package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// Objects through the dynamic client, as pulumi-kubernetes's resources do: CRDs and their
// establishment, REST mappings, create, server-side apply (Patch resources), update, get, delete.

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// waitForCRDs waits until every CustomResourceDefinition in a multi-document manifest is
// Established (waitEstablished).
func (c *Cluster) waitForCRDs(ctx context.Context, manifest string) error {
	var names []string
	for _, doc := range strings.Split(manifest, "\n---") {
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err == nil && obj.Kind == "CustomResourceDefinition" {
			names = append(names, obj.Metadata.Name)
		}
	}
	return c.waitEstablished(ctx, names)
}

// waitEstablished waits until the named CRDs are Established, then forgets cached discovery so
// the new kinds resolve.
func (c *Cluster) waitEstablished(ctx context.Context, names []string) error {
	for _, n := range names {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			crd, err := c.Dynamic.Resource(crdGVR).Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
			for _, cond := range conds {
				m, _ := cond.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("CRD %s not established: %w", n, err)
		}
	}
	if len(names) > 0 {
		c.mapper.Reset()
	}
	return nil
}

// CRD returns a CustomResourceDefinition as served.
func (c *Cluster) CRD(ctx context.Context, name string) (*unstructured.Unstructured, error) {
	return c.Dynamic.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
}

// Mapping resolves a kind to its REST resource (the plural name kubectl uses) and scope
// through discovery, as kubectl does: plurals are the CRD's to choose (ec2nodeclasses).
func (c *Cluster) Mapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		c.mapper.Reset() // a CRD installed since the last discovery
		m, err = c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if meta.IsNoMatchError(err) && gvk.Group == "eks.amazonaws.com" {
		return nil, fmt.Errorf("resolve %s: %w (EKS serves it on an Auto Mode cluster: call Cluster.InstallAutoModeCRDs first)", gvk, err)
	}
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", gvk, err)
	}
	return m, nil
}

// resourceFor resolves an object's kind to its REST resource through discovery.
func (c *Cluster) resourceFor(obj *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	m, err := c.Mapping(obj.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := obj.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		return c.Dynamic.Resource(m.Resource).Namespace(ns), nil
	}
	return c.Dynamic.Resource(m.Resource), nil
}

// Object turns a rendered kubernetes resource's inputs into the object the provider sends.
// The type token is kubernetes:<group/version>:<kind>; it must agree with the inputs. For a
// Patch resource (kind <Kind>Patch) the object is the patched kind. For a read resource
// (readId "<namespace>/<name>") it identifies the existing object.
func Object(res Resource) (*unstructured.Unstructured, error) {
	apiVersion, kind, ok := res.KubernetesKind()
	if !ok || res.IsRelease() {
		return nil, fmt.Errorf("%s: %q is not a kubernetes object type token", res.Name, res.Type)
	}
	if res.IsPatch() {
		kind = strings.TrimSuffix(kind, "Patch")
	}
	obj := &unstructured.Unstructured{Object: normalize(res.Inputs).(map[string]any)}
	if obj.Object == nil {
		obj.Object = map[string]any{}
	}
	if obj.GetAPIVersion() == "" {
		obj.SetAPIVersion(apiVersion)
	}
	if obj.GetKind() == "" {
		obj.SetKind(kind)
	}
	if obj.GetAPIVersion() != apiVersion || obj.GetKind() != kind {
		return nil, fmt.Errorf("%s: type %s but inputs say %s %s", res.Name, res.Type, obj.GetAPIVersion(), obj.GetKind())
	}
	if res.IsRead() {
		ns, name, found := strings.Cut(res.ReadID, "/")
		if !found {
			ns, name = "", res.ReadID
		}
		if name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("%s: readId %q is not <namespace>/<name> or <name>", res.Name, res.ReadID)
		}
		if (obj.GetName() != "" && obj.GetName() != name) || (obj.GetNamespace() != "" && obj.GetNamespace() != ns) {
			return nil, fmt.Errorf("%s: readId %q but inputs name %s/%s", res.Name, res.ReadID, obj.GetNamespace(), obj.GetName())
		}
		obj.SetName(name)
		obj.SetNamespace(ns)
	}
	if obj.GetName() == "" {
		return nil, fmt.Errorf("%s: metadata.name is empty (the harness does not auto-name)", res.Name)
	}
	return obj, nil
}

// pulumi-kubernetes' annotations for Patch resources (server-side apply options).
const (
	PatchForceAnnotation        = "pulumi.com/patchForce"
	PatchFieldManagerAnnotation = "pulumi.com/patchFieldManager"
)

// PatchFieldManager is the field manager pulumi-kubernetes uses for a Patch resource: the
// pulumi.com/patchFieldManager annotation, else "pulumi-kubernetes-" and 8 random hex digits
// chosen once per resource and kept in its state. The harness derives the digits from the
// logical name so runs are deterministic.
func PatchFieldManager(res Resource, obj *unstructured.Unstructured) string {
	if v := obj.GetAnnotations()[PatchFieldManagerAnnotation]; v != "" {
		return v
	}
	sum := sha256.Sum256([]byte(res.Name))
	return "pulumi-kubernetes-" + hex.EncodeToString(sum[:4])
}

// Apply sends an object with server-side apply (what pulumi-kubernetes does for Patch
// resources) under a field manager, forcing conflicts if asked, and returns what the server
// stored. Field validation is Strict, so a field the server does not know is an error here
// rather than dropped (pulumi-kubernetes ignores it; the read-back comparison would catch it).
func (c *Cluster) Apply(ctx context.Context, obj *unstructured.Unstructured, fieldManager string, force bool) (*unstructured.Unstructured, error) {
	ri, err := c.resourceFor(obj)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	return ri.Patch(ctx, obj.GetName(), types.ApplyPatchType, body, metav1.PatchOptions{
		FieldManager:    fieldManager,
		Force:           &force,
		FieldValidation: "Strict",
	})
}

// Relinquish is what pulumi-kubernetes does when it deletes a Patch resource: apply an
// object holding only its identity under the patch's field manager, so the manager owns no
// fields any more. Fields nobody else owns are removed.
func (c *Cluster) Relinquish(ctx context.Context, obj *unstructured.Unstructured, fieldManager string) (*unstructured.Unstructured, error) {
	min := &unstructured.Unstructured{}
	min.SetAPIVersion(obj.GetAPIVersion())
	min.SetKind(obj.GetKind())
	min.SetNamespace(obj.GetNamespace())
	min.SetName(obj.GetName())
	ri, err := c.resourceFor(obj)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(min.Object)
	if err != nil {
		return nil, err
	}
	return ri.Patch(ctx, obj.GetName(), types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: fieldManager})
}

// Create sends an object to the API server and returns what the server stored.
func (c *Cluster) Create(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return c.CreateAs(ctx, obj, "pulumi-kubernetes")
}

// CreateAs is Create by another client, under its field manager (kubectl's client-side apply is
// kubectl-client-side-apply): the object's managedFields say who wrote it.
func (c *Cluster) CreateAs(ctx context.Context, obj *unstructured.Unstructured, fieldManager string) (*unstructured.Unstructured, error) {
	ri, err := c.resourceFor(obj)
	if err != nil {
		return nil, err
	}
	if _, err := ri.Create(ctx, obj, metav1.CreateOptions{FieldManager: fieldManager}); err != nil {
		return nil, err
	}
	return ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
}

// CreateDryRun asks the API server to admit obj without storing it (server-side dry run: the
// CRD's schema and validation rules run as for a real create).
func (c *Cluster) CreateDryRun(ctx context.Context, obj *unstructured.Unstructured) error {
	ri, err := c.resourceFor(obj)
	if err != nil {
		return err
	}
	_, err = ri.Create(ctx, obj, metav1.CreateOptions{FieldManager: "pulumi-kubernetes", DryRun: []string{metav1.DryRunAll}})
	return err
}

// Update replaces an existing object's content with what a later render sends and returns
// what the server stored: a full update (PUT, under the field manager Create uses) of the live
// object, so fields the render no longer sends are removed, as when Pulumi diffs the old and
// new inputs. The object keeps its identity (uid, creation time) and status; finalizers and
// owner references the render does not set are kept as the live object has them.
func (c *Cluster) Update(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ri, err := c.resourceFor(obj)
	if err != nil {
		return nil, err
	}
	live, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	obj = obj.DeepCopy()
	obj.SetResourceVersion(live.GetResourceVersion())
	if obj.GetFinalizers() == nil {
		obj.SetFinalizers(live.GetFinalizers())
	}
	if obj.GetOwnerReferences() == nil {
		obj.SetOwnerReferences(live.GetOwnerReferences())
	}
	if _, err := ri.Update(ctx, obj, metav1.UpdateOptions{FieldManager: "pulumi-kubernetes"}); err != nil {
		return nil, err
	}
	return ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
}

// Get reads an object back (nil and a NotFound error when absent).
func (c *Cluster) Get(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ri, err := c.resourceFor(obj)
	if err != nil {
		return nil, err
	}
	return ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
}

// Delete deletes an object and waits until it is gone.
func (c *Cluster) Delete(ctx context.Context, obj *unstructured.Unstructured) error {
	ri, err := c.resourceFor(obj)
	if err != nil {
		return err
	}
	if err := ri.Delete(ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}
