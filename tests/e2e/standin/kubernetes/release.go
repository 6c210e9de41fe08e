package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// releaseResource is the harness's view of a Release: its inputs under its logical name.
func releaseResource(urnName string, inputs map[string]any) harness.Resource {
	return harness.Resource{Type: harness.ReleaseType, Name: urnName, Inputs: inputs}
}

func (s *standIn) createRelease(ctx context.Context, cluster *harness.Cluster, urn resource.URN, news resource.PropertyMap) (string, resource.PropertyMap, error) {
	in, err := plain(news)
	if err != nil {
		return "", nil, err
	}
	s.helmMu.Lock()
	defer s.helmMu.Unlock()
	rel, err := cluster.InstallRelease(ctx, releaseResource(urn.Name(), in))
	if err != nil {
		return "", nil, err
	}
	return rel.Namespace + "/" + rel.Name, releaseOutputs(news, rel), nil
}

func (s *standIn) upgradeRelease(ctx context.Context, cluster *harness.Cluster, urn resource.URN, news resource.PropertyMap) (resource.PropertyMap, error) {
	in, err := plain(news)
	if err != nil {
		return nil, err
	}
	s.helmMu.Lock()
	defer s.helmMu.Unlock()
	rel, err := cluster.UpgradeRelease(ctx, releaseResource(urn.Name(), in))
	if err != nil {
		return nil, err
	}
	return releaseOutputs(news, rel), nil
}

// releaseOutputs are pulumi-kubernetes' Release outputs (checkpointRelease/setReleaseAttributes):
// the inputs, version as installed, and status {name, namespace, version, status, chart,
// appVersion, revision}. (resourceNames, deprecated there, is not produced.)
func releaseOutputs(news resource.PropertyMap, rel *release.Release) resource.PropertyMap {
	out := news.Copy()
	out["version"] = resource.NewStringProperty(rel.Chart.Metadata.Version)
	out["status"] = resource.NewObjectProperty(resource.PropertyMap{
		"name":       resource.NewStringProperty(rel.Name),
		"namespace":  resource.NewStringProperty(rel.Namespace),
		"version":    resource.NewStringProperty(rel.Chart.Metadata.Version),
		"status":     resource.NewStringProperty(rel.Info.Status.String()),
		"chart":      resource.NewStringProperty(rel.Chart.Metadata.Name),
		"appVersion": resource.NewStringProperty(rel.Chart.Metadata.AppVersion),
		"revision":   resource.NewNumberProperty(float64(rel.Version)),
	})
	return out
}

func releaseName(urnName string, pm resource.PropertyMap) (namespace, name string) {
	namespace, name = str(pm, "namespace"), str(pm, "name")
	if namespace == "" {
		namespace = "default"
	}
	if name == "" {
		name = urnName
	}
	return namespace, name
}

// deleteRelease uninstalls a release (Helm deletes what its manifest holds; CRDs from a
// chart's crds/ directory and objects annotated helm.sh/resource-policy=keep stay, as with
// Helm) and returns once every object it deleted is gone. The wait is bounded by the
// operation's timeout, else the release's `timeout` input (pulumi-kubernetes uninstalls with
// Wait and that timeout unless skipAwait), else 300 s.
func (s *standIn) deleteRelease(ctx context.Context, cluster *harness.Cluster, urn resource.URN, olds resource.PropertyMap, timeoutSec float64) error {
	in, err := plain(olds)
	if err != nil {
		return err
	}
	ns, name := releaseName(urn.Name(), olds)
	timeout := timeoutOr(timeoutSec, 0)
	if timeout == 0 {
		timeout = defaultReleaseTimeout * time.Second
		if v := unsecret(olds["timeout"]); v.IsNumber() && v.NumberValue() > 0 {
			timeout = time.Duration(v.NumberValue() * float64(time.Second))
		}
	}
	s.helmMu.Lock()
	rel, err := cluster.ReleaseStatus(ns, name)
	if err == nil {
		err = cluster.UninstallRelease(releaseResource(urn.Name(), in))
	}
	s.helmMu.Unlock()
	if err != nil {
		return fmt.Errorf("helm uninstall %s/%s: %w", ns, name, err)
	}
	return waitManifestGone(ctx, cluster, rel, timeout)
}

// manifestObjects are the objects of a release's manifest that an uninstall deletes.
func manifestObjects(rel *release.Release) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(rel.Manifest, "\n---") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil || m == nil {
			continue
		}
		obj := &unstructured.Unstructured{Object: m}
		if obj.GetKind() == "" || obj.GetName() == "" || obj.GetAnnotations()["helm.sh/resource-policy"] == "keep" {
			continue
		}
		out = append(out, obj)
	}
	return out
}

func waitManifestGone(ctx context.Context, cluster *harness.Cluster, rel *release.Release, timeout time.Duration) error {
	objs := manifestObjects(rel)
	deadline := time.Now().Add(timeout)
	for {
		var left []string
		for _, obj := range objs {
			m, err := cluster.Mapping(obj.GroupVersionKind())
			if meta.IsNoMatchError(err) {
				continue // the kind is no longer served (its CRD went with the release)
			}
			if err != nil {
				return err
			}
			ri := cluster.Dynamic.Resource(m.Resource)
			what := obj.GetKind() + " " + obj.GetName()
			var get func() error
			if m.Scope.Name() == meta.RESTScopeNameNamespace {
				ns := obj.GetNamespace()
				if ns == "" {
					ns = rel.Namespace
				}
				what = obj.GetKind() + " " + ns + "/" + obj.GetName()
				get = func() error { _, err := ri.Namespace(ns).Get(ctx, obj.GetName(), metav1.GetOptions{}); return err }
			} else {
				get = func() error { _, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{}); return err }
			}
			switch err := get(); {
			case apierrors.IsNotFound(err):
			case err != nil:
				return fmt.Errorf("%s: %w", what, err)
			default:
				left = append(left, what)
			}
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			sort.Strings(left)
			return fmt.Errorf("release %s/%s uninstalled, but after %s still present: %s", rel.Namespace, rel.Name, timeout, strings.Join(left, ", "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// readRelease refreshes a release's status (an empty id when it no longer exists). Without
// previous state (an import by id "<namespace>/<name>") the outputs are built from Helm's record.
func (s *standIn) readRelease(_ context.Context, cluster *harness.Cluster, id string, olds resource.PropertyMap) (string, resource.PropertyMap, error) {
	ns, name := str(olds, "namespace"), str(olds, "name")
	if name == "" {
		var found bool
		if ns, name, found = strings.Cut(id, "/"); !found {
			ns, name = "default", id
		}
	}
	s.helmMu.Lock()
	rel, err := cluster.ReleaseStatus(ns, name)
	s.helmMu.Unlock()
	if errors.Is(err, driver.ErrReleaseNotFound) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	base := olds
	if len(base) == 0 {
		base = resource.PropertyMap{
			"name":      resource.NewStringProperty(rel.Name),
			"namespace": resource.NewStringProperty(rel.Namespace),
			"chart":     resource.NewStringProperty(rel.Chart.Metadata.Name),
			"values":    resource.NewPropertyValue(rel.Config),
		}
	}
	return rel.Namespace + "/" + rel.Name, releaseOutputs(base, rel), nil
}
