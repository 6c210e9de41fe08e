#!/usr/bin/env bash
# Proves sdk/nodejs usable: tsc (strict) builds the generated package against @pulumi/pulumi
# from npm, then a strict-compiled consumer imports it by its npm name and runs with mocks.
# Works on copies in a temporary directory so that sdk/ stays exactly as generated.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tsc="$here/node_modules/.bin/tsc"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. Build the SDK as `npm run build` would, with the SDK's own tsconfig plus --strict.
cp -R "$root/sdk/nodejs" "$work/sdk"
ln -s "$here/node_modules" "$work/sdk/node_modules"
"$tsc" -p "$work/sdk" --strict
# Lay the package out as npm would install it (Pulumi's builds publish bin/ with package.json).
cp "$work/sdk/package.json" "$work/sdk/bin/"
name=$(node -p 'require(process.argv[1]).name' "$work/sdk/package.json")

# 2. A consumer project whose node_modules holds the SDK package and @pulumi/pulumi.
mkdir -p "$work/consumer/node_modules/$(dirname "$name")"
ln -s "$work/sdk/bin" "$work/consumer/node_modules/$name"
ln -s "$here/node_modules/@pulumi" "$work/consumer/node_modules/@pulumi"
ln -s "$here/node_modules/@types" "$work/consumer/node_modules/@types"
cp "$here/tsconfig.json" "$here/karpenter.test.ts" "$work/consumer/"
"$tsc" -p "$work/consumer"
node --test "$work/consumer/bin/"
