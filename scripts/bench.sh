#!/usr/bin/env bash
# make bench: measures what the component costs a deployment and prints one table.
#   In-process (provider/, the plugin binary):
#   - Construct of the default install vs the same children in a plain Go program (lower bound)
#   - Construct with 1, 10, 100 node pools
#   - plugin cold start (exec -> first answered GetSchema) and peak RSS; stripped binary size
#   - the longest dependency chain of the default graph; what each Pulumi SDK package would add
#   Through the real engine (tests/e2e; the CLI, YAML host, pulumi-kubernetes, the aws stand-in):
#   - the component vs the same children declared inline in YAML: preview, up, preview with no
#     changes, destroy, interleaved, BENCH_ROUNDS rounds (default 5): medians and spreads
#   - a fleet in one stack: N = BENCH_FLEET (default 1,10,50) components and their standalone
#     pools: preview/up/destroy wall, the plugin's peak RSS, Constructs in flight at once; the
#     largest N again with PULUMI_SKIP_CHECKPOINTS=true
#   - CPU seconds of every process (engine, language host, plugins, moto, the cluster) per command
# Benchmarks measure; nothing here is asserted in `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE_DIR="${CACHE_DIR:-$HOME/.cache/pulumi-karpenter}"
out="$CACHE_DIR/bench"
mkdir -p "$out"
COUNT="${BENCH_COUNT:-5}"

plugin="$out/pulumi-resource-karpenter"
samples="$out/engine-samples.tsv"
# BENCH_REPORT_ONLY=1 prints the table again from the last run's results in $out.
if [ -z "${BENCH_REPORT_ONLY:-}" ]; then
go build -trimpath -ldflags "-s -w -X github.com/pulumi-karpenter/pulumi-karpenter/provider.Version=0.0.0-bench" \
  -o "$plugin" ./provider/cmd/pulumi-resource-karpenter

echo "running benchmarks (count=$COUNT)..." >&2
# The engine's view (tests/e2e), needing the harness and engine tools (make harness-deps
# e2e-deps) and the plugin bin/ holds (make build). Each run's measurements go to $samples.
rm -f "$samples"
(cd tests && BENCH_SAMPLES="$samples" PROVIDER_BIN="$PWD/../bin/pulumi-resource-karpenter" CACHE_DIR="$CACHE_DIR" GOWORK=off \
  go test -tags e2e ./e2e/ -run '^$' -bench 'EngineComponentVsInline|EngineFleet' -benchtime 1x -count 1 -timeout 80m) > "$out/engine.txt"
go test ./provider -run '^$' -bench 'ConstructDefault|InlineDefault|ConstructNodePools' -benchtime 30x -count "$COUNT" > "$out/construct.txt"
KARPENTER_PLUGIN="$plugin" go test ./provider/cmd/pulumi-resource-karpenter -run '^$' -bench ColdStart -benchtime 20x -count "$COUNT" > "$out/coldstart.txt"
fi

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

