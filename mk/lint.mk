# Lint of the GitHub Actions workflows (.github/workflows): actionlint checks their syntax,
# expressions, `needs:`/`permissions:`, and the inputs of the actions they use, and passes every
# `run:` script to shellcheck. actionlint is built once from the Go module proxy into $(CACHE_DIR);
# shellcheck is Debian's package.
#
#   make lint-deps        build actionlint, install shellcheck (part of `make deps`)
#   make lint-workflows   actionlint on every workflow, shellcheck on the scripts they run and the
#                         installers (part of make test)
#   make test-scripts     the installers' job runner (tests/toolpins/lib_test.sh; part of make test)
#   make check-shared-pins  the Go modules that compile the same dependencies pin them at one
#                         version, so a cold machine compiles each such package once
#                         (tests/toolpins/check-shared-pins.sh; part of make test)

ACTIONLINT_VERSION ?= v1.7.12
ACTIONLINT         := $(CACHE_DIR)/actionlint-$(ACTIONLINT_VERSION)/actionlint
# The scripts the release workflow runs and the tool installers, linted as strictly as the
# workflows' own `run:` steps (-x: following what they source).
LINT_SCRIPTS       := .ci/run $(wildcard scripts/release/*.sh) $(wildcard tests/toolpins/*.sh tests/harness/*.sh tests/e2e/*.sh)

.PHONY: lint-deps lint-workflows test-scripts check-shared-pins

$(ACTIONLINT):
	cd $(CACHE_DIR) && GOWORK=off GOBIN=$(dir $@) go install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

# actionlint skips the shellcheck rule without a word when shellcheck is missing, so install it
# here (apt, as tests/harness/install-deps.sh installs etcd) and have lint-workflows insist on it.
lint-deps: $(ACTIONLINT)
	@command -v shellcheck >/dev/null || { \
		echo "lint-deps: installing shellcheck (apt)" >&2; \
		sudo=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq shellcheck >/dev/null; }

# -shellcheck gets the absolute path, so a missing shellcheck fails here instead of silently
# turning the rule off; -pyflakes= keeps the result independent of what else is on PATH (no
# workflow step runs Python inline).
lint-workflows: lint-deps
	@sc=$$(command -v shellcheck) || { echo "lint-workflows: shellcheck is not on PATH (make lint-deps)" >&2; exit 1; }; \
	$(ACTIONLINT) -shellcheck="$$sc" -pyflakes= && \
	"$$sc" -x $(LINT_SCRIPTS) && \
	echo "lint-workflows: actionlint $(ACTIONLINT_VERSION) and $$("$$sc" --version | sed -n 's/^version: /shellcheck /p') passed on $$(ls .github/workflows/*.yml | paste -sd' ')"

test-scripts:
	bash tests/toolpins/lib_test.sh

check-shared-pins:
	bash tests/toolpins/check-shared-pins.sh

DEPS_TARGETS += lint-deps
TEST_TARGETS += lint-workflows test-scripts check-shared-pins
