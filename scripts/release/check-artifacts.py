#!/usr/bin/env python3
"""Checks what `make release-dry-run` (and the release workflow's build job) put in dist/: every
artifact a release publishes exists under its expected name, and carries exactly the release's
version, in its name and in its metadata:

  plugin   the six pulumi-resource-karpenter-v<V>-<os>-<arch>.tar.gz (binary at the root), the
           checksums file, and the host platform's binary printing <V> for --version; with
           --platforms, exactly those archives (make test's dry run builds two of the six)
  npm      @pulumi-karpenter/karpenter: package.json version and pulumi.version
  python   pulumi_karpenter: wheel METADATA and file name, sdist PKG-INFO and file name (PEP 440
           form of <V>, as the SDK generator writes it into pyproject.toml)
  java     io.github.pulumikarpenter:karpenter: jar, sources and javadoc jars and POM named
           <V>, pom.properties, manifest, version.txt; the POM's coordinates and dependencies
           are those of the generated build.gradle; the Central bundle (maven-central/) holds
           those four files as built, each with its .asc signature and correct .md5/.sha1
  nuget    PulumiKarpenter.Karpenter: the .nuspec's id and version, content/version.txt
           (only with --nupkg; otherwise reported as skipped)
  go       the Go SDK is published as the tag sdk/go/v<V> of the committed sdk/go: its module
           path must allow that tag (a /vN suffix from major version 2 on); --go=warn only
           reports it

Every pulumi-plugin.json (plugin.json in the jar) and schema.json found in an artifact or in the
stamped SDK tree must carry <V> and the schema's pluginDownloadURL. Standard library only, plus
`packaging` for the PEP 440 form (the release Python has it).

Usage: check-artifacts.py --version V --dist DIST --host OS-ARCH [--platforms "OS-ARCH ..."]
                          [--nupkg] [--go=fail|warn]
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from email.parser import HeaderParser

from packaging.version import Version

PROVIDER = "pulumi-resource-karpenter"
PLATFORMS = [f"{os_}-{arch}" for os_ in ("linux", "darwin", "windows") for arch in ("amd64", "arm64")]
# What the release publishes (issue 15, README "Install").
NPM_NAME = "@pulumi-karpenter/karpenter"
PYPI_NAME = "pulumi_karpenter"
MAVEN_GROUP, MAVEN_ARTIFACT = "io.github.pulumikarpenter", "karpenter"
NUGET_ID = "PulumiKarpenter.Karpenter"
GO_MODULE_DIR = "sdk/go"

errors = []


def fail(what, msg):
    errors.append(f"{what}: {msg}")


def run(what, check, *args):
    """Runs one check; its summary (what it returns) is printed only when it found no problem."""
    before = len(errors)
    try:
        summary = check(*args)
    except (OSError, KeyError, ValueError, tarfile.TarError, zipfile.BadZipFile, ET.ParseError) as e:
        # A member or file the check reads is missing or unreadable.
        fail(what, f"{type(e).__name__}: {e}")
        return
    if summary and len(errors) == before:
        print(f"  ok  {what}: {summary}")


def expect(what, label, got, want):
    if got != want:
        fail(what, f"{label} is {got!r}, want {want!r}")
        return False
    return True


def exact_files(what, directory, want):
    """The directory holds exactly the files `want` (nothing stale from another version)."""
    got = sorted(os.listdir(directory)) if os.path.isdir(directory) else []
    if got != sorted(want):
        fail(what, f"{directory} holds {got}, want exactly {sorted(want)}")
        return False
    return True


def check_plugin_json(what, name, data, version, server):
    """A pulumi-plugin.json / plugin.json / schema.json: the release's version and download URL."""
    try:
        doc = json.loads(data)
    except ValueError as e:
        fail(what, f"{name}: not JSON: {e}")
        return
    expect(what, f"{name} version", doc.get("version"), version)
    key = "pluginDownloadURL" if name.endswith("schema.json") else "server"
    expect(what, f"{name} {key}", doc.get(key), server)


PLUGIN_FILES = ("pulumi-plugin.json", "plugin.json", "schema.json")


def plugin_members(names):
    return [n for n in names if os.path.basename(n) in PLUGIN_FILES]


