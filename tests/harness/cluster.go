package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/release"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"
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

func (c *Cluster) helm(namespace string) (*action.Configuration, error) {
	cfg := new(action.Configuration)
	logf := func(string, ...any) {} // Helm's debug log; errors are returned anyway
	// No ControlPlane (NewClusterForConfig): Helm from the rest.Config, the same storage driver.
	if c.restConfig != nil {
		if err := cfg.Init(&restGetter{config: c.restConfig, namespace: namespace}, namespace, "secret", logf); err != nil {
			return nil, err
		}
		return cfg, nil
	}
	insecure := true
	flags := genericclioptions.NewConfigFlags(false)
	flags.APIServer = &c.CP.URL
	flags.BearerToken = &c.CP.Token
	flags.Insecure = &insecure
	flags.Namespace = &namespace
	// "secret" is Helm's and pulumi-kubernetes' default release storage.
	if err := cfg.Init(flags, namespace, "secret", logf); err != nil {
		return nil, err
	}
	return cfg, nil
}

// releaseSpec is what a rendered kubernetes:helm.sh/v3:Release asks Helm for.
type releaseSpec struct {
	name, namespace, version, ref string
	chart                         *chart.Chart
	createNamespace, skipCRDs     bool
	description                   string
	values                        map[string]any
}

