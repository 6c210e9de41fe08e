package catalog

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/doctest"
)

// CHANGELOG.md tells users which Karpenter version a release installs by default (the reason to
// pin `version`): its newest section and the version table must say what the catalog does.
func TestChangelogStatesTheDefaultKarpenter(t *testing.T) {
	src, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)

	// The newest section (the first `## [...]`) opens with its default.
	first := regexp.MustCompile(`(?m)^## \[([^\]]+)\]\n+Default Karpenter: \*\*([^*]+)\*\*`).FindStringSubmatch(text)
	if first == nil {
		t.Fatal("CHANGELOG.md: the newest section does not open with `Default Karpenter: **<version>**.`")
	}
	if first[2] != DefaultVersion {
		t.Errorf("CHANGELOG.md [%s]: default Karpenter %s, but the catalog installs %s (catalog.DefaultVersion)", first[1], first[2], DefaultVersion)
	}

	// The table's first row is the same release, with the same default and the catalog's range.
	row := regexp.MustCompile(`(?m)^\| ([^|]+) \| ([^|]+) \| ([^|]+) \|$`).FindAllStringSubmatch(text, -1)
	if len(row) < 2 { // the header, a release (the separator row has no spaces)
		t.Fatal("CHANGELOG.md: no release table (release | default Karpenter | versions)")
	}
	newest := row[1]
	if got := strings.TrimSpace(newest[1]); got != first[1] {
		t.Errorf("CHANGELOG.md: the table's newest release is %q, the newest section %q", got, first[1])
	}
	if got := strings.TrimSpace(newest[2]); got != DefaultVersion {
		t.Errorf("CHANGELOG.md table, %s: default Karpenter %s, but the catalog installs %s", first[1], got, DefaultVersion)
	}
	oldest := strings.TrimPrefix(strings.Fields(SupportedRangeText())[0], ">=")
	if !strings.HasPrefix(strings.TrimSpace(newest[3]), oldest+" ") {
		t.Errorf("CHANGELOG.md table, %s: versions %q, but the oldest the catalog installs is %s", first[1], strings.TrimSpace(newest[3]), oldest)
	}
}

// The README's Supported versions section says what the catalog installs: the default release
// (in the last generation's row), the range its rows cover, and each Long-Term Support line with
// the patch it resolves to and its end of support.
func TestREADMEStatesTheCatalogsVersions(t *testing.T) {
	rows, _ := doctest.Table(t, "../../README.md", "## Supported versions", "| Karpenter | Custom resources |")
	if len(rows) == 0 {
		t.Fatal("README.md, Supported versions: no table")
	}
	span := regexp.MustCompile(`^(\d+\.\d+) – (\d+\.\d+)`)
	oldest, newest := strings.TrimSpace(rows[0][0]), strings.TrimSpace(rows[len(rows)-1][0])
	first, last := span.FindStringSubmatch(oldest), span.FindStringSubmatch(newest)
	if first == nil || last == nil {
		t.Fatalf("README.md, Supported versions: rows %q and %q do not start with a range `a.b – c.d`", oldest, newest)
	}
	lo, hi, _ := strings.Cut(strings.TrimPrefix(SupportedRangeText(), ">="), " <")
	if !strings.HasPrefix(lo, first[1]+".") {
		t.Errorf("README.md, Supported versions: the table starts at %s, the catalog at %s", first[1], lo)
	}
	if minor := semverMinor(DefaultVersion); last[2] != minor {
		t.Errorf("README.md, Supported versions: the table ends at %s, the catalog's newest verified minor is %s (it refuses %s and later without allowUnverifiedVersion)", last[2], minor, hi)
	}
	if want := "(default " + DefaultVersion + ")"; !strings.Contains(newest, want) {
		t.Errorf("README.md, Supported versions: the last row %q does not say %s (catalog.DefaultVersion)", newest, want)
	}

	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	lts := readme[strings.Index(readme, "**Long-Term Support lines.**"):]
	lts = strings.Join(strings.Fields(lts[:strings.Index(lts, "\n\n")]), " ")
	for _, l := range LTSLines {
		for _, want := range []string{"v" + l.Line + ", ", "until " + l.SupportedUntil, l.Newest, `"` + l.Line + `"`} {
			if !strings.Contains(lts, want) {
				t.Errorf("README.md, Long-Term Support lines: does not say %q for the %s line (catalog.LTSLines: newest %s, supported until %s)", want, l.Line, l.Newest, l.SupportedUntil)
			}
		}
	}
	if want := "Pin the Karpenter version (default `" + DefaultVersion + "`)"; !strings.Contains(readme, want) {
		t.Errorf("README.md, The options that matter: does not say %q", want)
	}
}

// semverMinor is "1.15" of "1.15.2".
func semverMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	return parts[0] + "." + parts[1]
}
