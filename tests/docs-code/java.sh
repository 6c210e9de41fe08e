#!/usr/bin/env bash
# Compiles examples/java (javac -Werror) with Maven against the generated sdk/java and
# com.pulumi:pulumi, com.pulumi:aws and com.pulumi:kubernetes from Maven Central.
#
# Usage: java.sh [deps]   (deps: only download what the check needs)
# PROGRAM="entry..." compiles each entry in turn, in place of the example's sources, with the
# example's pom.xml: a directory's src/main/java (the documentation's Java programs:
# tests/docs-code/docs.sh), or one .java file, placed by its package (the schema's Example Usage
# programs: tests/docs-code/schema.sh). The SDK is installed once for all of them.
#
# The SDK is built from sdk/java and installed, as io.github.pulumikarpenter:karpenter at the
# version the example's pom.xml names, into a Maven repository of the check's own in
# $CACHE_DIR: the example's pom.xml is compiled unchanged, and no locally built SDK ever lands
# in ~/.m2 under a release's version.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
example=$root/examples/java
sdk=$root/sdk/java
repo=${CACHE_DIR:?}/examples/m2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

version=$(sed -n 's:.*<karpenter.version>\(.*\)</karpenter.version>.*:\1:p' "$example/pom.xml")
plugin=$(sed -n 's/^ *name "\(.*\)"$/\1/p' "$sdk/build.gradle" | head -n1)
project=$(sed -n 's/^rootProject\.name = "\(.*\)"$/\1/p' "$sdk/settings.gradle")
: "${version:?no karpenter.version in examples/java/pom.xml}" "${plugin:?}" "${project:?}"
mvn=(mvn -B -ntp -q -Dstyle.color=never -Dmaven.repo.local="$repo")

# What the generated build.gradle's genPulumiResources task puts into the jar.
res="$work/resources/${project//.//}"
mkdir -p "$res"
printf '%s' "$version" >"$res/version.txt"
printf '{\n  "resource": true,\n  "name": "%s",\n  "version": "%s"\n}\n' "$plugin" "$version" >"$res/plugin.json"
"${mvn[@]}" -f "$here/java/sdk-pom.xml" -Dkarpenter.version="$version" -Dsdk.build="$work/sdk" \
	-Dsdk.resources="$work/resources" -Dmaven.test.skip install

if [[ ${1:-} == deps ]]; then
	cp -R "$example/pom.xml" "$example/src" "$work/"
	"${mvn[@]}" -f "$work/pom.xml" dependency:go-offline
	exit
fi
for program in ${PROGRAM:-$example}; do
	build=$work/build/$(basename "$program") # the program's name in javac's messages
	rm -rf "$work/build"
	mkdir -p "$build"
	cp "$example/pom.xml" "$build/"
	if [[ -d $program ]]; then
		cp -R "$program/src" "$build/"
	else
		# The program's own package and class decide where its source goes.
		package=$(sed -n 's/^package \(.*\);$/\1/p' "$program" | head -n1)
		class=$(sed -n 's/^public class \([A-Za-z0-9_]*\).*/\1/p' "$program" | head -n1)
		: "${package:?$program: no package declaration}" "${class:?$program: no public class}"
		mkdir -p "$build/src/main/java/${package//.//}"
		cp "$program" "$build/src/main/java/${package//.//}/$class.java"
	fi
	"${mvn[@]}" -f "$build/pom.xml" compile
	label=${program#"$root"/}
	echo "$label: mvn compile (javac -Werror) passed"
done
