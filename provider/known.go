package provider

// What the engine sent known at Construct, handed to the component's constructor as a plan.Known
// (construct.go; inputs/doc.go, "Values not known at Construct").

import (
	"slices"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/plan"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/urn"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// knownInputs is what the engine sent known of a component's inputs (values, as resolved by
// inputs.ResolvePlainOutputs), with the paths of the lists a preview could not know (later).
func knownInputs(values property.Map, later []*field.Path) plan.Known {
	return plan.Known{
		Value: func(path *field.Path) (string, bool) {
			v, ok := inputAt(values, path)
			if !ok || !v.IsString() {
				return "", false
			}
			return v.AsString(), true
		},
		From: func(path *field.Path) []plan.Resource {
			return resourcesOf(dependenciesAt(values, path))
		},
		Later: later,
	}
}

// inputAt is the input at path (`discovery.subnetIds[0]`, `nodeClasses[1].subnetSelectorTerms[0].id`),
// as the engine sent it, when it is known.
func inputAt(inputs property.Map, path *field.Path) (property.Value, bool) {
	v, ok := walk(inputs, path, nil)
	if !ok || v.IsComputed() || v.IsNull() || v.HasComputed() {
		return property.Value{}, false
	}
	return v, true
}

// dependenciesAt are the resources an input's value is an output of: the dependencies the engine
// sent with it and with each value that holds it (a list given as one output carries them for
// each of its elements; the engine may send dependencies for a top-level input only). Unknown
// values carry theirs too.
func dependenciesAt(inputs property.Map, path *field.Path) []urn.URN {
	var deps []urn.URN
	walk(inputs, path, func(v property.Value) { deps = append(deps, v.Dependencies()...) })
	return deps
}

// walk follows path's steps through the inputs, calling visit (when not nil) with each value on
// the way; ok is false when the path leads nowhere (a missing key, an index past the end, a value
// not known to be a list or map).
func walk(inputs property.Map, path *field.Path, visit func(property.Value)) (property.Value, bool) {
	v := property.New(inputs)
	for _, step := range path.Steps() {
		switch {
		case step.Index >= 0 && v.IsArray() && step.Index < v.AsArray().Len():
			v = v.AsArray().Get(step.Index)
		case step.Index < 0 && v.IsMap():
			next, ok := v.AsMap().GetOk(step.Key)
			if !ok {
				return property.Value{}, false
			}
			v = next
		default:
			return property.Value{}, false
		}
		if visit != nil {
			visit(v)
		}
	}
	return v, true
}

// resourcesOf names the resources behind URNs, each once, in order.
func resourcesOf(urns []urn.URN) []plan.Resource {
	var out []plan.Resource
	for _, u := range urns {
		if !u.IsValid() {
			continue
		}
		r := plan.Resource{Type: string(u.Type()), Name: u.Name()}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}
