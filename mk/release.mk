# Release packaging: the plugin archives Pulumi downloads through the schema's pluginDownloadURL
# (.goreleaser.yml; goreleaser is built once from the Go module proxy into $(CACHE_DIR)) and the
# SDK packages. .github/workflows/release.yml builds and publishes them for a tag v<version>.
#
#   make release-check                  goreleaser check (part of make test)
#   make release-snapshot               build every archive into dist/ and check names and the stamped version
#   make release-dry-run VERSION=x.y.z  everything the release workflow builds, stamped x.y.z, into
#                                       dist/, checked; nothing is published (part of make test,
#                                       as test-release-dry-run)

# v2.18 needs Go 1.27; v2.17.0 needs a module the proxy refuses (go.digitalxero.dev/go-msix).
GORELEASER_VERSION ?= v2.16.0
GORELEASER         := $(CACHE_DIR)/goreleaser-$(GORELEASER_VERSION)/goreleaser
RELEASE_PLATFORMS  := linux-amd64 linux-arm64 darwin-amd64 darwin-arm64 windows-amd64 windows-arm64
HOST_PLATFORM      := $(shell go env GOOS)-$(shell go env GOARCH)
# The archives a dry run builds (all six unless given). make test builds two: see test-release-dry-run.
DRY_RUN_PLATFORMS  ?= $(RELEASE_PLATFORMS)
# The release's Python (build, setuptools, twine, every package pinned), keyed by the pins.
RELEASE_PY_VENV    := $(CACHE_DIR)/release-python-$(shell sha256sum < scripts/release/requirements.txt | cut -c1-16)
RELEASE_PY         := $(RELEASE_PY_VENV)/bin/python
# typescript, @types/node and @pulumi/pulumi for tsc: tests/sdk-mocks/nodejs's locked install (mk/sdk.mk).
RELEASE_NODE_MODULES := tests/sdk-mocks/nodejs/node_modules

.PHONY: release-deps release-check release-snapshot release-version release-dry-run \
	test-release-dry-run release-publish-plugin

# With the flags of every other build (the Makefile's GOFLAGS) but its own Go: v2.16.0's gRPC (1.80)
# does not compile with Go 1.27, whose golang.org/x/net leaves http2.TrailerPrefix to the standard
# library ("undefined: http2.TrailerPrefix"); 1.26.8 is the Go of the project's machines (no
# download there). It shares no compiled package with another build.
GORELEASER_TOOLCHAIN := go1.26.8
$(GORELEASER):
	cd $(CACHE_DIR) && GOWORK=off GOTOOLCHAIN=$(GORELEASER_TOOLCHAIN) GOBIN=$(dir $@) go install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

# --no-deps and pip check: the pins are the whole environment, nothing is resolved afresh.
$(RELEASE_PY_VENV)/.installed: scripts/release/requirements.txt
	rm -rf $(RELEASE_PY_VENV)
	python3 -m venv $(RELEASE_PY_VENV)
	$(RELEASE_PY) -m pip install --quiet --disable-pip-version-check --no-deps -r $<
	$(RELEASE_PY) -m pip check >/dev/null
	touch $@

# gpg signs the Maven Central bundle (with a throwaway key in a dry run): Debian's gnupg when
# missing, installed as tests/harness/install-deps.sh installs etcd. The SDK generators (mk/sdk.mk)
# write the SDKs a release packages.
release-deps: $(GORELEASER) $(RELEASE_PY_VENV)/.installed sdkgen
	@command -v gpg >/dev/null || { \
		echo "release-deps: installing gnupg (apt)" >&2; \
		sudo=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq gnupg >/dev/null; }

# Also: the release goreleaser publishes to is where the schema's pluginDownloadURL points.
release-check: $(GORELEASER)
	$(GORELEASER) check
	@url=$$(sed -n 's/.*"pluginDownloadURL": *"\([^"]*\)".*/\1/p' schema.json) && \
	repo=$$(sed -n '/^release:/,/^[^ ]/{s/^ *owner: *//p;s/^ *name: *//p}' .goreleaser.yml | paste -sd/) && \
	[ "$$url" = "github://api.github.com/$$repo" ] || \
		{ echo "schema.json pluginDownloadURL '$$url' is not the release repository '$$repo'" >&2; exit 1; }
	@echo ".goreleaser.yml publishes where pluginDownloadURL points"

