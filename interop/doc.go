// Package interop tests zonesync against the real external-dns module
// (sigs.k8s.io/external-dns): its TXT registry, its planner, its webhook
// client and server and its JSON types run side by side with zonesync's on
// the same zones and inputs.
//
// It is a separate Go module so that the zonesync module never depends on
// external-dns. The package itself only holds the helpers the tests share:
// conversion of endpoints and changes between the two type systems, copying
// a zone from one in-memory provider to the other, and the benchmark
// workload W(N) of SPEC.md ("Performance"), rebuilt here because
// internal/workload is internal to the zonesync module.
//
// Run the tests with
//
//	cd interop && go test -race ./...
//
// The module needs the Go toolchain that external-dns asks for; with
// GOTOOLCHAIN=auto the go command fetches it through the module proxy.
package interop
