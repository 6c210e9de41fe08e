package provider

import (
	"embed"
	"strings"
)

// The "Example Usage" section of a resource's description, in the Pulumi Registry's format: a
// {{% examples %}} block holding one {{% example %}} with a fenced program per language. The
// Registry shows each language's block on the resource's page; each SDK's code generator keeps only
// its own language's block in the doc comment it writes (codegen.FilterExamples) and drops the
// shortcodes.
//
// The programs are files of _examples/ (a directory the Go tools skip: its .go program is a
// program of its own, against the Go SDK). `make test` compiles each one taken back out of
// schema.json (tests/docs-code/schema.sh): TypeScript, Python, Go and Java against the generated
// SDKs, YAML against the schema. C# is not compiled (no .NET toolchain on the project's
// machines), and its program says so.

//go:embed _examples
var registryExamples embed.FS

// exampleLanguages are the fences of an example, in the Registry's order, with their files' extensions.
var exampleLanguages = []struct{ Fence, Ext string }{
	{"typescript", "ts"}, {"python", "py"}, {"go", "go"}, {"csharp", "cs"}, {"java", "java"}, {"yaml", "yaml"},
}

// exampleUsage is the Example Usage section made of the programs _examples/<name>.<ext>.
func exampleUsage(name, title string) string {
	var b strings.Builder
	b.WriteString("\n\n{{% examples %}}\n## Example Usage\n{{% example %}}\n### " + title + "\n\n")
	for _, lang := range exampleLanguages {
		program, err := registryExamples.ReadFile("_examples/" + name + "." + lang.Ext)
		if err != nil {
			panic(err) // a program the build embedded; the test of the examples lists them all
		}
		b.WriteString("```" + lang.Fence + "\n" + strings.TrimRight(string(program), "\n") + "\n```\n")
	}
	b.WriteString("{{% /example %}}\n{{% /examples %}}")
	return b.String()
}
