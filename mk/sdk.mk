# SDKs: generate sdk/{nodejs,python,go,dotnet,java} from schema.json and prove each usable.
#
#   make sdks         regenerate every SDK from schema.json (commit the result)
#   make check-sdks   fail if the committed sdk/ differs from a fresh generation
#   make sdk-deps     install what the SDK tests need (npm, PyPI, Go proxy, Maven Central)
#   make test-sdks    compile/run each SDK against the published Pulumi SDK of its language
#
# The Pulumi CLI's `package gen-sdk` needs language plugins that cannot be installed here, so
# pinned generator programs (tools/sdkgen-*) call the same codegen libraries. They are built
# once into $(CACHE_DIR), keyed by a hash of their sources and pins, and never committed.

SDK_SCHEMA    ?= schema.json
SDK_README    ?= README.md
SDK_OUT       ?= sdk
# Empty keeps the schema's version, as gen-sdk does without --version. A release stamps the
# real one into a copy: `make sdks SDK_VERSION=1.2.3 SDK_OUT=dist/sdk` (check-sdks compares
# the committed sdk/, which never carries a release version).
SDK_VERSION   ?=
SDKGEN_CACHE  := $(CACHE_DIR)/sdkgen

# sdkgen_bin(module dir): cached binary path, keyed by the shared driver's and the module's files.
sdkgen_key = $(shell cat $(sort $(wildcard tools/sdkgen/go.* tools/sdkgen/*.go $(1)/go.* $(1)/*.go $(1)/*.png)) \
	| sha256sum | cut -c1-16)
sdkgen_bin = $(SDKGEN_CACHE)/$(notdir $(1))-$(call sdkgen_key,$(1))/$(notdir $(1))

SDKGEN_NPG := $(call sdkgen_bin,tools/sdkgen-nodejs-python-go)
SDKGEN_DJ  := $(call sdkgen_bin,tools/sdkgen-dotnet-java)

# pulumi-java's module is missing from the checksum database the proxy mirrors; go.sum pins it.
$(SDKGEN_NPG) $(SDKGEN_DJ): export GONOSUMDB := github.com/pulumi/pulumi-java
# Built with the flags of every Go compile here (Makefile: -trimpath, no cgo), so that test-sdkgen
# reuses the compiled codegen packages.
$(SDKGEN_NPG):
	cd tools/sdkgen-nodejs-python-go && go build -o $@ .
$(SDKGEN_DJ):
	cd tools/sdkgen-dotnet-java && go build -o $@ .

.PHONY: sdkgen test-sdkgen sdks check-sdks sdk-deps test-sdks \
	test-sdk-nodejs test-sdk-python test-sdk-go test-sdk-java

sdkgen: $(SDKGEN_NPG) $(SDKGEN_DJ)

# The generator's own tests (go.mod for the Go SDK, offline loader), on tools/sdkgen/testdata.
test-sdkgen: $(SDKGEN_NPG)
	cd tools/sdkgen-nodejs-python-go && go test -count=1 ./...

# gen_sdks(out dir, extra flags): one shell command that writes all five SDKs under out dir.
gen_sdks = $(SDKGEN_NPG) -schema $(SDK_SCHEMA) -out $(1) $(2) \
		$(if $(wildcard $(SDK_README)),-readme $(SDK_README)) nodejs python go && \
	$(SDKGEN_DJ) -schema $(SDK_SCHEMA) -out $(1) $(2) dotnet java

sdks: sdkgen
	$(call gen_sdks,$(SDK_OUT),$(if $(SDK_VERSION),-version $(SDK_VERSION)))

# Artifacts the SDK tests or a local build may leave in sdk/ (all git-ignored) are not drift.
SDK_DIFF_IGNORE := -x node_modules -x bin -x __pycache__ -x '*.egg-info' -x build -x dist -x target -x obj

check-sdks: sdkgen
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(call gen_sdks,$$tmp) && \
	diff -ru $(SDK_DIFF_IGNORE) sdk "$$tmp" >&2 || { \
		echo "sdk/ is stale: run 'make sdks' and commit the result (the nodejs and python SDKs carry a copy of $(SDK_README))" >&2; exit 1; }
	@echo "sdk/ matches $(SDK_SCHEMA)"

# --- usability proofs (tests/sdk-mocks) --------------------------------------------------------
SDK_TESTS      := tests/sdk-mocks
# The Python test environment lives in the cache, keyed by its pinned requirements.
SDK_PY_VENV    := $(CACHE_DIR)/sdk-python-$(shell cat $(SDK_TESTS)/python/requirements.txt 2>/dev/null \
	| sha256sum | cut -c1-16)
SDK_PY_STAMP   := $(SDK_PY_VENV)/.installed

$(SDK_TESTS)/nodejs/node_modules/.package-lock.json: $(SDK_TESTS)/nodejs/package-lock.json
	cd $(SDK_TESTS)/nodejs && npm ci --no-audit --no-fund

$(SDK_PY_STAMP): $(SDK_TESTS)/python/requirements.txt
	rm -rf $(SDK_PY_VENV)
	python3 -m venv $(SDK_PY_VENV)
	$(SDK_PY_VENV)/bin/pip install --quiet --disable-pip-version-check -r $<
	touch $@

# Downloads only (.ci/run runs them beside the builds); the generators are built by release-deps,
# after the Pulumi CLI whose compiled codegen packages they reuse.
sdk-deps: $(SDK_TESTS)/nodejs/node_modules/.package-lock.json $(SDK_PY_STAMP)
	cd $(SDK_TESTS)/go && go mod download
	$(SDK_TESTS)/java/test.sh deps

test-sdk-nodejs: $(SDK_TESTS)/nodejs/node_modules/.package-lock.json
	$(SDK_TESTS)/nodejs/test.sh

test-sdk-python: $(SDK_PY_STAMP)
	$(SDK_TESTS)/python/test.sh $(SDK_PY_VENV)

test-sdk-go:
	cd $(SDK_TESTS)/go && go vet ./... github.com/pulumi-karpenter/pulumi-karpenter/sdk/go/... && go test -count=1 ./...

test-sdk-java:
	$(SDK_TESTS)/java/test.sh

# There is no .NET toolchain on the project's machines: sdk/dotnet is generated and checked
# for drift, but not compiled.
test-sdks: test-sdk-nodejs test-sdk-python test-sdk-go test-sdk-java

FETCH_DEPS_TARGETS += sdk-deps
TEST_TARGETS += test-sdkgen check-sdks test-sdks
