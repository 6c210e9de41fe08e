#!/usr/bin/env bash
# Proves sdk/python usable: installs the generated package into the test virtualenv (which has
# `pulumi` from PyPI) and runs the pytest suite that uses it with Pulumi's mocks.
# Usage: test.sh VENV
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
venv=${1:?usage: test.sh VENV}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Build from a copy: setuptools writes build/ and *.egg-info next to the sources.
cp -R "$root/sdk/python" "$work/python"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --no-build-isolation \
	--force-reinstall "$work/python"
# The SDK's declared dependencies must be satisfied by the pinned environment.
"$venv/bin/pip" check
cd "$here" && "$venv/bin/python" -m pytest -p no:cacheprovider -q
