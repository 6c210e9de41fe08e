# Examples (examples/<language>): each program is type-checked or compiled against the generated
# SDK in sdk/<language> and the pinned packages of its own manifest. Installs are cached in
# $(CACHE_DIR)/examples, keyed by the lockfiles; nothing is written into the repository.
#
#   make examples-deps   install what the checks need (npm, PyPI, Go proxy, Maven Central)
#   make test-examples   run every check (C# excepted: no .NET toolchain on the project's machines)

EXAMPLES_TESTS := tests/docs-code
EXAMPLES_GO    := GOWORK=off

.PHONY: examples-deps test-examples test-example-typescript test-example-python \
	test-example-go test-example-java test-example-yaml test-docs-examples test-schema-examples \
	test-example-typescript-team-pool test-example-python-team-pool test-example-typescript-automode

examples-deps:
	$(EXAMPLES_TESTS)/typescript.sh deps
	$(EXAMPLES_TESTS)/python.sh deps
	$(EXAMPLES_TESTS)/java.sh deps
	cd examples/go && $(EXAMPLES_GO) go mod download
	cd $(EXAMPLES_TESTS)/yamlcheck && $(EXAMPLES_GO) go mod download

test-example-typescript:
	$(EXAMPLES_TESTS)/typescript.sh

test-example-python:
	$(EXAMPLES_TESTS)/python.sh

# The second-stack examples (a NodeClass and a NodePool read from the main stack's outputs),
# checked with the pins of the main example of their language.
test-example-typescript-team-pool:
	PROGRAM=examples/typescript-team-pool/index.ts $(EXAMPLES_TESTS)/typescript.sh

# EKS Auto Mode, with the pins of the main TypeScript example (same packages).
test-example-typescript-automode:
	PROGRAM=examples/typescript-automode/index.ts $(EXAMPLES_TESTS)/typescript.sh

test-example-python-team-pool:
	PROGRAM=examples/python-team-pool/__main__.py $(EXAMPLES_TESTS)/python.sh

# go.mod replaces the SDK module with ../../sdk/go; vet type-checks, build links the program.
test-example-go:
	cd examples/go && $(EXAMPLES_GO) go vet ./... && $(EXAMPLES_GO) go build -o /dev/null ./...
	@echo "examples/go: go vet and go build passed"

test-example-java:
	$(EXAMPLES_TESTS)/java.sh

# The validator's own tests (including that it rejects a misspelt property), then the example.
test-example-yaml:
	cd $(EXAMPLES_TESTS)/yamlcheck && $(EXAMPLES_GO) go vet ./... && $(EXAMPLES_GO) go test -count=1 ./... && \
		$(EXAMPLES_GO) go run . $(CURDIR)/schema.json $(CURDIR)/examples/yaml/Pulumi.yaml

# Every code block of README.md and docs/*.md, each with its language's check; a block no check
# covers fails (tests/docs-code/docs.sh; CONTRIBUTING.md, Code in the documentation).
test-docs-examples:
	$(EXAMPLES_TESTS)/docs.sh

# The Example Usage programs of schema.json's resource descriptions (provider/_examples), taken
# back out of schema.json and checked the same way; and each SDK must carry its language's.
test-schema-examples:
	$(EXAMPLES_TESTS)/schema.sh

test-examples: test-example-typescript test-example-python test-example-go test-example-java test-example-yaml \
	test-docs-examples test-schema-examples test-example-typescript-team-pool test-example-python-team-pool test-example-typescript-automode

FETCH_DEPS_TARGETS += examples-deps
TEST_TARGETS += test-examples