# --- plugin archives ---------------------------------------------------------------------------
def check_plugin(dist, version, host, platforms):
    what = "plugin"
    unknown = sorted(set(platforms) - set(PLATFORMS))
    if unknown or host not in platforms:
        fail(what, f"--platforms {platforms}: each one of {PLATFORMS}, the host {host} among them")
        return
    archives = [f"{PROVIDER}-v{version}-{p}.tar.gz" for p in platforms]
    present = sorted(f for f in os.listdir(dist) if f.startswith(f"{PROVIDER}-v") and f.endswith(".tar.gz"))
    if present != sorted(archives):
        fail(what, f"archives in {dist}: {present}, want exactly {sorted(archives)}")
        return
    for a, p in zip(archives, platforms):
        binary = PROVIDER + (".exe" if p.startswith("windows") else "")
        with tarfile.open(os.path.join(dist, a)) as t:
            if binary not in t.getnames():
                fail(what, f"{a}: no {binary} at its root")
    sums_name = f"{PROVIDER}-v{version}-checksums.txt"
    try:
        with open(os.path.join(dist, sums_name)) as f:
            sums = dict(reversed(line.split()) for line in f if line.strip())
    except OSError as e:
        fail(what, f"{sums_name}: {e}")
        sums = {}
    if sums and expect(what, f"{sums_name} lists", sorted(sums), sorted(archives)):
        for a in archives:
            with open(os.path.join(dist, a), "rb") as f:
                if hashlib.sha256(f.read()).hexdigest() != sums[a]:
                    fail(what, f"{a}: sha256 differs from {sums_name}")
    with open(os.path.join(dist, "metadata.json")) as f:
        expect(what, "dist/metadata.json version", json.load(f).get("version"), version)
    # The host platform's binary reports the version Pulumi asked for.
    host_archive = f"{PROVIDER}-v{version}-{host}.tar.gz"
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(os.path.join(dist, host_archive)) as t:
        t.extract(PROVIDER, tmp)
        got = subprocess.run([os.path.join(tmp, PROVIDER), "--version"], capture_output=True, text=True).stdout.strip()
    expect(what, f"{host_archive}: {PROVIDER} --version", got, version)
    which = "all six platforms" if len(platforms) == len(PLATFORMS) else f"{', '.join(platforms)} of the six"
    return (f"{len(archives)} archives v{version} ({which}; binary at the root), checksums match, "
            f"{host} binary --version prints {got}")


# --- npm ---------------------------------------------------------------------------------------
def check_npm(dist, version, server):
    what = "npm"
    directory = os.path.join(dist, "npm")
    tgz = f"{NPM_NAME.lstrip('@').replace('/', '-')}-{version}.tgz"
    if not exact_files(what, directory, [tgz]):
        return
    with tarfile.open(os.path.join(directory, tgz)) as t:
        names = t.getnames()
        pkg = json.load(t.extractfile("package/package.json"))
        for n in plugin_members(names):
            check_plugin_json(what, n, t.extractfile(n).read(), version, server)
    expect(what, "package.json name", pkg.get("name"), NPM_NAME)
    expect(what, "package.json version", pkg.get("version"), version)
    expect(what, "package.json pulumi.version", pkg.get("pulumi", {}).get("version"), version)
    expect(what, "package.json pulumi.server", pkg.get("pulumi", {}).get("server"), server)
    for f in ("package/index.js", "package/index.d.ts", "package/README.md"):
        if f not in names:
            fail(what, f"{tgz} has no {f}")
    return f"{tgz}: {pkg.get('name')} {pkg.get('version')}, pulumi.version {pkg.get('pulumi', {}).get('version')}"