# A local release without publishing: all six archives, named as Pulumi expects, and a binary
# that reports the snapshot's version (slow: six cross-compiles).
release-snapshot: $(GORELEASER)
	$(GORELEASER) release --snapshot --clean --skip=publish
	@version=$$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' dist/metadata.json) && \
	for p in $(RELEASE_PLATFORMS); do \
		f=dist/$(PROVIDER)-v$$version-$$p.tar.gz; \
		tar -tzf $$f | grep -qx '$(PROVIDER)\(.exe\)\?' || { echo "$$f: no $(PROVIDER) at its root" >&2; exit 1; }; \
	done && \
	got=$$(tar -xzOf dist/$(PROVIDER)-v$$version-$$(go env GOOS)-$$(go env GOARCH).tar.gz $(PROVIDER) > dist/.probe && \
		chmod +x dist/.probe && dist/.probe --version) && \
	[ "$$got" = "$$version" ] || { echo "--version printed '$$got', want '$$version'" >&2; exit 1; } && \
	echo "dist/: 6 archives for v$$version; --version prints $$got"

# --- release-dry-run ---------------------------------------------------------------------------
# The release workflow's build job runs exactly this for the tag's version; the publishing jobs
# take its dist/:
#   dist/pulumi-resource-karpenter-v<V>-<os>-<arch>.tar.gz (x6) and the checksums: goreleaser
#        --snapshot, stamped <V> through RELEASE_VERSION (.goreleaser.yml); the workflow's plugin
#        job builds them again with `goreleaser release` on the tag, which publishes them
#   dist/sdk/             the SDKs generated with <V> (make sdks SDK_VERSION=<V> SDK_OUT=dist/sdk)
#   dist/npm, python, java, nuget   the packages (scripts/release/package-sdks.sh; the .nupkg
#        only where dotnet is on PATH, and the log says when it is skipped)
#   dist/maven-central/   the Central bundle, signed here with a throwaway key
# then scripts/release/check-artifacts.py checks that each carries exactly <V>. The committed
# sdk/ is never written to: the target fails if its content changed.
#
# On 2 cores: ~13 min cold (six cross-compiles of ~100 s each, empty Go build cache); warm, 36 s
# with the provider unchanged, ~80 s after a change to it (six binaries relinked).

# The Go SDK's tag sdk/go/v<V> needs a /vN module path from major version 2 on: the release
# workflow (and make test) fail on it, a dry run with a made-up version only warns.
RELEASE_GO_CHECK ?= warn
# Content of the committed SDKs (names and bytes), compared before and after the dry run.
sdk_tree_hash = find sdk -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16

# VERSION has a default for `make build` (0.1.0-dev); a release's must be given. Pre-releases
# only as -alpha.N, -beta.N, -rc.N, -dev.N: the forms the Python SDK generator turns into the PEP
# 440 versions PyPI accepts (1.2.3-rc.1 -> 1.2.3rc1); others become local versions (1.2.3+x),
# which PyPI refuses.
release-version:
ifeq ($(origin VERSION),file)
	$(error give the version to stamp: make $(MAKECMDGOALS) VERSION=x.y.z)
endif
	@[[ "$(VERSION)" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-(alpha|beta|rc|dev)\.[0-9]+)?$$ ]] || \
		{ echo "VERSION '$(VERSION)' is not x.y.z or x.y.z-{alpha,beta,rc,dev}.N (no leading v)" >&2; exit 1; }

comma := ,
empty :=
space := $(empty) $(empty)

# A dry run of fewer than the six platforms builds from a copy of .goreleaser.yml whose build lists
# exactly those as targets (goreleaser has no flag for a chosen set); written beside goreleaser,
# since --clean empties dist/.
ifneq ($(sort $(DRY_RUN_PLATFORMS)),$(sort $(RELEASE_PLATFORMS)))
DRY_RUN_CONFIG := $(CACHE_DIR)/goreleaser-dry-run.yml
dry_run_config  = --config $(DRY_RUN_CONFIG)
endif

# The steps run in order: goreleaser --clean empties dist/ first.
release-dry-run: release-version release-deps sdkgen $(RELEASE_NODE_MODULES)/.package-lock.json
	@echo "release-dry-run: $(VERSION), plugin archives for $(DRY_RUN_PLATFORMS)"
