package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every relative link of the Markdown pages resolves: the file exists and, for a link to a
// heading, the page has that heading (GitHub's anchors). The two pages the Pulumi Registry
// publishes (docs/_index.md, docs/installation-configuration.md) link only to each other in the
// Registry's form (`installation-configuration/`) or to absolute addresses: the Registry has no
// other page of this repository to link to.
func TestDocsLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("../examples/*/README.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(append(pages, more...), "../README.md", "../CONTRIBUTING.md", "../CHANGELOG.md")
	registry := map[string]string{"_index.md": "", "installation-configuration.md": "installation-configuration/"}
	for _, page := range pages {
		text := readPage(t, page)
		_, onRegistry := registry[filepath.Base(page)]
		for _, target := range markdownLinks(text) {
			if regexp.MustCompile(`^[a-z]+:`).MatchString(target) {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			if onRegistry {
				if strings.HasPrefix(path, "/") {
					continue // the Registry's own pages (/registry/packages/aws/)
				}
				if path != "" && path != registry["installation-configuration.md"] {
					t.Errorf("%s: links to %s, which the Registry does not publish (link to the repository's address)", page, target)
					continue
				}
				if path != "" {
					path = "installation-configuration.md"
				}
			}
			file := page
			if path != "" {
				file = filepath.Join(filepath.Dir(page), path)
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s: links to %s, which does not exist", page, target)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(file, ".md") && !headingAnchors(readPage(t, file))[anchor] {
				t.Errorf("%s: links to %s, but %s has no heading #%s", page, target, file, anchor)
			}
		}
	}
}

func readPage(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// outsideFences is the page without its fenced code blocks, whose brackets are code.
func outsideFences(text string) []string {
	var lines []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines = append(lines, line)
		}
	}
	return lines
}

var linkTarget = regexp.MustCompile(`\]\(([^)\s]+)\)`)

func markdownLinks(text string) []string {
	var targets []string
	for _, m := range linkTarget.FindAllStringSubmatch(strings.Join(outsideFences(text), "\n"), -1) {
		targets = append(targets, m[1])
	}
	return targets
}

// headingAnchors are a page's heading anchors as GitHub makes them: lower case, punctuation
// but hyphens and underscores dropped, spaces made hyphens.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	drop := regexp.MustCompile(`[^\p{L}\p{N}\- _]`)
	for _, line := range outsideFences(text) {
		if title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") {
			anchors[strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(strings.TrimSpace(title)), ""), " ", "-")] = true
		}
	}
	return anchors
}
