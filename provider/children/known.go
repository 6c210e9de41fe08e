package children

import (
	"context"
	"fmt"
	"strings"

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

type laterInputsKey struct{}

// WithLaterInputs hands the component the paths of the inputs a preview could not know and
// that wait for `up` (spec.ResolvePlainOutputs: the discovery ids of resources the same update
// creates).
func WithLaterInputs(ctx context.Context, paths []string) context.Context {
	return context.WithValue(ctx, laterInputsKey{}, paths)
}

// LaterWarning says what waits for `up`: the preview shows no discovery tags for the lists it
// could not know.
func LaterWarning(ctx context.Context) []string {
	paths, _ := ctx.Value(laterInputsKey{}).([]string)
	if len(paths) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s: not known yet (outputs of resources this update creates): this preview shows no discovery tags for them; `pulumi up` tags each one before creating the node classes", strings.Join(paths, ", "))}
}
