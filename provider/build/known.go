package build

import (
	"context"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

type knownInputsKey struct{}

// WithKnownInputValues hands the construct inputs, as the engine sent them, to the component.
func WithKnownInputValues(ctx context.Context, inputs property.Map) context.Context {
	return context.WithValue(ctx, knownInputsKey{}, inputs)
}

// knownInput is the value of a top-level string input when the engine sent it known.
func knownInput(ctx context.Context, name string) (string, bool) {
	inputs, ok := ctx.Value(knownInputsKey{}).(property.Map)
	if !ok {
		return "", false
	}
	v, ok := inputs.GetOk(name)
	if !ok || !v.IsString() {
		return "", false
	}
	return v.AsString(), true
}
