# Performance: benchmarks and sizes, printed as one table (see CONTRIBUTING.md, Performance).
# Not part of `make test`: benchmarks measure, they are not assertions.
.PHONY: bench
bench: build harness-deps e2e-deps
	bash scripts/bench.sh
