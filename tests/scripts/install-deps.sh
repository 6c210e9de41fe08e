#!/usr/bin/env bash
# Installs what the integration harness needs, idempotently; a no-op when everything is cached:
#   - etcd (Debian's etcd-server, /usr/bin/etcd)
#   - kube-apiserver, built from the Go module proxy (tests/tools/kube-apiserver) into
#     $CACHE_DIR/bin/kube-apiserver-<version> (~4-7 min cold on 2 cores; reused afterwards)
#   - the Karpenter module zips (charts + CRDs) for every supported version, and the stand-ins
#     for versions the proxy does not serve (tests/harness/karpenter.go: standIns)
#   - the Karpenter module zip whose NodePool CRD the EKS Auto Mode NodePool is built on
#     (tests/harness/automode.go: AutoModeNodePoolModule)
#   - the tests module's own dependencies
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tests="$(dirname "$here")"
CACHE_DIR="${CACHE_DIR:-$HOME/.cache/pulumi-karpenter}"
K8S_VERSION="v1.33.0"
# github.com/aws/karpenter-provider-aws versions: v1 (1.15.1, 1.14.1, 1.8.6, 1.0.8) and v1beta1 (0.36.2).
KARPENTER_VERSIONS="${KARPENTER_VERSIONS:-1.15.1 1.14.1 1.8.6 1.0.8 0.36.2}"
# The Provisioner era (rendered as 0.31.0): the chart of github.com/aws/karpenter v0.29.2, the
# Provisioner/Machine CRDs of github.com/aws/karpenter-core v0.31.0, and github.com/aws/karpenter
# v0.32.0 only to check that the AWSNodeTemplate CRD of v0.29.2 equals the last one (v0.32.0).
# Each entry: module@version:file-that-must-exist.
LEGACY_MODULES="${LEGACY_MODULES:-github.com/aws/karpenter@v0.29.2:charts/karpenter/Chart.yaml github.com/aws/karpenter-core@v0.31.0:pkg/apis/crds/karpenter.sh_provisioners.yaml github.com/aws/karpenter@v0.32.0:pkg/apis/crds/karpenter.k8s.aws_awsnodetemplates.yaml}"
# EKS Auto Mode's NodePool (harness.InstallAutoModeCRDs): upstream Karpenter's NodePool CRD of
# v1.2.1 (the v1.2 release the proxy serves; it refuses v1.2.0) plus EKS's changes
# (tests/testdata/automode/nodepool-eks.json). Only that CRD file is needed, not the charts.
# Same entry format as LEGACY_MODULES.
AUTOMODE_MODULES="${AUTOMODE_MODULES:-github.com/aws/karpenter-provider-aws@v1.2.1:pkg/apis/crds/karpenter.sh_nodepools.yaml}"
APISERVER="$CACHE_DIR/bin/kube-apiserver-$K8S_VERSION"

log() { echo "install-deps: $*" >&2; }

# etcd --------------------------------------------------------------------------------------
if ! command -v etcd >/dev/null 2>&1; then
  log "installing etcd-server (apt)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq etcd-server >/dev/null
fi
# The package may start a system etcd on the default ports; the harness never uses them
# (it runs its own on random ports), so it is left alone.

# kube-apiserver ----------------------------------------------------------------------------
if [ ! -x "$APISERVER" ]; then
  log "building kube-apiserver $K8S_VERSION into $APISERVER (cold: several minutes)"
  mkdir -p "$CACHE_DIR/bin"
  # The version stamp is what `git archive` + hack/lib/version.sh would set; Helm charts
  # check .Capabilities.KubeVersion, which is "v0.0.0-master" without it.
  pkg="k8s.io/component-base/version"
  ldflags="-s -w -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=33"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=2025-04-23T00:00:00Z"
  start=$(date +%s)
  (cd "$tests/tools/kube-apiserver" &&
    GOWORK=off GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" \
      -o "$APISERVER.tmp" k8s.io/kubernetes/cmd/kube-apiserver)
  mv "$APISERVER.tmp" "$APISERVER"
  log "kube-apiserver built in $(( $(date +%s) - start ))s"
fi

# Karpenter charts and CRDs (module zips land in the Go module cache) -----------------------
# Prints the module's directory; from outside any module, so no go.mod or go.sum is consulted
# or touched. A no-op (no network) once the zip is in the module cache.
#
# From Karpenter 1.14.2 on, the module's go directive can be newer than the local toolchain
# (1.15.1 says go 1.26.10). With GOTOOLCHAIN=local, `go mod download` then exits 1 with
# "requires go >= ..." and prints no "Dir", although it has downloaded, verified (sumdb) and
# extracted the zip. That one error is tolerated when the extracted directory exists (derived
# from "Zip": $GOMODCACHE/cache/download/<path>/@v/<version>.zip -> $GOMODCACHE/<path>@<version>);
# the callers then check the directory holds what the harness needs. Any other error (403,
# not found, checksum mismatch) is printed and fails the script.
json_field() { sed -n 's/^[[:space:]]*"'"$1"'": "\(.*\)",\{0,1\}$/\1/p'; }
module_dir() {
  local out dir err zip rest
  out="$(cd /tmp && GOWORK=off GOFLAGS=-mod=mod go mod download -json "$1")" || true
  dir="$(printf '%s\n' "$out" | json_field Dir)"
  if [ -n "$dir" ]; then
    printf '%s\n' "$dir"
    return
  fi
  err="$(printf '%s\n' "$out" | json_field Error)"
  zip="$(printf '%s\n' "$out" | json_field Zip)"
  case "$err" in
    *"requires go "*)
      if [ -n "$zip" ] && [ -f "$zip" ]; then
        rest="${zip##*/cache/download/}"
        dir="${zip%/cache/download/*}/${rest%/@v/*}@$(basename "$zip" .zip)"
        if [ -d "$dir" ]; then
          log "$1: $(printf '%b' "$err") (tolerated: the zip is verified and extracted into $dir)"
          printf '%s\n' "$dir"
          return
        fi
      fi
      ;;
  esac
  log "$1: go mod download failed: $(printf '%b' "${err:-no JSON output}")"
  return 1
}
for v in $KARPENTER_VERSIONS; do
  dir="$(module_dir "github.com/aws/karpenter-provider-aws@v$v")" || exit 1
  if [ -z "$dir" ] || [ ! -d "$dir/charts/karpenter-crd" ]; then
    log "karpenter-provider-aws@v$v: module has no charts/karpenter-crd (dir: ${dir:-none})"
    exit 1
  fi
done
for entry in $LEGACY_MODULES $AUTOMODE_MODULES; do
  mod="${entry%%:*}" file="${entry#*:}"
  dir="$(module_dir "$mod")" || exit 1
  if [ -z "$dir" ] || [ ! -f "$dir/$file" ]; then
    log "$mod: module has no $file (dir: ${dir:-none})"
    exit 1
  fi
done

# The tests module's dependencies (Helm, client-go) ------------------------------------------
(cd "$tests" && GOWORK=off go mod download)

log "ok: etcd $(etcd --version 2>/dev/null | head -1 | awk '{print $3}'), $APISERVER, karpenter $KARPENTER_VERSIONS, legacy $(for e in $LEGACY_MODULES; do printf '%s ' "${e%%:*}"; done)auto mode $(for e in $AUTOMODE_MODULES; do printf '%s ' "${e%%:*}"; done)"