// releaseFor checks a rendered release's inputs (an input the harness does not implement is
// an error, never dropped) and loads its chart: from the Karpenter module zip of the
// release's version (see ChartDir), or a local chart directory as it is.
func releaseFor(res Resource) (*releaseSpec, error) {
	if !res.IsRelease() {
		return nil, fmt.Errorf("%s is a %s, not a Helm release", res.Name, res.Type)
	}
	for k := range res.Inputs {
		if !releaseInputs[k] {
			// Installing "exactly what the render says" means not dropping a setting silently.
			return nil, fmt.Errorf("release %s: input %q is not implemented by the harness", res.Name, k)
		}
	}
	if opts, ok := res.Inputs["repositoryOpts"]; ok {
		m, isMap := opts.(map[string]any)
		if !isMap {
			return nil, fmt.Errorf("release %s: repositoryOpts is %T, want an object", res.Name, opts)
		}
		for k := range m {
			if !repositoryOpts[k] {
				return nil, fmt.Errorf("release %s: repositoryOpts.%s is not implemented by the harness", res.Name, k)
			}
		}
	}
	spec := &releaseSpec{version: res.String("version"), ref: res.String("chart")}
	if repo := res.String("repositoryOpts.repo"); repo != "" && !strings.Contains(spec.ref, "/") {
		spec.ref = strings.TrimSuffix(repo, "/") + "/" + spec.ref
	}
	var err error
	if st, statErr := os.Stat(spec.ref); statErr == nil && st.IsDir() {
		// A local chart directory (chartRepository set to a path) is used as it is.
		spec.chart, err = loader.Load(spec.ref)
	} else {
		if spec.version == "" {
			return nil, fmt.Errorf("release %s: chart %q has no version; the harness needs one to pick the module", res.Name, spec.ref)
		}
		var k *Karpenter
		if k, err = LoadKarpenter(spec.version); err == nil {
			spec.chart, err = k.LoadChart(spec.ref)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("release %s: %w", res.Name, err)
	}
	spec.namespace = res.String("namespace")
	if spec.namespace == "" {
		spec.namespace = "default"
	}
	spec.name = res.String("name")
	if spec.name == "" {
		// pulumi-kubernetes would auto-name (logical name + random suffix); the logical name
		// keeps runs deterministic.
		spec.name = res.Name
	}
	spec.createNamespace, _ = Lookup(res.Inputs, "createNamespace").(bool)
	spec.skipCRDs, _ = Lookup(res.Inputs, "skipCrds").(bool)
	spec.description = res.String("description")
	spec.values, _ = Lookup(res.Inputs, "values").(map[string]any)
	if spec.values == nil {
		spec.values = map[string]any{}
	}
	return spec, nil
}

// InstallRelease installs a rendered kubernetes:helm.sh/v3:Release with the Helm Go SDK,
// using exactly its name, chart, version, namespace, createNamespace, skipCrds and values.
// The chart comes from the Karpenter module zip of the release's version (see ChartDir).
//
// One deliberate difference from pulumi-kubernetes: it does not wait for workloads to become
// ready (its default), because this control plane has no nodes or controllers to run pods.
func (c *Cluster) InstallRelease(ctx context.Context, res Resource) (*release.Release, error) {
	spec, err := releaseFor(res)
	if err != nil {
		return nil, err
	}
	install, err := c.installAction(spec)
	if err != nil {
		return nil, err
	}
	install.CreateNamespace = spec.createNamespace
	install.Description = spec.description
	install.Timeout = 2 * time.Minute
	rel, err := install.RunWithContext(ctx, spec.chart, spec.values)
	if err != nil {
		return nil, fmt.Errorf("helm install %s (%s %s): %w", spec.name, spec.ref, spec.version, err)
	}
	return rel, c.afterRelease(ctx, rel, spec)
}

// installAction is a Helm install of a rendered release: its name, namespace, version and skipCrds.
func (c *Cluster) installAction(spec *releaseSpec) (*action.Install, error) {
	cfg, err := c.helm(spec.namespace)
	if err != nil {
		return nil, err
	}
	install := action.NewInstall(cfg)
	install.ReleaseName = spec.name
	install.Namespace = spec.namespace
	install.Version = spec.version
	install.SkipCRDs = spec.skipCRDs
	return install, nil
}

// TemplateRelease renders a rendered release's chart with its values as `helm install
// --dry-run=server` does — the templates, the chart's own checks (its `fail`s) and the objects'
// kinds against the API server — and installs nothing.
func (c *Cluster) TemplateRelease(ctx context.Context, res Resource) error {
	spec, err := releaseFor(res)
	if err != nil {
		return err
	}
	install, err := c.installAction(spec)
	if err != nil {
		return err
	}
	install.DryRun = true
	install.DryRunOption = "server"
	if _, err := install.RunWithContext(ctx, spec.chart, spec.values); err != nil {
		return fmt.Errorf("helm template %s (%s %s): %w", spec.name, spec.ref, spec.version, err)
	}
	return nil
}

// UpgradeRelease upgrades an installed release to what a later render says (pulumi-kubernetes
// updates a Release in place with Helm's upgrade): the new chart version and values, with the
// Release defaults (resetValues and reuseValues false: Helm takes the rendered values, or keeps
// the previous ones when none are rendered). As with Helm, the chart's crds/ are not touched
// on upgrade; CRDs that are templates (the karpenter-crd chart) are updated.
func (c *Cluster) UpgradeRelease(ctx context.Context, res Resource) (*release.Release, error) {
	spec, err := releaseFor(res)
	if err != nil {
		return nil, err
	}
	cfg, err := c.helm(spec.namespace)
	if err != nil {
		return nil, err
	}
	upgrade := action.NewUpgrade(cfg)
	upgrade.Namespace = spec.namespace
	upgrade.Version = spec.version
	upgrade.SkipCRDs = spec.skipCRDs
	upgrade.Description = spec.description
	upgrade.Timeout = 2 * time.Minute
	rel, err := upgrade.RunWithContext(ctx, spec.name, spec.chart, spec.values)
	if err != nil {
		return nil, fmt.Errorf("helm upgrade %s (%s %s): %w", spec.name, spec.ref, spec.version, err)
	}
	return rel, c.afterRelease(ctx, rel, spec)
}

// afterRelease waits for the CRDs a release installed or changed and removes the admission
// webhooks no pod serves.
func (c *Cluster) afterRelease(ctx context.Context, rel *release.Release, spec *releaseSpec) error {
	// Custom resources applied next need the release's CRDs served; Helm does not wait for
	// that when CRDs are ordinary templates (the karpenter-crd chart).
	if err := c.waitForCRDs(ctx, rel.Manifest); err != nil {
		return err
	}
	if err := c.removeUnservedWebhooks(ctx, rel); err != nil {
		return err
	}
	if !spec.skipCRDs && len(spec.chart.CRDObjects()) > 0 {
		for _, crd := range spec.chart.CRDObjects() {
			if err := c.waitForCRDs(ctx, string(crd.File.Data)); err != nil {
				return err
			}
		}
	}
	return nil
}

var webhookGVRs = map[string]schema.GroupVersionResource{
	"ValidatingWebhookConfiguration": {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"},
	"MutatingWebhookConfiguration":   {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"},
}

// removeUnservedWebhooks deletes the admission webhook configurations a release installed
// whose webhooks are served by a Service of the cluster. Their server is the controller pod,
// which never runs here (no nodes), and with failurePolicy Fail the API server would reject
// every object they intercept. Charts that install them by default have them: the
// Provisioner era's (always on: defaulting and validation of Provisioner and AWSNodeTemplate)
// and v0.32's (webhook.enabled defaults to true; 0.36.2's to false).
// Their Go-side checks are therefore not exercised; the CRD schemas are. What was removed is
// recorded (RemovedWebhooks) so tests assert it rather than have it happen silently.
func (c *Cluster) removeUnservedWebhooks(ctx context.Context, rel *release.Release) error {
	for _, doc := range strings.Split(rel.Manifest, "\n---") {
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Webhooks []struct {
				ClientConfig struct {
					Service *struct {
						Name string `json:"name"`
					} `json:"service"`
				} `json:"clientConfig"`
			} `json:"webhooks"`
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			continue
		}
		gvr, ok := webhookGVRs[obj.Kind]
		if !ok {
			continue
		}
		served := false
		for _, w := range obj.Webhooks {
			served = served || w.ClientConfig.Service != nil
		}
		if !served {
			return fmt.Errorf("release %s: %s %s calls a URL, not a Service; the harness does not know how to handle it", rel.Name, obj.Kind, obj.Metadata.Name)
		}
		if err := c.Dynamic.Resource(gvr).Delete(ctx, obj.Metadata.Name, metav1.DeleteOptions{}); err != nil {
			return fmt.Errorf("release %s: remove %s %s: %w", rel.Name, obj.Kind, obj.Metadata.Name, err)
		}
		if c.removedWebhooks == nil {
			c.removedWebhooks = map[string][]string{}
		}
		c.removedWebhooks[rel.Name] = append(c.removedWebhooks[rel.Name], obj.Kind+"/"+obj.Metadata.Name)
	}
	return nil
}

// RemovedWebhooks lists the admission webhook configurations (Kind/name) removed after
// installing a release, because no controller pod can serve them (removeUnservedWebhooks).
// The list is sorted.
func (c *Cluster) RemovedWebhooks(releaseName string) []string {
	return slices.Sorted(slices.Values(c.removedWebhooks[releaseName]))
}

// releaseInputs are the Release inputs the harness applies. "compat" is pulumi-kubernetes'
// internal marker. skipAwait and timeout only change waiting, which the harness never does.
var releaseInputs = map[string]bool{
	"name": true, "chart": true, "version": true, "namespace": true, "createNamespace": true,
	"skipCrds": true, "values": true, "repositoryOpts": true, "compat": true,
	"skipAwait": true, "timeout": true, "description": true,
}

// repositoryOpts are the Release repositoryOpts the harness understands. repo selects the
// chart (ChartDir); username and password authenticate to the registry or repository the
// harness stands in for, so they are accepted and not needed (the render masks the password
// as "[secret]").
var repositoryOpts = map[string]bool{"repo": true, "username": true, "password": true}

// UninstallRelease removes a release the way `pulumi destroy` of the Release would.
func (c *Cluster) UninstallRelease(res Resource) error {
	namespace := res.String("namespace")
	if namespace == "" {
		namespace = "default"
	}
	name := res.String("name")
	if name == "" {
		name = res.Name
	}
	cfg, err := c.helm(namespace)
	if err != nil {
		return err
	}
	_, err = action.NewUninstall(cfg).Run(name)
	return err
}

// ReleaseStatus returns Helm's view of an installed release.
func (c *Cluster) ReleaseStatus(namespace, name string) (*release.Release, error) {
	cfg, err := c.helm(namespace)
	if err != nil {
		return nil, err
	}
	return action.NewStatus(cfg).Run(name)
}

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
	ri, err := c.resourceFor(obj)
	if err != nil {
		return nil, err
	}
	if _, err := ri.Create(ctx, obj, metav1.CreateOptions{FieldManager: "pulumi-kubernetes"}); err != nil {
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
