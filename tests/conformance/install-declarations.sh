#!/usr/bin/env bash
# Fetches the published TypeScript declarations (*.d.ts) of the providers the component's
# children are checked against, idempotently; a no-op when cached:
#   @pulumi/aws 6.83.2 (the version the children are registered at) and 7.48.0 (current v7),
#   @pulumi/kubernetes 4.30.0 (registered) and 4.34.2 (current 4.x).
# Each package is `npm pack`ed (no install scripts run, no dependencies fetched) and only its
# *.d.ts files and package.json are kept, in $CACHE_DIR/conformance/<name>-<version>/package/.
# Nothing is written into the repository.
set -euo pipefail

CACHE_DIR="${CACHE_DIR:-$HOME/.cache/pulumi-karpenter}"
# Keep in step with tests/conformance/versions.go.
PACKAGES="${CONFORMANCE_PACKAGES:-@pulumi/aws@6.83.2 @pulumi/aws@7.48.0 @pulumi/kubernetes@4.30.0 @pulumi/kubernetes@4.34.2}"
root="$CACHE_DIR/conformance"

log() { echo "install-declarations: $*" >&2; }

for spec in $PACKAGES; do
  name="${spec%@*}"     # @pulumi/aws
  version="${spec##*@}" # 6.83.2
  short="${name#@pulumi/}"
  dest="$root/$short-$version"
  if [ -f "$dest/.complete" ]; then
    continue
  fi
  command -v npm >/dev/null 2>&1 || { log "npm is required to fetch $spec"; exit 1; }
  log "fetching $spec declarations into $dest"
  mkdir -p "$root"
  tmp="$(mktemp -d "$root/.tmp.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent --ignore-scripts "$spec" >pack.out)
  tgz="$tmp/$(tail -n1 "$tmp/pack.out")"
  mkdir -p "$tmp/x"
  tar -xzf "$tgz" -C "$tmp/x" --wildcards 'package/*.d.ts' 'package/package.json'
  got="$(sed -n 's/^[[:space:]]*"version": "\(.*\)",*$/\1/p' "$tmp/x/package/package.json" | head -n1)"
  if [ "$got" != "$version" ]; then
    log "$spec: the packed package.json says version $got"
    exit 1
  fi
  rm -rf "$dest"
  mv "$tmp/x" "$dest"
  touch "$dest/.complete"
  rm -rf "$tmp"
  trap - EXIT
done
