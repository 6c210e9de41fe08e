package children

import (
	"errors"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Checking the custom resources against the bounds their CRDs state (catalog.SpecBounds), before
// any child is registered: each spec exactly as the component will apply it (defaults written
// out), so no value the API server would refuse at `up` — after the IAM, the queue and the
// releases were made — passes the preview. Values not known yet (outputs) are checked by the API
// server alone. The inputs layer checks the bounds users meet most (weights, ranges, term counts)
// itself, so that they are reported with every other input problem at once (plan.New stops
// before any child); this check is the CRDs' own list, so nothing they state is missed.

// checkCRDBounds checks every node class and pool of the plan.
func (b *builder) checkCRDBounds() error {
	return b.eachSpec(b.checkBounds)
}

// eachSpec calls check with every node class, then every pool, of the plan, each with the spec
// the component will apply, and joins what they return. The node role's name is known here (the
// adopted role's, the component's, or nodeRoleArn's), where the classes take it from the role
// itself once registered. class is a pool's node class.
func (b *builder) eachSpec(check func(kind catalog.ApiKind, pool bool, name, class string, body map[string]any) error) error {
	b.node.roleName = b.knownNodeRoleName()
	defer func() { b.node = nodeIAM{} }()
	r := b.plan.Release
	classes := map[string]inputs.NodeClassSpec{}
	var errs []error
	for _, c := range b.plan.Classes {
		classes[c.Name] = c
		errs = append(errs, check(r.NodeClass, false, c.Name, "", b.nodeClassSpec(c)))
	}
	for _, p := range b.plan.Pools {
		ref := inputs.Deref(p.NodeClassRef, "")
		errs = append(errs, check(r.NodePool, true, p.Name, ref, b.nodePoolSpec(p, classes[ref])))
	}
	return errors.Join(errs...)
}

// checkBounds checks one pool (pool) or class named name, whose spec is body; class is a pool's
// node class (a v1beta1 pool or a Provisioner carries its class's kubelet settings).
func (b *builder) checkBounds(kind catalog.ApiKind, pool bool, name, class string, body map[string]any) error {
	bounds := b.plan.Release.SpecBounds(kind)
	if bounds == nil {
		return nil
	}
	var errs []error
	for _, v := range bounds.Spec.Check(body, notKnownYet) {
		path := inputPath(b.plan.ObjectPath(pool, name), b.plan.ObjectPath(false, class), kind.Kind, v.Path)
		errs = append(errs, field.Invalidf(path, "%s: the API server would refuse the %s at `up` (%s in the %s CRD, %s, of %s: %s)",
			v.Message, kind.Kind, v.CRDPath(), kind.Kind, kind.ApiVersion, boundsRelease(bounds), bounds.Source))
	}
	return errors.Join(errs...)
}

// boundsRelease names whose CRD the bounds are.
func boundsRelease(s *catalog.SpecBounds) string {
	if s.AutoMode {
		return "EKS Auto Mode"
	}
	return "Karpenter " + s.Version
}

// notKnownYet: a value a preview does not know (an output, or a placeholder: inputs/unknown.go).
func notKnownYet(v any) bool {
	if s, ok := v.(string); ok {
		return inputs.IsUnknown(s)
	}
	_, output := v.(pulumi.Input)
	return output
}

// specRenames are where a CRD field (its path below spec; "[]" any list index) is another input
// than its name says, by kind: the flat NodePool input, names fixed before the CRD's, the
// Provisioner's TTLs, and the kubelet settings a v1beta1 pool or Provisioner takes from its class
// ("@class"). tests/crd_coverage_test.go holds the same facts for the newest CRDs.
var specRenames = map[string][][2][]string{
	"NodePool": {
		{{"template", "spec", "nodeClassRef", "name"}, {"nodeClassRef"}},
		{{"template", "spec", "kubelet"}, {"@class", "kubelet"}},
		{{"template", "spec"}, nil},
		{{"template", "metadata"}, nil},
		{{"disruption", "expireAfter"}, {"expireAfter"}},
	},
	"Provisioner": {
		{{"providerRef", "name"}, {"nodeClassRef"}},
		{{"limits", "resources"}, {"limits"}},
		{{"ttlSecondsUntilExpired"}, {"expireAfter"}},
		{{"ttlSecondsAfterEmpty"}, {"disruption", "consolidateAfter"}},
		{{"kubeletConfiguration"}, {"@class", "kubelet"}},
	},
	"EC2NodeClass": {
		{{"blockDeviceMappings", "[]", "ebs", "kmsKeyID"}, {"blockDeviceMappings", "[]", "ebs", "kmsKeyId"}},
		{{"blockDeviceMappings", "[]", "ebs", "snapshotID"}, {"blockDeviceMappings", "[]", "ebs", "snapshotId"}},
	},
	"NodeClass": {
		{{"capacityReservationSelectorTerms", "[]", "owner"}, {"capacityReservationSelectorTerms", "[]", "ownerID"}},
	},
}

// inputPath is the input a violation at crd (below spec) of an object at object is about; class
// is the path of a pool's node class.
func inputPath(object, class *field.Path, kind string, crd []catalog.PathElem) *field.Path {
	for _, r := range specRenames[kind] {
		from, to := r[0], r[1]
		if len(crd) < len(from) || !matches(from, crd[:len(from)]) {
			continue
		}
		var indexes []int
		for i, tok := range from {
			if tok == "[]" {
				indexes = append(indexes, crd[i].Index)
			}
		}
		var renamed []catalog.PathElem
		if len(to) > 0 && to[0] == "@class" {
			object, to = class, to[1:]
		}
		for _, tok := range to {
			if tok == "[]" {
				renamed = append(renamed, catalog.PathElem{Index: indexes[0], List: true})
				indexes = indexes[1:]
				continue
			}
			renamed = append(renamed, catalog.PathElem{Key: tok})
		}
		crd = append(renamed, crd[len(from):]...)
		break
	}
	path := object
	for _, e := range crd {
		switch {
		case e.List:
			path = path.Index(e.Index)
		case e.MapKey:
			path = path.Key(e.Key)
		default:
			path = path.Child(e.Key)
		}
	}
	return path
}

// matches says whether the path elements are the tokens ("[]": a list index).
func matches(tokens []string, elems []catalog.PathElem) bool {
	for i, tok := range tokens {
		if e := elems[i]; (tok == "[]") != e.List || tok != "[]" && tok != e.Key {
			return false
		}
	}
	return true
}
