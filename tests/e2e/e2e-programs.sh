#!/usr/bin/env bash
# The engine tests that run user programs from the packaged SDKs, two at a time: TestSDKPrograms
# (the SDK programs in each language), TestREADMESnippets (the README's snippets) and TestExamples
# (the Registry page's programs and the examples). Each waits mostly on the engine, npm, PyPI and
# its own worlds' API servers, so two together take little more than the longer one (~4-5 min each
# alone). Every line is prefixed with the test's name; the script fails, after all ended, if one
# failed.
#
# Run by `make e2e` (all), `make e2e-sdks` (sdk-programs), `make e2e-snippets` (snippets) and
# `make e2e-examples` (examples) from the repository root, with the environment E2E_ENV sets
# (PROVIDER_BIN, CACHE_DIR, GOWORK=off), SDK_DIST (the release's packages) and E2E_FLAGS (extra
# `go test` flags). Arguments: the jobs to run (default all).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tests/toolpins/lib.sh
source toolpins/lib.sh
LOG_PREFIX=e2e-programs
JOBS=2

sdk_programs() {
  (cd e2e/programs/go && go vet ./...)
  # shellcheck disable=SC2086 # E2E_FLAGS is a list of flags
  go test -tags e2e -count=1 -timeout 20m -run '^TestSDKPrograms$' ${E2E_FLAGS:-} ./e2e/
}

readme_snippets() {
  # shellcheck disable=SC2086
  go test -tags e2e -count=1 -timeout 30m -run '^TestREADMESnippets$' ${E2E_FLAGS:-} ./e2e/
}

examples() {
  # shellcheck disable=SC2086
  go test -tags e2e -count=1 -timeout 30m -run '^TestExamples$' ${E2E_FLAGS:-} ./e2e/
}

[ $# -gt 0 ] || set -- sdk-programs snippets examples
for name in "$@"; do
  case "$name" in
  sdk-programs) job sdk-programs "the examples' programs from the packaged SDKs, ~4 min" sdk_programs ;;
  snippets) job snippets "the README's snippets through the engine, ~4 min" readme_snippets ;;
  examples) job examples "the Registry page's programs and the examples through the engine, ~5 min" examples ;;
  *) log "unknown job $name (sdk-programs, snippets, examples)"; exit 2 ;;
  esac
done
run_jobs
