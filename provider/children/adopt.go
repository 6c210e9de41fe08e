package children

import (
	"fmt"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/internals"
)

// Taking over a running install (plan.Adopt): each child the install already has is imported by
// its id (the form pulumi-aws and pulumi-kubernetes document for `import`) under its existing
// name, and the engine then updates in place whatever the inputs ask for differently. An import
// whose inputs would replace the child fails instead ("previously-imported resources that still
// specify an ID may not be replaced"), so adoption never replaces anything.

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
	name, _ := b.plan.KnownInput("clusterName")
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
	if b.plan.Adopt == nil || !b.plan.InstallCrds || len(crds) == 0 {
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
	if b.plan.Adopt == nil || !b.plan.InstallCrds {
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
