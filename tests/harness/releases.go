package harness

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/release"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"sigs.k8s.io/yaml"
)

// Helm releases through Helm's Go SDK, as pulumi-kubernetes's Release does: install, template,
// upgrade, uninstall, status; and the admission webhooks no pod serves here, removed after them.

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
