package children

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/plan"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/internals"
)

// Taking over a running install (plan.Adopt): each child the install already has is imported by
// its id (the form pulumi-aws and pulumi-kubernetes document for `import`) under its existing
// name, and the engine then updates in place whatever the inputs ask for differently. An import
// whose inputs would replace the child fails instead ("previously-imported resources that still
// specify an ID may not be replaced"), so adoption never replaces anything.

// ResumeAdoption resumes, before the cluster checks, an adoption an earlier `up` of this
// component made when adopt is no longer in the program (plan.ResumeAdoption): the install's
// roles then carry this component's descriptions. It reads where the running-install check it
// stands before reads: with the cluster read.
func ResumeAdoption(ctx *pulumi.Context, comp pulumi.Resource, p *plan.Plan, read ClusterRead) {
	if !p.ReadCluster || read.Cluster == nil {
		return
	}
	p.ResumeAdoption(&awsReader{ctx: ctx, comp: comp}, func(what string) string { return description(ctx, p, what) })
}

// readAdoption reads which parts of the adopted install exist, before any child is registered
// (plan.ReadAdoption): the children import those and create the others.
func (b *builder) readAdoption() error {
	if b.plan.Adopt == nil {
		return nil
	}
	var keys []string
	queueArn := ""
	if b.plan.Interruption {
		queueArn = b.aws.QueueArn(b.physicalName(catalog.QueueSuffix))
	}
	for _, p := range b.controllerPolicyLayout(queueArn) {
		keys = append(keys, p.Key)
	}
	return b.plan.ReadAdoption(&awsReader{ctx: b.ctx, comp: b.parent}, b.aws, keys, podIdentityAgentAddon, func(what string) string { return description(b.ctx, b.plan, what) })
}

// adopting are the options of a child the running install has: import it by id, and keep the
// properties in keep as they are (each would force a replacement and means nothing to the
// component, e.g. a policy's description, which IAM cannot change). None when nothing is
// adopted.
func (b *builder) adopting(id string, keep ...string) []pulumi.ResourceOption {
	if b.plan.Adopt == nil || id == "" {
		return nil
	}
	opts := []pulumi.ResourceOption{pulumi.Import(pulumi.ID(id))}
	if len(keep) > 0 {
		opts = append(opts, pulumi.IgnoreChanges(keep))
	}
	return opts
}

// adoptingIf is adopting for a child the install has when adopted (adoptedName says).
func (b *builder) adoptingIf(adopted bool, id string, keep ...string) []pulumi.ResourceOption {
	if !adopted {
		return nil
	}
	return b.adopting(id, keep...)
}

// adoptedName is the AWS name of a child: the running install's when adopting (adopted, ""
// when the install has none), else the component's own.
func (b *builder) adoptedName(adopted func() string, suffix string) (name string, importing bool) {
	if b.plan.Adopt != nil {
		if name := adopted(); name != "" {
			return name, true
		}
	}
	return b.physicalName(suffix), false
}

// Import ids, as pulumi-aws documents them on each resource ("Import" sections) and
// pulumi-kubernetes on Release and custom resources.
func attachmentID(role, policyArn string) string     { return role + "/" + policyArn }
func eventTargetID(rule, targetID string) string     { return rule + "/" + targetID }
func accessEntryID(cluster, principal string) string { return cluster + ":" + principal }
func podIdentityID(cluster, association string) string {
	return cluster + "," + association
}
func addonID(cluster, addon string) string    { return cluster + ":" + addon }
func releaseID(namespace, name string) string { return namespace + "/" + name }

// spotServiceLinkedRoleArn is the id of the account's Spot service-linked role.
func (b *builder) spotServiceLinkedRoleArn() string {
	return fmt.Sprintf("arn:%s:iam::%s:role/aws-service-role/spot.amazonaws.com/%s", b.aws.Partition, b.aws.Account, catalog.SpotServiceLinkedRole)
}

// adoptedCluster is the cluster name an adoption was resolved for (known at construct).
func (b *builder) adoptedCluster() string {
	name, _ := b.plan.KnownInput(field.NewPath("clusterName"))
	return name
}

