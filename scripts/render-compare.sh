#!/usr/bin/env bash
# Renders every render args file in the repository with the plugin built at a base revision and
# with the current tree, and prints the files whose output (rendering, or error message) differs.
# For refactors that must not change behaviour: `scripts/render-compare.sh main`.
# Usage: scripts/render-compare.sh <base-rev>   (exit 1 when any output differs)
set -euo pipefail
base=${1:?usage: render-compare.sh <base-rev>}
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

git -C "$root" worktree add --detach "$work/base" "$base" >/dev/null 2>&1
(cd "$work/base" && go build -o "$work/old" ./provider/cmd/pulumi-resource-karpenter)
(cd "$root" && go build -o "$work/new" ./provider/cmd/pulumi-resource-karpenter)

# Every args file: the args directories (successes and refusals) and the sample renders.
mapfile -t files < <(cd "$root" && git ls-files '*.json' '*.yaml' |
	grep -E '(^|/)args/|^examples/render/|^tests/testdata/render/' | sort)
differ=0 same=0
for f in "${files[@]}"; do
	"$work/old" render --args "$root/$f" >"$work/a" 2>&1 || true
	"$work/new" render --args "$root/$f" >"$work/b" 2>&1 || true
	if cmp -s "$work/a" "$work/b"; then
		same=$((same + 1))
	else
		differ=$((differ + 1))
		echo "== $f differs:"
		diff "$work/a" "$work/b" | head -20
	fi
done
echo "render-compare: ${#files[@]} args files, $same identical, $differ different (base $base)"
[ "$differ" -eq 0 ]
