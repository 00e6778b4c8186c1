// Package providertest is the test kit for provider authors and for code
// that calls providers: the conformance suite ([TestProvider],
// [CheckProvider]) that proves a [provider.Provider] keeps its contract,
// and provider fakes ([Intercept], [FailRandomly], [FailAfterApplyRandomly],
// [WithLatency], [RecordingProvider], and [LimitedProvider], a DNS API with
// Route 53-like limits for testing code that applies at scale). Every fake
// has exactly the optional capabilities ([provider.ZoneLister], ...) of the
// provider it wraps, found with [provider.As] through its Unwrap method;
// asked directly, their ListZones fails with [provider.ErrZonesUnsupported]
// when the wrapped provider does not list zones (which [provider.ZonesOf]
// honours).
//
// It links package testing and is meant for tests, examples and test
// programs; production code imports [github.com/zonesync/zonesync/blueprint]
// instead, as it imports net/http rather than net/http/httptest. Apart from
// testing it uses only the standard library and zonesync's own packages.
//
// # Usage
//
// A provider author proves an implementation in one test:
//
//	func TestConformance(t *testing.T) {
//		providertest.TestProvider(t, func(t *testing.T) provider.Provider {
//			return myprovider.New(...)
//		}, providertest.Options{Zone: "test.example.net"})
//	}
//
// Fault injection wraps any provider:
//
//	p := providertest.FailRandomly(inmemory.New(inmemory.Options{Zones: []string{"example.org"}}),
//		0.2, rand.New(rand.NewPCG(1, 2)), provider.NewSoftError(errors.New("rate limited")))
//
// A fake API refuses batches over its limits, throttles, and rejects a
// poisoned record with the whole batch it came in:
//
//	api := providertest.NewLimitedProvider(zone, providertest.APILimits{
//		MaxRecords: 1000, MaxValueBytes: 32000, ThrottleEvery: 5,
//		Poisoned: []string{"bad.example.org"},
//	})
//
// # The conformance suite
//
// The suite checks one behaviour at a time, named as in the list below; each
// violation is reported with the behaviour, the operation and the record.
// Names follow the rule of the provider contract (see the provider
// package, "Names"): lower-case A-labels without a trailing dot
// ("xn--mnchen-3ya.example.org"), checked by NameNormalisation and
// PunycodeNames.
//
//   - Create: created records (A, TXT, CNAME) appear with their targets and TTL.
//   - UpdateTargets, UpdateTTL: an update changes the targets, the TTL.
//   - Delete: a deleted record disappears and its neighbours stay.
//   - ReadAfterWrite: once ApplyChanges has returned nil, the next Records
//     shows the change (create, update, delete, create again), even when
//     Records was called just before the write.
//   - NameNormalisation: a record created as "Zs-CoNf….eXaMpLe.oRg." is
//     stored once and returned as "zs-conf….example.org"; updates and
//     deletes spelled in another case, with or without the trailing dot,
//     reach it; every name Records returns is in lower-case A-label form
//     without a trailing dot.
//   - PunycodeNames: a name with an A-label comes back unchanged (not
//     converted to Unicode) and can be deleted under that name.
//   - WildcardNames: records named "*.…" come back with "*" as their first
//     label (not escaped as "\052"), and are updated and deleted by that
//     name.
//   - MultiTarget: a record keeps several targets, through create and update.
//   - TXTQuotes: TXT values with leading, trailing and embedded double
//     quotes and with backslashes (as the TXT registry writes
//     "\"heritage=external-dns,…\"") round-trip byte for byte.
//   - TXTLongValues: TXT values of 255, 256 and 700 bytes, longer than one
//     DNS character string, round-trip byte for byte, through create and
//     update.
//   - UnknownProviderSpecific: UpdateOld and Delete entries carrying
//     provider-specific properties the provider does not know
//     ("txt/force-update", "webhook/foo") still update and delete the
//     record: those entries only identify it.
//   - SetIdentifier: records that differ only in set identifier coexist.
//   - DomainFilter: GetDomainFilter matches the names the provider accepts,
//     and AdjustEndpoints keeps valid endpoints without modifying them.
//   - CreateExisting: creating an existing record fails and keeps it (with
//     [Options.Upsert]: succeeds and replaces it).
//   - ChangeMissing: deleting a missing record fails; updating a missing
//     record fails and creates nothing (with [Options.Upsert] it may instead
//     create the record).
//   - SortedRecords: Records is sorted by (DNSName, SetIdentifier, RecordType).
//   - ReturnedSlicesAreCopies: mutating Records results or the applied
//     changes does not change the provider, and ApplyChanges does not modify
//     its input.
//   - ContextCanceled: a cancelled context fails Records and ApplyChanges
//     with an error wrapping context.Canceled, and applies nothing.
//   - ConcurrentApply: concurrent ApplyChanges and Records calls all take
//     effect (run it under -race).
//   - Zones: a provider that lists its zones ([provider.ZoneLister], as
//     seen through [provider.ZonesOf]) lists one holding the suite's zone
//     and names. Providers without the capability pass.
//   - VisitRecords: a provider that shows its records one at a time
//     ([provider.RecordVisitor]) shows exactly what Records returns, in the
//     same order, and stops at the first error of the visitor, returning
//     it. Providers without the capability pass.
//   - Guarantees: what the provider declares ([provider.GuaranteesOf]) holds
//     and agrees with the options: a provider that declares
//     CreateFailsIfExists fails a create of an existing record and keeps
//     it (and must not be run with Options.Upsert); one that declares
//     KeepsSetIdentifiers keeps records that differ only in set identifier
//     apart (and must not be run with Options.NoSetIdentifier). Declared
//     record types are upper-case type names. The core trusts these
//     declarations, so a false one fails. Providers that declare nothing
//     pass.
//
// The suite only creates records whose name has a label starting with
// "zs-conformance-<random>-", under the zone given with [Options.Zone] (default
// "example.org"), and deletes them afterwards, so it can run against a real
// zone. [Options.Timeout] bounds each behaviour and [Options.Concurrency] sets the
// number of goroutines of ConcurrentApply.
//
// # Capabilities
//
// A provider declares how it legitimately differs from the strict default
// with options; the suite then checks it against its declaration:
//
//   - [Options.Upsert]: creates replace existing records, as Route 53 UPSERT
//     does. CreateExisting then requires the replacement, and ChangeMissing
//     also accepts an update of a missing record that creates it.
//   - [Options.NoSetIdentifier]: the provider has no set identifiers (routing
//     policies). SetIdentifier is skipped and no other behaviour writes a
//     set identifier.
//
// Every other behaviour is essential and always runs: no option skips
// create, read, update and delete, read-after-write, name normalisation or
// the error cases. A provider over a backend that cannot meet one (an
// external-dns provider, say, whose backend API lacks it) declares the gap
// with [Options.Lacks] and its reason: the behaviour still runs, its
// violations are reported as that gap rather than as failures, and a
// declared gap that turns out to conform fails, so declarations stay true.
//
// [CheckProvider] returns the violations instead of failing a test, so it
// also runs outside tests (for example against a staging zone); each is a
// [*Violation] whose text starts with the behaviour's name.
//
// # Concurrency
//
// The fakes and [RecordingProvider] are safe for concurrent use (as far as
// the wrapped provider is). [CheckProvider] may be called from several
// goroutines on different providers.
package providertest