// crdReleaseOfInstall says whether a karpenter-crd release in the namespace holds the running
// install's CRDs, read from the first CRD's ownership metadata before the CRD release is
// registered: none does when they came with the controller chart's crds/ directory (the
// getting-started install); Karpenter's upgrade guide installs them with `helm upgrade --install
// karpenter-crd`, and that release is then imported instead of created — creating it would fail
// ("cannot re-use a name that is still in use"). CRDs another release holds are refused: the
// component's CRD release could not take them.
func (b *builder) crdReleaseOfInstall() (imported bool, err error) {
	crds := b.plan.Release.CrdNames()
	if b.plan.Adopt == nil || !b.plan.CrdRelease || len(crds) == 0 {
		return false, nil
	}
	crd, err := b.readChild(crdType, "-crd-current", crds[0])
	if err != nil {
		return false, err
	}
	got, err := internals.UnsafeAwaitOutput(b.ctx.Context(), crd.Metadata)
	switch {
	case err != nil:
		return false, field.Invalidf(field.NewPath("adopt"), "reading the install's CRD %s: %v", crds[0], err)
	case !got.Known:
		return false, field.Invalidf(field.NewPath("adopt"), "the install's CRD %s could not be read at this preview (the kubernetes provider is not known yet): adopt a running install with a provider of a cluster that exists", crds[0])
	}
	annotations, _ := got.Value.(map[string]any)["annotations"].(map[string]any)
	name, _ := annotations[catalog.HelmReleaseNameAnnotation].(string)
	namespace, _ := annotations[catalog.HelmReleaseNamespaceAnnotation].(string)
	switch {
	case name == "":
		return false, nil
	case name == crdChart && namespace == b.plan.Namespace:
		return true, nil
	}
	return false, field.Invalidf(field.NewPath("adopt"), "the install's CRDs (%s, ...) belong to the Helm release %s/%s, and the component's CRD release is %s/%s: move them to that release by hand (`helm uninstall --keep-history` does not keep CRDs; relabel them: meta.helm.sh/release-name %s, meta.helm.sh/release-namespace %s), or set installCrds: false and leave them to %s/%s",
		crds[0], namespace, name, b.plan.Namespace, crdChart, crdChart, b.plan.Namespace, namespace, name)
}

// handOverCrds gives the install's CRDs to the karpenter-crd release: the getting-started
// install has them from the controller chart's crds/ directory, which no release owns, and Helm
// refuses to install a release over objects without its ownership metadata ("invalid ownership
// metadata"). Each CRD is patched with that metadata first; the patch stays on destroy (the
// metadata is then the release's own).
func (b *builder) handOverCrds() ([]pulumi.Resource, error) {
	if b.plan.Adopt == nil || !b.plan.CrdRelease {
		return nil, nil
	}
	var out []pulumi.Resource
	for _, crd := range b.plan.Release.CrdNames() {
		// pulumi-kubernetes refuses a CRD, patch or not, without its group and kind ("expected
		// .spec.group": it caches the kinds a program defines); applying them as they are
		// changes nothing.
		group, kind := catalog.CrdGroupKind(crd)
		patch, err := b.newChild(crdPatch, "-crd-owner-"+crd, pulumi.Map{
			"apiVersion": pulumi.String("apiextensions.k8s.io/v1"),
			"kind":       pulumi.String("CustomResourceDefinition"),
			"metadata": pulumi.Map{
				"name":   pulumi.String(crd),
				"labels": pulumi.StringMap{catalog.HelmManagedByLabel: pulumi.String(catalog.HelmManagedBy)},
				"annotations": pulumi.StringMap{
					catalog.HelmReleaseNameAnnotation:      pulumi.String(crdChart),
					catalog.HelmReleaseNamespaceAnnotation: pulumi.String(b.plan.Namespace),
				},
			},
			"spec": pulumi.Map{
				"group": pulumi.String(group),
				"names": pulumi.Map{"kind": pulumi.String(kind)},
			},
		}, pulumi.RetainOnDelete(true))
		if err != nil {
			return nil, err
		}
		out = append(out, patch)
	}
	return out, nil
}

