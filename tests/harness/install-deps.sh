#!/usr/bin/env bash
# Installs what the integration harness needs, idempotently; a no-op when everything is cached:
#   - etcd (Debian's etcd-server, /usr/bin/etcd)
#   - kube-apiserver, kube-controller-manager and kube-scheduler, built from the Go module proxy
#     (tests/toolpins/kubernetes) into $CACHE_DIR/bin/kubernetes-<version>/ (~4-5 min cold on 2 cores;
#     ~3.5 after pulumi-kubernetes, with which it shares ~850 compiled packages)
#   - kwok (tests/toolpins/kwok), standing in for kubelets, and its stage configuration, into
#     $CACHE_DIR/bin/kwok-<version>/ (~1-2 min cold)
#   - the Karpenter module zips (charts + CRDs) for every supported version, and the stand-ins
#     for versions the proxy does not serve (tests/harness/karpenter_charts.go: standIns)
#   - the Karpenter module zip whose NodePool CRD the EKS Auto Mode NodePool is built on
#     (tests/harness/automode_crds.go: AutoModeNodePoolModule)
#   - the tests module's own dependencies
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tests="$(dirname "$here")"
K8S_VERSION="v1.33.3"
# github.com/aws/karpenter-provider-aws versions: v1 (1.15.2, 1.14.1, 1.8.6, 1.0.8) and v1beta1 (0.36.2).
KARPENTER_VERSIONS="${KARPENTER_VERSIONS:-1.15.2 1.14.1 1.8.6 1.0.8 0.36.2}"
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
LOG_PREFIX=install-deps
# shellcheck source=tests/toolpins/lib.sh
. "$tests/toolpins/lib.sh"

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

# The control plane: kube-apiserver, kube-controller-manager, kube-scheduler ------------------
# One tools module, one `go build` (the two controllers reuse most of kube-apiserver's packages).
# The version stamp is what `git archive` + hack/lib/version.sh would set; Helm charts check
# .Capabilities.KubeVersion, which is "v0.0.0-master" without it.
k8s_dir="$tests/toolpins/kubernetes"
if [ "$(module_version "$k8s_dir" k8s.io/kubernetes)" != "$K8S_VERSION" ]; then
  log "$k8s_dir/go.mod does not pin k8s.io/kubernetes $K8S_VERSION"
  exit 1
fi
control_plane() {
  local pkg="k8s.io/component-base/version" ldflags
  ldflags="-s -w -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=33"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=2025-07-15T00:00:00Z"
  go_tools kubernetes "$k8s_dir" "$K8S_VERSION" "$ldflags" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler
  # The layout before the three commands shared one directory; superseded.
  rm -f "$CACHE_DIR/bin/kube-apiserver-$K8S_VERSION"
}

# kwok (stands in for the kubelets of the engine tests' cluster) and its stages ----------------
# The stages are the module's own "fast" node and pod stages plus the node heartbeat with leases
# (kube-controller-manager's node lifecycle controller taints a node whose lease goes stale),
# concatenated into the one config file kwok reads (--config).
kwok_dir="$tests/toolpins/kwok"
KWOK_VERSION="$(module_version "$kwok_dir" sigs.k8s.io/kwok)"
kwok() {
  local stages src f
  go_tools kwok "$kwok_dir" "$KWOK_VERSION" "-s -w" sigs.k8s.io/kwok/cmd/kwok
  # Written on every run (a few milliseconds), so a change of the list here takes effect.
  stages="$CACHE_DIR/bin/kwok-$KWOK_VERSION/stages.yaml"
  src="$(module_dir "sigs.k8s.io/kwok@$KWOK_VERSION")/kustomize/stage"
  for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
    pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    printf -- '---\n# sigs.k8s.io/kwok@%s/kustomize/stage/%s\n' "$KWOK_VERSION" "$f"
    cat "$src/$f"
  done >"$stages.tmp"
  mv "$stages.tmp" "$stages"
}

# Karpenter charts and CRDs (module zips land in the Go module cache) -----------------------
karpenter_modules() {
  local v dir entry mod file
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
}

# The tests module's dependencies (Helm, client-go) ------------------------------------------
tests_modules() { (cd "$tests" && GOWORK=off go mod download); }

# Longest first, two at a time (toolpins/lib.sh); cold times measured on the project's 2-core machines, alone.
job kubernetes "kube-apiserver, kube-controller-manager and kube-scheduler $K8S_VERSION, ~4 min cold after pulumi-kubernetes" control_plane
job kwok "kwok $KWOK_VERSION for the kubelets, ~1-2 min cold" kwok
job karpenter-modules "the Karpenter module zips (charts, CRDs), ~1 min cold" karpenter_modules
job tests-modules "the tests module's dependencies, ~1 min cold" tests_modules
run_jobs

log "ok: etcd $(etcd --version 2>/dev/null | head -1 | awk '{print $3}'), kubernetes $K8S_VERSION, kwok $KWOK_VERSION, karpenter $KARPENTER_VERSIONS, legacy $(for e in $LEGACY_MODULES; do printf '%s ' "${e%%:*}"; done)auto mode $(for e in $AUTOMODE_MODULES; do printf '%s ' "${e%%:*}"; done)"