# --- PyPI --------------------------------------------------------------------------------------
def check_python(dist, version, server):
    what = "python"
    pyv = str(Version(version))  # 1.2.3-alpha.1 -> 1.2.3a1, as the generator writes pyproject.toml
    directory = os.path.join(dist, "python")
    wheel = f"{PYPI_NAME}-{pyv}-py3-none-any.whl"
    sdist = f"{PYPI_NAME}-{pyv}.tar.gz"
    if not exact_files(what, directory, [wheel, sdist]):
        return
    with zipfile.ZipFile(os.path.join(directory, wheel)) as z:
        names = z.namelist()
        meta = HeaderParser().parsestr(z.read(f"{PYPI_NAME}-{pyv}.dist-info/METADATA").decode())
        for n in plugin_members(names):
            check_plugin_json(what, f"{wheel}:{n}", z.read(n), version, server)
    expect(what, f"{wheel} METADATA Name", meta["Name"], PYPI_NAME)
    expect(what, f"{wheel} METADATA Version", meta["Version"], pyv)
    for f in (f"{PYPI_NAME}/__init__.py", f"{PYPI_NAME}/py.typed", f"{PYPI_NAME}/pulumi-plugin.json"):
        if f not in names:
            fail(what, f"{wheel} has no {f}")
    with tarfile.open(os.path.join(directory, sdist)) as t:
        names = t.getnames()
        info = HeaderParser().parsestr(t.extractfile(f"{PYPI_NAME}-{pyv}/PKG-INFO").read().decode())
        for n in plugin_members(names):
            check_plugin_json(what, f"{sdist}:{n}", t.extractfile(n).read(), version, server)
    expect(what, f"{sdist} PKG-INFO Name", info["Name"], PYPI_NAME)
    expect(what, f"{sdist} PKG-INFO Version", info["Version"], pyv)
    if f"{PYPI_NAME}-{pyv}/{PYPI_NAME}/pulumi-plugin.json" not in names:
        fail(what, f"{sdist} has no {PYPI_NAME}/pulumi-plugin.json")
    return f"{wheel} and {sdist}: Version {meta['Version']} / {info['Version']}, pulumi-plugin.json {version}"


# --- Maven Central -----------------------------------------------------------------------------
POM_NS = {"m": "http://maven.apache.org/POM/4.0.0"}


def gradle_publication(gradle_dir):
    """group, artifactId and `implementation` dependencies of the generated build.gradle."""
    with open(os.path.join(gradle_dir, "build.gradle")) as f:
        text = f.read()
    group = re.search(r'^group = "([^"]+)"', text, re.M)
    artifact = re.search(r'artifactId = "([^"]+)"', text)
    deps = sorted(re.findall(r'implementation\("([^"]+)"\)', text))
    return (group and group.group(1)), (artifact and artifact.group(1)), deps


def check_java(dist, version, server, gradle_dir):
    what = "java"
    directory = os.path.join(dist, "java")
    base = f"{MAVEN_ARTIFACT}-{version}"
    files = [f"{base}.jar", f"{base}-sources.jar", f"{base}-javadoc.jar", f"{base}.pom"]
    if not exact_files(what, directory, files):
        return
    group, artifact, gradle_deps = gradle_publication(gradle_dir)
    expect(what, "build.gradle group", group, MAVEN_GROUP)
    expect(what, "build.gradle artifactId", artifact, MAVEN_ARTIFACT)
    resources = MAVEN_GROUP.replace(".", "/") + "/" + MAVEN_ARTIFACT
    with zipfile.ZipFile(os.path.join(directory, f"{base}.jar")) as z:
        names = z.namelist()
        props = dict(
            line.split("=", 1)
            for line in z.read(f"META-INF/maven/{MAVEN_GROUP}/{MAVEN_ARTIFACT}/pom.properties").decode().splitlines()
            if "=" in line and not line.startswith("#")
        )
        manifest = HeaderParser().parsestr(z.read("META-INF/MANIFEST.MF").decode().replace("\r\n", "\n"))
        version_txt = z.read(f"{resources}/version.txt").decode() if f"{resources}/version.txt" in names else None
        for n in plugin_members(names):
            check_plugin_json(what, f"{base}.jar:{n}", z.read(n), version, server)
    expect(what, "pom.properties", (props.get("groupId"), props.get("artifactId"), props.get("version")),
           (MAVEN_GROUP, MAVEN_ARTIFACT, version))
    expect(what, "MANIFEST Implementation-Version", manifest["Implementation-Version"], version)
    expect(what, f"{resources}/version.txt", version_txt, version)
    for f in (f"{resources}/plugin.json", f"{resources}/Karpenter.class"):
        if f not in names:
            fail(what, f"{base}.jar has no {f}")
    with zipfile.ZipFile(os.path.join(directory, f"{base}-sources.jar")) as z:
        if f"{resources}/Karpenter.java" not in z.namelist():
            fail(what, f"{base}-sources.jar has no {resources}/Karpenter.java")
    with zipfile.ZipFile(os.path.join(directory, f"{base}-javadoc.jar")) as z:
        if "index.html" not in z.namelist():
            fail(what, f"{base}-javadoc.jar has no index.html")
    pom = ET.parse(os.path.join(directory, f"{base}.pom")).getroot()
    get = lambda path: (pom.findtext(path, namespaces=POM_NS) or "").strip()  # noqa: E731
    expect(what, "POM coordinates", (get("m:groupId"), get("m:artifactId"), get("m:version")),
           (MAVEN_GROUP, MAVEN_ARTIFACT, version))
    # Central rejects a POM without these.
    for field in ("m:name", "m:description", "m:url", "m:licenses/m:license/m:name",
                  "m:developers/m:developer/m:name", "m:scm/m:url"):
        if not get(field):
            fail(what, f"{base}.pom has no {field.replace('m:', '')}")
    pom_deps = sorted(
        ":".join((d.findtext(f"m:{k}", namespaces=POM_NS) or "").strip() for k in ("groupId", "artifactId", "version"))
        for d in pom.findall("m:dependencies/m:dependency", POM_NS)
    )
    expect(what, f"{base}.pom dependencies (vs build.gradle)", pom_deps, gradle_deps)
    return (f"{base}.jar, -sources.jar, -javadoc.jar, .pom: {MAVEN_GROUP}:{MAVEN_ARTIFACT}:{props.get('version')}, "
            f"manifest {manifest['Implementation-Version']}, version.txt {version_txt}")


