#!/usr/bin/env bash
# Checks the examples in docs/_index.md the way the examples are checked, so the registry page
# never shows a program that does not compile: TypeScript (tsc), Python (mypy), Go (go vet) and
# YAML (yamlcheck). C# is not compiled: no .NET toolchain here. The README's TypeScript and
# Python usage snippets get the same checks, and so does its program for pools from another stack.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# extract LANGUAGE: the fenced code block inside the docs' `choosable language LANGUAGE` section.
extract() {
	awk -v lang="$1" '
		index($0, "{{% choosable language " lang " %}}") { inside = 1; next }
		inside && /^```/ { if (code) exit; code = 1; next }
		inside && code { print }
	' "$root/docs/_index.md" >"$2"
	[[ -s $2 ]] || { echo "docs/_index.md: no $1 example" >&2; exit 1; }
}

# readme FENCE OUT: the first ```FENCE block of README.md.
readme() {
	awk -v fence='```'"$1" '
		!code && $0 == fence { code = 1; next }
		code && /^```/ { exit }
		code { print }
	' "$root/README.md" >"$2"
	[[ -s $2 ]] || { echo "README.md: no $1 block" >&2; exit 1; }
}

# readme_with FENCE TEXT OUT: the first ```FENCE block of README.md that contains TEXT.
readme_with() {
	awk -v fence='```'"$1" -v text="$2" '
		!code && $0 == fence { code = 1; block = ""; next }
		code && /^```/ { if (index(block, text)) { printf "%s", block; exit } code = 0; next }
		code { block = block $0 "\n" }
	' "$root/README.md" >"$3"
	[[ -s $3 ]] || { echo "README.md: no $1 block with $2" >&2; exit 1; }
}

mkdir -p "$work/readme" "$work/readme-stackref"
readme ts "$work/readme/index.ts"
PROGRAM=$work/readme/index.ts "$here/typescript.sh"
readme_with ts "new pulumi.StackReference" "$work/readme-stackref/index.ts"
PROGRAM=$work/readme-stackref/index.ts "$here/typescript.sh"
readme python "$work/readme/__main__.py"
PROGRAM=$work/readme/__main__.py "$here/python.sh"

extract typescript "$work/index.ts"
PROGRAM=$work/index.ts "$here/typescript.sh"

extract python "$work/__main__.py"
PROGRAM=$work/__main__.py "$here/python.sh"

# The Go example's module, with its SDK replace made absolute for the copy.
cp -R "$root/examples/go" "$work/go"
extract go "$work/go/main.go"
(cd "$work/go" && export GOWORK=off &&
	go mod edit -replace "github.com/pulumi-karpenter/pulumi-karpenter/sdk/go=$root/sdk/go" &&
	go vet ./...)
echo "docs go example: go vet passed"

extract yaml "$work/Pulumi.yaml"
(cd "$here/yamlcheck" && GOWORK=off go run . "$root/schema.json" "$work/Pulumi.yaml")
