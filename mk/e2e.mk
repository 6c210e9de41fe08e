# Engine tests (tests/e2e): the real Pulumi CLI and YAML language host, built from the Go module
# proxy and cached in $(CACHE_DIR), run the component plugin over gRPC; its children go to the
# real pulumi-kubernetes provider (4.25.0, installed as 4.30.0) on a local cluster (etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler; kwok standing in for the kubelets) that
# pulls the real Karpenter charts from a local OCI registry, and to a stand-in aws plugin
# (tests/e2e/standin/aws-provider-on-moto) against a local moto server (the world they run in:
# tests/e2e/lab); TestKarpenter and `make demo` run the real Karpenter controller on what the
# component installed.
#
#   make e2e-deps   build/install what the engine tests need (part of `make deps`; a no-op when cached)
#   make e2e        the scenarios (tests/e2e), the world's own tests (tests/e2e/lab), the stand-ins'
#                   own tests (tests/e2e/standin/aws-provider-on-moto,
#                   tests/e2e/standin/eks-component-provider,
#                   tests/e2e/standin/awsx-component-provider) and `make demo`'s test
#                   (tests/cmd/demo), then e2e-sdks, e2e-snippets and e2e-examples; part of
#                   `make test`
#   make e2e-sdks   TestSDKPrograms alone: the TypeScript, Python, Go and Java programs of
#                   tests/e2e/programs, each from the package a user installs (dist/ of
#                   test-release-dry-run: the npm tarball, the wheel, the stamped Go module, the
#                   Maven Central bundle, the plugin archive), run through the CLI and engine as
#                   Automation API inline programs and compared with the YAML program
#   make e2e-snippets  TestREADMESnippets alone: README.md's "## Usage" programs (TypeScript,
#                   Python, YAML), read from README.md as written, each through preview, up and
#                   destroy on a pulumi-eks cluster (the eks and aws stand-ins), with the release's
#                   packages (dist/) and the real @pulumi/* and pulumi-* packages of
#                   examples/typescript's lock and tests/docs-code/python's constraints (installed
#                   by tests/docs-code/{typescript,python}.sh into $(CACHE_DIR)/examples)
#   make e2e-examples  TestExamples alone: the Registry page's programs (docs/_index.md) and the
#                   examples they are (examples/typescript, examples/python and their team-pool
#                   stacks through a StackReference), with the awsx stand-in's VPC, as e2e-snippets
#
# The tests carry the build tag `e2e`, so the harness's `go test ./...` in tests/ compiles the
# helpers but does not run them. E2E_FLAGS adds `go test` flags (e.g. E2E_FLAGS=-v, or
# E2E_FLAGS='-run TestUpgrade'); E2E_OUT=<dir> keeps every pulumi command's output of the scenarios.
.PHONY: e2e-deps e2e e2e-sdks e2e-snippets e2e-examples

E2E_ENV := PROVIDER_BIN=$(CURDIR)/bin/$(PROVIDER) CACHE_DIR=$(CACHE_DIR) GOWORK=off
E2E_PKGS := ./e2e/... ./cmd/demo/
E2E_FLAGS ?=

DEPS_TARGETS += e2e-deps
TEST_TARGETS += e2e

# Cold on 2 cores, each alone: pulumi-kubernetes (~8-12 min), the Pulumi CLI (~5-7 min), the Karpenter
# controllers (~4-5 min each; 1.15.2 with Go 1.27.3), the registry (~1.5-2 min), pulumi-language-yaml
# (~1.5 min), the moto[server] venv (~1 min), the IAM simulator (npm, seconds); the script runs them
# two at a time, each build's lines prefixed with its name and saying which of how many it is.
e2e-deps:
	bash tests/e2e/install-e2e-deps.sh >/dev/null

# TestSDKPrograms (the SDK programs), TestREADMESnippets (README's Usage) and TestExamples (the
# Registry page and examples/), two at a time
# (tests/e2e/e2e-programs.sh). The programs install the release's packages, which
# test-release-dry-run builds into dist/ (npm, PyPI, the Go module proxy and Maven Central serve the
# programs' own pinned dependencies at test time; Maven's into $(CACHE_DIR)/e2e-sdk-java-m2; the
# snippets' into $(CACHE_DIR)/examples, installed by the test with tests/docs-code/typescript.sh deps
# and python.sh deps, no-ops once installed).
E2E_PROGRAMS = $(E2E_ENV) SDK_DIST=$(CURDIR)/dist E2E_FLAGS='$(E2E_FLAGS)' bash tests/e2e/e2e-programs.sh

# harness-deps: etcd, the Kubernetes binaries, kwok and the Karpenter module zips (the charts the
# worlds push to their registry). The scenarios run three worlds at a time (-parallel 3): a world
# spends much of its time waiting (on the controller, the engine, moto), so on a 2-core machine
# three keep the cores busier than two (~14 minutes instead of ~17, CONTRIBUTING.md's measurements);
# the timeout only stops a hang.
e2e: build harness-deps e2e-deps test-release-dry-run
	cd tests && GOWORK=off go vet -tags e2e $(E2E_PKGS) && \
		$(E2E_ENV) go run ./cmd/demo -parts && \
		$(E2E_ENV) go test -tags e2e -count=1 -timeout 30m -parallel 3 -skip '^(TestSDKPrograms|TestREADMESnippets|TestExamples)$$' $(E2E_FLAGS) $(E2E_PKGS)
	$(E2E_PROGRAMS)

e2e-sdks: build harness-deps e2e-deps test-release-dry-run
	$(E2E_PROGRAMS) sdk-programs

e2e-snippets: build harness-deps e2e-deps test-release-dry-run
	$(E2E_PROGRAMS) snippets

e2e-examples: build harness-deps e2e-deps test-release-dry-run
	$(E2E_PROGRAMS) examples
