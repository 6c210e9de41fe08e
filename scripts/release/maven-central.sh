#!/usr/bin/env bash
# Publishes the Java SDK to Maven Central through the Central Portal's Publisher API.
#
#   maven-central.sh bundle <java-dir> <version> <bundle.zip>
#       Signs the jar, sources and javadoc jars and POM that package-sdks.sh built in <java-dir>
#       (gpg, ASCII-armoured detached signatures), adds the .md5/.sha1 checksums Central
#       requires, and zips them in the Maven repository layout. The key: MAVEN_GPG_PRIVATE_KEY
#       (an armoured secret key) and MAVEN_GPG_PASSPHRASE, imported into a throwaway GNUPGHOME.
#   maven-central.sh throwaway-key
#       Prints a new armoured secret key without passphrase, for a dry run's bundle.
#   maven-central.sh upload <bundle.zip>
#       Uploads the bundle (publishingType AUTOMATIC: Central validates, then publishes) with the
#       Portal user token MAVEN_CENTRAL_USERNAME / MAVEN_CENTRAL_PASSWORD, and waits until Central
#       reports it publishing or published; fails with Central's errors otherwise.
#
# The release workflow runs bundle and upload; `make release-dry-run` runs bundle with a
# throwaway key, so the bundle's layout and signatures are checked before a tag is pushed.
set -euo pipefail

GROUP=io.github.pulumikarpenter
ARTIFACT=karpenter
CENTRAL_API=${CENTRAL_API:-https://central.sonatype.com/api/v1/publisher}
# How long to wait for Central's validation (it usually takes a few minutes).
CENTRAL_WAIT_SECONDS=${CENTRAL_WAIT_SECONDS:-1800}

log() { echo "maven-central: $*" >&2; }
die() { log "$*"; exit 1; }
# A GNUPGHOME of our own, removed on exit with the gpg-agent gpg starts in it.
gnupg_home() {
	GNUPGHOME=$(mktemp -d)
	export GNUPGHOME
	# shellcheck disable=SC2064 # expand now: the path is this run's
	trap "gpgconf --kill gpg-agent 2>/dev/null || true; rm -rf '$GNUPGHOME'" EXIT
}

throwaway_key() {
	gnupg_home
	gpg --batch --quiet --passphrase '' --quick-gen-key "pulumi-karpenter release dry run <dry-run@invalid>" ed25519 sign 1d
	gpg --batch --armor --export-secret-keys
}

bundle() {
	local dir=${1:?usage: bundle <java-dir> <version> <bundle.zip>} version=${2:?} zip=${3:?}
	: "${MAVEN_GPG_PRIVATE_KEY:?MAVEN_GPG_PRIVATE_KEY: the armoured secret key that signs the artifacts}"
	: "${MAVEN_GPG_PASSPHRASE?MAVEN_GPG_PASSPHRASE: its passphrase (may be empty)}"
	local path f
	gnupg_home
	gpg --batch --quiet --import <<<"$MAVEN_GPG_PRIVATE_KEY"

	# The bundle's tree, in the Maven repository layout (GNUPGHOME goes with it on exit).
	work=$GNUPGHOME/bundle
	path=$work/${GROUP//.//}/$ARTIFACT/$version
	mkdir -p "$path"
	for f in "$ARTIFACT-$version.jar" "$ARTIFACT-$version-sources.jar" "$ARTIFACT-$version-javadoc.jar" "$ARTIFACT-$version.pom"; do
		[ -f "$dir/$f" ] || die "$dir/$f is missing (make release-dry-run builds it)"
		cp "$dir/$f" "$path/"
		gpg --batch --quiet --yes --pinentry-mode loopback --passphrase-fd 0 \
			--armor --detach-sign --output "$path/$f.asc" "$path/$f" <<<"$MAVEN_GPG_PASSPHRASE"
		gpg --batch --quiet --verify "$path/$f.asc" "$path/$f" 2>/dev/null || die "$f: the signature does not verify"
		md5sum "$path/$f" | cut -d' ' -f1 | tr -d '\n' >"$path/$f.md5"
		sha1sum "$path/$f" | cut -d' ' -f1 | tr -d '\n' >"$path/$f.sha1"
	done
	mkdir -p "$(dirname "$zip")"
	rm -f "$zip"
	zip="$(cd "$(dirname "$zip")" && pwd)/$(basename "$zip")"
	# Python's zipfile rather than zip(1): python3 is on every machine that builds a release.
	(cd "$work" && python3 -m zipfile -c "$zip" io)
	log "$zip: $GROUP:$ARTIFACT:$version, 4 files signed and checksummed"
}

# state <deployment-id>: Central's deploymentState of the deployment (and its errors, on stderr).
state() {
	curl -sS --fail-with-body -X POST -H "Authorization: Bearer $auth" "$CENTRAL_API/status?id=$1" |
		python3 -c 'import json, sys
d = json.load(sys.stdin)
if d.get("errors"):
    print(json.dumps(d["errors"], indent=2), file=sys.stderr)
print(d["deploymentState"])'
}

upload() {
	local zip=${1:?usage: upload <bundle.zip>} id s waited=0
	: "${MAVEN_CENTRAL_USERNAME:?MAVEN_CENTRAL_USERNAME: the Central Portal user token name}"
	: "${MAVEN_CENTRAL_PASSWORD:?MAVEN_CENTRAL_PASSWORD: the Central Portal user token password}"
	auth=$(printf '%s:%s' "$MAVEN_CENTRAL_USERNAME" "$MAVEN_CENTRAL_PASSWORD" | base64 | tr -d '\n')
	id=$(curl -sS --fail-with-body -H "Authorization: Bearer $auth" \
		-F "bundle=@$zip;type=application/octet-stream" \
		"$CENTRAL_API/upload?publishingType=AUTOMATIC&name=$(basename "$zip" .zip)") ||
		die "upload of $(basename "$zip") refused: ${id:-no answer}"
	log "uploaded $(basename "$zip"): deployment $id"
	while :; do
		s=$(state "$id")
		case $s in
			PUBLISHING | PUBLISHED)
				log "deployment $id: $s (validated; Maven Central serves it within about 30 minutes)"
				return ;;
			FAILED)
				die "deployment $id: FAILED (errors above)" ;;
		esac
		((waited < CENTRAL_WAIT_SECONDS)) || die "deployment $id: still $s after ${CENTRAL_WAIT_SECONDS}s"
		sleep 10
		waited=$((waited + 10))
	done
}

case ${1:-} in
	bundle) shift; bundle "$@" ;;
	throwaway-key) throwaway_key ;;
	upload) shift; upload "$@" ;;
	*) die "usage: maven-central.sh bundle <java-dir> <version> <bundle.zip> | upload <bundle.zip> | throwaway-key" ;;
esac
