#!/usr/bin/env bash
# The job runner of lib.sh (run_jobs): jobs run at most JOBS at a time, every job runs to its end,
# and the run fails when a job's command fails, even one in the middle of the job.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE_DIR="$(mktemp -d)"
trap 'rm -rf "$CACHE_DIR"' EXIT
LOG_PREFIX=lib_test
# shellcheck source=tests/toolpins/lib.sh
. "$here/lib.sh"

fail() { echo "lib_test: $*" >&2; exit 1; }

# sleeper NAME: a second, recording how many jobs were running when it started.
sleeper() {
  mkdir "$CACHE_DIR/running-$1"
  find "$CACHE_DIR" -maxdepth 1 -name 'running-*' | wc -l >"$CACHE_DIR/seen-$1"
  sleep 1
  rmdir "$CACHE_DIR/running-$1"
  touch "$CACHE_DIR/done-$1"
}
# broken: fails in its middle; what follows must not run.
broken() {
  false
  touch "$CACHE_DIR/after-failure"
}

JOBS=2
for n in a b c d; do job "$n" "a sleeper" sleeper "$n"; done
run_jobs 2>/dev/null
most=0
for n in a b c d; do
  [ -f "$CACHE_DIR/done-$n" ] || fail "job $n did not run"
  seen=$(cat "$CACHE_DIR/seen-$n")
  [ "$seen" -le 2 ] || fail "job $n saw $seen jobs running, JOBS=2"
  [ "$seen" -le "$most" ] || most=$seen
done
# Each job runs a second: the second starts while the first runs.
[ "$most" -eq 2 ] || fail "no two jobs ran at once, JOBS=2"

job one "a sleeper" sleeper e
job two "a failing job" broken
job three "a sleeper" sleeper f
set +e
(run_jobs 2>"$CACHE_DIR/log")
status=$?
set -e
[ "$status" -ne 0 ] || fail "run_jobs passed with a failing job"
[ ! -e "$CACHE_DIR/after-failure" ] || fail "the failing job went on after its failed command"
for n in e f; do
  [ -f "$CACHE_DIR/done-$n" ] || fail "job $n did not run to its end beside the failing one"
done
grep -q "failed, of 3: two (exit 1)" "$CACHE_DIR/log" || fail "the failure is not named: $(cat "$CACHE_DIR/log")"
echo "lib_test: run_jobs ran 4 jobs, 2 at a time, and failed naming the job whose command failed"
