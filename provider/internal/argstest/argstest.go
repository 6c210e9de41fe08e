// Package argstest holds the args helpers the provider's tests share. It decodes a component's
// args from JSON for engine-free tests of the inputs and plan layers: known values, typed as the
// engine's decoding would type them (Input fields hold plain pulumi values). A key no field
// declares fails the test, as the component's unknown-property check fails the input. And it
// writes the args the tests of every package start from (DefaultArgs, WithDefaults,
// Merge).
package argstest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Decode decodes a JSON object into T (e.g. inputs.KarpenterArgs).
func Decode[T any](t testing.TB, js string) T {
	t.Helper()
	var raw any
	if err := json.Unmarshal([]byte(js), &raw); err != nil {
		t.Fatalf("argstest: %v", err)
	}
	var out T
	if err := decode(reflect.ValueOf(&out).Elem(), raw, "args"); err != nil {
		t.Fatalf("argstest: %v", err)
	}
	return out
}

var (
	stringInput    = reflect.TypeFor[pulumi.StringInput]()
	stringPtrInput = reflect.TypeFor[pulumi.StringPtrInput]()
	stringMapInput = reflect.TypeFor[pulumi.StringMapInput]()
	stringsInput   = reflect.TypeFor[pulumi.StringArrayInput]()
	mapInput       = reflect.TypeFor[pulumi.MapInput]()
)

func decode(v reflect.Value, raw any, path string) error {
	if raw == nil {
		return nil // null: unset
	}
	switch v.Type() {
	case stringInput, stringPtrInput:
		s, ok := raw.(string)
		if !ok {
			return fmt.Errorf("%s: want a string, got %T", path, raw)
		}
		if v.Type() == stringInput {
			v.Set(reflect.ValueOf(pulumi.String(s)))
		} else {
			v.Set(reflect.ValueOf(pulumi.StringPtr(s)))
		}
		return nil
	case stringMapInput:
		m := pulumi.StringMap{}
		if err := decode(reflect.ValueOf(&m).Elem(), raw, path); err != nil {
			return err
		}
		v.Set(reflect.ValueOf(m))
		return nil
	case stringsInput:
		var a pulumi.StringArray
		if err := decode(reflect.ValueOf(&a).Elem(), raw, path); err != nil {
			return err
		}
		v.Set(reflect.ValueOf(a))
		return nil
	case mapInput:
		m, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %T", path, raw)
		}
		v.Set(reflect.ValueOf(pulumi.ToMap(m)))
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := decode(p.Elem(), raw, path); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Struct:
		m, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %T", path, raw)
		}
		fields := map[string]int{}
		for i := range v.NumField() {
			if name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("pulumi"), ","); name != "" {
				fields[name] = i
			}
		}
		for k, e := range m {
			i, ok := fields[k]
			if !ok {
				return fmt.Errorf("%s.%s: no such field in %s", path, k, v.Type())
			}
			if err := decode(v.Field(i), e, path+"."+k); err != nil {
				return err
			}
		}
	case reflect.Slice:
		a, ok := raw.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array, got %T", path, raw)
		}
		s := reflect.MakeSlice(v.Type(), len(a), len(a))
		for i, e := range a {
			if err := decode(s.Index(i), e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Map:
		m, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %T", path, raw)
		}
		out := reflect.MakeMapWithSize(v.Type(), len(m))
		for k, e := range m {
			ev := reflect.New(v.Type().Elem()).Elem()
			if err := decode(ev, e, path+"."+k); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), ev)
		}
		v.Set(out)
	case reflect.Interface:
		if v.Type().NumMethod() == 0 {
			v.Set(reflect.ValueOf(raw))
			return nil
		}
		return fmt.Errorf("%s: %s is not decoded here", path, v.Type())
	default:
		rv := reflect.ValueOf(raw)
		if v.Kind() == reflect.Int && rv.Kind() == reflect.Float64 {
			v.SetInt(int64(raw.(float64)))
			return nil
		}
		if !rv.Type().ConvertibleTo(v.Type()) || rv.Kind() != baseKind(v.Kind()) {
			return fmt.Errorf("%s: want %s, got %T", path, v.Type(), raw)
		}
		v.Set(rv.Convert(v.Type()))
	}
	return nil
}

// baseKind is the JSON kind a Go kind decodes from.
func baseKind(k reflect.Kind) reflect.Kind {
	switch k {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int64:
		return reflect.Float64
	}
	return k
}
