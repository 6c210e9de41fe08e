# Engine tests (tests/e2e): the real Pulumi CLI and YAML language host, built from the Go module
# proxy and cached in $(CACHE_DIR), run the component plugin over gRPC; its children go to two
# stand-in provider plugins (tests/e2e/standin: aws against a local moto server, kubernetes
# against the harness's kube-apiserver with the real Karpenter charts).
#
#   make e2e-deps   build/install what the engine tests need (part of `make deps`; a no-op when cached)
#   make e2e        the scenarios (tests/e2e), the stand-ins' own tests (tests/e2e/standin/...) and
#                   `make demo`'s test (tests/cmd/demo); part of `make test`
#
# The tests carry the build tag `e2e`, so the harness's `go test ./...` in tests/ compiles the
# helpers but does not run them. E2E_FLAGS adds `go test` flags (e.g. E2E_FLAGS=-v, or
# E2E_FLAGS='-run TestUpgrade'); E2E_OUT=<dir> keeps every pulumi command's output of the scenarios.
.PHONY: e2e-deps e2e

E2E_ENV := PROVIDER_BIN=$(CURDIR)/bin/$(PROVIDER) CACHE_DIR=$(CACHE_DIR) GOWORK=off
E2E_PKGS := ./e2e/... ./cmd/demo/
E2E_FLAGS ?=

DEPS_TARGETS += e2e-deps
TEST_TARGETS += e2e

# Pulumi CLI (~12 min cold on 2 cores) and pulumi-language-yaml (~2 min), the moto[server] venv (~1 min).
e2e-deps:
	bash tests/scripts/install-e2e-deps.sh >/dev/null

# harness-deps: kube-apiserver, etcd and the Karpenter module zips (the charts) the API-server
# worlds and the kubernetes stand-in use.
e2e: build harness-deps e2e-deps
	cd tests && GOWORK=off go vet -tags e2e $(E2E_PKGS) && \
		$(E2E_ENV) go test -tags e2e -count=1 -timeout 20m $(E2E_FLAGS) $(E2E_PKGS)
