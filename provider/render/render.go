package render

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/children"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"

	p "github.com/pulumi/pulumi-go-provider"
	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Plugin is the provider a render runs: what the plugin binary would serve the engine.
type Plugin struct {
	// Name and Version are the package's, as the plugin serves them.
	Name, Version string
	// New makes the provider.
	New func() (p.Provider, error)
	// Components are the component type tokens the args' `type` may name.
	Components []string
	// Default is the component args without `type` construct: the one that reads the cluster,
	// which render does not unless the args describe one (readCluster false).
	Default string
}

// Render constructs the component in-process against mocks that answer the way AWS and the
// kubernetes provider would, and describes what it registered.
func (pl Plugin) Render(ctx context.Context, args Args) (*format.Rendered, error) {
	return pl.RenderWith(ctx, args, &Mocks{})
}

// RenderWith is Render against the given mocks, which it leaves holding what was registered.
func (pl Plugin) RenderWith(ctx context.Context, args Args, mocks *Mocks) (*format.Rendered, error) {
	rec := &registrationRecorder{}
	outputs, registered, err := pl.construct(children.WithRecorder(ctx, rec), args, mocks)
	mocks.Registered = registered
	if err != nil {
		return nil, err
	}
	out := &format.Rendered{
		Component: format.Component{Type: pl.componentType(args), Name: args.Name},
		Resources: []format.Resource{},
		Outputs:   PlainMap(presource.FromResourcePropertyMap(outputs)),
		Invokes:   renderedInvokes(mocks, rec),
	}
	for _, key := range rec.order() {
		reg, ok := registered[key]
		if !ok || !reg.Custom {
			continue // the component itself
		}
		out.Resources = append(out.Resources, reg.Resource())
	}
	return out, nil
}

// JSON is Render of an args file (ParseArgs), printed: indented JSON with sorted keys.
func (pl Plugin) JSON(ctx context.Context, data []byte) ([]byte, error) {
	args, err := pl.ParseArgs(data)
	if err != nil {
		return nil, err
	}
	out, err := pl.Render(ctx, args)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Resource describes one registered child as render prints it.
func (reg *Registration) Resource() format.Resource {
	deps := map[string]bool{}
	for _, u := range reg.Deps {
		deps[presource.URN(u).Name()] = true
	}
	return format.Resource{
		Type:           reg.Type,
		Name:           reg.Name,
		Parent:         presource.URN(reg.Parent).Name(),
		DependsOn:      append([]string{}, slices.Sorted(maps.Keys(deps))...), // [] rather than null in JSON
		Inputs:         PlainMap(presource.FromResourcePropertyMap(reg.Inputs)),
		Aliases:        reg.Aliases,
		ReadID:         reg.ReadID,
		ImportID:       reg.ImportID,
		IgnoreChanges:  reg.IgnoreChanges,
		RetainOnDelete: reg.RetainOnDelete,
	}
}

// registrationRecorder notes the order in which the component registers its children; the
// mock monitor sees them in whatever order their inputs resolve. The component finds it in the
// context (children.WithRecorder).
type registrationRecorder struct {
	mu   sync.Mutex
	keys []string
	// reads are the result fields the component reads from each invoke, by token.
	reads map[string][]string
}

func (r *registrationRecorder) Record(args *pulumi.ResourceTransformationArgs) *pulumi.ResourceTransformationResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, args.Type+"::"+args.Name)
	return nil
}

func (r *registrationRecorder) order() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.keys...)
}

// PlainMap turns property values into JSON values. Secrets are masked: render output is
// meant to be reviewed and shared.
func PlainMap(m property.Map) map[string]any {
	out := map[string]any{}
	for k, v := range m.All {
		out[k] = plainValue(v)
	}
	return out
}

func plainValue(v property.Value) any {
	switch {
	case v.Secret():
		return "[secret]"
	case v.IsComputed():
		return "[unknown]"
	case v.IsNull():
		return nil
	case v.IsString():
		return v.AsString()
	case v.IsBool():
		return v.AsBool()
	case v.IsNumber():
		return v.AsNumber()
	case v.IsArray():
		out := []any{}
		for _, e := range v.AsArray().All {
			out = append(out, plainValue(e))
		}
		return out
	case v.IsMap():
		return PlainMap(v.AsMap())
	case v.IsResourceReference():
		return string(v.AsResourceReference().URN)
	}
	return fmt.Sprintf("%v", v)
}
