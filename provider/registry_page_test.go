package provider

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Registry page's TypeScript, Python and Go programs (docs/_index.md) are examples/typescript's,
// examples/python's and examples/go's, which the lab runs through the engine
// (tests/e2e/examples_test.go), but for the outputs the team-pool examples read, a block at the
// example's end: comments, blank lines and the Python module docstring aside, the example is the
// page's program followed by exports only. A change made to one and not the other fails here,
// naming the first line that differs.
func TestRegistryPageIsTheExamples(t *testing.T) {
	page, err := os.ReadFile("../docs/_index.md")
	require.NoError(t, err)
	for _, tc := range []struct {
		lang, fence, example, comment string
		export                        *regexp.Regexp
	}{
		{"typescript", "typescript", "../examples/typescript/index.ts", "//", regexp.MustCompile(`^export `)},
		{"python", "python", "../examples/python/__main__.py", "#", regexp.MustCompile(`^pulumi\.export\(`)},
		{"go", "go", "../examples/go/main.go", "//", regexp.MustCompile(`^\s*ctx\.Export\(`)},
	} {
		fence := regexp.MustCompile("(?ms)^```" + tc.fence + "\n(.*?)^```$").FindStringSubmatch(string(page))
		require.NotNil(t, fence, "docs/_index.md has no ```%s program", tc.fence)
		example, err := os.ReadFile(tc.example)
		require.NoError(t, err)
		want, got := codeLines(fence[1], tc.comment), codeLines(string(example), tc.comment)
		for i, l := range want {
			if i >= len(got) || got[i] != l {
				other := "(nothing)"
				if i < len(got) {
					other = got[i]
				}
				t.Errorf("docs/_index.md's %s program, code line %d %q: %s has %q (comments aside)", tc.lang, i+1, l, tc.example, other)
				break
			}
		}
		for _, l := range got[min(len(want), len(got)):] {
			if !tc.export.MatchString(l) {
				t.Errorf("%s goes on after the Registry page's program with %q: only outputs may follow", tc.example, l)
			}
		}
	}
}

// codeLines are a program's lines without blank lines, comment lines, trailing comments (a comment
// marker after a space) and a leading Python docstring.
func codeLines(program, comment string) []string {
	program = regexp.MustCompile(`(?s)^""".*?"""\n`).ReplaceAllString(program, "")
	trailing := regexp.MustCompile(`\s+` + regexp.QuoteMeta(comment) + `.*$`)
	var out []string
	for _, l := range strings.Split(program, "\n") {
		if s := strings.TrimSpace(l); s == "" || strings.HasPrefix(s, comment) {
			continue
		}
		out = append(out, trailing.ReplaceAllString(l, ""))
	}
	return out
}
