package tests

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
	"helm.sh/helm/v3/pkg/release"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// TestUpgrade1141To1152 is `pulumi up` after changing `version` from 1.14.1 to 1.15.2 on the
// rich configuration, and then adopting the 1.15-only inputs:
//   - the plan: the same resources (nothing created, deleted or replaced); updates only to the
//     controller's node-lifecycle policy (same logical and physical name, so in place; its
//     document gains ec2:RebootInstances in AllowScopedDeletion and nothing else) and the two
//     releases (version 1.15.2); the roles keep their names and inputs;
//   - against the API server: both releases upgraded (revision 2, chart and controller image
//     1.15.2), the CRDs are 1.15.2's (the Unhealthy budget reason the 1.14.1 CRD refused is
//     accepted, spec.kubelet is schemaless), and the NodePools and EC2NodeClasses stay (the
//     same objects, untouched, still equal to the render) with the controller's settings and
//     IRSA role unchanged;
//   - then the 1.15-only inputs (rich115): only the general class and the general-spot pool
//     change, updated in place (same objects), and the new fields are stored.
func TestUpgrade1141To1152(t *testing.T) {
	t.Parallel()
	const from, to = "1.14.1", "1.15.2"
	before := render(t, withVersion(t, args("rich.json"), from))
	after := render(t, withVersion(t, args("rich.json"), to))

	// The plan.
	if got, want := resourceKeys(after), resourceKeys(before); !reflect.DeepEqual(got, want) {
		t.Fatalf("resources (type and logical name) after the version change:\n  %v\nbefore:\n  %v", got, want)
	}
	crdRel, _ := before.Release("karpenter-crd")
	ctrlRel, ok := before.Release("karpenter")
	if !ok || crdRel.Name == "" {
		t.Fatal("render has no karpenter and karpenter-crd releases")
	}
	lifecycle := policyWithStatement(t, before, "AllowScopedDeletion")
	if got, want := changedInputs(before, after), []string{lifecycle.Name, crdRel.Name, ctrlRel.Name}; !reflect.DeepEqual(sorted(got), sorted(want)) {
		t.Errorf("resources whose inputs change: %v, want only %v", got, want)
	}
	for _, role := range before.OfType("aws:iam/role:Role") {
		newRole, _ := after.Get(role.Name)
		if role.String("name") == "" || newRole.String("name") != role.String("name") {
			t.Errorf("role %s: name %q -> %q, want it kept", role.Name, role.String("name"), newRole.String("name"))
		}
	}
	for _, out := range []string{"controllerRoleArn", "nodeRoleName", "interruptionQueueName", "instanceProfileName"} {
		if before.Outputs[out] != after.Outputs[out] {
			t.Errorf("outputs.%s: %v -> %v, want it kept", out, before.Outputs[out], after.Outputs[out])
		}
	}
	newLifecycle, _ := after.Get(lifecycle.Name)
	if newLifecycle.Type != lifecycle.Type || newLifecycle.String("name") != lifecycle.String("name") {
		t.Errorf("policy %s: %s %q -> %s %q; an in-place update keeps the type and the physical name", lifecycle.Name,
			lifecycle.Type, lifecycle.String("name"), newLifecycle.Type, newLifecycle.String("name"))
	}
	oldDoc, newDoc := policyStatements(t, lifecycle), policyStatements(t, newLifecycle)
	if slices.Contains(actions(oldDoc["AllowScopedDeletion"]), "ec2:RebootInstances") {
		t.Errorf("the %s policy already grants ec2:RebootInstances", from)
	}
	wantDoc := policyStatements(t, lifecycle)
	wantDoc["AllowScopedDeletion"]["Action"] = []any{"ec2:TerminateInstances", "ec2:RebootInstances", "ec2:DeleteLaunchTemplate"}
	if !reflect.DeepEqual(newDoc, wantDoc) {
		t.Errorf("policy %s at %s:\n  %v\nwant the %s document with ec2:RebootInstances added to AllowScopedDeletion:\n  %v", lifecycle.Name, to, newDoc, from, wantDoc)
	}
	for _, rel := range []harness.Resource{crdRel, ctrlRel} {
		newRel, _ := after.Get(rel.Name)
		if rel.String("version") != from || newRel.String("version") != to {
			t.Errorf("release %s version %q -> %q, want %s -> %s", rel.Name, rel.String("version"), newRel.String("version"), from, to)
		}
		if newRel.String("chart") != rel.String("chart") || newRel.String("name") != rel.String("name") || newRel.String("namespace") != rel.String("namespace") {
			t.Errorf("release %s changes chart, name or namespace: %v -> %v", rel.Name, rel.Inputs, newRel.Inputs)
		}
	}

	// Install 1.14.1.
	c, ctx := cluster(t)
	installed := install(t, ctx, c, before)
	uids := map[string]types.UID{}
	for _, a := range installed {
		if a.Resource.IsCustomResource() {
			uids[a.Resource.Name] = a.Got.GetUID()
		}
	}
	if len(uids) != 7 {
		t.Fatalf("installed %d NodePools and EC2NodeClasses, want 7", len(uids))
	}
	if err := unhealthyBudget(ctx, c); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "Unhealthy") {
		t.Errorf("the %s NodePool CRD should refuse a budget for the Unhealthy reason (422), got %v", from, err)
	}

	// Upgrade to 1.15.2.
	applied, err := c.Upgrade(ctx, before, after)
	if err != nil {
		t.Fatalf("upgrade %s -> %s: %v", from, to, err)
	}
	rels := releases(applied)
	for _, res := range []harness.Resource{crdRel, ctrlRel} {
		rel := rels[res.Name]
		if rel == nil {
			t.Fatalf("release %s not upgraded", res.Name)
		}
		st, err := c.ReleaseStatus(rel.Namespace, rel.Name)
		if err != nil {
			t.Fatalf("helm status %s: %v", rel.Name, err)
		}
		if st.Info.Status != release.StatusDeployed || st.Version != 2 || st.Chart.Metadata.Version != to {
			t.Errorf("release %s: %s, revision %d, chart %s; want deployed, revision 2 (upgraded in place), chart %s",
				rel.Name, st.Info.Status, st.Version, st.Chart.Metadata.Version, to)
		}
		res2, _ := after.Get(res.Name)
		checkValuesKnown(t, res2, rel)
	}
	tmpl, env := controllerPod(t, ctx, c, rels[ctrlRel.Name])
	if img := tmpl.Spec.Containers[0].Image; !strings.HasSuffix(img, ":"+to) {
		t.Errorf("controller image after the upgrade %q, want tag %s", img, to)
	}
	if env["CLUSTER_NAME"] != "prod-us-west-2" || env["INTERRUPTION_QUEUE"] != outputString(t, after, "interruptionQueueName") {
		t.Errorf("controller env after the upgrade: CLUSTER_NAME %q INTERRUPTION_QUEUE %q", env["CLUSTER_NAME"], env["INTERRUPTION_QUEUE"])
	}
	sa, err := c.Dynamic.Resource(saGVR).Namespace(rels[ctrlRel.Name].Namespace).Get(ctx, tmpl.Spec.ServiceAccountName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := sa.GetAnnotations()["eks.amazonaws.com/role-arn"]; got != outputString(t, before, "controllerRoleArn") {
		t.Errorf("ServiceAccount role after the upgrade %q, want the kept controller role %v", got, before.Outputs["controllerRoleArn"])
	}

	// The CRDs are 1.15.2's.
	if err := unhealthyBudget(ctx, c); err != nil {
		t.Errorf("the %s NodePool CRD should accept a budget for the Unhealthy reason: %v", to, err)
	}
	if open, err := c.SchemalessKubelet(ctx); err != nil || !open {
		t.Errorf("the %s EC2NodeClass CRD should store spec.kubelet without a schema: %v %v", to, open, err)
	}

	// The custom resources stay: untouched (their inputs did not change), the same objects,
	// still equal to the render (Upgrade compared them) and what the cluster lists.
	checkSameObjects(t, applied, uids, nil)
	if got, want := names(t, ctx, c, nodePoolsGVR), renderedNames(t, after.OfType(harness.NodePoolType)); !reflect.DeepEqual(sorted(got), want) {
		t.Errorf("cluster NodePools %v, rendered %v", got, want)
	}
	if got, want := names(t, ctx, c, nodeClassGVR), renderedNames(t, after.OfType(harness.NodeClassType)); !reflect.DeepEqual(sorted(got), want) {
		t.Errorf("cluster EC2NodeClasses %v, rendered %v", got, want)
	}

	// Adopting the 1.15-only inputs updates the two objects that use them, in place.
	adopted := render(t, rich115(t))
	changed := changedInputs(after, adopted)
	if want := []string{"platform-nodeclass-general", "platform-nodepool-general-spot"}; !reflect.DeepEqual(sorted(changed), want) {
		t.Errorf("resources whose inputs change with the 1.15-only inputs: %v, want %v", changed, want)
	}
	applied, err = c.Upgrade(ctx, after, adopted)
	if err != nil {
		t.Fatalf("update with the 1.15-only inputs: %v", err)
	}
	checkSameObjects(t, applied, uids, changed)
	stored := map[string]*unstructured.Unstructured{}
	for _, a := range applied {
		if a.Got != nil {
			stored[a.Resource.Name] = a.Got
		}
	}
	for name, check := range map[string]struct{ path, want string }{
		"platform-nodeclass-general":     {"spec.enclaveOptions", "map[enabled:true]"},
		"platform-nodepool-general-spot": {"spec.disruption.budgets", "[map[nodes:10%] map[duration:8h nodes:0 reasons:[Underutilized Drifted] schedule:0 9 * * mon-fri] map[nodes:20% reasons:[Unhealthy]]]"},
	} {
		if got := describe(harness.Lookup(stored[name].Object, check.path)); got != check.want {
			t.Errorf("%s .%s = %s, want %s", name, check.path, got, check.want)
		}
	}
	kubelet := harness.Lookup(stored["platform-nodeclass-general"].Object, "spec.kubelet").(map[string]any)
	if kubelet["containerLogMaxSize"] != "50Mi" || kubelet["shutdownGracePeriod"] != "30s" || describe(kubelet["maxPods"]) != "110" {
		t.Errorf("general class kubelet %v: want the free-form settings next to the typed ones", kubelet)
	}
}

