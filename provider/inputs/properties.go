package inputs

// No silent drops, and no error without a path: the SDKs decode only the properties a type
// declares, so a misspelt key in a YAML program, a Python dict or a render args file would
// otherwise be dropped and the object would quietly behave differently; and a value of the
// wrong type deep inside a list fails the decoding naming only the top-level input.
// CheckUnknownProperties walks the raw inputs against the Go types the schema is generated from
// and names every key they do not declare and every value of the wrong type, by path.

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// CheckUnknownProperties reports the inputs that t (a struct with `pulumi:"..."` tags) does
// not declare, e.g. `nodePools[0].disruption.consolidationPolicyy`, and the values whose type
// is not the declared one, e.g. `nodePools[0].weight: expected an integer, got the string "5"`,
// all together.
func CheckUnknownProperties(inputs property.Map, t reflect.Type) error {
	var errs []error
	walkProperties(nil, property.New(inputs), t, &errs)
	return field.Join(errs...)
}

func walkProperties(path *field.Path, v property.Value, t reflect.Type, errs *[]error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if input, ok := inputElements[t]; ok {
		t = input // an Input also takes an output value, which the engine sends as computed or with dependencies
	}
	if v.IsComputed() || v.IsNull() {
		return // unknown during a preview, or unset: nothing to check yet
	}
	if want, ok := expectedKind(t, v); !ok {
		*errs = append(*errs, field.Invalidf(path, "expected %s, got %s", want, describeValue(v)))
		return
	}
	switch {
	case t.Kind() == reflect.Struct && v.IsMap():
		fields := DeclaredProperties(t)
		for _, key := range slices.Sorted(maps.Keys(v.AsMap().AsMap())) {
			declared, ok := fields[key]
			if !ok {
				*errs = append(*errs, field.Unknown(path.Child(key), suggestion(key, fields)))
				continue
			}
			walkProperties(path.Child(key), v.AsMap().Get(key), declared, errs)
		}
	case t.Kind() == reflect.Slice && v.IsArray():
		for i, elem := range v.AsArray().AsSlice() {
			walkProperties(path.Index(i), elem, t.Elem(), errs)
		}
	case t.Kind() == reflect.Map && v.IsMap():
		for _, key := range slices.Sorted(maps.Keys(v.AsMap().AsMap())) {
			walkProperties(path.Key(key), v.AsMap().Get(key), t.Elem(), errs)
		}
	}
	// Everything else is a scalar, or free-form (chart values, kubelet additionalSettings): no
	// property names to check.
}

// inputElements are the Input types of the args and the plain types of their values.
var inputElements = map[reflect.Type]reflect.Type{
	reflect.TypeFor[pulumi.StringInput]():      reflect.TypeFor[string](),
	reflect.TypeFor[pulumi.StringPtrInput]():   reflect.TypeFor[string](),
	reflect.TypeFor[pulumi.StringArrayInput](): reflect.TypeFor[[]string](),
	reflect.TypeFor[pulumi.StringMapInput]():   reflect.TypeFor[map[string]string](),
	reflect.TypeFor[pulumi.MapInput]():         reflect.TypeFor[map[string]any](),
}

// expectedKind says whether v has the JSON kind the Go type t decodes from, and names that
// kind for the message when it has not.
func expectedKind(t reflect.Type, v property.Value) (string, bool) {
	switch t.Kind() {
	case reflect.String:
		return "a string", v.IsString()
	case reflect.Bool:
		return "a boolean (true or false)", v.IsBool()
	case reflect.Int, reflect.Int32, reflect.Int64:
		return "an integer", v.IsNumber() && v.AsNumber() == math.Trunc(v.AsNumber())
	case reflect.Float32, reflect.Float64:
		return "a number", v.IsNumber()
	case reflect.Struct:
		return "an object", v.IsMap()
	case reflect.Map:
		return "an object", v.IsMap()
	case reflect.Slice:
		return "a list", v.IsArray()
	}
	return "", true // any: free-form
}

// describeValue names a value's kind and, for a scalar, the value, as a message shows it.
func describeValue(v property.Value) string {
	switch {
	case v.Secret():
		return "a secret"
	case v.IsString():
		return fmt.Sprintf("the string %q", v.AsString())
	case v.IsNumber():
		return fmt.Sprintf("the number %v", v.AsNumber())
	case v.IsBool():
		return fmt.Sprintf("the boolean %v", v.AsBool())
	case v.IsArray():
		return "a list"
	case v.IsMap():
		return "an object"
	}
	return "a resource reference or an asset"
}

// DeclaredProperties are a struct's schema property names and their types.
func DeclaredProperties(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for name, f := range declaredFields(t) {
		out[name] = f.Type
	}
	return out
}

// declaredFields are a struct's fields by their schema property names.
func declaredFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("pulumi"), ",")
		if name != "" && f.IsExported() {
			out[name] = f
		}
	}
	return out
}

