#!/usr/bin/env bash
# Installs what the engine tests (tests/e2e) need, idempotently; a no-op when everything is cached:
#   - the Pulumi CLI, built from the Go module proxy (tests/toolpins/pulumi-cli) into
#     $CACHE_DIR/bin/pulumi-<version>/pulumi (get.pulumi.com is not reachable)
#   - the YAML language host, built the same way (tests/toolpins/pulumi-yaml) into
#     $CACHE_DIR/bin/pulumi-language-yaml-<version>/pulumi-language-yaml, and linked next to the
#     CLI (where the CLI looks for its bundled language hosts)
#   - a Python venv with moto[server] (tests/e2e/lab/moto/requirements.txt: every package pinned) in
#     $CACHE_DIR/venv-moto-<version>, whose bin/moto_server the tests start on loopback
#   - the real pulumi-kubernetes provider 4.25.0 (tests/toolpins/pulumi-kubernetes; ~24 min cold beside the CLI)
#   - the OCI registry (CNCF Distribution, tests/toolpins/registry; ~2.5 min cold) that serves the
#     Karpenter charts on loopback
#   - the real Karpenter controllers v1.15.2 (tests/toolpins/karpenter-1.15; ~10.5 min cold)
#     and v1.14.1 (tests/toolpins/karpenter-1.14; ~1.5 min cold after it, whose compiled packages it reuses;
#     not for `make demo`: E2E_DEPS_FOR=demo)
#   - the IAM policy simulator @cloud-copilot/iam-simulate (npm, tests/e2e/lab/iam-simulator) for the
#     check of the controller's AWS calls
#
# Each artifact is keyed by its pinned version (the directory name) and by a hash of what
# pins it (go.mod + go.sum + the tools module's *.go, or requirements.txt; toolpins/lib.sh), kept in a
# .source-sha256 file next to it:
# a pin change rebuilds, anything else is reused. Builds go to a temporary path and are
# moved into place only when complete, so an interrupted run never leaves a half artifact. The
# installs are independent and run two at a time (toolpins/lib.sh, run_jobs), each line prefixed with its
# name; a build says which of how many it is, what it is and its expected cold time.
#
# Prints, on success, the paths (and nothing else on stdout):
#   PULUMI=<path> PULUMI_LANGUAGE_YAML=<path> MOTO_SERVER=<path> KUBERNETES_PROVIDER=<path>
#   REGISTRY=<path> KARPENTER_CONTROLLER=<path>
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tests="$(dirname "$here")"
PYTHON="${PYTHON:-python3}"
LOG_PREFIX=install-e2e-deps
# shellcheck source=tests/toolpins/lib.sh
. "$tests/toolpins/lib.sh"

# go_tool NAME TOOLS_DIR PACKAGE VERSION LDFLAGS: go_tools for one command.
go_tool() { go_tools "$1" "$2" "$4" "$5" "$3"; }

# What to install: everything (`make e2e-deps`, `make test`), or what `make demo` runs
# (E2E_DEPS_FOR=demo: all but the previous Karpenter controller, which only the upgrade test runs).
E2E_DEPS_FOR="${E2E_DEPS_FOR:-all}"
case "$E2E_DEPS_FOR" in
  all | demo) ;;
  *) log "E2E_DEPS_FOR=$E2E_DEPS_FOR: want all or demo"; exit 1 ;;
esac

# The versions (pins) first: cheap, and every job below needs its own.
cli_dir="$tests/toolpins/pulumi-cli"
PULUMI_VERSION="$(module_version "$cli_dir" github.com/pulumi/pulumi/pkg/v3)"
sdk_version="$(module_version "$cli_dir" github.com/pulumi/pulumi/sdk/v3)"
if [ "$sdk_version" != "$PULUMI_VERSION" ]; then
  log "$cli_dir/go.mod: pkg/v3 $PULUMI_VERSION and sdk/v3 $sdk_version must be the same version"
  exit 1
fi
yaml_dir="$tests/toolpins/pulumi-yaml"
YAML_VERSION="$(module_version "$yaml_dir" github.com/pulumi/pulumi-yaml)"
reqs="$tests/e2e/lab/moto/requirements.txt"
MOTO_VERSION="$(sed -n 's/^moto\(\[[^]]*\]\)\{0,1\}==\([^ ;]*\).*$/\2/p' "$reqs")"
if [ -z "$MOTO_VERSION" ]; then
  log "$reqs pins no moto version"
  exit 1
