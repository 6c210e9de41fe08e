# shellcheck shell=bash
# Helpers shared by tests/harness/install-deps.sh and tests/e2e/install-e2e-deps.sh (sourced, not
# run; tests/e2e/e2e-programs.sh uses its job runner, check-shared-pins.sh its Go).
#
# Every heavy binary is built from a small tools module under tests/toolpins/<name> whose go.mod and
# go.sum are the pin, into $CACHE_DIR/bin/<name>-<version>/, with a hash of what pins it kept in a
# .source-sha256 file next to it: a pin change rebuilds, anything else is a no-op. Builds go to a
# temporary directory and are moved into place only when complete, so an interrupted run never
# leaves a half artifact.

CACHE_DIR="${CACHE_DIR:-$HOME/.cache/pulumi-karpenter}"

log() { echo "${LOG_PREFIX:-install}: $*" >&2; }

# Independent installs run as jobs, JOBS at a time (default 2, the machines' cores: a cold Go build
# leaves a core idle while it downloads modules or links, which another build then uses). Each
# job's lines are printed as they come, prefixed with its name; run_jobs fails, after every job has
# ended, if one failed. A job is a shell function and its arguments, with what it installs and its
# expected cold time: a job that builds says so with build_note ("k of N: what, ~time cold").
JOBS="${JOBS:-2}"
job_names=()
job_cmds=()
job_notes=()

# job NAME NOTE FUNCTION [ARG...]: adds a job; NOTE says what it installs and its cold time.
job() {
  local name="$1" note="$2"
  shift 2
  job_names+=("$name")
  job_notes+=("$note")
  job_cmds+=("$(printf '%q ' "$@")")
}

# build_note: what the running job installs, for its "building" line (empty outside a job).
build_note() { [ -z "${JOB_NOTE:-}" ] || printf ' (%s)' "$JOB_NOTE"; }

# run_jobs: runs the added jobs and clears the list. Call it as a plain command, never in a
# condition (if, ||, &&): there bash ignores set -e inside the jobs, even where they set it. Each job
# runs under set -e in a subshell of its own; its status is written to a file, so wait's
# bookkeeping never decides success.
run_jobs() {
  local dir i n=${#job_names[@]} failed=() status start
  dir="$(mktemp -d)"
  start=$(date +%s)
  for i in "${!job_names[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
      wait -n || true
    done
    (
      set +e
      (
        set -e
        export JOB_NOTE="$((i + 1)) of $n: ${job_notes[$i]}"
        eval "${job_cmds[$i]}"
      )
      echo $? >"$dir/$i.status"
    ) 2>&1 | sed -u "s/^/[${job_names[$i]}] /" >&2 &
  done
  wait
  for i in "${!job_names[@]}"; do
    # No status (a job killed, or a full disk that took its status file): a failure.
    status="$(cat "$dir/$i.status" 2>/dev/null || true)"
    status="${status:-unknown}"
    if [ "$status" != 0 ]; then
      failed+=("${job_names[$i]} (exit $status)")
    fi
  done
  rm -rf "$dir"
  job_names=()
  job_cmds=()
  job_notes=()
  if [ ${#failed[@]} -gt 0 ]; then
    log "failed, of $n: ${failed[*]}"
    return 1
  fi
  if [ $(( $(date +%s) - start )) -gt 5 ]; then
    log "$n job$([ "$n" -eq 1 ] || echo s) done in $(( $(date +%s) - start ))s, $JOBS at a time"
  fi
}

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

# GO_TOOLCHAIN and GO_GCFLAGS: the one Go and the one compiler flag of every Go build, the
# project's (the Makefile reads both from here) and the pinned tools' (go_tools below). The build
# cache keys a compiled package by its source, its dependencies, the toolchain and the flags, so a
# package two builds compile at one version (check-shared-pins.sh) is compiled once on a cold
# machine only when both agree on these too.
# - go1.27.3: the 1.15.2 controller's module needs Go 1.26.11 or newer and the machines have 1.26.8
#   (a one-time ~76 MB download into the module cache).
# - all=-l, no inlining: the compiler does about a quarter less work (the registry alone, cold on
#   2 cores: 131 s with the default flags, 96 s with -l) and the program is the same; the binaries
#   run a little slower, which no check notices. The plugin archives a release publishes keep the
#   default flags (mk/release.mk, release-publish-plugin).
# shellcheck disable=SC2034 # used by the scripts that source this file
GO_TOOLCHAIN=go1.27.3
# shellcheck disable=SC2034
GO_GCFLAGS="all=-l"

# go_tools NAME DIR VERSION LDFLAGS PACKAGE...: builds the main PACKAGEs of the tools module DIR
# with one `go build` (several commands of one module share their compiled packages) into
# $CACHE_DIR/bin/NAME-VERSION/, each binary named after its package's last element, unless they
# are there already from the same go.mod, go.sum and *.go files of DIR. -mod=readonly: the
# committed go.mod/go.sum are the pin; a missing go.sum entry fails the build instead of silently
# resolving something new. GO_TOOLCHAIN and GO_GCFLAGS (above) are the Go and the flags;
# PREBUILD, if set, is a command run in DIR before a build. The key is the pins only: the toolchain
# and flags change how the compiler works, not what the program does, and rebuild nothing already
# built.
go_tools() {
  local name="$1" dir="$2" version="$3" ldflags="$4"
  shift 4
  local out="$CACHE_DIR/bin/$name-$version" key start pkg missing="" sources
  mapfile -t sources < <(find "$dir" -name "*.go" | sort)
  key="$(source_key "$dir/go.mod" "$dir/go.sum" "${sources[@]}")"
  for pkg in "$@"; do
    [ -x "$out/$(basename "$pkg")" ] || missing=1
  done
  if fresh "$out" "$key" && [ -z "$missing" ]; then
    return
  fi
  log "building $name $version into $out$(build_note)"
  if [ -n "${PREBUILD:-}" ]; then
    (cd "$dir" && eval "$PREBUILD")
  fi
  rm -rf "$out.tmp"
  mkdir -p "$out.tmp"
  start=$(date +%s)
  (cd "$dir" && GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0 GOTOOLCHAIN="$GO_TOOLCHAIN" \
    go build -trimpath -ldflags "$ldflags" -gcflags "$GO_GCFLAGS" -o "$out.tmp/" "$@")
  printf '%s\n' "$key" >"$out.tmp/.source-sha256"
  rm -rf "$out"
  mv "$out.tmp" "$out"
  log "$name $version built in $(( $(date +%s) - start ))s ($(du -sh "$out" | cut -f1))"
}

# module_dir MODULE@VERSION: downloads a module zip into the Go module cache (a no-op, no network,
# once cached) and prints its directory; from outside any module, so no go.mod or go.sum is
# consulted or touched.
#
# From Karpenter 1.14.2 on, the module's go directive can be newer than the local toolchain
# (1.15.2 says go 1.26.11). With GOTOOLCHAIN=local, `go mod download` then exits 1 with
# "requires go >= ..." and prints no "Dir", although it has downloaded, verified (sumdb) and
# extracted the zip. That one error is tolerated when the extracted directory exists (derived
# from "Zip": $GOMODCACHE/cache/download/<path>/@v/<version>.zip -> $GOMODCACHE/<path>@<version>);
# the callers then check the directory holds what they need. Any other error (403, not found,
# checksum mismatch) is printed and fails.
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
