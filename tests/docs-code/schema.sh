#!/usr/bin/env bash
# Checks the Example Usage programs of schema.json's resource descriptions (the Registry's
# examples; their sources are provider/_examples) the way the examples are checked, each taken
# back out of schema.json, so the Registry and the SDKs' doc comments never show a program that
# does not compile: TypeScript (tsc --strict), Python (mypy --strict), Go (go vet, in the module of
# examples/go), Java (javac -Werror, with the pom.xml of examples/java) against the generated SDKs,
# and YAML against the schema (yamlcheck). C# is not compiled (no .NET toolchain here): its
# program must say so. Then each SDK must carry its language's program in the resource's doc
# comment, as its code generator copies it (`make sdks` after `make schema`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# extract TOKEN FENCE OUT: the ```FENCE block of the resource's Example Usage in schema.json.
extract() {
	python3 - "$root/schema.json" "$@" <<'PY'
import json, re, sys
schema, token, fence, out = sys.argv[1:]
desc = json.load(open(schema))["resources"][token]["description"]
start, end = desc.find("{{% examples %}}"), desc.find("{{% /examples %}}")
if start < 0 or end < start:
    sys.exit(f"schema.json, {token}: no {{{{% examples %}}}} section in its description")
blocks = re.findall(r"^```" + re.escape(fence) + r"\n(.*?)^```$", desc[start:end], re.S | re.M)
if len(blocks) != 1:
    sys.exit(f"schema.json, {token}: {len(blocks)} ```{fence} blocks in its Example Usage (want 1)")
open(out, "w").write(blocks[0])
PY
}

resources=(Karpenter NodePool NodeClass)
# Resources with the same program (NodePool's and NodeClass's) have it checked once.
declare -A seen
programs=()
for resource in "${resources[@]}"; do
	dir=$work/$resource
	mkdir -p "$dir"
	for fence in typescript python go csharp java yaml; do
		extract "karpenter:index:$resource" "$fence" "$dir/$fence"
	done
	key=$(cat "$dir"/* | sha256sum | cut -c1-16)
	[[ -n ${seen[$key]:-} ]] && { echo "schema.json, $resource: the program of ${seen[$key]}"; continue; }
	seen[$key]=$resource
	programs+=("$resource")
done

java=()
for resource in "${programs[@]}"; do
	dir=$work/$resource
	grep -q "Generated-only" "$dir/csharp" ||
		{ echo "schema.json, $resource: the C# program must say it is generated-only (not compiled here)" >&2; exit 1; }

	mkdir -p "$dir/ts" "$dir/py"
	cp "$dir/typescript" "$dir/ts/index.ts"
	PROGRAM=$dir/ts/index.ts "$here/typescript.sh"
	cp "$dir/python" "$dir/py/__main__.py"
	PROGRAM=$dir/py/__main__.py "$here/python.sh"

	# The Go program in a copy of examples/go's module, its SDK replace made absolute.
	cp -R "$root/examples/go" "$dir/gomod"
	cp "$dir/go" "$dir/gomod/main.go"
	(cd "$dir/gomod" && export GOWORK=off &&
		go mod edit -replace "github.com/pulumi-karpenter/pulumi-karpenter/sdk/go=$root/sdk/go" &&
		go vet ./...)
	echo "schema.json, $resource: the Go program passed go vet"

	cp "$dir/yaml" "$dir/Pulumi.yaml"
	(cd "$here/yamlcheck" && GOWORK=off go run . "$root/schema.json" "$dir/Pulumi.yaml")
	java+=("$dir/java")
done
# One Maven run (the SDK is installed once) compiles every Java program.
PROGRAM="${java[*]}" "$here/java.sh"

# Each SDK's doc comment of each resource carries its language's program: a line of it that no
# other language's program has.
sdk_file() { # RESOURCE LANGUAGE
	local lower=${1,}
	case $2 in
	typescript) echo "sdk/nodejs/$lower.ts" ;;
	python) echo "sdk/python/pulumi_karpenter/$(sed 's/\([A-Z]\)/_\L\1/g' <<<"$lower").py" ;;
	go) echo "sdk/go/karpenter/$lower.go" ;;
	csharp) echo "sdk/dotnet/$1.cs" ;;
	java) echo "sdk/java/src/main/java/io/github/pulumikarpenter/karpenter/$1.java" ;;
	esac
}
line_of() { # RESOURCE LANGUAGE: the program's line naming the resource's constructor
	case $2 in
	typescript) grep -m1 "new karpenter\.$1(" "$work/$1/typescript" ;;
	python) grep -m1 "karpenter\.$1(" "$work/$1/python" ;;
	go) grep -m1 "karpenter\.New$1(ctx" "$work/$1/go" ;;
	csharp) grep -m1 "new $1(\"" "$work/$1/csharp" ;;
	java) grep -m1 "new $1(\"" "$work/$1/java" ;;
	esac
}
for resource in "${resources[@]}"; do
	for fence in typescript python go csharp java; do
		line=$(line_of "$resource" "$fence" | sed 's/^[[:space:]]*//') ||
			{ echo "schema.json, $resource: its $fence program has no line constructing $resource" >&2; exit 1; }
		file=$root/$(sdk_file "$resource" "$fence")
		# The generators escape for their comment syntax (HTML entities in C# and Java).
		escaped=$(sed 's/&/\&amp;/g; s/"/\&quot;/g; s/</\&lt;/g; s/>/\&gt;/g' <<<"$line")
		grep -qF -- "$line" "$file" || grep -qF -- "$escaped" "$file" ||
			{ echo "${file#"$root"/}: no $fence example of $resource (run make sdks): want a line $line" >&2; exit 1; }
	done
done
echo "schema.json: the Example Usage of ${resources[*]} compiled; each SDK carries its language's"
