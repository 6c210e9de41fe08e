package inputs

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The registry docs (the README links there) list every NodePool and NodeClass field: each
// top-level field has a row of its kind's table, which names every field below it.
func TestDocsListEveryPoolAndClassField(t *testing.T) {
	for _, doc := range []string{"../../docs/installation-configuration.md"} {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		text := string(b)
		start := strings.Index(text, "### NodePool and NodeClass fields")
		require.GreaterOrEqual(t, start, 0, "%s: no NodePool and NodeClass fields section", doc)
		section := text[start:]
		if end := strings.Index(section[1:], "\n#"); end >= 0 {
			section = section[:end+1]
		}
		for kind, typ := range map[string]reflect.Type{"NodePool": reflect.TypeFor[NodePoolSpec](), "NodeClass": reflect.TypeFor[NodeClassSpec]()} {
			rows := map[string]string{} // top-level field -> its row
			table := section[strings.Index(section, "| "+kind+" field |"):]
			for _, line := range strings.Split(table, "\n") {
				if !strings.HasPrefix(line, "| `") {
					if len(rows) > 0 {
						break
					}
					continue
				}
				first := strings.SplitN(line, "|", 3)[1]
				for _, name := range regexp.MustCompile("`([A-Za-z]+)`").FindAllStringSubmatch(first, -1) {
					rows[name[1]] = line
				}
			}
			for name, field := range DeclaredProperties(typ) {
				row, ok := rows[name]
				if !assert.True(t, ok, "%s: the %s table has no row for %s", doc, kind, name) {
					continue
				}
				for _, nested := range nestedPropertyNames(field) {
					assert.Regexp(t, `\b`+nested+`\b`, row, "%s: the %s row of %s does not name %s", doc, name, kind, nested)
				}
			}
		}
	}
}

// nestedPropertyNames are the property names of a struct type (through slices and pointers)
// and of the structs below it.
func nestedPropertyNames(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for name, field := range DeclaredProperties(t) {
		out = append(out, name)
		out = append(out, nestedPropertyNames(field)...)
	}
	return out
}