ifdef DRY_RUN_CONFIG
	@for p in $(DRY_RUN_PLATFORMS); do \
		[[ " $(RELEASE_PLATFORMS) " == *" $$p "* ]] || { echo "DRY_RUN_PLATFORMS: $$p is not one of $(RELEASE_PLATFORMS)" >&2; exit 1; }; \
	done
	sed -E -e 's/^( *)goos: .*/\1targets: [$(subst $(space),$(comma) ,$(subst -,_,$(DRY_RUN_PLATFORMS)))]/' \
		-e '/^ *goarch: /d' .goreleaser.yml > $(DRY_RUN_CONFIG)
	@grep -q 'targets: \[' $(DRY_RUN_CONFIG) || { echo "$(DRY_RUN_CONFIG): no goos line to replace" >&2; exit 1; }
endif
	@before=$$($(sdk_tree_hash)) && \
		RELEASE_VERSION=$(VERSION) $(GORELEASER) release --snapshot --clean --skip=publish $(dry_run_config) && \
		echo "$$before" > dist/.sdk-tree-hash
	scripts/release/notes.sh --unreleased $(VERSION) > dist/release-notes.md
	$(MAKE) --no-print-directory sdks SDK_VERSION=$(VERSION) SDK_OUT=dist/sdk
	NODE_MODULES=$(CURDIR)/$(RELEASE_NODE_MODULES) PYTHON=$(RELEASE_PY) scripts/release/package-sdks.sh dist/sdk dist
	MAVEN_GPG_PRIVATE_KEY="$$(scripts/release/maven-central.sh throwaway-key)" MAVEN_GPG_PASSPHRASE= \
		scripts/release/maven-central.sh bundle dist/java $(VERSION) dist/maven-central/karpenter-$(VERSION)-bundle.zip
	$(RELEASE_PY) scripts/release/check-artifacts.py --version $(VERSION) --dist dist \
		--host $(HOST_PLATFORM) --platforms "$(DRY_RUN_PLATFORMS)" --go=$(RELEASE_GO_CHECK) \
		$(if $(shell command -v dotnet),--nupkg)
	@[ "$$($(sdk_tree_hash))" = "$$(cat dist/.sdk-tree-hash)" ] || \
		{ echo "release-dry-run: the committed sdk/ changed during the dry run" >&2; exit 1; }
	@echo "release-dry-run: dist/ holds the release $(VERSION), checked; sdk/ untouched"

# make test runs the dry run too (36-80 s warm), so that the release path is proven on every
# change, not first on a tag: with a pre-release version, so that the PEP 440 form (1.2.3rc4) is
# checked as well, and with the Go tag check strict, as in the release. It cross-compiles two of
# the six platforms: each costs ~100 s on 2 cores with a cold build cache, and the other four prove
# nothing these two do not. The host's archive is the one whose binary runs (--version, and the
# SDK programs install it); windows-arm64 is the other OS family, the other architecture and the
# one name with .exe. The release workflow's dry run builds all six, as does `make release-dry-run`.
RELEASE_TEST_VERSION   := 1.2.3-rc.4
RELEASE_TEST_PLATFORMS := $(sort $(HOST_PLATFORM) windows-arm64)
test-release-dry-run:
	$(MAKE) --no-print-directory release-dry-run VERSION=$(RELEASE_TEST_VERSION) RELEASE_GO_CHECK=fail \
		DRY_RUN_PLATFORMS="$(RELEASE_TEST_PLATFORMS)"

# Only the release workflow runs this, on the checked-out tag: goreleaser builds the six
# archives again from the tag and publishes them, with the checksums and the version's section
# of CHANGELOG.md as the notes, to the GitHub release (GITHUB_TOKEN with contents: write). The
# notes are written outside dist/, which --clean empties.
# The published archives are compiled with the default flags (inlining on), not the checks'
# GO_GCFLAGS (the Makefile): the same program, a little faster.
RELEASE_NOTES := $(CACHE_DIR)/release-notes-$(VERSION).md
release-publish-plugin: export GOFLAGS := -trimpath
release-publish-plugin: $(GORELEASER)
ifndef GITHUB_TOKEN
	$(error release-publish-plugin publishes: it runs in .github/workflows/release.yml, with GITHUB_TOKEN)
endif
	scripts/release/notes.sh $(VERSION) > $(RELEASE_NOTES)
	$(GORELEASER) release --clean --release-notes=$(RELEASE_NOTES)

DEPS_TARGETS += release-deps
TEST_TARGETS += release-check test-release-dry-run
