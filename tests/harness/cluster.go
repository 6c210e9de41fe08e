package harness

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/release"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// Cluster talks to a running control plane the way the kubernetes provider would: Helm's Go
// SDK for releases, the dynamic client for everything else.
type Cluster struct {
	CP      *ControlPlane
	Dynamic dynamic.Interface
	mapper  *restmapper.DeferredDiscoveryRESTMapper
	// removedWebhooks: release name -> webhook configurations removed after its install.
	removedWebhooks map[string][]string
	// restConfig is set instead of CP by NewClusterForConfig (kubeconfig.go); Helm uses it.
	restConfig *rest.Config
}

// NewCluster builds clients for a control plane.
func NewCluster(cp *ControlPlane) (*Cluster, error) {
	dyn, err := dynamic.NewForConfig(cp.Config)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cp.Config)
	if err != nil {
		return nil, err
	}
	return &Cluster{
		CP:      cp,
		Dynamic: dyn,
		mapper:  restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)),
	}, nil
}

// Applied is one rendered kubernetes resource after installation.
type Applied struct {
	Resource Resource
	Release  *release.Release           // for Helm releases
	Sent     *unstructured.Unstructured // for other objects: what was sent (nil for reads)
	Got      *unstructured.Unstructured // ... and what the server stored (or, for reads, holds)
	// FieldManager is the server-side apply field manager of a Patch resource.
	FieldManager string
	// Unchanged: Upgrade left it alone (same type and inputs in both renders) and only read it.
	Unchanged bool
}

// Install applies every kubernetes:* resource of a render in dependency order: releases
// through Helm, Patch resources with server-side apply (as pulumi-kubernetes does), read
// resources (readId) only read — they must exist and are never created —, other objects
// created through the dynamic client; each object sent is read back and compared with what
// was sent. AWS resources are skipped: nothing here can create them.
func (c *Cluster) Install(ctx context.Context, r *Render) ([]Applied, error) {
	order, err := r.CreateOrder()
	if err != nil {
		return nil, err
	}
	var applied []Applied
	for _, res := range order {
		if !res.IsKubernetes() {
			continue
		}
		a, err := c.apply(ctx, res, false)
		if err != nil {
			return applied, err
		}
		applied = append(applied, a)
	}
	return applied, nil
}

// Upgrade applies a later render over an installed earlier one, as `pulumi up` with changed
// inputs does. In the later render's dependency order: a resource whose type and inputs are
// the same in both renders is left alone (Pulumi sends nothing) and only read back — a
// release's status, an object compared with what the render sends —; a changed release (same
// logical name) is upgraded with Helm (UpgradeRelease); a changed object is updated in place
// (Update) when its type is the same or the earlier type is among the later one's aliases;
// anything new is installed as by Install; patch and read resources are handled as by
// Install. Then what only the earlier render has is deleted, in its delete order (Pulumi
// deletes removed resources last). Replacing a resource (same logical name, another kind
// without an alias) is not implemented and is an error. Applied.Unchanged marks what was left
// alone.
func (c *Cluster) Upgrade(ctx context.Context, before, after *Render) ([]Applied, error) {
	order, err := after.CreateOrder()
	if err != nil {
		return nil, err
	}
	var applied []Applied
	for _, res := range order {
		if !res.IsKubernetes() {
			continue
		}
		old, existed := before.Get(res.Name)
		if existed && old.Type != res.Type && !slices.Contains(res.Aliases, old.Type) {
			return applied, fmt.Errorf("upgrade %s: %s becomes %s without an alias (a replacement), which the harness does not implement", res.Name, old.Type, res.Type)
		}
		var a Applied
		if existed && old.Type == res.Type && reflect.DeepEqual(normalize(old.Inputs), normalize(res.Inputs)) {
			a, err = c.readBack(ctx, res)
		} else {
			a, err = c.apply(ctx, res, existed)
		}
		if err != nil {
			return applied, err
		}
		applied = append(applied, a)
	}
	gone, err := before.DeleteOrder()
	if err != nil {
		return applied, err
	}
	for _, res := range gone {
		if _, kept := after.Get(res.Name); kept || !res.IsKubernetes() || res.IsRead() || res.RetainOnDelete {
			continue
		}
		switch {
		case res.IsRelease():
			err = c.UninstallRelease(res)
		case res.IsPatch():
			var obj *unstructured.Unstructured
			if obj, err = Object(res); err == nil {
				_, err = c.Relinquish(ctx, obj, PatchFieldManager(res, obj))
			}
		default:
			var obj *unstructured.Unstructured
			if obj, err = Object(res); err == nil {
				err = c.Delete(ctx, obj)
			}
		}
		if err != nil {
			return applied, fmt.Errorf("upgrade: delete %s (%s), which the later render no longer has: %w", res.Name, res.Type, err)
		}
	}
	return applied, nil
}

