#!/usr/bin/env bash
# Builds the SDK packages a release publishes from a version-stamped SDK tree (make sdks
# SDK_VERSION=<version> SDK_OUT=<sdk-dir>), into <out-dir>:
#   npm/      the npm tarball of sdk/nodejs (tsc-built, laid out as Pulumi's providers publish it)
#   python/   the wheel and sdist of sdk/python
#   java/     karpenter-<version>.jar, -sources.jar, -javadoc.jar and .pom (Maven Central's set)
#   nuget/    the .nupkg of sdk/dotnet, only where `dotnet` is on PATH (otherwise says so)
# Everything is written under <sdk-dir> and <out-dir>; the committed sdk/ is never touched.
#
# Usage: package-sdks.sh <sdk-dir> <out-dir>
# Environment (make release-dry-run sets them):
#   NODE_MODULES  a node_modules with typescript, @types/node and @pulumi/pulumi (tests/sdk-mocks/nodejs's)
#   PYTHON        a python with build, setuptools and twine (scripts/release/requirements.txt)
set -euo pipefail

sdk=${1:?usage: package-sdks.sh <sdk-dir> <out-dir>}
out=${2:?usage: package-sdks.sh <sdk-dir> <out-dir>}
: "${NODE_MODULES:?NODE_MODULES: a node_modules with typescript and @pulumi/pulumi}"
: "${PYTHON:?PYTHON: the release Python (scripts/release/requirements.txt)}"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sdk=$(cd "$sdk" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

log() { echo "package-sdks: $*" >&2; }
# names FILE...: the files' base names, for the log.
names() { local f; for f in "$@"; do printf '%s ' "${f##*/}"; done; }

# --- npm ---------------------------------------------------------------------------------------
# As Pulumi's providers publish: tsc compiles into bin/ (the SDK's own tsconfig), package.json
# and the README go next to the output, and the package is packed from bin/.
pack_npm() {
	local dir=$sdk/nodejs
	ln -sfn "$NODE_MODULES" "$dir/node_modules"
	"$NODE_MODULES/.bin/tsc" -p "$dir"
	rm "$dir/node_modules"
	cp "$dir/package.json" "$dir/README.md" "$root/LICENSE" "$dir/bin/"
	mkdir -p "$out/npm"
	(cd "$dir/bin" && npm pack --silent --pack-destination "$out/npm" >/dev/null)
	log "npm: $(names "$out/npm"/*.tgz)"
}

# --- PyPI --------------------------------------------------------------------------------------
# The sdist first, then the wheel built from it (python -m build's default), so the sdist is
# proven complete; no build isolation: the pinned setuptools of $PYTHON builds both. twine
# check --strict rejects what PyPI would (metadata, README rendering).
pack_python() {
	local dir=$sdk/python
	cp "$root/LICENSE" "$dir/"
	"$PYTHON" -m build --no-isolation --outdir "$out/python" "$dir" >/dev/null
	"$PYTHON" -m twine check --strict "$out/python"/*
	log "python: $(names "$out/python"/*)"
}

# --- Maven Central -----------------------------------------------------------------------------
# What the generated build.gradle's publication would publish, built with Maven
# (scripts/release/java/pom.xml says why): every value comes from build.gradle/settings.gradle.
pack_java() {
	local dir=$sdk/java work version project plugin server description pulumi gson jsr305 res
	gradle() { sed -n "$1" "$dir/${2:-build.gradle}" | head -n1; }
	dependency() { gradle 's/.*implementation("'"$1"':\([^"]*\)").*/\1/p'; }
	# The stamped default of resolvedVersion; PACKAGE_VERSION, which would override it in Gradle,
	# plays no part here.
	version=$(gradle 's/^ *? "\(.*\)"$/\1/p')
	project=$(gradle 's/^rootProject\.name = "\(.*\)"$/\1/p' settings.gradle)
	plugin=$(gradle 's/^ *name "\(.*\)"$/\1/p')
	server=$(gradle 's/^ *server "\(.*\)"$/\1/p')
	description=$(gradle 's/^ *description = "\(.*\)"$/\1/p')
	pulumi=$(dependency com.pulumi:pulumi)
	gson=$(dependency com.google.code.gson:gson)
	jsr305=$(dependency com.google.code.findbugs:jsr305)
	: "${version:?}" "${project:?}" "${plugin:?}" "${server:?}" "${description:?}" "${pulumi:?}" "${gson:?}" "${jsr305:?}"

	# genPulumiResources: version.txt and plugin.json under the project name as a path. Maven
	# builds in the stamped tree's target/, like tsc, setuptools and dotnet in theirs.
	work=$dir/target
	res=$work/pulumi-resources/${project//.//}
	mkdir -p "$res"
	printf '%s' "$version" >"$res/version.txt"
	printf '{\n    "resource": true,\n    "name": "%s",\n    "server": "%s",\n    "version": "%s"\n}\n' \
		"$plugin" "$server" "$version" >"$res/plugin.json"

	mvn -B -q -ntp -Dstyle.color=never -f "$here/java/pom.xml" \
		-Drevision="$version" -Dsdk.description="$description" \
		-Dsdk.sources="$dir/src/main/java" -Dsdk.resources="$work/pulumi-resources" -Dsdk.build="$work" \
		-Dpulumi.java.version="$pulumi" -Dgson.version="$gson" -Djsr305.version="$jsr305" \
		package
	local name=karpenter-$version
	mkdir -p "$out/java"
	cp "$work/$name.jar" "$work/$name-sources.jar" "$work/$name-javadoc.jar" "$out/java/"
	cp "$work/published.pom" "$out/java/$name.pom"
	log "java: $(names "$out/java"/*.jar "$out/java"/*.pom)"
}

# --- NuGet -------------------------------------------------------------------------------------
# The project's machines have no .NET toolchain: there the .nupkg is skipped, loudly. The release
# workflow installs .NET, and its upload step fails when no .nupkg was built.
pack_nuget() {
	if ! command -v dotnet >/dev/null; then
		log "nuget: SKIPPED, dotnet is not on PATH (no .nupkg built)"
		return
	fi
	dotnet pack "$sdk/dotnet" --nologo -c Release -o "$out/nuget"
	log "nuget: $(names "$out/nuget"/*.nupkg)"
}

pack_npm
pack_python
pack_java
pack_nuget
