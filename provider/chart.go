package provider

import (
	"path"
	"strings"

	helmv3 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/helm/v3"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const (
	controllerChart   = "karpenter"
	crdChart          = "karpenter-crd"
	roleArnAnnotation = "eks.amazonaws.com/role-arn"
	controllerCPU     = "1"
	controllerMemory  = "1Gi"
)

// chartSource says how the kubernetes provider finds a chart in chartRepository.
type chartSource struct {
	chart   string
	version *string // nil for a local directory: the directory is the version
	repo    *helmv3.RepositoryOptsArgs
}

func (p *installPlan) chartSource(chart string) chartSource {
	repo := strings.TrimSuffix(p.chartRepository, "/")
	version := p.release.version.String()
	switch {
	case strings.HasPrefix(repo, "oci://"):
		return chartSource{chart: repo + "/" + chart, version: &version}
	case strings.HasPrefix(repo, "https://") || strings.HasPrefix(repo, "http://"):
		return chartSource{chart: chart, version: &version, repo: &helmv3.RepositoryOptsArgs{Repo: pulumi.String(repo)}}
	default:
		return chartSource{chart: path.Join(repo, chart)}
	}
}

func (b *builder) newRelease(suffix, chart string, values pulumi.MapInput, skipCrds bool, deps []pulumi.Resource) (*helmv3.Release, error) {
	src := b.plan.chartSource(chart)
	args := &helmv3.ReleaseArgs{
		Name:            pulumi.String(chart),
		Chart:           pulumi.String(src.chart),
		Version:         pulumi.StringPtrFromPtr(src.version),
		Namespace:       pulumi.String(b.plan.namespace),
		CreateNamespace: pulumi.Bool(true),
		Values:          values,
	}
	if b.args.RepositoryUsername != nil || b.args.RepositoryPassword != nil {
		// Private mirrors only: public ECR needs (and gets) no credentials.
		if src.repo == nil {
			src.repo = &helmv3.RepositoryOptsArgs{}
		}
		src.repo.Username = b.args.RepositoryUsername
		if b.args.RepositoryPassword != nil {
			src.repo.Password = pulumi.ToSecret(b.args.RepositoryPassword.ToStringPtrOutput()).(pulumi.StringPtrOutput)
		}
	}
	if src.repo != nil {
		args.RepositoryOpts = src.repo
	}
	if skipCrds {
		args.SkipCrds = pulumi.Bool(true)
	}
	return helmv3.NewRelease(b.ctx, b.childName(suffix), args, b.opts(pulumi.DependsOn(deps))...)
}

// createCrdRelease installs the CRDs as their own release: Helm never upgrades CRDs that
// a chart ships in crds/, so a version upgrade through the controller chart alone would
// leave old CRDs behind.
func (b *builder) createCrdRelease() (*helmv3.Release, error) {
	if !b.plan.installCrds {
		return nil, nil
	}
	values := pulumi.Map{}
	if b.plan.release.has(featureV1) && !b.plan.release.has(featureWebhookValuesRemoved) {
		// The 1.0 CRDs route conversions to the controller's webhook service; 1.0.0 defaults
		// its namespace to kube-system, so name it.
		setValue(values, "webhook", pulumi.Map{
			"enabled":          pulumi.Bool(true),
			"serviceName":      pulumi.String(controllerChart),
			"serviceNamespace": pulumi.String(b.plan.namespace),
			"port":             pulumi.Int(8443),
		})
	}
	return b.newRelease("-crd-release", crdChart, values, false, nil)
}

// createControllerRelease installs the controller once its CRDs, IAM and queue exist, so it
// starts with every permission it needs, and is removed before them on destroy.
func (b *builder) createControllerRelease(deps []pulumi.Resource, controller controllerIAM, queue *interruptionQueue) (*helmv3.Release, error) {
	values := b.controllerValues(controller, queue)
	// Before v0.32 the chart itself installs the CRDs (there is no karpenter-crd chart).
	return b.newRelease("-release", controllerChart, values, !b.plan.chartCrds, deps)
}

// controllerValues are the chart values the component owns, keyed for the release's
// generation, with the user's values deep-merged over them.
func (b *builder) controllerValues(controller controllerIAM, queue *interruptionQueue) pulumi.MapOutput {
	keys := b.plan.release.values
	base := pulumi.Map{}
	setValue(base, keys.clusterName, b.args.ClusterName)
	if b.args.ClusterEndpoint != nil {
		setValue(base, keys.clusterEndpoint, b.args.ClusterEndpoint)
	}
	if queue != nil {
		setValue(base, keys.interruptionQueue, queue.name)
	}
	if keys.defaultInstanceProfile != "" && b.plan.createInstanceProfile {
		setValue(base, keys.defaultInstanceProfile, b.node.instanceProfileName)
	}
	setValue(base, "serviceAccount.name", pulumi.String(b.plan.serviceAccount))
	if b.plan.trustIRSA || !b.plan.podIdentity {
		// IRSA: the pod identity webhook injects the role from this annotation. With Pod
		// Identity alone the association does that, and the annotation would take precedence.
		setValue(base, "serviceAccount.annotations", pulumi.Map{roleArnAnnotation: controller.roleArn})
	}
	if b.args.ControllerImageRepository != nil {
		setValue(base, "controller.image.repository", pulumi.String(*b.args.ControllerImageRepository))
	}
	if b.plan.release.has(featureV1) && !b.plan.release.has(featureWebhookValuesRemoved) {
		// 1.0 serves v1beta1 and v1 through a conversion webhook in the controller.
		setValue(base, "webhook.enabled", pulumi.Bool(true))
	}
	resources := pulumi.Map{"cpu": pulumi.String(controllerCPU), "memory": pulumi.String(controllerMemory)}
	setValue(base, "controller.resources", pulumi.Map{"requests": resources, "limits": resources})

	user := pulumi.MapInput(pulumi.Map{})
	if b.args.Values != nil {
		user = b.args.Values
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