def check_central_bundle(dist, version):
    what = "maven-central"
    directory = os.path.join(dist, "maven-central")
    name = f"{MAVEN_ARTIFACT}-{version}-bundle.zip"
    if not exact_files(what, directory, [name]):
        return
    prefix = f"{MAVEN_GROUP.replace('.', '/')}/{MAVEN_ARTIFACT}/{version}/"
    files = [f"{MAVEN_ARTIFACT}-{version}{s}" for s in (".jar", "-sources.jar", "-javadoc.jar", ".pom")]
    want = sorted(prefix + f + ext for f in files for ext in ("", ".asc", ".md5", ".sha1"))
    with zipfile.ZipFile(os.path.join(directory, name)) as z:
        got = sorted(n for n in z.namelist() if not n.endswith("/"))
        if not expect(what, f"{name} files", got, want):
            return
        for f in files:
            data = z.read(prefix + f)
            with open(os.path.join(dist, "java", f), "rb") as fh:
                if fh.read() != data:
                    fail(what, f"{name}: {f} differs from dist/java/{f}")
            expect(what, f"{f}.md5", z.read(prefix + f + ".md5").decode().strip(), hashlib.md5(data).hexdigest())
            expect(what, f"{f}.sha1", z.read(prefix + f + ".sha1").decode().strip(), hashlib.sha1(data).hexdigest())
            if not z.read(prefix + f + ".asc").startswith(b"-----BEGIN PGP SIGNATURE-----"):
                fail(what, f"{name}: {f}.asc is not an armoured signature")
    return f"{name}: {prefix}, 4 files with .asc, .md5, .sha1"


# --- NuGet -------------------------------------------------------------------------------------
def check_nuget(dist, version, server, required):
    what = "nuget"
    directory = os.path.join(dist, "nuget")
    if not required:
        if os.path.exists(directory):
            fail(what, f"{directory} exists although the .nupkg was not built here (stale?)")
        else:
            print(f"  SKIPPED {what}: no .NET toolchain (dotnet) on this machine, no .nupkg built or checked")
        return
    nupkg = f"{NUGET_ID}.{version}.nupkg"
    if not exact_files(what, directory, [nupkg]):
        return
    with zipfile.ZipFile(os.path.join(directory, nupkg)) as z:
        names = z.namelist()
        nuspec = ET.fromstring(z.read(f"{NUGET_ID}.nuspec"))
        version_txt = z.read("content/version.txt").decode().strip() if "content/version.txt" in names else None
        for n in plugin_members(names):
            check_plugin_json(what, f"{nupkg}:{n}", z.read(n), version, server)
    meta = {el.tag.split("}")[-1]: (el.text or "").strip() for el in nuspec.find("{*}metadata")}
    expect(what, ".nuspec id", meta.get("id"), NUGET_ID)
    expect(what, ".nuspec version", meta.get("version"), version)
    expect(what, "content/version.txt", version_txt, version)
    if "content/pulumi-plugin.json" not in names:
        fail(what, f"{nupkg} has no content/pulumi-plugin.json")
    if not any(re.fullmatch(rf"lib/[^/]+/{re.escape(NUGET_ID)}\.dll", n) for n in names):
        fail(what, f"{nupkg} has no lib/<framework>/{NUGET_ID}.dll")
    return f"{nupkg}: id {meta.get('id')}, version {meta.get('version')}, content/version.txt {version_txt}"


