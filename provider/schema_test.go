package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
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

// The schema's logoUrl is the raw GitHub URL of a logo in this repository (main branch), on the
// repository the schema names; the .NET SDK generator answers its download with the same bytes.
func TestLogoURLIsTheRepositorysLogo(t *testing.T) {
	b, err := os.ReadFile("../schema.json")
	require.NoError(t, err)
	var s struct {
		LogoURL    string `json:"logoUrl"`
		Repository string `json:"repository"`
	}
	require.NoError(t, json.Unmarshal(b, &s))
	repo, ok := strings.CutPrefix(s.Repository, "https://github.com/")
	require.True(t, ok, "repository %q is not on GitHub", s.Repository)
	path, ok := strings.CutPrefix(s.LogoURL, "https://raw.githubusercontent.com/"+repo+"/main/")
	require.True(t, ok, "logoUrl %q is not a file of %s's main branch", s.LogoURL, s.Repository)

	logo, err := os.ReadFile("../" + path)
	require.NoError(t, err, "logoUrl names %s, which the repository does not have", path)
	img, err := png.Decode(bytes.NewReader(logo))
	require.NoError(t, err, "%s: the NuGet package icon must be a PNG", path)
	size := img.Bounds().Size()
	assert.Equal(t, size.X, size.Y, "%s is square", path)

	generated, err := os.ReadFile("../tools/sdkgen-dotnet-java/logo.png")
	require.NoError(t, err)
	assert.True(t, bytes.Equal(logo, generated), "tools/sdkgen-dotnet-java/logo.png must be a copy of %s (cp %s tools/sdkgen-dotnet-java/logo.png; make sdks)", path, path)
}
