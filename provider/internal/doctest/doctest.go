// Package doctest reads the repository's Markdown docs for the tests that hold them to the code
// (the top package's to schema.json, the catalog's to its versions).
package doctest

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

var backticked = regexp.MustCompile("`([A-Za-z]+)`")

// Table is the table under a heading of a Markdown file: each row's names (the backticked
// names of its first column) and its cells.
func Table(t testing.TB, file, heading, header string) (rows [][]string, names []string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n"+heading+"\n")
	if start < 0 {
		t.Fatalf("%s: no %q section", file, heading)
	}
	text = text[start:]
	at := strings.Index(text, "\n"+header)
	if at < 0 {
		t.Fatalf("%s, %s: no table starting %q", file, heading, header)
	}
	for _, line := range strings.Split(text[at+1:], "\n")[2:] {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		rows = append(rows, cells)
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			names = append(names, m[1])
		}
	}
	return rows, names
}
