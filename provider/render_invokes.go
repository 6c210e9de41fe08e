package provider

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"

	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// RenderedInvoke is one provider function the component called during a render: its token,
// the arguments as sent to the provider, and the result fields the component reads from the
// answer. Render reports them so that a test can check every argument and field against the
// providers' published declarations (tests/conformance).
type RenderedInvoke struct {
	Token string         `json:"token"`
	Args  map[string]any `json:"args"`
	// Reads are the result fields the component decodes, by their provider names, in the
	// order its result struct declares them. "a|b" reads a, falling back to b when the
	// provider does not answer a (a field of another provider major): b is tagged
	// `fallbackFor:"a"` on the result struct.
	Reads []string `json:"reads"`
}

// invocation is an invoke as the mock monitor received it.
type invocation struct {
	token string
	args  presource.PropertyMap
}

// recordInvoke notes an invoke the monitor answered.
func (m *renderMocks) recordInvoke(token string, args presource.PropertyMap) {
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
func renderedInvokes(mocks *renderMocks, rec *registrationRecorder) []RenderedInvoke {
	mocks.invokeMu.Lock()
	invoked := append([]invocation(nil), mocks.invoked...)
	mocks.invokeMu.Unlock()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	type keyed struct {
		key string
		inv RenderedInvoke
	}
	seen := map[string]bool{}
	var all []keyed
	for _, c := range invoked {
		args := plainMap(presource.FromResourcePropertyMap(c.args))
		b, _ := json.Marshal(args) // sorted keys: a stable identity
		key := c.token + "\x00" + string(b)
		if seen[key] {
			continue
		}
		seen[key] = true
		reads := append([]string{}, rec.reads[c.token]...)
		all = append(all, keyed{key, RenderedInvoke{Token: c.token, Args: args, Reads: reads}})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].key < all[j].key })
	out := make([]RenderedInvoke, len(all))
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
