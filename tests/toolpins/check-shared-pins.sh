#!/usr/bin/env bash
# Checks that Go modules whose builds compile the same dependencies pin them at the same versions.
#
# Every Go compile here uses one Go and the same flags (lib.sh: GO_TOOLCHAIN, GO_GCFLAGS; -trimpath,
# no cgo: the Makefile for the provider, its tests and the SDK programs, lib.sh go_tools for the
# pinned tools), so a package compiled at one version is compiled once on a cold machine and then
# found in the build cache by every other build.
# A version that differs in one module recompiles that package and everything above it. Measured
# cold on the project's 2-core machines: pulumi-kubernetes (~850 packages of Kubernetes' client
# libraries in common with the control plane) and the YAML language host (the CLI's gRPC,
# protobuf and terminal libraries) rebuild much less after the control plane and the CLI;
# CONTRIBUTING.md has the numbers.
#
# For each pair below: the modules whose packages both builds compile must have one version
# (after replaces). A difference is printed with both versions; raise the lower one in its go.mod
# (`go mod edit -require=MODULE@VERSION && go mod tidy` in that module's directory) and rebuild.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/toolpins/lib.sh
. "$root/tests/toolpins/lib.sh"
# The builds' Go: the controllers' modules need a newer one than the machines'.
export GOTOOLCHAIN="$GO_TOOLCHAIN"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# built_modules OUT DIR ARG...: "path version" of each dependency module a build of the packages
# ARG... (go list arguments, run in DIR) compiles, sorted by path (the standard library has none);
# a replaced module's version is its replacement's (path@version when the path differs).
# -mod=readonly: the committed go.mod and go.sum, nothing resolved afresh. -e: pulumi-kubernetes' main embeds two files its
# build generates first; their absence does not change what it imports.
built_modules() {
  local out="$1" dir="$2"
  shift 2
  (cd "$root/$dir" && GOWORK=off GOFLAGS=-mod=readonly go list -e -deps \
    -f '{{with .Module}}{{if not .Main}}{{.Path}} {{if .Replace}}{{if ne .Replace.Path .Path}}{{.Replace.Path}}@{{end}}{{.Replace.Version}}{{else}}{{.Version}}{{end}}{{end}}{{end}}' \
    "$@") | sed '/^$/d' | LC_ALL=C sort -u >"$tmp/$out"
  if [ ! -s "$tmp/$out" ]; then
    echo "check-shared-pins: $dir: go list found no dependency modules of $*" >&2
    exit 1
  fi
}

mismatch=0
# same A B [EXCEPT]: every module in both lists has one version, but those matching the ERE EXCEPT.
same() {
  local a="$1" b="$2" except="${3:-^$}" common diff
  common="$(LC_ALL=C join "$tmp/$a" "$tmp/$b")"
  diff="$(printf '%s\n' "$common" | awk -v a="$a" -v b="$b" -v except="$except" \
    '$2 != $3 && $1 !~ except { printf "  %s: %s in %s, %s in %s\n", $1, $2, a, $3, b }')"
  if [ -n "$diff" ]; then
    printf 'check-shared-pins: %s and %s compile these modules at different versions:\n%s\n' "$a" "$b" "$diff" >&2
    mismatch=1
  else
    echo "check-shared-pins: $a and $b: $(printf '%s\n' "$common" | wc -l) modules in common, one version each"
  fi
}

built_modules control-plane tests/toolpins/kubernetes \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler
built_modules pulumi-kubernetes tests/toolpins/pulumi-kubernetes ./cmd/pulumi-resource-kubernetes
built_modules pulumi-cli tests/toolpins/pulumi-cli github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
built_modules pulumi-yaml tests/toolpins/pulumi-yaml github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml
built_modules provider . ./...
built_modules karpenter-1.15 tests/toolpins/karpenter-1.15 github.com/aws/karpenter-provider-aws/cmd/controller
built_modules karpenter-1.14 tests/toolpins/karpenter-1.14 github.com/aws/karpenter-provider-aws/cmd/controller
built_modules kwok tests/toolpins/kwok sigs.k8s.io/kwok/cmd/kwok
built_modules sdkgen tools/sdkgen-nodejs-python-go .
built_modules examples-go examples/go ./...
built_modules sdk-mocks-go tests/sdk-mocks/go -test ./...
built_modules e2e-programs-go tests/e2e/programs/go ./...

same control-plane pulumi-kubernetes
# The previous controller is Karpenter's code of its release (core and provider, and the
# operatorpkg its core compiles against) on the default controller's dependencies; kwok follows.
same karpenter-1.15 karpenter-1.14 '^(sigs\.k8s\.io/karpenter|github\.com/aws/karpenter-provider-aws|github\.com/awslabs/operatorpkg)$'
same karpenter-1.15 kwok
# pulumi-yaml 1.25.0 does not compile against the CLI's Pulumi SDK (3.274.1 changed
# plugin.NewContextWithRoot), so it keeps its own; the rest of what it compiles is the CLI's but
# the clipboard library, which the CLI's go.mod replaces with a fork (only pulumi-yaml's own
# Pulumi SDK imports it there).
same pulumi-cli pulumi-yaml '^github\.com/(pulumi/pulumi/(sdk|pkg)/v3|atotto/clipboard)$'
for m in provider sdkgen sdk-mocks-go e2e-programs-go; do
  same pulumi-cli "$m"
done
# The Go example's pulumi-aws and pulumi-eks SDKs require two libraries newer than the Pulumi SDK's
# (the packages that import them are mostly those SDKs' own, compiled for the example alone).
same pulumi-cli examples-go '^github\.com/(djherbis/times|santhosh-tekuri/jsonschema/v5)$'
exit "$mismatch"
