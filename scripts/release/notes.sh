#!/usr/bin/env bash
# Prints a release's notes: the `## [<version>]` section of CHANGELOG.md, without its heading.
# The release workflow publishes them as the GitHub release's notes, so a tag whose version has
# no section (or an empty one) fails before anything is published.
# Usage: scripts/release/notes.sh [--unreleased] <version>
#   --unreleased: fall back to the `## [Unreleased]` section (the dry run, for versions not yet
#                 written down).
set -euo pipefail
unreleased=false
if [ "${1:-}" = --unreleased ]; then unreleased=true; shift; fi
version=${1:?usage: notes.sh [--unreleased] <version>}
changelog="$(dirname "$0")/../../CHANGELOG.md"

section() { # the body of `## [$1]`, up to the next `## ` heading
	awk -v want="## [$1]" '
		index($0, want) == 1 { on = 1; next }
		on && /^## / { exit }
		on { print }' "$changelog" | sed -e '/./,$!d'
}

notes=$(section "$version")
if [ -z "$(tr -d '[:space:]' <<<"$notes")" ] && $unreleased; then
	notes=$(section Unreleased)
fi
if [ -z "$(tr -d '[:space:]' <<<"$notes")" ]; then
	echo "notes.sh: CHANGELOG.md has no notes for $version (a '## [$version]' section)" >&2
	exit 1
fi
printf '%s\n' "$notes"
