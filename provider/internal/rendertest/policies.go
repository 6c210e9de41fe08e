package rendertest

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// AssertSamePolicy compares two IAM documents as IAM reads them: a one-element list and a
// string are the same, key order does not matter, statement order does.
func AssertSamePolicy(t *testing.T, want, got, what string) {
	t.Helper()
	assert.Equal(t, canonicalPolicy(t, want), canonicalPolicy(t, got), what)
}

func canonicalPolicy(t *testing.T, doc string) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(doc), &v), doc)
	b, err := json.MarshalIndent(collapseSingletons(v), "", " ")
	require.NoError(t, err)
	return string(b)
}

// collapseSingletons also writes booleans as strings: the template's YAML writes a condition's
// value `false`, the component "false", which IAM reads alike.
func collapseSingletons(v any) any {
	switch x := v.(type) {
	case bool:
		return fmt.Sprint(x)
	case []any:
		if len(x) == 1 {
			if s, ok := x[0].(string); ok {
				return s
			}
		}
		for i := range x {
			x[i] = collapseSingletons(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = collapseSingletons(x[k])
		}
	}
	return v
}
