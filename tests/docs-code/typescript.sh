#!/usr/bin/env bash
# Type-checks examples/typescript (tsc --noEmit, strict) against the generated sdk/nodejs and the
# pinned @pulumi/* packages of the example's own package-lock.json.
#
# Usage: typescript.sh [deps]   (deps: only install the locked packages)
# PROGRAM=file checks that file in place of the example's index.ts (the docs' example). PROGRAM
# may name several files, space-separated, with distinct names: one tsc run checks them all, each
# a module of its own (one SDK build for tests/docs-code/docs.sh's programs and fragments).
#
# The locked packages are installed once into $CACHE_DIR, keyed by the lockfile. The SDK is
# built from a copy, as the postinstall of a `pulumi install`-generated SDK would build it, and
# linked in as @pulumi-karpenter/karpenter: what `pulumi install` does with the Pulumi.yaml
# `packages:` entry. Nothing is written into the repository.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
example=$root/examples/typescript
key=$(cat "$example/package.json" "$example/package-lock.json" | sha256sum | cut -c1-16)
deps=${CACHE_DIR:?}/examples/nodejs-$key

if [[ ! -f $deps/.installed ]]; then
	rm -rf "${deps%-*}"-* && mkdir -p "$deps" # older lockfiles' installs too
	cp "$example/package.json" "$example/package-lock.json" "$deps/"
	# --ignore-scripts: no package needs a build step to be type-checked.
	(cd "$deps" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
	touch "$deps/.installed"
fi
[[ ${1:-} == deps ]] && exit 0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tsc=$deps/node_modules/.bin/tsc

# 1. The SDK, compiled with its generated tsconfig against the example's @pulumi/pulumi.
cp -R "$root/sdk/nodejs" "$work/sdk"
ln -s "$deps/node_modules" "$work/sdk/node_modules"
"$tsc" -p "$work/sdk"
cp "$work/sdk/package.json" "$work/sdk/bin/"
name=$(node -p 'require(process.argv[1]).name' "$work/sdk/package.json")

# 2. The example, with a node_modules holding the locked packages and the SDK.
mkdir -p "$work/example/node_modules/$(dirname "$name")"
for entry in "$deps"/node_modules/* "$deps"/node_modules/.bin; do
	ln -s "$entry" "$work/example/node_modules/"
done
ln -s "$work/sdk/bin" "$work/example/node_modules/$name"
cp "$example/tsconfig.json" "$work/example/"
if [[ -n ${PROGRAM:-} && $PROGRAM == *" "* ]]; then
	read -ra programs <<<"$PROGRAM"
	cp "${programs[@]}" "$work/example/"
	# The example's tsconfig.json, checking these files in place of index.ts.
	node -e 'const fs = require("fs"), [file, ...names] = process.argv.slice(1);
		const c = JSON.parse(fs.readFileSync(file, "utf8")); c.files = names;
		fs.writeFileSync(file, JSON.stringify(c, null, 4));' \
		"$work/example/tsconfig.json" "${programs[@]##*/}"
else
	cp "${PROGRAM:-$example/index.ts}" "$work/example/index.ts"
fi
"$tsc" -p "$work/example" --noEmit
echo "${PROGRAM:-examples/typescript}: tsc --noEmit (strict) passed"
