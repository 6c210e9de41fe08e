package provider

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
)

// CHANGELOG.md tells users which Karpenter version a release installs by default (the reason to
// pin `version`): its newest section and the version table must say what the catalog does.
func TestChangelogStatesTheDefaultKarpenter(t *testing.T) {
	src, err := os.ReadFile("../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)

	// The newest section (the first `## [...]`) opens with its default.
	first := regexp.MustCompile(`(?m)^## \[([^\]]+)\]\n+Default Karpenter: \*\*([^*]+)\*\*`).FindStringSubmatch(text)
	if first == nil {
		t.Fatal("CHANGELOG.md: the newest section does not open with `Default Karpenter: **<version>**.`")
	}
	if first[2] != catalog.DefaultVersion {
		t.Errorf("CHANGELOG.md [%s]: default Karpenter %s, but the catalog installs %s (catalog.DefaultVersion)", first[1], first[2], catalog.DefaultVersion)
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
	if got := strings.TrimSpace(newest[2]); got != catalog.DefaultVersion {
		t.Errorf("CHANGELOG.md table, %s: default Karpenter %s, but the catalog installs %s", first[1], got, catalog.DefaultVersion)
	}
	oldest := strings.TrimPrefix(strings.Fields(catalog.SupportedRangeText())[0], ">=")
	if !strings.HasPrefix(strings.TrimSpace(newest[3]), oldest+" ") {
		t.Errorf("CHANGELOG.md table, %s: versions %q, but the oldest the catalog installs is %s", first[1], strings.TrimSpace(newest[3]), oldest)
	}
}
