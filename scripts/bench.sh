#!/usr/bin/env bash
# make bench: measures what the component costs a deployment and prints one table.
#   - Construct of the default install vs the same children in a plain program (lower bound)
#   - Construct with 1, 10, 100 node pools (must grow linearly)
#   - plugin cold start (exec -> first answered GetSchema) and peak RSS
#   - stripped release binary size, and what each Pulumi SDK package would add
#   - the longest dependency chain of the default graph
#   - the engine's view: plugin start and Construct inside a real `pulumi preview` (tests/e2e)
# Benchmarks measure; nothing here is asserted in `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE_DIR="${CACHE_DIR:-$HOME/.cache/pulumi-karpenter}"
out="$CACHE_DIR/bench"
mkdir -p "$out"
COUNT="${BENCH_COUNT:-5}"

plugin="$out/pulumi-resource-karpenter"
go build -trimpath -ldflags "-s -w -X github.com/pulumi-karpenter/pulumi-karpenter/provider.Version=0.0.0-bench" \
  -o "$plugin" ./provider/cmd/pulumi-resource-karpenter

echo "running benchmarks (count=$COUNT)..." >&2
# The engine's view: real `pulumi preview`s of the default install (tests/e2e), needing the
# harness and engine tools (make harness-deps e2e-deps) and the plugin bin/ holds (make build).
(cd tests && PROVIDER_BIN="$PWD/../bin/pulumi-resource-karpenter" CACHE_DIR="$CACHE_DIR" GOWORK=off \
  go test -tags e2e ./e2e/ -run '^$' -bench EnginePreview -benchtime 5x -count "$COUNT" -timeout 30m) > "$out/engine.txt"
go test ./provider -run '^$' -bench 'ConstructDefault|InlineDefault|ConstructNodePools' -benchtime 30x -count "$COUNT" > "$out/construct.txt"
KARPENTER_PLUGIN="$plugin" go test ./provider/cmd/pulumi-resource-karpenter -run '^$' -bench ColdStart -benchtime 20x -count "$COUNT" > "$out/coldstart.txt"

# median VALUE of the metric UNIT over the runs of benchmark NAME in FILE.
median() {
  awk -v name="$1" -v unit="$3" '$1 ~ "^"name"(-[0-9]+)?$" { for (i = 3; i < NF; i++) if ($(i+1) == unit) print $i }' "$2" |
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2] + v[NR/2+1]) / 2 }'
}
ms() { awk -v ns="$1" 'BEGIN { printf "%.1f", ns / 1e6 }'; }

construct=$(median BenchmarkConstructDefault "$out/construct.txt" ns/op)
inline=$(median BenchmarkInlineDefault "$out/construct.txt" ns/op)
chain=$(median BenchmarkConstructDefault "$out/construct.txt" chain-steps)
children=$(median BenchmarkConstructDefault "$out/construct.txt" children)
p1=$(median BenchmarkConstructNodePools/1 "$out/construct.txt" ns/op)
p10=$(median BenchmarkConstructNodePools/10 "$out/construct.txt" ns/op)
p100=$(median BenchmarkConstructNodePools/100 "$out/construct.txt" ns/op)
cold=$(median BenchmarkPluginColdStart "$out/coldstart.txt" ms/first-GetSchema)
rss=$(median BenchmarkPluginColdStart "$out/coldstart.txt" MB-peak-RSS)
size=$(stat -c %s "$plugin")

# What linking each SDK package would cost: the size probe built bare and with each package.
echo "measuring SDK package costs (first run builds each variant; cached afterwards)..." >&2
probe() {
  local tags="$1" key bin
  key=$(cat tools/sizeprobe/go.* tools/sizeprobe/*.go | sha256sum | cut -c1-12)
  bin="$out/sizeprobe-$key-${tags// /+}"
  [ -n "$tags" ] || bin="$out/sizeprobe-$key-base"
  if [ ! -f "$bin" ]; then
    (cd tools/sizeprobe && go build -trimpath -ldflags "-s -w" -tags "$tags" -o "$bin" .)
  fi
  stat -c %s "$bin"
}
base=$(probe "")
all_tags="aws_index aws_iam aws_sqs aws_cloudwatch aws_eks aws_ec2 k8s_helm k8s_apiextensions k8s_core"
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1048576 }'; }
check() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t) ? "yes" : "NO" }'; }

ratio=$(median BenchmarkConstructDefault "$out/construct.txt" x-inline)
scale=$(awk -v a="$p100" -v b="$p1" 'BEGIN { printf "%.2f", a / b }')
printf '\n%-58s %14s %12s %s\n' "measure" "value" "target" "met"
printf '%-58s %14s %12s %s\n' "----------------------------------------------------------" "--------------" "------------" "---"
row() { printf '%-58s %14s %12s %s\n' "$1" "$2" "$3" "$4"; }
row "Construct, default install ($children children)" "$(ms "$construct") ms" "" ""
row "Same children declared inline (lower bound)" "$(ms "$inline") ms" "" ""
row "Construct / inline (interleaved runs)" "$(awk -v r="$ratio" 'BEGIN{printf "%.2f", r}')x" "<= 1.2x" "$(check "$ratio" 1.2)"
row "Construct, 1 node pool" "$(ms "$p1") ms" "" ""
row "Construct, 10 node pools" "$(ms "$p10") ms" "" ""
row "Construct, 100 node pools" "$(ms "$p100") ms" "" ""
row "100 pools / 1 pool" "${scale}x" "< 10x" "$(check "$scale" 9.999)"
row "Plugin cold start (exec -> first GetSchema)" "${cold} ms" "<= 150 ms" "$(check "$cold" 150)"
row "Plugin peak RSS" "$(awk -v m="$rss" 'BEGIN{printf "%.1f", m}') MB" "" ""
row "Release binary, stripped" "$(mb "$size")" "<= 100 MB" "$(check "$size" 104857600)"
row "Longest dependency chain, default graph" "$chain steps" "<= 4" "$(check "$chain" 4)"
epreview=$(median BenchmarkEnginePreview "$out/engine.txt" ms/preview)
estart=$(median BenchmarkEnginePreview "$out/engine.txt" ms/plugin-start)
econstruct=$(median BenchmarkEnginePreview "$out/engine.txt" ms/construct)
eshare=$(median BenchmarkEnginePreview "$out/engine.txt" %-of-preview)
row "Engine: pulumi preview of the default install (wall)" "$epreview ms" "" ""
row "Engine: plugin start (exec -> Handshake answered)" "$estart ms" "" ""
row "Engine: Construct (as the engine times it)" "$econstruct ms" "" ""
row "Engine: plugin start + Construct, share of the preview" "$(awk -v v="$eshare" 'BEGIN{printf "%.0f", v}') %" "" ""
printf '\nWhat each Pulumi SDK package would add to a go-provider component (stripped; baseline %s).\n' "$(mb "$base")"
printf 'The provider links none of them: it registers its children by type token.\n'
for tag in $all_tags; do
  printf '  %-22s +%s\n' "$tag" "$(mb $(( $(probe "$tag") - base )))"
done
printf '  %-22s +%s  (all of the above together)\n' "all" "$(mb $(( $(probe "$all_tags") - base )))"
printf '\nmachine: %s, %s cores, %s\n' "$(uname -m)" "$(nproc)" "$(go version | awk '{print $3}')"