# --- Go ----------------------------------------------------------------------------------------
def check_go(repo, version, strict):
    """Nothing is built for Go: the tag names the committed sdk/go. From major version 2 on, Go
    ignores a tag whose module path lacks the /vN suffix, so such a tag would publish nothing
    usable. The release workflow fails on that (--go=fail) before anything is published; a dry
    run (--go=warn) says it, as the version is often made up."""
    what = "go"
    with open(os.path.join(repo, GO_MODULE_DIR, "go.mod")) as f:
        module = re.search(r"^module\s+(\S+)", f.read(), re.M).group(1)
    major = int(version.split(".")[0])
    if major >= 2 and not module.endswith(f"/v{major}"):
        msg = (f"{GO_MODULE_DIR}/go.mod says module {module}: Go would not accept the tag "
               f"{GO_MODULE_DIR}/v{version}, a v{major} module path must end in /v{major}")
        if strict:
            fail(what, msg)
        else:
            print(f"  WARN {what}: {msg} (a release of {version} fails here)")
        return
    return f"{module} can be published as the tag {GO_MODULE_DIR}/v{version}"


def check_sdk_tree(sdk_dir, version, server):
    """The stamped SDK sources: every pulumi-plugin.json (and schema.json, if a generator adds
    one) carries the version."""
    what = "sdk"
    found = []
    for root, dirs, files in os.walk(sdk_dir):
        dirs[:] = [d for d in dirs if d not in ("node_modules", "bin", "obj", "build", "target")]
        for f in files:
            if f in ("pulumi-plugin.json", "schema.json"):
                path = os.path.join(root, f)
                with open(path, "rb") as fh:
                    check_plugin_json(what, os.path.relpath(path, sdk_dir), fh.read(), version, server)
                found.append(os.path.relpath(path, sdk_dir))
    if not found:
        fail(what, f"no pulumi-plugin.json under {sdk_dir}")
    else:
        embeds = "" if any(f.endswith("schema.json") for f in found) else " (no SDK embeds a schema.json)"
        return f"{version} in {', '.join(sorted(found))}{embeds}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--version", required=True)
    p.add_argument("--dist", required=True)
    p.add_argument("--host", required=True, help="GOOS-GOARCH of this machine")
    p.add_argument("--platforms", default=" ".join(PLATFORMS),
                   help="the OS-ARCH archives built, space-separated (default: all six)")
    p.add_argument("--nupkg", action="store_true", help="a .nupkg was built (dotnet is on PATH)")
    p.add_argument("--go", choices=("fail", "warn"), default="fail",
                   help="a version the Go SDK's module path cannot be tagged with: fail, or only warn")
    p.add_argument("--repo", default=".")
    a = p.parse_args()
    with open(os.path.join(a.repo, "schema.json")) as f:
        server = json.load(f)["pluginDownloadURL"]

    print(f"check-artifacts: {a.dist}/ for version {a.version}")
    run("plugin", check_plugin, a.dist, a.version, a.host, a.platforms.split())
    run("npm", check_npm, a.dist, a.version, server)
    run("python", check_python, a.dist, a.version, server)
    run("java", check_java, a.dist, a.version, server, os.path.join(a.dist, "sdk", "java"))
    run("maven-central", check_central_bundle, a.dist, a.version)
    run("nuget", check_nuget, a.dist, a.version, server, a.nupkg)
    run("go", check_go, a.repo, a.version, a.go == "fail")
    run("sdk", check_sdk_tree, os.path.join(a.dist, "sdk"), a.version, server)
    if errors:
        print(f"check-artifacts: {len(errors)} problem(s):", file=sys.stderr)
        for e in errors:
            print(f"  FAIL {e}", file=sys.stderr)
        sys.exit(1)
    print(f"check-artifacts: every artifact carries {a.version}")


if __name__ == "__main__":
    main()
