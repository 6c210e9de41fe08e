#!/usr/bin/env bash
# Compiles every program a user can copy from README.md and docs/*.md, so no page shows code that
# does not compile. Blocks are chosen by their fence's language (tests/docs-code/docs/snippets.py),
# never by position: a ```ts, ```python, ```go, ```java or ```yaml block that no check below covers
# (a fragment in a language without a prelude, or a language no check knows) fails the run, naming
# it. Each check is the one of the examples of its language, run once for all its blocks:
#
#   TypeScript  tsc --noEmit (strict) against sdk/nodejs and examples/typescript's locked packages;
#               fragments (blocks without an import) inside tests/docs-code/docs/prelude.ts, which
#               declares the names they take from the Usage program and requires `providers`
#   Python      mypy --strict against sdk/python and examples/python's pins
#   Go          go vet in a copy of examples/go's module (its go.sum; the SDK replaced by sdk/go)
#   Java        javac -Werror against sdk/java and examples/java's pom.xml; pulumi-eks, which Maven
#               Central does not serve here, only as tests/docs-code/docs/java-eks's declarations
#   YAML        yamlcheck: every karpenter resource's properties against schema.json
#
# C# blocks are listed and skipped: no .NET toolchain here. Shell commands and output are skipped.
# Messages name the document's line (README.md:412:5), not the generated file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
snippets=$here/docs/snippets.py
out=$work/blocks

python3 "$snippets" extract "$root" "$out"
locate() { python3 "$snippets" locate "$out"; }

shopt -s nullglob
programs=("$out"/ts/*.ts)
if ((${#programs[@]})); then
	PROGRAM="${programs[*]}" "$here/typescript.sh" 2>&1 | locate
fi

programs=("$out"/python/*.py)
if ((${#programs[@]})); then
	PROGRAM="${programs[*]}" "$here/python.sh" 2>&1 | locate
fi

# examples/go's module, with its SDK replace made absolute, holding one package per program.
if [[ -d $out/go ]]; then
	cp "$root/examples/go/go.mod" "$root/examples/go/go.sum" "$out/go/"
	(cd "$out/go" && export GOWORK=off &&
		go mod edit -replace "github.com/pulumi-karpenter/pulumi-karpenter/sdk/go=$root/sdk/go" &&
		go vet ./...) 2>&1 | locate
	echo "the documentation's Go programs: go vet passed"
fi

for program in "$out"/java/*/; do
	cp -R "$here/docs/java-eks/." "$program/src/main/java/"
	PROGRAM=${program%/} "$here/java.sh" 2>&1 | locate
done

programs=("$out"/yaml/*.yaml)
if ((${#programs[@]})); then
	(cd "$here/yamlcheck" && GOWORK=off go run . "$root/schema.json" "${programs[@]}") 2>&1 | locate
fi