fi
venv="$CACHE_DIR/venv-moto-$MOTO_VERSION"
# Its provider module, served only as the pseudo-version of the v4.25.0 tag; generate.go writes the
# two files its main embeds from the module zip's JSON before the build (tests/toolpins/pulumi-kubernetes).
k8s_provider_dir="$tests/toolpins/pulumi-kubernetes"
K8S_PROVIDER_VERSION=4.25.0
if ! grep -q "^// .*whose commit is the v$K8S_PROVIDER_VERSION" "$k8s_provider_dir/go.mod"; then
  log "$k8s_provider_dir/go.mod does not say its pin is v$K8S_PROVIDER_VERSION"
  exit 1
fi
K8S_PROVIDER="$CACHE_DIR/bin/pulumi-resource-kubernetes-v$K8S_PROVIDER_VERSION/pulumi-resource-kubernetes"
registry_dir="$tests/toolpins/registry"
REGISTRY_VERSION="$(module_version "$registry_dir" github.com/distribution/distribution/v3)"
karpenter_dir="$tests/toolpins/karpenter-1.15"
KARPENTER_VERSION="$(module_version "$karpenter_dir" github.com/aws/karpenter-provider-aws)"
core_version="$(awk '$1 == "sigs.k8s.io/karpenter" && $2 == "=>" { print $4 }' "$karpenter_dir/go.mod")"
KARPENTER_CONTROLLER="$CACHE_DIR/bin/karpenter-$KARPENTER_VERSION/controller"
previous_dir="$tests/toolpins/karpenter-1.14"
KARPENTER_PREVIOUS="$(module_version "$previous_dir" github.com/aws/karpenter-provider-aws)"
iam_dir="$tests/e2e/lab/iam-simulator"
IAM_SIMULATE_VERSION="$(sed -n 's/.*"@cloud-copilot\/iam-simulate": "\([0-9.]*\)".*/\1/p' "$iam_dir/package.json" | head -1)"
iam_out="$CACHE_DIR/iam-simulate-$IAM_SIMULATE_VERSION"

# The Pulumi CLI. The version stamp is the one the release build sets (pulumi's goreleaser);
# plugins' version ranges and `pulumi version` read it.
pulumi_cli() {
  go_tool pulumi "$cli_dir" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi "$PULUMI_VERSION" \
    "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION"
}

# The YAML language host.
yaml_host() {
  go_tool pulumi-language-yaml "$yaml_dir" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml \
    "$YAML_VERSION" "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=$YAML_VERSION"
}

# moto[server], in a venv.
moto_venv() {
  local key start
  key="$(source_key "$reqs")"
  if fresh "$venv" "$key" && [ -x "$venv/bin/moto_server" ]; then
    return
  fi
  log "creating $venv (moto[server] $MOTO_VERSION, every package pinned by $reqs)$(build_note)"
  start=$(date +%s)
  # A venv records its own path, so it is built in place (after removing any stale one).
  rm -rf "$venv"
  "$PYTHON" -m venv "$venv"
  # --no-deps: exactly the listed packages, nothing resolved afresh; pip check then proves
  # the list is complete and consistent.
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps -r "$reqs"
  "$venv/bin/pip" check --disable-pip-version-check >&2
  printf '%s\n' "$key" >"$venv/.source-sha256"
  log "moto venv created in $(( $(date +%s) - start ))s"
}

# The real pulumi-kubernetes provider.
kubernetes_provider() {
  PREBUILD="cd cmd/pulumi-resource-kubernetes && VERSION=$K8S_PROVIDER_VERSION GOWORK=off GOFLAGS=-mod=readonly go run generate.go" \
    go_tool pulumi-resource-kubernetes "$k8s_provider_dir" ./cmd/pulumi-resource-kubernetes "v$K8S_PROVIDER_VERSION" \
    "-s -w -X github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version=$K8S_PROVIDER_VERSION"
}

# The OCI registry serving the Karpenter charts.
registry() {
  go_tool registry "$registry_dir" github.com/distribution/distribution/v3/cmd/registry "$REGISTRY_VERSION" \
    "-s -w -X github.com/distribution/distribution/v3/version.version=$REGISTRY_VERSION"
}

# A Karpenter controller: karpenter_controller DIR VERSION.
karpenter_controller() {
  go_tool karpenter "$1" \
    github.com/aws/karpenter-provider-aws/cmd/controller "$2" "-s -w -X sigs.k8s.io/karpenter/pkg/operator.Version=${2#v}"
}