// checkSameObjects: every custom resource after an upgrade is the object installed first
// (same uid: updated in place, never replaced), and exactly the resources in changed were
// sent (the others were left alone).
func checkSameObjects(t *testing.T, applied []harness.Applied, uids map[string]types.UID, changed []string) {
	t.Helper()
	seen := 0
	for _, a := range applied {
		if !a.Resource.IsCustomResource() {
			continue
		}
		seen++
		if uid := uids[a.Resource.Name]; a.Got.GetUID() != uid {
			t.Errorf("%s: uid %s, want %s (the object installed first)", a.Resource.Name, a.Got.GetUID(), uid)
		}
		if wantSent := slices.Contains(changed, a.Resource.Name); a.Unchanged == wantSent {
			t.Errorf("%s: updated %v, want %v", a.Resource.Name, !a.Unchanged, wantSent)
		}
	}
	if seen != len(uids) {
		t.Errorf("upgrade handled %d custom resources, want %d", seen, len(uids))
	}
}

// unhealthyBudget asks the API server (dry run) to add a budget for the Unhealthy disruption
// reason (Karpenter 1.15) to the general-spot NodePool.
func unhealthyBudget(ctx context.Context, c *harness.Cluster) error {
	pool, err := c.Dynamic.Resource(nodePoolsGVR).Get(ctx, "general-spot", metav1.GetOptions{})
	if err != nil {
		return err
	}
	budgets, _, _ := unstructured.NestedSlice(pool.Object, "spec", "disruption", "budgets")
	budgets = append(budgets, map[string]any{"nodes": "1", "reasons": []any{"Unhealthy"}})
	if err := unstructured.SetNestedSlice(pool.Object, budgets, "spec", "disruption", "budgets"); err != nil {
		return err
	}
	_, err = c.Dynamic.Resource(nodePoolsGVR).Update(ctx, pool, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// resourceKeys lists "type name" of every resource of a render, sorted.
func resourceKeys(r *harness.Render) []string {
	var out []string
	for _, res := range r.Resources {
		out = append(out, res.Type+" "+res.Name)
	}
	return sorted(out)
}

// changedInputs lists the resources of after whose inputs differ from before's.
func changedInputs(before, after *harness.Render) []string {
	var out []string
	for _, res := range after.Resources {
		if old, ok := before.Get(res.Name); !ok || !reflect.DeepEqual(old.Inputs, res.Inputs) {
			out = append(out, res.Name)
		}
	}
	return out
}

// policyWithStatement returns the IAM policy whose document has a statement with this Sid.
func policyWithStatement(t *testing.T, r *harness.Render, sid string) harness.Resource {
	t.Helper()
	var found []harness.Resource
	for _, p := range r.OfType("aws:iam/policy:Policy") {
		if _, ok := policyStatements(t, p)[sid]; ok {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d policies have a %s statement, want 1", len(found), sid)
	}
	return found[0]
}

// policyStatements parses a rendered policy document into its statements by Sid.
func policyStatements(t *testing.T, p harness.Resource) map[string]map[string]any {
	t.Helper()
	var doc struct{ Statement []map[string]any }
	if err := json.Unmarshal([]byte(p.String("policy")), &doc); err != nil {
		t.Fatalf("policy %s: %v", p.Name, err)
	}
	out := map[string]map[string]any{}
	for _, s := range doc.Statement {
		out[s["Sid"].(string)] = s
	}
	return out
}

func actions(statement map[string]any) []string {
	var out []string
	switch a := statement["Action"].(type) {
	case string:
		out = append(out, a)
	case []any:
		for _, x := range a {
			out = append(out, x.(string))
		}
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
