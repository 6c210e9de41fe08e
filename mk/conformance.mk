# Conformance (tests/conformance): every child the component renders and every provider function
# it invokes, checked against the providers' published declarations — the *.d.ts files of
# @pulumi/aws 6.83.2 and 7.48.0 and @pulumi/kubernetes 4.30.0 and 4.34.2, unpacked (no install
# scripts run) into $(CACHE_DIR)/conformance. Nothing is written into the repository.
#
#   make conformance-deps   fetch the declarations (npm pack; a no-op when cached)
#   make test-conformance   render every install shape and check it (~10 s warm)
.PHONY: conformance-deps test-conformance

CONFORMANCE_ENV := PROVIDER_BIN=$(CURDIR)/bin/$(PROVIDER) CACHE_DIR=$(CACHE_DIR) GOWORK=off

FETCH_DEPS_TARGETS += conformance-deps
TEST_TARGETS += test-conformance

conformance-deps:
	bash tests/conformance/install-declarations.sh

test-conformance: build conformance-deps
	cd tests && $(CONFORMANCE_ENV) go vet ./conformance && $(CONFORMANCE_ENV) go test -count=1 ./conformance
