package provider

import (
	"encoding/json"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every resource's description ends with an Example Usage holding one program per language the
// Registry shows, and every program of _examples/ is one of them. (tests/docs-code/schema.sh
// compiles them, from schema.json.)
func TestEveryResourceHasAnExampleInEveryLanguage(t *testing.T) {
	b, err := os.ReadFile("../schema.json")
	require.NoError(t, err)
	var s struct {
		Resources map[string]struct {
			Description string `json:"description"`
		} `json:"resources"`
	}
	require.NoError(t, json.Unmarshal(b, &s))
	require.NotEmpty(t, s.Resources)

	shown := map[string]bool{} // the programs of every resource's Example Usage
	for token, r := range s.Resources {
		_, section, ok := strings.Cut(r.Description, "\n\n{{% examples %}}\n## Example Usage\n{{% example %}}\n### ")
		if !assert.True(t, ok, "%s: no Example Usage in the Registry's format", token) {
			continue
		}
		assert.True(t, strings.HasSuffix(section, "{{% /example %}}\n{{% /examples %}}"), "%s: the Example Usage ends the description", token)
		for _, lang := range exampleLanguages {
			blocks := regexp.MustCompile("(?ms)^```"+lang.Fence+"\n(.*?)^```$").FindAllStringSubmatch(section, -1)
			if !assert.Len(t, blocks, 1, "%s: ```%s programs", token, lang.Fence) {
				continue
			}
			if lang.Fence == "csharp" {
				assert.Contains(t, blocks[0][1], "Generated-only", "%s: the C# program says it is not compiled here", token)
			}
			shown[blocks[0][1]] = true
		}
	}
	files, err := fs.ReadDir(registryExamples, "_examples")
	require.NoError(t, err)
	for _, f := range files {
		program, err := registryExamples.ReadFile("_examples/" + f.Name())
		require.NoError(t, err)
		assert.True(t, shown[string(program)], "_examples/%s is no resource's example", f.Name())
	}
}