// readBack is what Upgrade does with a resource whose inputs did not change: nothing is sent;
// a release's status is read, an object is read and compared with what the render sends.
func (c *Cluster) readBack(ctx context.Context, res Resource) (Applied, error) {
	if res.IsRelease() {
		spec, err := releaseFor(res)
		if err != nil {
			return Applied{}, err
		}
		rel, err := c.ReleaseStatus(spec.namespace, spec.name)
		if err != nil {
			return Applied{}, fmt.Errorf("release %s (unchanged): %w", res.Name, err)
		}
		return Applied{Resource: res, Release: rel, Unchanged: true}, nil
	}
	obj, err := Object(res)
	if err != nil {
		return Applied{}, err
	}
	got, err := c.Get(ctx, obj)
	if err != nil {
		return Applied{}, fmt.Errorf("read %s (unchanged %s %s): %w", res.Name, obj.GetKind(), obj.GetName(), err)
	}
	if res.IsRead() {
		return Applied{Resource: res, Got: got, Unchanged: true}, nil
	}
	if diffs := Missing(obj.Object, got.Object); len(diffs) > 0 {
		return Applied{}, fmt.Errorf("%s (unchanged) read back differs from what the render sends:\n  %s", res.Name, strings.Join(diffs, "\n  "))
	}
	if err := c.checkKubelet(ctx, res, got); err != nil {
		return Applied{}, err
	}
	a := Applied{Resource: res, Sent: obj, Got: got, Unchanged: true}
	if res.IsPatch() {
		a.FieldManager = PatchFieldManager(res, obj)
	}
	return a, nil
}

// checkKubelet: a schemaless spec.kubelet (Karpenter 1.15+) keeps any key, so a stored v1
// EC2NodeClass is checked as Karpenter's controller will check it (KubeletProblems).
func (c *Cluster) checkKubelet(ctx context.Context, res Resource, got *unstructured.Unstructured) error {
	if gvk := got.GroupVersionKind(); gvk.Group != "karpenter.k8s.aws" || gvk.Version != "v1" || gvk.Kind != "EC2NodeClass" {
		return nil
	}
	open, err := c.SchemalessKubelet(ctx)
	if err != nil {
		return fmt.Errorf("%s: read the EC2NodeClass CRD: %w", res.Name, err)
	}
	if problems := KubeletProblems(got); open && len(problems) > 0 {
		return fmt.Errorf("%s (EC2NodeClass %s) was stored, but Karpenter's controller would reject its spec.kubelet (ValidationSucceeded=False, no launches):\n  %s",
			res.Name, got.GetName(), strings.Join(problems, "\n  "))
	}
	return nil
}

// apply installs one rendered kubernetes resource, or updates it when it already exists
// (Upgrade), and checks the read-back.
func (c *Cluster) apply(ctx context.Context, res Resource, exists bool) (Applied, error) {
	switch {
	case res.IsRelease():
		install := c.InstallRelease
		if exists {
			install = c.UpgradeRelease
		}
		rel, err := install(ctx, res)
		if err != nil {
			return Applied{}, err
		}
		return Applied{Resource: res, Release: rel}, nil
	case res.IsRead():
		obj, err := Object(res)
		if err != nil {
			return Applied{}, err
		}
		got, err := c.Get(ctx, obj)
		if err != nil {
			return Applied{}, fmt.Errorf("read %s (%s %s, an existing object the component reads; nothing creates it): %w", res.Name, obj.GetKind(), res.ReadID, err)
		}
		return Applied{Resource: res, Got: got}, nil
	case res.IsPatch():
		obj, err := Object(res)
		if err != nil {
			return Applied{}, err
		}
		manager := PatchFieldManager(res, obj)
		force := obj.GetAnnotations()[PatchForceAnnotation] == "true"
		got, err := c.Apply(ctx, obj.DeepCopy(), manager, force)
		if err != nil {
			return Applied{}, fmt.Errorf("apply %s (%s %s/%s, field manager %s, force %v): %w", res.Name, obj.GetKind(), obj.GetNamespace(), obj.GetName(), manager, force, err)
		}
		if diffs := Missing(obj.Object, got.Object); len(diffs) > 0 {
			return Applied{}, fmt.Errorf("%s read back differs from what was applied:\n  %s", res.Name, strings.Join(diffs, "\n  "))
		}
		return Applied{Resource: res, Sent: obj, Got: got, FieldManager: manager}, nil
	default:
		obj, err := Object(res)
		if err != nil {
			return Applied{}, err
		}
		verb, send := "create", c.Create
		if exists {
			verb, send = "update", c.Update
		}
		got, err := send(ctx, obj.DeepCopy())
		if err != nil {
			return Applied{}, fmt.Errorf("%s %s (%s %s): %w", verb, res.Name, obj.GetKind(), obj.GetName(), err)
		}
		if diffs := Missing(obj.Object, got.Object); len(diffs) > 0 {
			return Applied{}, fmt.Errorf("%s read back differs from what was sent:\n  %s", res.Name, strings.Join(diffs, "\n  "))
		}
		if err := c.checkKubelet(ctx, res, got); err != nil {
			return Applied{}, err
		}
		return Applied{Resource: res, Sent: obj, Got: got}, nil
	}
}