# est BENCH VARIANT MEASURE [WHAT]: the median (or min, max) of an engine measure's samples.
est() {
  awk -F'\t' -v b="$1" -v v="$2" -v m="$3" '$1 == b && $2 == v && $3 == m { print $4 }' "$samples" | sort -g |
    awk -v what="${4:-median}" '{ x[NR] = $1 } END {
      if (NR == 0) { print "nan"; exit }
      if (what == "min") print x[1]; else if (what == "max") print x[NR]
      else if (NR % 2) print x[(NR+1)/2]; else print (x[NR/2] + x[NR/2+1]) / 2 }'
}
cvi=BenchmarkEngineComponentVsInline
fleet=BenchmarkEngineFleet
spread() { printf '%.0f ms (%.0f–%.0f)' "$(est $cvi "$1" "$2")" "$(est $cvi "$1" "$2" min)" "$(est $cvi "$1" "$2" max)"; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
rounds=$(awk -F'\t' -v b=$cvi '$1 == b && $2 == "inline" && $3 == "up"' "$samples" | wc -l)

printf '\n%-62s %26s %12s %s\n' "measure" "value" "target" "met"
printf '%-62s %26s %12s %s\n' "--------------------------------------------------------------" "--------------------------" "------------" "---"
row() { printf '%-62s %26s %12s %s\n' "$1" "$2" "$3" "$4"; }
section() { printf '%s\n' "$1"; }
section "The component alone, in-process (medians of $COUNT runs)"
row "Construct, default install ($(printf %.0f "$children") children)" "$(ms "$construct") ms" "" ""
row "Same children registered inline in Go (lower bound)" "$(ms "$inline") ms" "" ""
row "Construct / inline (interleaved runs)" "$(awk -v r="$ratio" 'BEGIN{printf "%.2f", r}')x" "<= 1.2x" "$(check "$ratio" 1.2)"
row "Construct, 1 / 10 / 100 node pools" "$(ms "$p1") / $(ms "$p10") / $(ms "$p100") ms" "" ""
row "100 pools / 1 pool" "${scale}x" "< 5x" "$(check "$scale" 4.999)"
row "Plugin cold start (exec -> first GetSchema)" "$(printf %.0f "$cold") ms" "<= 100 ms" "$(check "$cold" 100)"
row "Plugin peak RSS at start" "$(awk -v m="$rss" 'BEGIN{printf "%.1f", m}') MB" "" ""
row "Release binary, stripped" "$(mb "$size")" "<= 40 MB" "$(check "$size" 41943040)"
row "Longest dependency chain, default graph" "$(printf %.0f "$chain") steps" "<= 5" "$(check "$chain" 5)"
section "Real engine: the component, on a cluster that exists, vs the same 34 children inline in YAML (medians (min–max) of $rounds interleaved rounds)"
for m in preview up; do
  c=$(est $cvi component $m); i=$(est $cvi inline $m); r=$(div "$c" "$i")
  row "pulumi $m (all to create): component" "$(spread component $m)" "" ""
  row "pulumi $m (all to create): inline" "$(spread inline $m)" "" ""
  row "pulumi $m: component / inline" "${r}x" "<= 1.10x" "$(check "$r" 1.10)"
done
row "pulumi preview, no changes: component / inline" "$(spread component preview-no-changes) / $(printf '%.0f' "$(est $cvi inline preview-no-changes)") ms" "" ""
for m in preview preview-no-changes; do
  c=$(est $cvi component $m); n=$(est $cvi component-noread $m)
  row "pulumi $m: the cluster checks' reads (component - readCluster false)" "$(awk -v c="$c" -v n="$n" 'BEGIN{printf "%+.0f ms", c-n}') ($(div "$c" "$n")x)" "" ""
done
for m in refresh preview-after-refresh; do
  row "pulumi ${m//-/ }: component / inline" "$(spread component $m) / $(printf '%.0f' "$(est $cvi inline $m)") ms ($(div "$(est $cvi component $m)" "$(est $cvi inline $m)")x)" "" ""
done
row "pulumi destroy: component / inline" "$(spread component destroy) / $(printf '%.0f' "$(est $cvi inline destroy)") ms" "" ""
estart=$(est $cvi component plugin-start); econstruct=$(est $cvi component construct); enoch=$(est $cvi component preview-no-changes)
row "  in the no-change preview: plugin start (exec -> Handshake)" "$(printf '%.0f' "$estart") ms" "" ""
row "  in the no-change preview: Construct, as the engine times it" "$(printf '%.0f' "$econstruct") ms" "" ""
row "  plugin start + Construct, share of that preview" "$(awk -v a="$estart" -v b="$econstruct" -v p="$enoch" 'BEGIN{printf "%.0f", 100*(a+b)/p}') %" "" ""
sizes=$(awk -F'\t' -v b=$fleet '$1 == b && $3 == "up" && $2 ~ /^N=[0-9]+$/ { sub("N=", "", $2); print $2 }' "$samples" | sort -g | uniq | tr '\n' ' ')
section "Real engine: a fleet of N clusters in one stack (a component and a standalone NodePool each)"
first=""; last=""
for n in $sizes; do
  v="N=$n"
  row "N=$n: preview / up / destroy (wall)" "$(printf '%.1f / %.1f / %.1f s' "$(awk -v x="$(est $fleet $v preview)" 'BEGIN{print x/1000}')" "$(awk -v x="$(est $fleet $v up)" 'BEGIN{print x/1000}')" "$(awk -v x="$(est $fleet $v destroy)" 'BEGIN{print x/1000}')")" "" ""
  rssmax=$(awk -v a="$(est $fleet $v preview-plugin-peak-rss-mb)" -v b="$(est $fleet $v up-plugin-peak-rss-mb)" 'BEGIN{print (a > b) ? a : b}')
  target=""; met=""
  if [ "$n" = 50 ]; then target="< 300 MB"; met=$(check "$rssmax" 299.999); fi
  row "N=$n: plugin peak RSS (preview / up)" "$(printf '%.0f / %.0f MB' "$(est $fleet $v preview-plugin-peak-rss-mb)" "$(est $fleet $v up-plugin-peak-rss-mb)")" "$target" "$met"
  row "N=$n: plugin CPU (preview / up)" "$(printf '%.2f / %.2f s' "$(awk -v x="$(est $fleet $v preview-cpu-ms-component)" 'BEGIN{print x/1000}')" "$(awk -v x="$(est $fleet $v up-cpu-ms-component)" 'BEGIN{print x/1000}')")" "" ""
  inflight=$(est $fleet $v up-constructs-in-flight)
  target=""; met=""
  if [ "$n" -gt 1 ]; then target="> 1"; met=$(awk -v x="$inflight" 'BEGIN { print (x > 1) ? "yes" : "NO" }'); fi
  row "N=$n: most Constructs in flight at once (preview / up), of $((2 * n))" "$(printf '%.0f / %.0f' "$(est $fleet $v preview-constructs-in-flight)" "$inflight")" "$target" "$met"
  [ -n "$first" ] || first=$n
  last=$n
done
skip="N=$last,skip-checkpoints"
if [ "$(est $fleet "$skip" up)" != nan ]; then
  row "N=$last with PULUMI_SKIP_CHECKPOINTS=true: preview / up / destroy" "$(printf '%.1f / %.1f / %.1f s' "$(awk -v x="$(est $fleet "$skip" preview)" 'BEGIN{print x/1000}')" "$(awk -v x="$(est $fleet "$skip" up)" 'BEGIN{print x/1000}')" "$(awk -v x="$(est $fleet "$skip" destroy)" 'BEGIN{print x/1000}')")" "" ""
  if [ "$first" != "$last" ]; then
    lin=$(div "$last" "$first"); growth=$(div "$(est $fleet "$skip" up)" "$(est $fleet "N=$first" up)")
    row "up time, N=$last without checkpoints / N=$first (linear: ${lin}x)" "${growth}x" "<= ${lin}x" "$(check "$growth" "$lin")"
  fi
fi
# Growth against linear: from each size to the next, and from the smallest to the largest.
growth_rows() { # FROM TO
  local lin growth m
  lin=$(div "$2" "$1")
  for m in preview up; do
    growth=$(div "$(est $fleet "N=$2" $m)" "$(est $fleet "N=$1" $m)")
    row "$m time, N=$2 / N=$1 (linear: ${lin}x)" "${growth}x" "<= ${lin}x" "$(check "$growth" "$lin")"
  done
}
prev=""; pairs=0
for n in $sizes; do
  if [ -n "$prev" ]; then growth_rows "$prev" "$n"; pairs=$((pairs + 1)); fi
  prev=$n
done
[ "$pairs" -lt 2 ] || growth_rows "$first" "$last"

# Where the time goes: the CPU seconds each process spent in a command (ProcessSampler, tests/e2e/lab).
kinds="engine yaml-host component kubernetes aws-standin moto apiserver etcd controllers scheduler kwok"
printf '\nCPU seconds by process, per command (sampled from /proc every 50 ms; medians):\n'
printf '%-42s %7s' "command" "wall"
for k in $kinds; do printf ' %11s' "$k"; done
printf '\n'
cpu_row() { # LABEL BENCH VARIANT COMMAND
  printf '%-42s %7.1f' "$1" "$(awk -v x="$(est "$2" "$3" "$4")" 'BEGIN{print x/1000}')"
  for k in $kinds; do printf ' %11.2f' "$(awk -v x="$(est "$2" "$3" "$4-cpu-ms-$k")" 'BEGIN{print x/1000}')"; done
  printf '\n'
}
cpu_row "default install, component: up" $cvi component up
cpu_row "default install, inline: up" $cvi inline up
for v in $(awk -F'\t' -v b=$fleet '$1 == b && $3 == "up" { print $2 }' "$samples" | sort -t= -k2 -g | uniq); do
  for m in preview up destroy; do cpu_row "fleet $v: $m" $fleet "$v" $m; done
done

printf '\nWhat each Pulumi SDK package would add to a go-provider component (stripped; baseline %s).\n' "$(mb "$base")"
printf 'The provider links none of them: it registers its children by type token.\n'
for tag in $all_tags; do
  printf '  %-22s +%s\n' "$tag" "$(mb $(( $(probe "$tag") - base )))"
done
printf '  %-22s +%s  (all of the above together)\n' "all" "$(mb $(( $(probe "$all_tags") - base )))"
printf '\nmachine: %s, %s cores, %s GiB, %s, %s; %s\n' "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" "$(nproc)" \
  "$(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)" "$(uname -m)" "$(go version | awk '{print $3}')" "$(date -u +%F)"
