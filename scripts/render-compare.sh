#!/usr/bin/env bash
# Renders every render args file in the repository with the plugin built at a base revision and
# with the current tree, and prints the files whose output (rendering, or error message) differs.
# With -generated N, also the inputs provider/inputgen draws for seeds 1 to N (written by
# scripts/generated-args from the current tree, so both binaries render the same inputs).
# For refactors that must not change behaviour: `scripts/render-compare.sh main -generated 3000`.
# Usage: scripts/render-compare.sh <base-rev> [-generated N]   (exit 1 when any output differs)
set -euo pipefail
base=${1:?usage: render-compare.sh <base-rev> [-generated N]}
generated=0
if [ $# -gt 1 ]; then
	if [ "$2" != -generated ] || [ -z "${3:-}" ]; then
		echo "usage: render-compare.sh <base-rev> [-generated N]" >&2
		exit 2
	fi
	generated=$3
fi
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

git -C "$root" worktree add --detach "$work/base" "$base" >/dev/null 2>&1
(cd "$work/base" && go build -o "$work/old" ./provider/cmd/pulumi-resource-karpenter)
(cd "$root" && go build -o "$work/new" ./provider/cmd/pulumi-resource-karpenter)

# Every args file: the args directories (successes and refusals) and the sample renders.
mapfile -t files < <(cd "$root" && git ls-files '*.json' '*.yaml' |
	grep -E '(^|/)args/|^examples/render/|^tests/testdata/render/' | sort | sed "s|^|$root/|")
repo=${#files[@]}
if [ "$generated" -gt 0 ]; then
	mkdir "$work/generated"
	(cd "$root" && go run ./scripts/generated-args -n "$generated" -out "$work/generated")
	for seed in $(seq 1 "$generated"); do files+=("$work/generated/seed-$seed.json"); done
fi

# render_all BINARY DIR renders file i of files into DIR/i, as many at once as there are CPUs.
render_all() {
	mkdir "$2"
	# shellcheck disable=SC2016 # the inner shell expands them
	for i in "${!files[@]}"; do printf '%s\0%s\0' "$i" "${files[$i]}"; done |
		xargs -0 -n 2 -P "$(nproc)" sh -c '"$0" render --args "$3" >"$1/$2" 2>&1 || true' "$1" "$2"
}
render_all "$work/old" "$work/a"
render_all "$work/new" "$work/b"

differ=0 same=0
for i in "${!files[@]}"; do
	if cmp -s "$work/a/$i" "$work/b/$i"; then
		same=$((same + 1))
	else
		differ=$((differ + 1))
		echo "== ${files[$i]#"$root/"} differs:"
		diff "$work/a/$i" "$work/b/$i" | head -20
	fi
done
echo "render-compare: $repo args files and $generated generated inputs, $same identical, $differ different (base $base)"
[ "$differ" -eq 0 ]
