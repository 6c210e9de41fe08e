package children

import (
	"maps"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const (
	controllerChart  = "karpenter"
	crdChart         = "karpenter-crd"
	controllerCPU    = "1"
	controllerMemory = "1Gi"
)

// newRelease registers a Helm release the way the kubernetes SDK does (which also sets
// `compat`, keeping the provider's long-standing release semantics).
func (b *builder) newRelease(suffix, chart string, values pulumi.Input, skipCrds bool, deps []pulumi.Resource, opts ...pulumi.ResourceOption) (*Child, error) {
	ref, version, repoURL := b.plan.ChartSource(chart)
	var repo pulumi.Map
	if repoURL != "" {
		repo = pulumi.Map{"repo": pulumi.String(repoURL)}
	}
	if b.plan.Deferred.RepositoryUsername != nil || b.plan.Deferred.RepositoryPassword != nil {
		// Private mirrors only: public ECR needs (and gets) no credentials.
		if repo == nil {
			repo = pulumi.Map{}
		}
		repo["username"] = b.plan.Deferred.RepositoryUsername
		if b.plan.Deferred.RepositoryPassword != nil {
			repo["password"] = pulumi.ToSecret(b.plan.Deferred.RepositoryPassword.ToStringPtrOutput())
		}
	}
	inputs := pulumi.Map{
		"name":            pulumi.String(chart),
		"chart":           pulumi.String(ref),
		"version":         optionalString(version),
		"namespace":       pulumi.String(b.plan.Namespace),
		"createNamespace": pulumi.Bool(true),
		"values":          values,
		"compat":          pulumi.String("true"),
	}
	if repo != nil {
		inputs["repositoryOpts"] = compact(repo)
	}
	if b.plan.ReleaseTimeout > 0 {
		inputs["timeout"] = pulumi.Int(b.plan.ReleaseTimeout)
	}
	if skipCrds {
		inputs["skipCrds"] = pulumi.Bool(true)
	}
	return b.newChild(helmRelease, suffix, inputs, append(opts, pulumi.DependsOn(deps))...)
}

// createCrdRelease installs the CRDs as their own release: Helm never upgrades CRDs that
// a chart ships in crds/, so a version upgrade through the controller chart alone would
// leave old CRDs behind.
func (b *builder) createCrdRelease() (*Child, error) {
	if !b.plan.CrdRelease {
		return nil, nil
	}
	// An adopted install's CRDs go to this release; when a karpenter-crd release holds them
	// already, that release is imported rather than created beside it. (After the adopting `up`
	// the CRDs are this release's, which the next preview reads as such: importing a release the
	// state has is no change, and neither are the hand-over patches, the same on every run.)
	imported, err := b.crdReleaseOfInstall()
	if err != nil {
		return nil, err
	}
	handedOver, err := b.handOverCrds()
	if err != nil {
		return nil, err
	}
	var opts []pulumi.ResourceOption
	if imported {
		opts = b.adopting(releaseID(b.plan.Namespace, crdChart))
	}
	values := pulumi.Map{}
	if b.plan.Release.Has(catalog.FeatureV1) && !b.plan.Release.Has(catalog.FeatureWebhookValuesRemoved) {
		// The 1.0 CRDs route conversions to the controller's webhook service; 1.0.0 defaults
		// its namespace to kube-system, so name it.
		setValue(values, "webhook", pulumi.Map{
			"enabled":          pulumi.Bool(true),
			"serviceName":      pulumi.String(controllerChart),
			"serviceNamespace": pulumi.String(b.plan.Namespace),
			"port":             pulumi.Int(8443),
		})
	}
	if b.plan.RetainCrds {
		// The CRD release stays when the component goes: on a cluster where EKS Auto Mode
		// shares nodepools.karpenter.sh and nodeclaims.karpenter.sh, uninstalling it would
		// delete every NodePool and NodeClaim, Auto Mode's included.
		opts = append(opts, pulumi.RetainOnDelete(true))
	}
	return b.newRelease("-crd-release", crdChart, values, false, handedOver, opts...)
}

// createControllerRelease installs the controller once its CRDs, IAM and queue exist, so it
// starts with every permission it needs, and is removed before them on destroy.
func (b *builder) createControllerRelease(deps []pulumi.Resource, controller controllerIAM, queue *interruptionQueue) (*Child, error) {
	values := b.controllerValues(controller, queue)
	opts := b.adopting(releaseID(b.plan.Namespace, controllerChart))
	if b.plan.Adopt != nil {
		said, err := b.warnDroppedValues(values)
		if err != nil {
			return nil, err
		}
		opts = append(opts, pulumi.DependsOnInputs(said)) // said before the component's Construct ends
	}
	// Before v0.32 the chart itself installs the CRDs (there is no karpenter-crd chart).
	return b.newRelease("-release", controllerChart, values, !b.plan.ChartCrds, deps, opts...)
}

// warnDroppedValues names, at the preview of an adoption, each value of the running release
// (its user-supplied values, as `helm get values` shows them) that the release the component
// upgrades it to does not set: Helm's upgrade takes the new values only, so the value would fall
// back to the chart's default without a word. Set in `values`, it is kept. The result resolves
// once the warnings are said.
func (b *builder) warnDroppedValues(values pulumi.MapOutput) (pulumi.ResourceArrayOutput, error) {
	running, err := b.readChild(helmRelease, "-release-running", releaseID(b.plan.Namespace, controllerChart))
	if err != nil {
		return pulumi.ResourceArrayOutput{}, err
	}
	return pulumi.All(running.Values, values).ApplyT(func(v []any) []pulumi.Resource {
		live, _ := v[0].(map[string]any)
		next, _ := v[1].(map[string]any)
		// Not among the plan's warnings (Plan.Warnings), as the default providers' are not
		// (construct): it needs the running release's values, which only resolve here.
		for _, path := range droppedValues(live, next, nil) {
			at := field.NewPath("values", path...)
			w := field.Warnf(at, "%v on the running release %s/%s, set outside this program, and not in the values this `up` upgrades it with: Helm would drop it and the chart's default (charts/karpenter/values.yaml of %s) would apply; set %s to keep it",
				lookup(live, path), b.plan.Namespace, controllerChart, b.plan.Release.Version, at)
			_ = b.ctx.Log.Warn(w.String(), &pulumi.LogArgs{Resource: b.parent})
		}
		return []pulumi.Resource{}
	}).(pulumi.ResourceArrayOutput), nil
}

// droppedValues are the paths of the leaves of live that next does not set, sorted.
func droppedValues(live, next map[string]any, prefix []string) [][]string {
	var out [][]string
	for _, k := range slices.Sorted(maps.Keys(live)) {
		path := append(slices.Clone(prefix), k)
		liveMap, isMap := live[k].(map[string]any)
		nextValue, set := next[k]
		switch {
		case isMap && len(liveMap) > 0:
			nextMap, _ := nextValue.(map[string]any)
			out = append(out, droppedValues(liveMap, nextMap, path)...)
		case !set:
			out = append(out, path)
		}
	}
	return out
}

// lookup is the value at a path of droppedValues.
func lookup(values map[string]any, path []string) any {
	var v any = values
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// controllerValues are the chart values the component owns, keyed for the release's
// generation, with the user's values deep-merged over them.
func (b *builder) controllerValues(controller controllerIAM, queue *interruptionQueue) pulumi.MapOutput {
	keys := b.plan.Release.Values
	base := pulumi.Map{}
	setValue(base, keys.ClusterName, b.plan.Deferred.ClusterName)
	switch {
	case b.plan.Deferred.ClusterEndpoint != nil:
		setValue(base, keys.ClusterEndpoint, b.plan.Deferred.ClusterEndpoint)
	case b.plan.Cluster != nil && b.plan.Cluster.Endpoint != "":
		// The endpoint EKS gave the cluster: Karpenter would discover the same, but needs
		// eks:DescribeCluster at every start to.
		setValue(base, keys.ClusterEndpoint, pulumi.String(b.plan.Cluster.Endpoint))
	}
	if queue != nil {
		setValue(base, keys.InterruptionQueue, queue.name)
	}
	if keys.DefaultInstanceProfile != "" && b.plan.CreateInstanceProfile {
		setValue(base, keys.DefaultInstanceProfile, b.node.instanceProfileName)
	}
	setValue(base, catalog.ServiceAccountNameValue, pulumi.String(b.plan.ServiceAccount))
	if b.plan.AnnotatesRoleArn() {
		setValue(base, catalog.ServiceAccountAnnotation, pulumi.Map{catalog.RoleArnAnnotation: controller.roleArn})
	}
	if b.plan.ControllerImageRepository != "" {
		setValue(base, catalog.ImageRepositoryValue, pulumi.String(b.plan.ControllerImageRepository))
	}
	if b.plan.Release.Has(catalog.FeatureV1) && !b.plan.Release.Has(catalog.FeatureWebhookValuesRemoved) {
		// 1.0 serves v1beta1 and v1 through a conversion webhook in the controller.
		setValue(base, "webhook.enabled", pulumi.Bool(true))
	}
	resources := pulumi.Map{"cpu": pulumi.String(controllerCPU), "memory": pulumi.String(controllerMemory)}
	setValue(base, "controller.resources", pulumi.Map{"requests": resources, "limits": resources})

	user := pulumi.MapInput(pulumi.Map{})
	if b.plan.Deferred.Values != nil {
		user = b.plan.Deferred.Values
	}
	return pulumi.All(base, user).ApplyT(func(vals []any) map[string]any {
		return deepMerge(vals[0].(map[string]any), vals[1].(map[string]any))
	}).(pulumi.MapOutput)
}

// setValue sets a dotted values path (settings.aws.clusterName) in nested maps.
func setValue(values pulumi.Map, path string, v pulumi.Input) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := values[k].(pulumi.Map)
		if !ok {
			next = pulumi.Map{}
			values[k] = next
		}
		values = next
	}
	values[keys[len(keys)-1]] = v
}

// deepMerge overlays src on dst the way Helm merges values files: maps merge recursively,
// anything else replaces, and a null removes the key.
func deepMerge(dst, src map[string]any) map[string]any {
	out := make(map[string]any, len(dst))
	for k, v := range dst {
		out[k] = v
	}
	for k, v := range src {
		if v == nil {
			delete(out, k)
			continue
		}
		srcMap, srcIsMap := v.(map[string]any)
		dstMap, dstIsMap := out[k].(map[string]any)
		if srcIsMap && dstIsMap {
			out[k] = deepMerge(dstMap, srcMap)
			continue
		}
		out[k] = v
	}
	return out
}

// optionalString is a string input, or nil (left out) when empty.
func optionalString(s string) pulumi.StringInput {
	if s == "" {
		return nil
	}
	return pulumi.String(s)
}
