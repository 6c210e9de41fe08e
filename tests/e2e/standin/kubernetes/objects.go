package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// defaultDeleteTimeout bounds the wait for a deleted object to disappear when the engine
// passes no customTimeouts.delete (the stand-in's choice).
const defaultDeleteTimeout = 5 * time.Minute

// objectFrom turns known inputs into the object sent to the API server (for a Patch, the
// patched kind), checking apiVersion and kind against the type token.
func objectFrom(t typeInfo, pm resource.PropertyMap) (*unstructured.Unstructured, error) {
	m, err := plain(pm)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{Object: m}
	if obj.GetAPIVersion() == "" {
		obj.SetAPIVersion(t.APIVersion())
	}
	if obj.GetKind() == "" {
		obj.SetKind(t.GVK.Kind)
	}
	if obj.GetAPIVersion() != t.APIVersion() || obj.GetKind() != t.GVK.Kind {
		return nil, fmt.Errorf("type %s but the inputs say %s %s", t.Token, obj.GetAPIVersion(), obj.GetKind())
	}
	if obj.GetName() == "" {
		return nil, fmt.Errorf("metadata.name is empty")
	}
	return obj, nil
}

// client resolves the object's kind through discovery. A namespaced object without a
// namespace gets "default" (pulumi-kubernetes' canonical namespace); a cluster-scoped one
// loses a namespace set by mistake.
func client(cluster *harness.Cluster, obj *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	m, err := cluster.Mapping(obj.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		if obj.GetNamespace() == "" {
			obj.SetNamespace("default")
		}
		return cluster.Dynamic.Resource(m.Resource).Namespace(obj.GetNamespace()), nil
	}
	obj.SetNamespace("")
	return cluster.Dynamic.Resource(m.Resource), nil
}

// fqName is pulumi-kubernetes' resource id: "<namespace>/<name>", or the name of a
// cluster-scoped object.
func fqName(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// fieldManager is the server-side apply field manager of a resource: the
// pulumi.com/patchFieldManager annotation, else "pulumi-kubernetes-" + 8 hex digits.
// pulumi-kubernetes draws the digits at random once and keeps them in the resource's state
// (fieldManagerName, provider.go); the stand-in derives them from the logical name, as the
// harness does (harness.PatchFieldManager), so runs are reproducible and the outputs stay the
// live object.
func fieldManager(urnName string, obj *unstructured.Unstructured) string {
	return harness.PatchFieldManager(harness.Resource{Name: urnName}, obj)
}

// liveOutputs are the live object as the outputs (managedFields left out: they change with
// every write and say nothing the state needs), secret where the inputs were.
func liveOutputs(live *unstructured.Unstructured, news resource.PropertyMap) resource.PropertyMap {
	live = live.DeepCopy()
	live.SetManagedFields(nil)
	out := resource.NewPropertyMapFromMap(live.Object)
	if news != nil {
		keepSecrets(out, news)
	}
	return out
}

// applyObject creates or updates a custom resource, ConfigMap or Patch with server-side apply
// under the resource's field manager, forced when pulumi.com/patchForce is "true" (patchForce,
// pulumi-kubernetes await.go). Creating an object that already exists is refused unless
// forced; a Patch needs its object to exist ("Patch resources are used to modify existing
// Kubernetes resources", the Patch resources' documentation).
func (s *standIn) applyObject(ctx context.Context, cluster *harness.Cluster, t typeInfo, urn resource.URN, news resource.PropertyMap, create bool) (string, resource.PropertyMap, error) {
	obj, err := objectFrom(t, news)
	if err != nil {
		return "", nil, err
	}
	ri, err := client(cluster, obj)
	if err != nil {
		return "", nil, err
	}
	manager := fieldManager(urn.Name(), obj)
	force := obj.GetAnnotations()[harness.PatchForceAnnotation] == "true"
	what := obj.GetKind() + " " + fqName(obj)
	switch _, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{}); {
	case t.Patch && apierrors.IsNotFound(err):
		return "", nil, fmt.Errorf("%s does not exist; a Patch only modifies an existing object", what)
	case create && !t.Patch && !force && err == nil:
		return "", nil, fmt.Errorf("%s already exists (set pulumi.com/patchForce: \"true\" to take it over)", what)
	case err != nil && !apierrors.IsNotFound(err):
		return "", nil, fmt.Errorf("get %s: %w", what, err)
	}
	live, err := cluster.Apply(ctx, obj.DeepCopy(), manager, force)
	if err != nil {
		return "", nil, fmt.Errorf("server-side apply of %s (field manager %s, force %v): %w", what, manager, force, err)
	}
	return fqName(live), liveOutputs(live, news), nil
}

// relinquishPatch is what pulumi-kubernetes does when a Patch is deleted: apply an object
// holding only its identity under the patch's field manager, so the manager owns no field any
// more and fields nobody else owns are removed. Nothing is done when the object is gone.
// (The component's aws-auth patch is retainOnDelete: the engine then never calls Delete.)
func (s *standIn) relinquishPatch(ctx context.Context, cluster *harness.Cluster, t typeInfo, urn resource.URN, olds resource.PropertyMap) error {
	obj, err := objectFrom(t, olds)
	if err != nil {
		return err
	}
	ri, err := client(cluster, obj)
	if err != nil {
		return err
	}
	if _, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{}); apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	manager := fieldManager(urn.Name(), obj)
	if _, err := cluster.Relinquish(ctx, obj, manager); err != nil {
		return fmt.Errorf("relinquish the fields of field manager %s on %s %s: %w", manager, obj.GetKind(), fqName(obj), err)
	}
	return nil
}

// deleteObject deletes an object and returns once it is gone, finalizers included, or fails
// after timeout naming what holds it. pulumi-kubernetes asks for foreground propagation, which
// needs the garbage collector of kube-controller-manager; the test control planes run none,
// so the stand-in uses the API server's default (background): the object itself goes at once
// unless finalizers hold it.
func (s *standIn) deleteObject(ctx context.Context, cluster *harness.Cluster, t typeInfo, urn resource.URN, olds resource.PropertyMap, timeout time.Duration) error {
	obj, err := objectFrom(t, olds)
	if err != nil {
		return err
	}
	ri, err := client(cluster, obj)
	if err != nil {
		if meta.IsNoMatchError(err) {
			return nil // the kind is not served any more: no object of it exists
		}
		return err
	}
	what := obj.GetKind() + " " + fqName(obj)
	if err := ri.Delete(ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s: %w", what, err)
	}
	deadline := time.Now().Add(timeout)
	for {
		live, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("%s not gone after %s: %w", what, timeout, err)
			}
			return fmt.Errorf("%s not gone after %s: still present (deletionTimestamp %v, finalizers [%s])",
				what, timeout, live.GetDeletionTimestamp(), strings.Join(live.GetFinalizers(), ", "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// readObject gets a live object by id ("<namespace>/<name>" or "<name>"); an empty id when
// it does not exist.
func (s *standIn) readObject(ctx context.Context, cluster *harness.Cluster, t typeInfo, id string) (string, resource.PropertyMap, error) {
	ns, name, found := strings.Cut(id, "/")
	if !found {
		ns, name = "", id
	}
	if name == "" || strings.Contains(name, "/") {
		return "", nil, fmt.Errorf("id %q is not <namespace>/<name> or <name>", id)
	}
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion(t.APIVersion())
	obj.SetKind(t.GVK.Kind)
	obj.SetNamespace(ns)
	obj.SetName(name)
	ri, err := client(cluster, obj)
	if err != nil {
		return "", nil, err
	}
	live, err := ri.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	return fqName(live), liveOutputs(live, nil), nil
}