# The default release's controller, then (unless E2E_DEPS_FOR=demo) the previous release's, for the
# upgrade with a node running: one job, so the second finds the first's compiled packages (their
# modules pin the same dependency versions, tests/toolpins/karpenter-1.14).
karpenter_controllers() {
  karpenter_controller "$karpenter_dir" "$KARPENTER_VERSION"
  if [ "$E2E_DEPS_FOR" = all ]; then
    karpenter_controller "$previous_dir" "$KARPENTER_PREVIOUS"
  fi
}

# The IAM policy simulator (npm): @cloud-copilot/iam-simulate, pinned by
# tests/e2e/lab/iam-simulator/package-lock.json, installed with `npm ci` where the engine tests find
# it (NODE_PATH). A test tool only (AGPL-3.0): never shipped.
iam_simulator() {
  local key
  key="$(source_key "$iam_dir/package.json" "$iam_dir/package-lock.json")"
  if fresh "$iam_out" "$key" && [ -d "$iam_out/node_modules/@cloud-copilot/iam-simulate" ]; then
    return
  fi
  log "installing @cloud-copilot/iam-simulate $IAM_SIMULATE_VERSION into $iam_out$(build_note)"
  rm -rf "$iam_out.tmp"
  mkdir -p "$iam_out.tmp"
  cp "$iam_dir/package.json" "$iam_dir/package-lock.json" "$iam_out.tmp/"
  (cd "$iam_out.tmp" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >&2)
  printf '%s\n' "$key" >"$iam_out.tmp/.source-sha256"
  rm -rf "$iam_out"
  mv "$iam_out.tmp" "$iam_out"
}

# Longest first, two at a time (the cold times below were measured so, on the project's 2-core machines). The
# YAML host comes well after the CLI, whose compiled packages it reuses (toolpins/check-shared-pins.sh).
job pulumi-kubernetes "the real pulumi-kubernetes provider, ~24 min cold beside the others" kubernetes_provider
job pulumi "the Pulumi CLI, ~13 min cold beside the others" pulumi_cli
job karpenter "the Karpenter controllers $KARPENTER_VERSION and $KARPENTER_PREVIOUS, ~12 min cold" \
  karpenter_controllers
job registry "the OCI registry for the charts, ~2.5 min cold" registry
job pulumi-language-yaml "the YAML language host, ~1 min cold after the CLI" yaml_host
job moto "moto[server] in a venv, ~2 min cold" moto_venv
job iam-simulate "the IAM policy simulator, seconds" iam_simulator
run_jobs

# The CLI finds the YAML host as a bundled plugin: next to its own executable (symlinks resolved),
# as in a Pulumi release archive. (Not on PATH: the engine tests set PULUMI_IGNORE_AMBIENT_PLUGINS.)
# A relative link into the host's own versioned directory; re-pointed when the YAML pin changes.
link="$CACHE_DIR/bin/pulumi-$PULUMI_VERSION/pulumi-language-yaml"
target="../pulumi-language-yaml-$YAML_VERSION/pulumi-language-yaml"
if [ "$(readlink "$link" 2>/dev/null)" != "$target" ]; then
  ln -sfn "$target" "$link"
fi

PULUMI="$CACHE_DIR/bin/pulumi-$PULUMI_VERSION/pulumi"
PULUMI_LANGUAGE_YAML="$CACHE_DIR/bin/pulumi-language-yaml-$YAML_VERSION/pulumi-language-yaml"
MOTO_SERVER="$venv/bin/moto_server"
REGISTRY="$CACHE_DIR/bin/registry-$REGISTRY_VERSION/registry"
log "ok: pulumi $PULUMI_VERSION, pulumi-language-yaml $YAML_VERSION, moto $MOTO_VERSION," \
  "pulumi-resource-kubernetes $K8S_PROVIDER_VERSION, registry $REGISTRY_VERSION," \
  "karpenter controllers $KARPENTER_VERSION (core $core_version)$([ "$E2E_DEPS_FOR" = demo ] || echo " and $KARPENTER_PREVIOUS")," \
  "iam-simulate $IAM_SIMULATE_VERSION"
echo "PULUMI=$PULUMI PULUMI_LANGUAGE_YAML=$PULUMI_LANGUAGE_YAML MOTO_SERVER=$MOTO_SERVER" \
  "KUBERNETES_PROVIDER=$K8S_PROVIDER REGISTRY=$REGISTRY KARPENTER_CONTROLLER=$KARPENTER_CONTROLLER"
