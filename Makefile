# zonesync — developer tasks. `make test` is the one command that runs every test.

GO ?= go
GOFLAGS_TEST ?= -race -count=1

.PHONY: test test-root test-operator fmt vet bench fuzz-smoke

## test: every test of the root module and of the nested examples/operator module, with -race.
test: test-root test-operator

test-root:
	$(GO) test $(GOFLAGS_TEST) ./...

test-operator:
	cd examples/operator && $(GO) test $(GOFLAGS_TEST) ./...

## fmt: fail if any file is not gofmt-formatted.
fmt:
	@out="$$(gofmt -l $$(git ls-files '*.go'))"; if [ -n "$$out" ]; then echo "not gofmt-ed:"; echo "$$out"; exit 1; fi

## vet: go vet both modules.
vet:
	$(GO) vet ./...
	cd examples/operator && $(GO) vet ./...

## bench: the benchmarks recorded in docs/benchmarks.md (rfc2136 needs named, see README).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 1 ./plan/ ./registry/txt/ ./provider/inmemory/ ./provider/webhook/ ./provider/rfc2136/ ./source/ ./informers/ .

## fuzz-smoke: run every fuzz target for a few seconds (the seed corpora always run in `make test`).
fuzz-smoke:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 5s $$pkg || exit 1; \
	  done; \
	done
