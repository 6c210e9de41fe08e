package provider

// How the engine's Construct reaches a component: the provider's own Construct (construct below)
// checks the raw inputs, resolves the output values inside plain fields, decodes the args and
// calls the component's constructor with them and with what the engine sent known (known.go;
// inputs/doc.go, "Values not known at Construct"). infer sees the components for the schema only.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/plan"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pprovider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
)

// constructor builds a component from its decoded args and what the engine sent known.
type constructor[A any, C pulumi.ComponentResource] func(ctx *pulumi.Context, name string, args A, known plan.Known, opts ...pulumi.ResourceOption) (C, error)

// component is one of the package's components, as the provider serves it.
type component struct {
	args      reflect.Type            // its input type, for inputs.CheckUnknownProperties and ResolvePlainOutputs
	inferred  infer.InferredComponent // its schema
	packages  []tokens.Package        // the provider packages its children use (defaultproviders.go)
	construct func(ctx *pulumi.Context, name string, in pprovider.ConstructInputs, known plan.Known, opts pulumi.ResourceOption) (*pprovider.ConstructResult, error)
}

// components are the package's components by type token. The standalone NodePool and NodeClass
// create only a custom resource and call no aws function.
var components = map[string]component{
	componentToken: newComponent(NewKarpenter, "aws", "kubernetes"),
	nodePoolToken:  newComponent(ignoringKnown(NewNodePool), "kubernetes"),
	nodeClassToken: newComponent(ignoringKnown(NewNodeClass), "kubernetes"),
}

// componentTokens are the components' type tokens, sorted.
func componentTokens() []string { return slices.Sorted(maps.Keys(components)) }

// inferredComponents are the components as infer sees them, for the schema.
func inferredComponents() []infer.InferredComponent {
	var out []infer.InferredComponent
	for _, token := range componentTokens() {
		out = append(out, components[token].inferred)
	}
	return out
}

func newComponent[A any, C pulumi.ComponentResource](build constructor[A, C], packages ...tokens.Package) component {
	return component{
		args:     reflect.TypeFor[A](),
		packages: packages,
		// infer registers the component's types in the schema; it never constructs one, since
		// the provider's Construct serves every component token.
		inferred: infer.ComponentF(func(*pulumi.Context, string, A, ...pulumi.ResourceOption) (C, error) {
			var none C
			return none, errors.New("a component is constructed by the provider's Construct, not infer's")
		}),
		construct: func(ctx *pulumi.Context, name string, in pprovider.ConstructInputs, known plan.Known, opts pulumi.ResourceOption) (*pprovider.ConstructResult, error) {
			var args A
			if err := in.CopyTo(&args); err != nil {
				return nil, fmt.Errorf("failed to copy inputs for %s: %w", name, err)
			}
			comp, err := build(ctx, name, args, known, opts)
			if err != nil {
				return nil, err
			}
			if err := ctx.RegisterResourceOutputs(comp, outputsOf(comp)); err != nil {
				return nil, err
			}
			return pprovider.NewConstructResult(comp)
		},
	}
}

// ignoringKnown is a constructor of a component that plans nothing from Input-typed values
// (the standalone NodePool and NodeClass).
func ignoringKnown[A any, C pulumi.ComponentResource](build func(*pulumi.Context, string, A, ...pulumi.ResourceOption) (C, error)) constructor[A, C] {
	return func(ctx *pulumi.Context, name string, args A, _ plan.Known, opts ...pulumi.ResourceOption) (C, error) {
		return build(ctx, name, args, opts...)
	}
}

// outputsOf are a component's outputs: its fields tagged `pulumi:"name"`, by name.
func outputsOf(comp pulumi.ComponentResource) pulumi.Map {
	v := reflect.ValueOf(comp).Elem()
	out := pulumi.Map{}
	for _, f := range reflect.VisibleFields(v.Type()) {
		if name, ok := f.Tag.Lookup("pulumi"); ok && f.IsExported() {
			out[name] = v.FieldByIndex(f.Index).Interface().(pulumi.Input)
		}
	}
	return out
}

// construct serves the engine's Construct for every component: the raw inputs are checked for
// keys no type declares, output values inside plain fields are resolved (inputs.ResolvePlainOutputs),
// the default providers are checked, and the component is built with its decoded args and what
// the engine sent known of them.
func construct(ctx context.Context, req p.ConstructRequest) (p.ConstructResponse, error) {
	c, ok := components[string(req.Urn.Type())]
	if !ok {
		return p.ConstructResponse{}, fmt.Errorf("unknown component type %s", req.Urn.Type())
	}
	if err := inputs.CheckUnknownProperties(req.Inputs, c.args); err != nil {
		return p.ConstructResponse{}, err
	}
	resolved, later, err := inputs.ResolvePlainOutputs(req.Inputs, c.args, req.DryRun)
	if err != nil {
		return p.ConstructResponse{}, err
	}
	req.Inputs = resolved
	if err := checkDefaultProviders(ctx, req, c.packages); err != nil {
		return p.ConstructResponse{}, err
	}
	known := knownInputs(resolved, later)
	resp, err := p.ProgramConstruct(ctx, req, func(ctx *pulumi.Context, _, name string, in pprovider.ConstructInputs, opts pulumi.ResourceOption) (*pprovider.ConstructResult, error) {
		return c.construct(ctx, name, in, known, opts)
	})
	return resp, unwrapGateError(err)
}

// unwrapGateError shows a validation failure of a resolved input as the component wrote it.
// The SDK reports it from the first output that awaited the validation gate, wrapped as
// `... awaiting input property "x": resolving options: <message>`.
func unwrapGateError(err error) error {
	const marker = "resolving options: "
	if err == nil {
		return nil
	}
	if i := strings.LastIndex(err.Error(), marker); i >= 0 {
		return errors.New(err.Error()[i+len(marker):])
	}
	return err
}
