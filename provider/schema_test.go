package provider

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schema.json is generated from the Go types; the SDKs are generated from it. A change to
// the types without `make schema` would ship SDKs that disagree with the provider.
func TestCommittedSchemaIsCurrent(t *testing.T) {
	want, err := Schema(context.Background())
	require.NoError(t, err)
	got, err := os.ReadFile("../schema.json")
	require.NoError(t, err)
	if string(want) != string(got) {
		t.Fatalf("schema.json is stale: run `make schema` (and `make sdks`); first difference:\n%s", firstDifference(string(got), string(want)))
	}
}

// firstDifference shows the first differing line of two texts with a little context.
func firstDifference(committed, generated string) string {
	a, b := strings.Split(committed, "\n"), strings.Split(generated, "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			line := func(lines []string) string {
				if i < len(lines) {
					return lines[i]
				}
				return "<end of file>"
			}
			return fmt.Sprintf("line %d\n  committed: %s\n  generated: %s", i+1, line(a), line(b))
		}
	}
	return ""
}

// The schema must not reference other packages' schemas, so SDK generation works offline and
// SDKs pin no version of pulumi-aws, pulumi-kubernetes or pulumi-eks.
func TestSchemaIsSelfContained(t *testing.T) {
	schema, err := Schema(context.Background())
	require.NoError(t, err)
	for _, line := range strings.Split(string(schema), "\n") {
		if strings.Contains(line, `"$ref"`) {
			assert.Regexp(t, `"\$ref": "(#/types/karpenter:|pulumi\.json#/)`, line)
		}
	}
	assert.Contains(t, string(schema), `"karpenter:index:Karpenter"`)
}
