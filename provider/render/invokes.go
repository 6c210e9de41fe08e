package render

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"

	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// invocation is an invoke as the mock monitor received it.
type invocation struct {
	token string
	args  presource.PropertyMap
}

// recordInvoke notes an invoke the monitor answered.
func (m *Mocks) recordInvoke(token string, args presource.PropertyMap) {
	m.invokeMu.Lock()
	defer m.invokeMu.Unlock()
	m.invoked = append(m.invoked, invocation{token: token, args: args})
}

// RecordReads notes which result fields the component reads from an invoke (the same for
// every call of one token: each token is invoked from one place).
func (r *registrationRecorder) RecordReads(token string, result any) {
	fields := resultFields(result)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reads == nil {
		r.reads = map[string][]string{}
	}
	r.reads[token] = fields
}

// renderedInvokes joins what the monitor received with what the component read, sorted by
// token and arguments (invokes run concurrently) without repeats.
func renderedInvokes(mocks *Mocks, rec *registrationRecorder) []format.Invoke {
	mocks.invokeMu.Lock()
	invoked := append([]invocation(nil), mocks.invoked...)
	mocks.invokeMu.Unlock()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	type keyed struct {
		key string
		inv format.Invoke
	}
	seen := map[string]bool{}
	var all []keyed
	for _, c := range invoked {
		args := PlainMap(presource.FromResourcePropertyMap(c.args))
		b, _ := json.Marshal(args) // sorted keys: a stable identity
		key := c.token + "\x00" + string(b)
		if seen[key] {
			continue
		}
		seen[key] = true
		reads := append([]string{}, rec.reads[c.token]...)
		all = append(all, keyed{key, format.Invoke{Token: c.token, Args: args, Reads: reads}})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].key < all[j].key })
	out := make([]format.Invoke, len(all))
	for i, k := range all {
		out[i] = k.inv
	}
	return out
}

// resultFields names the fields an invoke result struct decodes (its `pulumi` tags). A field
// tagged `fallbackFor:"x"` is read only when x is empty, and is reported as "x|field".
func resultFields(result any) []string {
	t := reflect.TypeOf(result)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var fields []string
	index := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("pulumi"), ",")
		if name == "" {
			continue
		}
		if primary := f.Tag.Get("fallbackFor"); primary != "" {
			if j, ok := index[primary]; ok {
				fields[j] += "|" + name
				continue
			}
		}
		index[name] = len(fields)
		fields = append(fields, name)
	}
	return fields
}
