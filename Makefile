# zonesync — developer tasks. `make test` is the one command that runs every test.

GO ?= go
GOFLAGS_TEST ?= -race -count=1

# The interop and provider/externaldns modules need the Go toolchain external-dns asks for (see
# interop/go.mod); GOTOOLCHAIN=auto lets the go command fetch it through the
# module proxy when the installed one is older.
INTEROP_GO ?= GOTOOLCHAIN=auto $(GO)

# kube-apiserver and etcd for internal/kubetest, built from k8s.io/kubernetes
# and go.etcd.io/etcd/server/v3 (the etcd release that Kubernetes version
# pins) by the tools module tools/kubeapiserver: its own go.mod, so
# k8s.io/kubernetes never enters zonesync's module graph. Rebuilt only when
# that module changes.
KUBE_VERSION := $(shell awk '$$1 == "k8s.io/kubernetes" && $$2 ~ /^v[0-9]/ { sub(/^v/, "", $$2); print $$2 }' tools/kubeapiserver/go.mod)
KUBE_LDFLAGS := -X k8s.io/component-base/version.gitVersion=v$(KUBE_VERSION) -X k8s.io/component-base/version.gitMajor=$(word 1,$(subst ., ,$(KUBE_VERSION))) -X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(KUBE_VERSION)))

.PHONY: test test-root test-operator test-interop test-externaldns test-dropin kubetest-binaries fmt vet bench bench-interop bench-externaldns fuzz-smoke

## test: every test of the root module and of the nested modules (examples/operator, interop, provider/externaldns, examples/dropin), with -race; builds the kubetest binaries first (minutes on the first run).
test: kubetest-binaries test-root test-operator test-interop test-externaldns test-dropin

## kubetest-binaries: build bin/kube-apiserver and bin/etcd, which the Kubernetes tests start (internal/kubetest); several minutes the first time, cached after.
kubetest-binaries: bin/kube-apiserver bin/etcd

bin/kube-apiserver: tools/kubeapiserver/go.mod tools/kubeapiserver/go.sum
	cd tools/kubeapiserver && $(GO) build -ldflags '$(KUBE_LDFLAGS)' -o $(CURDIR)/$@ k8s.io/kubernetes/cmd/kube-apiserver

bin/etcd: tools/kubeapiserver/go.mod tools/kubeapiserver/go.sum
	cd tools/kubeapiserver && $(GO) build -o $(CURDIR)/$@ go.etcd.io/etcd/server/v3

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

## test-dropin: examples/dropin (external-dns's command line running zonesync, a module of its own on Go 1.27), against moto's Route 53.
test-dropin:
	cd examples/dropin && $(INTEROP_GO) test $(GOFLAGS_TEST) ./...

## fmt: fail if any file is not gofmt-formatted.
fmt:
	@out="$$(gofmt -l $$(git ls-files '*.go'))"; if [ -n "$$out" ]; then echo "not gofmt-ed:"; echo "$$out"; exit 1; fi

## vet: go vet every module.
vet:
	$(GO) vet ./...
	cd examples/operator && $(GO) vet ./...
	cd interop && $(INTEROP_GO) vet ./...
	cd provider/externaldns && $(INTEROP_GO) vet ./...
	cd examples/dropin && $(INTEROP_GO) vet ./...

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
