# Integration harness (tests/): the rendered install against a real kube-apiserver + etcd and
# the real Karpenter charts and CRDs. Heavy artifacts are cached in $(CACHE_DIR).
.PHONY: harness-deps test-harness demo

HARNESS_ENV := PROVIDER_BIN=$(CURDIR)/bin/$(PROVIDER) CACHE_DIR=$(CACHE_DIR) GOWORK=off
# API-server tests run in parallel (each starts its own etcd + kube-apiserver, mostly waiting):
# on 2 cores 4 at a time cut the warm run from ~160 s to ~70 s.
HARNESS_PARALLEL ?= 4

DEPS_TARGETS += harness-deps
TEST_TARGETS += test-harness

# etcd (apt), kube-apiserver + kube-controller-manager + kube-scheduler (one build, ~4-5 min cold),
# kwok (~1-2 min cold), Karpenter module zips; a no-op when cached.
harness-deps:
	bash tests/harness/install-deps.sh

# The full harness: never skips (no -short); fails when a binary is missing.
# Every tests/ package but tests/conformance, which has its own target and deps (mk/conformance.mk).
test-harness: build harness-deps
	cd tests && go vet ./... && set -o pipefail && pkgs="$$(GOWORK=off go list ./... | grep -v '/tests/conformance$$')" && \
		$(HARNESS_ENV) go test -count=1 -parallel $(HARNESS_PARALLEL) -timeout 20m $$pkgs

# A real `pulumi up` of the component (tests/e2e/lab/programs/program.yaml) on a local cluster and
# moto, through the real pulumi-kubernetes provider and the aws stand-in (tests/e2e/lab), with the real
# Karpenter controller in the loop; prints the engine's output, the cluster's and AWS's view, a
# node Karpenter launches for pending pods, then runs `pulumi destroy` and shows what is left.
# ARGS=file adds component inputs (JSON or YAML, e.g. a render args file).
# Builds only what it runs: not the previous Karpenter controller (the upgrade test's).
demo: build harness-deps
	E2E_DEPS_FOR=demo bash tests/e2e/install-e2e-deps.sh >/dev/null
	cd tests && $(HARNESS_ENV) go run ./cmd/demo $(if $(ARGS),-args $(abspath $(ARGS)))
