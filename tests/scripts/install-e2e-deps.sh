#!/usr/bin/env bash
# Installs what the engine tests (tests/e2e) need, idempotently; a no-op when everything is cached:
#   - the Pulumi CLI, built from the Go module proxy (tests/tools/pulumi-cli) into
#     $CACHE_DIR/bin/pulumi-<version>/pulumi (get.pulumi.com is not reachable)
#   - the YAML language host, built the same way (tests/tools/pulumi-yaml) into
#     $CACHE_DIR/bin/pulumi-language-yaml-<version>/pulumi-language-yaml, and linked next to the
#     CLI (where the CLI looks for its bundled language hosts)
#   - a Python venv with moto[server] (tests/e2e/requirements.txt: every package pinned) in
#     $CACHE_DIR/venv-moto-<version>, whose bin/moto_server the tests start on loopback
#
# Each artifact is keyed by its pinned version (the directory name) and by a hash of what
# pins it (go.mod + go.sum, or requirements.txt), kept in a .source-sha256 file next to it:
# a pin change rebuilds, anything else is reused. Builds go to a temporary path and are
# moved into place only when complete, so an interrupted run never leaves a half artifact.
#
# Prints, on success, the three paths (and nothing else on stdout):
#   PULUMI=<path> PULUMI_LANGUAGE_YAML=<path> MOTO_SERVER=<path>
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tests="$(dirname "$here")"
CACHE_DIR="${CACHE_DIR:-$HOME/.cache/pulumi-karpenter}"
PYTHON="${PYTHON:-python3}"

log() { echo "install-e2e-deps: $*" >&2; }

# module_version DIR MODULE: the version DIR/go.mod requires MODULE at (the pin).
module_version() {
  local v
  v="$(awk -v m="$2" '$1 == m { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' "$1/go.mod")"
  if [ -z "$v" ]; then
    log "$1/go.mod does not require $2"
    return 1
  fi
  printf '%s\n' "$v"
}
# source_key FILE...: what a cached artifact was built from.
source_key() { cat "$@" | sha256sum | cut -d' ' -f1; }
# fresh DIR KEY: DIR holds an artifact built from KEY.
fresh() { [ -f "$1/.source-sha256" ] && [ "$(cat "$1/.source-sha256")" = "$2" ]; }

# go_tool NAME TOOLS_DIR PACKAGE VERSION LDFLAGS: builds PACKAGE of the tools module TOOLS_DIR
# into $CACHE_DIR/bin/NAME-VERSION/NAME unless it is already there from the same go.mod/go.sum.
# -mod=readonly: the committed go.mod/go.sum are the pin; a missing go.sum entry fails the
# build instead of silently resolving something new.
go_tool() {
  local name="$1" dir="$2" pkg="$3" version="$4" ldflags="$5"
  local out="$CACHE_DIR/bin/$name-$version" key start
  key="$(source_key "$dir/go.mod" "$dir/go.sum")"
  if fresh "$out" "$key" && [ -x "$out/$name" ]; then
    return
  fi
  log "building $name $version into $out (cold: several minutes)"
  rm -rf "$out.tmp"
  mkdir -p "$out.tmp"
  start=$(date +%s)
  (cd "$dir" && GOWORK=off GOFLAGS=-mod=readonly go build -trimpath -ldflags "$ldflags" \
    -o "$out.tmp/$name" "$pkg")
  printf '%s\n' "$key" >"$out.tmp/.source-sha256"
  rm -rf "$out"
  mv "$out.tmp" "$out"
  log "$name $version built in $(( $(date +%s) - start ))s ($(du -h "$out/$name" | cut -f1))"
}

# Pulumi CLI ---------------------------------------------------------------------------------
cli_dir="$tests/tools/pulumi-cli"
PULUMI_VERSION="$(module_version "$cli_dir" github.com/pulumi/pulumi/pkg/v3)"
sdk_version="$(module_version "$cli_dir" github.com/pulumi/pulumi/sdk/v3)"
if [ "$sdk_version" != "$PULUMI_VERSION" ]; then
  log "$cli_dir/go.mod: pkg/v3 $PULUMI_VERSION and sdk/v3 $sdk_version must be the same version"
  exit 1
fi
# The version stamp the release build sets (pulumi's goreleaser); plugins' version ranges and
# `pulumi version` read it.
go_tool pulumi "$cli_dir" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi "$PULUMI_VERSION" \
  "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION"

# YAML language host ------------------------------------------------------------------------
yaml_dir="$tests/tools/pulumi-yaml"
YAML_VERSION="$(module_version "$yaml_dir" github.com/pulumi/pulumi-yaml)"
go_tool pulumi-language-yaml "$yaml_dir" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml \
  "$YAML_VERSION" "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=$YAML_VERSION"

# The CLI finds the YAML host as a bundled plugin: next to its own executable (symlinks resolved),
# as in a Pulumi release archive. (Not on PATH: the engine tests set PULUMI_IGNORE_AMBIENT_PLUGINS.)
# A relative link into the host's own versioned directory; re-pointed when the YAML pin changes.
link="$CACHE_DIR/bin/pulumi-$PULUMI_VERSION/pulumi-language-yaml"
target="../pulumi-language-yaml-$YAML_VERSION/pulumi-language-yaml"
if [ "$(readlink "$link" 2>/dev/null)" != "$target" ]; then
  ln -sfn "$target" "$link"
fi

# moto[server] ------------------------------------------------------------------------------
reqs="$tests/e2e/requirements.txt"
MOTO_VERSION="$(sed -n 's/^moto\(\[[^]]*\]\)\{0,1\}==\([^ ;]*\).*$/\2/p' "$reqs")"
if [ -z "$MOTO_VERSION" ]; then
  log "$reqs pins no moto version"
  exit 1
fi
venv="$CACHE_DIR/venv-moto-$MOTO_VERSION"
key="$(source_key "$reqs")"
if ! { fresh "$venv" "$key" && [ -x "$venv/bin/moto_server" ]; }; then
  log "creating $venv (moto[server] $MOTO_VERSION, every package pinned by $reqs)"
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
fi

PULUMI="$CACHE_DIR/bin/pulumi-$PULUMI_VERSION/pulumi"
PULUMI_LANGUAGE_YAML="$CACHE_DIR/bin/pulumi-language-yaml-$YAML_VERSION/pulumi-language-yaml"
MOTO_SERVER="$venv/bin/moto_server"
log "ok: pulumi $PULUMI_VERSION, pulumi-language-yaml $YAML_VERSION, moto $MOTO_VERSION"
echo "PULUMI=$PULUMI PULUMI_LANGUAGE_YAML=$PULUMI_LANGUAGE_YAML MOTO_SERVER=$MOTO_SERVER"
