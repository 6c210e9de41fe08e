#!/usr/bin/env bash
# Type-checks examples/python with mypy --strict against the generated sdk/python and the pinned
# pulumi, pulumi-aws, pulumi-awsx, pulumi-eks and pulumi-kubernetes of the example's
# requirements.txt (every transitive version pinned by tests/docs-code/python/constraints.txt).
#
# Usage: python.sh [deps]   (deps: only create the virtualenv)
# PROGRAM=file checks that file in place of the example's __main__.py (the docs' example); PROGRAM
# may name several files, space-separated, with distinct names (valid module names): one mypy run.
#
# The virtualenv lives in $CACHE_DIR, keyed by the requirements. The SDK is installed from a
# copy (setuptools writes build files next to the sources), as `pulumi install` would install
# the SDK it generates for the Pulumi.yaml `packages:` entry.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
example=$root/examples/python
constraints=$root/tests/docs-code/python/constraints.txt
key=$(cat "$example/requirements.txt" "$constraints" | sha256sum | cut -c1-16)
venv=${CACHE_DIR:?}/examples/python-$key
pip=("$venv/bin/pip" --disable-pip-version-check --quiet)

if [[ ! -f $venv/.installed ]]; then
	rm -rf "${venv%-*}"-* # older requirements' environments too
	python3 -m venv "$venv"
	"${pip[@]}" install -r "$example/requirements.txt" -c "$constraints" mypy setuptools
	touch "$venv/.installed"
fi
[[ ${1:-} == deps ]] && exit 0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$root/sdk/python" "$work/sdk"
"${pip[@]}" install --no-deps --no-build-isolation --force-reinstall "$work/sdk"
"$venv/bin/pip" check
program=${PROGRAM:-$example/__main__.py}
read -ra programs <<<"$program"
"$venv/bin/mypy" --strict --cache-dir "$venv/.mypy_cache" "${programs[@]}"
echo "$program: mypy --strict passed"
