package provider

import (
	"context"
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
	assert.Equal(t, string(want), string(got), "schema.json is stale: run `make schema` (and `make sdks`)")
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