// suggestion is the declared property a misspelt key most likely meant: one that differs only
// in case, or by at most two edits ("" when none does).
func suggestion(key string, fields map[string]reflect.Type) string {
	best, bestDistance := "", 3
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		d := editDistance(strings.ToLower(key), strings.ToLower(name))
		if d < bestDistance {
			best, bestDistance = name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Outputs inside plain inputs. The SDKs type every nested field of a pool or class as an Input,
// so a program may wire one from another resource (an annotation or a class tag from the
// cluster's name); the engine then sends it as an output value, known with its dependencies at
// `up` and often unknown at a first preview. The component decides on those fields at construct
// time (names, references, versions) or validates and passes them on, so they are plain Go values
// — the fields meant to be wired from other resources (ids, role, instanceProfile, clusterName)
// are Inputs — and the SDK's decoding refuses an output value in a plain field ("expected
// destination type to implement pulumi.Input"), even a known one. ResolvePlainOutputs hands them
// over:
//   - a known value loses its dependencies: the component resource itself depends on them, which
//     orders its children's creation and deletion after and before those resources;
//   - an unknown value, and a secret (a plain field would be written in clear text), fail naming
//     the input's path. (An unknown cannot be carried as the engine's unknown-string sentinel:
//     pulumi-go-provider marshals the inputs again before the SDK decodes them, which turns the
//     sentinel back into an unknown.)
//
// At a preview, a `karpenter:"through"` value may be unknown (a placeholder takes its place) and
// a `karpenter:"later"` list too (it stands empty, and later has its path): doc.go, "Values not
// known at Construct".
func ResolvePlainOutputs(inputs property.Map, t reflect.Type, preview bool) (resolved property.Map, later []*field.Path, err error) {
	var errs []error
	var waiting []*field.Path
	out := resolvePlain(nil, property.New(inputs), t, walk{preview: preview, waiting: &waiting}, &errs)
	if err := field.Join(errs...); err != nil {
		return inputs, nil, err
	}
	return out.AsMap(), waiting, nil
}

var inputType = reflect.TypeFor[pulumi.Input]()

// walk is what resolvePlain knows besides the value: a preview, whether the value only passes
// through to the custom resources (a field tagged `karpenter:"through"`, unknown.go) or may wait
// for `up` (`karpenter:"later"`), and the paths of the values that wait.
type walk struct {
	preview, through, later bool
	waiting                 *[]*field.Path
}

// field is the walk into a struct field.
func (w walk) field(f reflect.StructField) walk {
	tag := f.Tag.Get(throughTag)
	return walk{preview: w.preview, through: tag == "through", later: tag == "later", waiting: w.waiting}
}

func resolvePlain(path *field.Path, v property.Value, t reflect.Type, w walk, errs *[]error) property.Value {
	preview := w.preview
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(inputType) {
		return v // an Input takes output values as they are
	}
	if v.Secret() {
		*errs = append(*errs, field.Invalid(path, "a secret cannot be given here: the component writes this field into "+
			"what it creates in plain text").WithHint("pass the value without secret()"))
		return v
	}
	v = v.WithDependencies(nil)
	switch {
	case v.IsNull():
	case v.IsComputed() && w.through && preview && t.Kind() == reflect.String:
		return property.New(newUnknown())
	case v.IsComputed() && w.through && preview && t.Kind() == reflect.Map && t.Elem().Kind() == reflect.String:
		// A whole map unknown (what Java and .NET send for a map built in an apply): one
		// placeholder entry stands for it, and the registration makes the field unknown.
		return property.New(map[string]property.Value{newUnknown(): property.New(newUnknown())})
	case v.IsComputed() && w.later && preview && t.Kind() == reflect.Slice:
		*w.waiting = append(*w.waiting, path)
		return property.New([]property.Value{})
	case v.IsComputed():
		when := "at `pulumi up`"
		if preview {
			when = "during preview"
		}
		what := "the component plans its children from this field"
		*errs = append(*errs, field.Invalidf(path, "the value is an output of a resource that is not known %s, and %s: pass a value known before the update (a plain value, "+
			"config, a StackReference output, or an output of a resource that already exists)", when, what))
	case t.Kind() == reflect.Struct && v.IsMap():
		fields := declaredFields(t)
		m := map[string]property.Value{}
		for key, elem := range v.AsMap().AllStable {
			if declared, ok := fields[key]; ok {
				elem = resolvePlain(path.Child(key), elem, declared.Type, w.field(declared), errs)
			}
			m[key] = elem
		}
		return property.New(property.NewMap(m))
	case t.Kind() == reflect.Map && v.IsMap():
		m := map[string]property.Value{}
		for key, elem := range v.AsMap().AllStable {
			m[key] = resolvePlain(path.Key(key), elem, t.Elem(), w, errs)
		}
		return property.New(property.NewMap(m))
	case t.Kind() == reflect.Slice && v.IsArray():
		var a []property.Value
		for i, elem := range v.AsArray().All {
			a = append(a, resolvePlain(path.Index(i), elem, t.Elem(), walk{preview: preview, waiting: w.waiting}, errs))
		}
		return property.New(property.NewArray(a))
	}
	return v
}
