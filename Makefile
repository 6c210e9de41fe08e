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

# Each mk/*.mk appends its prerequisites to these lists.
DEPS_TARGETS :=
TEST_TARGETS :=

.PHONY: build schema test test-provider render deps check-schema
build: bin/$(PROVIDER)

bin/$(PROVIDER): $(shell find provider -name '*.go') go.mod go.sum
	go build -trimpath -ldflags "$(LDFLAGS)" -o $@ ./provider/cmd/$(PROVIDER)

# schema.json is generated from the Go types; never edit it by hand.
schema: bin/$(PROVIDER)
	bin/$(PROVIDER) schema > schema.json

check-schema: bin/$(PROVIDER)
	@bin/$(PROVIDER) schema | diff -u schema.json - || { echo "schema.json is stale: run 'make schema'"; exit 1; }

test-provider:
	go test ./provider/... 

render: bin/$(PROVIDER)
	bin/$(PROVIDER) render --args $(or $(ARGS),examples/render/default.json)

include $(wildcard mk/*.mk)

deps: $(DEPS_TARGETS)

test: build check-schema test-provider $(TEST_TARGETS)
