package provider

import (
	"encoding/json"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/doctest"
)

// The docs' input and output tables are checked against schema.json, the source every SDK is
// generated from: a documented input, output or default that the schema does not have fails.

type schemaResource struct {
	InputProperties map[string]struct {
		Description string `json:"description"`
	} `json:"inputProperties"`
	Properties map[string]any `json:"properties"`
}

func loadComponentSchema(t *testing.T) schemaResource {
	t.Helper()
	b, err := os.ReadFile("../schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Resources map[string]schemaResource `json:"resources"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s.Resources[componentToken]
}

// sameNames fails for each name the schema has and the table lacks, and the reverse.
func sameNames(t *testing.T, table, what string, documented, schema []string) {
	t.Helper()
	for _, name := range schema {
		if !slices.Contains(documented, name) {
			t.Errorf("%s: no row for the %s %s", table, what, name)
		}
	}
	for _, name := range documented {
		if !slices.Contains(schema, name) {
			t.Errorf("%s: %s is not an %s of %s", table, name, what, componentToken)
		}
	}
}

func TestREADMEInputsAreTheSchemas(t *testing.T) {
	schema := loadComponentSchema(t)
	rows, names := doctest.Table(t, "../README.md", "## Inputs", "| Input | Type | Default | Description |")
	sameNames(t, "README.md, Inputs", "input", names, slices.Collect(maps.Keys(schema.InputProperties)))
	// A default the README states as a literal is the one the schema's description states.
	literal := regexp.MustCompile("^`([^`]+)`")
	for _, cells := range rows {
		m := literal.FindStringSubmatch(strings.TrimSpace(cells[2]))
		if m == nil {
			continue // no default, or one that depends on the cluster (said in prose)
		}
		for _, name := range regexp.MustCompile("`([A-Za-z]+)`").FindAllStringSubmatch(cells[0], -1) {
			desc := schema.InputProperties[name[1]].Description
			_, after, hasDefault := strings.Cut(desc, "Default: ")
			said := strings.ReplaceAll(after, "`", "")
			switch {
			case hasDefault && !startsWithWord(said, m[1]):
				t.Errorf("README.md, Inputs: %s defaults to %s, but its schema description says Default: %s", name[1], m[1], strings.SplitN(after, ".", 2)[0])
			case !hasDefault && !strings.Contains(desc, "`"+m[1]+"` (default)"):
				t.Errorf("README.md, Inputs: %s defaults to %s, which its schema description does not say", name[1], m[1])
			}
		}
	}
}

func TestREADMEOutputsAreTheSchemas(t *testing.T) {
	schema := loadComponentSchema(t)
	_, names := doctest.Table(t, "../README.md", "## Outputs", "| Output | Description |")
	sameNames(t, "README.md, Outputs", "output", names, slices.Collect(maps.Keys(schema.Properties)))
}

// The registry docs list the inputs users most often set: each is an input of the schema.
func TestRegistryDocsNameOnlySchemaInputs(t *testing.T) {
	schema := loadComponentSchema(t)
	_, names := doctest.Table(t, "../docs/installation-configuration.md", "## Configuration", "| Input | Description |")
	if len(names) == 0 {
		t.Fatal("docs/installation-configuration.md: no inputs table")
	}
	for _, name := range names {
		if _, ok := schema.InputProperties[name]; !ok {
			t.Errorf("docs/installation-configuration.md: %s is not an input of %s", name, componentToken)
		}
	}
}

// startsWithWord says whether s starts with the word w (not with a longer word: `karp` is not
// `karpenter`, `1.15` is not `1.15.1`).
func startsWithWord(s, w string) bool {
	rest, ok := strings.CutPrefix(s, w)
	if !ok || rest == "" {
		return ok
	}
	word := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
	}
	return !word(rest[0]) && !(rest[0] == '.' && len(rest) > 1 && word(rest[1]))
}

// The README's table of the deployer's permissions is docs/deployer-policy.json: a row per
// statement, in its order, listing exactly its actions (a row's `Service:Action` names the service
// for the bare names after it). The lab holds the file itself to what the scenarios do
// (tests/e2e/deployer_policy_test.go).
func TestREADMEDeployerTableIsThePolicy(t *testing.T) {
	b, err := os.ReadFile("../docs/deployer-policy.json")
	if err != nil {
		t.Fatal(err)
	}
	var policy struct {
		Statement []struct {
			Sid    string
			Action any
		}
	}
	if err := json.Unmarshal(b, &policy); err != nil {
		t.Fatal(err)
	}
	rows, sids := doctest.Table(t, "../README.md", "### The deployer's permissions", "| Statement |")
	var want []string
	for _, s := range policy.Statement {
		want = append(want, s.Sid)
	}
	if !slices.Equal(sids, want) {
		t.Fatalf("README's deployer table has the statements %v, docs/deployer-policy.json %v", sids, want)
	}
	action := regexp.MustCompile("`([A-Za-z0-9]+:)?([A-Za-z0-9]+)`")
	for i, s := range policy.Statement {
		var actions []string
		switch a := s.Action.(type) {
		case string:
			actions = []string{a}
		case []any:
			for _, v := range a {
				actions = append(actions, v.(string))
			}
		}
		var listed []string
		service := ""
		for _, m := range action.FindAllStringSubmatch(rows[i][1], -1) {
			if m[1] != "" {
				service = m[1]
			}
			listed = append(listed, service+m[2])
		}
		slices.Sort(actions)
		slices.Sort(listed)
		if !slices.Equal(listed, actions) {
			t.Errorf("README's row %s lists %v, docs/deployer-policy.json allows %v", s.Sid, listed, actions)
		}
	}
}
