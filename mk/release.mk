# Release packaging (.goreleaser.yml): the plugin archives Pulumi downloads through the schema's
# pluginDownloadURL. goreleaser is built once from the Go module proxy into $(CACHE_DIR).
#
#   make release-check      goreleaser check (part of make test)
#   make release-snapshot   build every archive into dist/ and check names and the stamped version

# v2.18 needs Go 1.27; v2.17.0 needs a module the proxy refuses (go.digitalxero.dev/go-msix).
GORELEASER_VERSION ?= v2.16.0
GORELEASER         := $(CACHE_DIR)/goreleaser-$(GORELEASER_VERSION)/goreleaser
RELEASE_PLATFORMS  := linux-amd64 linux-arm64 darwin-amd64 darwin-arm64 windows-amd64 windows-arm64

.PHONY: release-deps release-check release-snapshot

$(GORELEASER):
	cd $(CACHE_DIR) && GOWORK=off GOBIN=$(dir $@) go install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

release-deps: $(GORELEASER)

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

DEPS_TARGETS += release-deps
TEST_TARGETS += release-check
