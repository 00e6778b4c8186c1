// Package interop tests zonesync against the real external-dns module
// (sigs.k8s.io/external-dns): its TXT registry, its planner, its webhook
// client and server and its JSON types run side by side with zonesync's on
// the same zones and inputs.
//
// It is a separate Go module so that the zonesync module never depends on
// external-dns. The package itself only holds the helpers the tests share:
// conversion of endpoints and changes between the two type systems, copying
// a zone from one in-memory provider to the other, and the benchmark
// workload W(N) of docs/benchmarks.md, rebuilt here because
// internal/workload is internal to the zonesync module.
//
// # Sources
//
// The differential source tests (sources_*_test.go, harness in
// sourcediff_test.go) load one set of objects into fake clients — typed
// objects into k8s.io/client-go's kubernetes fake, custom resources into the
// dynamic fake, and converted into the Istio and Gateway API fakes
// external-dns reads them from; DNSEndpoints are also served by a small
// loopback API server, as external-dns's CRD source takes a REST config —
// and read them with a zonesync source and with external-dns's own source
// built by source.BuildWithConfig from the same settings (the fakeCluster
// is external-dns's ClientGenerator). Both endpoint lists are compared as
// sets of (name, type, sorted targets, TTL, set identifier,
// provider-specific properties, resource label). Each record only one side
// produced is a disagreement; it must match a sourceRule (a name, a reason
// and a predicate over the record, its object, zonesync's PartialError
// cause for it and both sides' records of that object), or the test fails
// and prints the seed, the settings and the object. Every rule is listed in
// docs/compatibility.md ("Sources").
//
// To add a source, write one file sources_<name>_test.go with:
//
//   - a sourceDiff: Name is external-dns's source name (source/types),
//     Zonesync builds the zonesync source from the fakeCluster's clients
//     and the sourceSettings (zonesyncOptions gives the shared options),
//     ExternalDNS is left nil unless BuildWithConfig cannot build it, Rules
//     are its own known differences;
//   - a generator method on gen drawing the objects (gen.meta gives names,
//     namespaces, labels and random external-dns annotations under both
//     prefixes, valid and invalid; gen.settings the filters and template);
//   - a test looping over sourceSeeds() calling sd.check, and hand-written
//     cases calling sd.compare.
//
// A CRD-based source also adds its resources to dynamicResources.
//
// Run the tests with
//
//	cd interop && go test -race ./...
//
// The module needs the Go toolchain that external-dns asks for; with
// GOTOOLCHAIN=auto the go command fetches it through the module proxy.
package interop
