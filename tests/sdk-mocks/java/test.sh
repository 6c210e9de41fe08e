#!/usr/bin/env bash
# Proves sdk/java usable: Maven compiles the generated sources against the com.pulumi:pulumi
# version the generated build.gradle declares, and a JUnit test uses them with Pulumi's mocks.
# Usage: test.sh [deps]   (deps: only download what the test needs)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sdk=$(cd "$here/../../../sdk/java" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gradle_value() { sed -n "$1" "$sdk/$2" | head -n1; }
pulumi_java=$(gradle_value 's/.*"com\.pulumi:pulumi:\([^"]*\)".*/\1/p' build.gradle)
project=$(gradle_value 's/^rootProject\.name = "\(.*\)"$/\1/p' settings.gradle)
version=${PACKAGE_VERSION:-$(gradle_value 's/^ *? "\(.*\)"$/\1/p' build.gradle)}
plugin=$(gradle_value 's/^ *name "\(.*\)"$/\1/p' build.gradle)
: "${pulumi_java:?no com.pulumi:pulumi dependency in build.gradle}" "${project:?}" "${version:?}" "${plugin:?}"

mvn=(mvn -B -ntp -Dstyle.color=never -f "$here/pom.xml" -Dpulumi.java.version="$pulumi_java" -Dsdk.build="$work/target")
if [[ ${1:-} == deps ]]; then
	"${mvn[@]}" -q dependency:go-offline
	exit
fi

# What the generated build.gradle's genPulumiResources task puts on the classpath.
res="$work/resources/${project//.//}"
mkdir -p "$res"
printf '%s' "$version" >"$res/version.txt"
printf '{\n  "resource": true,\n  "name": "%s",\n  "version": "%s"\n}\n' "$plugin" "$version" >"$res/plugin.json"

"${mvn[@]}" -Dsdk.resources="$work/resources" test
