# pulumi-karpenter — top-level build. Area-specific targets live in mk/*.mk.
SHELL        := /bin/bash
PACK         := karpenter
PROVIDER     := pulumi-resource-$(PACK)
VERSION      ?= 0.1.0-dev
GO_MODULE    := github.com/pulumi-karpenter/pulumi-karpenter
LDFLAGS      := -s -w -X $(GO_MODULE)/provider.Version=$(VERSION)
# Heavy, reusable builds (kube-apiserver, code generators, downloaded artifacts) live outside the repo.
CACHE_DIR    ?= $(HOME)/.cache/pulumi-karpenter
export CACHE_DIR

# Every Go compile uses one Go and the flags of the pinned tools (tests/toolpins/lib.sh: GO_TOOLCHAIN,
# GO_GCFLAGS; -trimpath, no cgo), so one build-cache entry serves them all: what the Pulumi CLI's,
# a controller's or the plugin's build compiled is not compiled again for `go vet` and `go test`
# (measured cold: the provider's vet and test builds take 38 s after `make build` instead of
# 113 s). The race detector's run sets CGO_ENABLED=1 itself; the plugin archives a release
# publishes keep the compiler's default flags (mk/release.mk).
GO_TOOLCHAIN := $(shell sed -n 's/^GO_TOOLCHAIN=//p' tests/toolpins/lib.sh)
GO_GCFLAGS   := $(shell sed -n 's/^GO_GCFLAGS="\(.*\)"$$/\1/p' tests/toolpins/lib.sh)
export GOTOOLCHAIN := $(GO_TOOLCHAIN)
export CGO_ENABLED := 0
export GOFLAGS := $(strip $(GOFLAGS) -trimpath -gcflags=$(GO_GCFLAGS))

# Each mk/*.mk appends its prerequisites to these lists: DEPS_TARGETS the ones that mostly compile,
# FETCH_DEPS_TARGETS the ones that only download (npm, PyPI, Maven Central, Go modules), which
# .ci/run runs beside the first.
DEPS_TARGETS :=
FETCH_DEPS_TARGETS :=
TEST_TARGETS :=

.PHONY: build schema test test-provider render deps
build: bin/$(PROVIDER)

# Built as the release archives are (.goreleaser.yml: -trimpath, no cgo), so the plugin the tests
# run is the kind users download, and the dry run's host build reuses its compiled packages.
bin/$(PROVIDER): $(shell find provider -name '*.go') go.mod go.sum
	CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o $@ ./provider/cmd/$(PROVIDER)

# schema.json is generated from the Go types; never edit it by hand.
schema: bin/$(PROVIDER)
	bin/$(PROVIDER) schema > schema.json

# Unit and render tests of the component; includes the check that schema.json is current. The
# concurrency test runs again under the race detector: one plugin serves many Constructs at once.
test-provider:
	go vet ./...
	go test -count=1 ./...
	@command -v gcc >/dev/null || { \
		echo "test-provider: installing gcc (apt): the race detector needs cgo" >&2; \
		sudo=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq gcc libc6-dev >/dev/null; }
	CGO_ENABLED=1 go test -race -count=1 -run '^TestConcurrentConstructsAreIsolated$$' ./provider

render: bin/$(PROVIDER)
	bin/$(PROVIDER) render --args $(or $(ARGS),examples/render/default.json)

include $(wildcard mk/*.mk)

deps: $(DEPS_TARGETS) $(FETCH_DEPS_TARGETS)

# The deps targets, for .ci/run's per-phase timing.
.PHONY: print-deps-targets print-fetch-deps-targets
print-deps-targets:
	@echo $(DEPS_TARGETS)
print-fetch-deps-targets:
	@echo $(FETCH_DEPS_TARGETS)

# `make test` sets up whatever a fresh machine lacks (each area's deps) and runs every check.
test: build test-provider $(TEST_TARGETS)
