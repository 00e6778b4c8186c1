# zonesync — developer tasks. `make test` is the one command that runs every test.

GO ?= go
GOFLAGS_TEST ?= -race -count=1

# The interop and provider/externaldns modules need the Go toolchain external-dns asks for (see
# interop/go.mod); GOTOOLCHAIN=auto lets the go command fetch it through the
# module proxy when the installed one is older.
INTEROP_GO ?= GOTOOLCHAIN=auto $(GO)

.PHONY: test test-root test-operator test-interop test-externaldns fmt vet bench bench-interop bench-externaldns fuzz-smoke

## test: every test of the root module and of the nested modules (examples/operator, interop, provider/externaldns), with -race.
test: test-root test-operator test-interop test-externaldns

test-root:
	$(GO) test $(GOFLAGS_TEST) ./...

test-operator:
	cd examples/operator && $(GO) test $(GOFLAGS_TEST) ./...

## test-interop: the tests against the real external-dns module (interop/, a separate module).
test-interop:
	cd interop && $(INTEROP_GO) test $(GOFLAGS_TEST) ./...

## test-externaldns: the provider/externaldns module (external-dns's providers in-process), against real PowerDNS, BIND and etcd.
test-externaldns:
	cd provider/externaldns && $(INTEROP_GO) test $(GOFLAGS_TEST) ./...

## fmt: fail if any file is not gofmt-formatted.
fmt:
	@out="$$(gofmt -l $$(git ls-files '*.go'))"; if [ -n "$$out" ]; then echo "not gofmt-ed:"; echo "$$out"; exit 1; fi

## vet: go vet every module.
vet:
	$(GO) vet ./...
	cd examples/operator && $(GO) vet ./...
	cd interop && $(INTEROP_GO) vet ./...
	cd provider/externaldns && $(INTEROP_GO) vet ./...

## bench: the benchmarks recorded in docs/benchmarks.md (rfc2136 needs named, see README).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 1 ./plan/ ./registry/txt/ ./provider/inmemory/ ./provider/webhook/ ./provider/rfc2136/ ./provider/batch/ ./source/ ./source/gatewayapi/ ./informers/ ./metrics/prometheus/ .

## bench-interop: the side-by-side benchmarks against external-dns (docs/benchmarks.md).
bench-interop:
	cd interop && $(INTEROP_GO) test -run '^$$' -bench . -benchmem -count 5 ./...

## fuzz-smoke: run every fuzz target for a few seconds (the seed corpora always run in `make test`).
fuzz-smoke:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 5s $$pkg || exit 1; \
	  done; \
	done