// checkAdoptedDrift refuses, before any child is registered, a change to an adopted NodePool or
// node class that Karpenter's drift covers: the promise of adopt is that nodes stay, and such a
// change replaces every node of the object. Each object is read as it runs and compared with the
// spec the component will apply. Once the kubernetes provider has applied an object (a field
// manager pulumi-kubernetes...), it is the program's, and a later change is an ordinary one the
// preview shows.
func (b *builder) checkAdoptedDrift() error {
	a := b.plan.Adopt
	if a == nil || a.AllowNodeReplacement {
		return nil
	}
	return b.eachSpec(func(kind catalog.ApiKind, pool bool, name, _ string, body map[string]any) error {
		if !a.Installed(pool, name) {
			return nil
		}
		suffix := "-nodeclass-"
		if pool {
			suffix = "-nodepool-"
		}
		return b.checkDrift(suffix+name, kind, pool, name, body)
	})
}

// checkDrift compares one adopted pool (pool) or class, read as it runs, with body, the spec the
// component will apply.
func (b *builder) checkDrift(suffix string, kind catalog.ApiKind, pool bool, name string, body map[string]any) error {
	path := b.plan.ObjectPath(pool, name)
	live, err := b.readChild(kind.Token(), suffix+"-current", name)
	if err != nil {
		return err
	}
	spec := pulumi.ToMap(withUnknowns(body).(map[string]any))
	got, err := internals.UnsafeAwaitOutput(b.ctx.Context(), pulumi.All(live.Metadata, live.Spec, spec.ToMapOutput()))
	switch {
	case err != nil:
		return field.Invalidf(path, "reading the install's %s %s: %v", kind.Kind, name, err)
	case !got.Known:
		return nil // a value the preview does not know: the update shows the change, and Karpenter drifts as it would
	}
	v := got.Value.([]any)
	metadata, _ := v[0].(map[string]any)
	if appliedByPulumi(metadata) {
		return nil
	}
	fields := plan.DriftingFields(pool, asJSON(v[2]), asJSON(v[1]))
	if len(fields) == 0 {
		return nil
	}
	why := ""
	if !pool && slices.ContainsFunc(fields, func(f string) bool { return strings.HasPrefix(f, "tags") }) && b.plan.Deferred.Tags != nil {
		why = " (the component's `tags` go onto every node class: leave them out until after the adoption, or accept the rollout)"
	}
	return field.Invalidf(path, "the install's %s %s runs with other values of %s than this program sets%s; Karpenter's drift covers them, so the adopting `up` would replace every node of it. Declare them as they run (`kubectl get %s %s -o yaml`), or set adopt.allowNodeReplacement: true to accept the rollout (paced by the pool's disruption budgets)",
		kind.Kind, name, strings.Join(fields, ", "), why, strings.ToLower(kind.Kind), name)
}

// knownNodeRoleName is the node role's name without waiting for the role: the component's (the
// adopted role's when adopting), or the name in nodeRoleArn.
func (b *builder) knownNodeRoleName() pulumi.StringOutput {
	if b.plan.CreateNodeRole {
		name, _ := b.nodeRoleName()
		return pulumi.String(name).ToStringOutput()
	}
	return b.plan.Deferred.NodeRoleArn.ToStringPtrOutput().Elem().ApplyT(inputs.NameFromArn).(pulumi.StringOutput)
}

// asJSON is v as JSON decodes it (maps of any, float64 numbers), as the API server's answer is:
// the component's own values arrive typed (map[string]string, int).
func asJSON(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// appliedByPulumi says whether the kubernetes provider has applied the object (its field
// managers are pulumi-kubernetes-...; pulumi-kubernetes' server-side apply).
func appliedByPulumi(metadata map[string]any) bool {
	fields, _ := metadata["managedFields"].([]any)
	for _, f := range fields {
		entry, _ := f.(map[string]any)
		if manager, _ := entry["manager"].(string); strings.HasPrefix(manager, "pulumi-kubernetes") {
			return true
		}
	}
	return false
}
