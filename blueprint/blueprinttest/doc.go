// Package blueprinttest is the test kit for provider authors and for code
// that calls providers: the conformance suite ([TestProvider],
// [CheckProvider]) that proves a [provider.Provider] keeps its contract,
// and provider fakes ([Intercept], [FailRandomly], [FailAfterApplyRandomly],
// [WithLatency], [RecordingProvider]).
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
//		blueprinttest.TestProvider(t, func(t *testing.T) provider.Provider {
//			return myprovider.New(...)
//		}, blueprinttest.WithZone("test.example.net"))
//	}
//
// Fault injection wraps any provider:
//
//	p := blueprinttest.FailRandomly(inmemory.New(inmemory.WithZone("example.org")),
//		0.2, rand.New(rand.NewPCG(1, 2)), provider.NewSoftError(errors.New("rate limited")))
//
// # The conformance suite
//
// The suite checks one behaviour at a time, named as in the list below; each
// violation is reported with the behaviour, the operation and the record.
//
//   - Create: created records (A, TXT, CNAME) appear with their targets and TTL.
//   - UpdateTargets, UpdateTTL: an update changes the targets, the TTL.
//   - Delete: a deleted record disappears and its neighbours stay.
//   - MultiTarget: a record keeps several targets, through create and update.
//   - SetIdentifier: records that differ only in set identifier coexist.
//   - DomainFilter: GetDomainFilter matches the names the provider accepts,
//     and AdjustEndpoints keeps valid endpoints without modifying them.
//   - DuplicateCreateFails: creating an existing record fails and keeps it.
//   - DeleteMissingFails: deleting or updating a missing record fails.
//   - SortedRecords: Records is sorted by (DNSName, SetIdentifier, RecordType).
//   - ReturnedSlicesAreCopies: mutating Records results or the applied
//     changes does not change the provider, and ApplyChanges does not modify
//     its input.
//   - ContextCanceled: a cancelled context fails Records and ApplyChanges
//     with an error wrapping context.Canceled, and applies nothing.
//   - ConcurrentApply: concurrent ApplyChanges and Records calls all take
//     effect (run it under -race).
//
// The suite only creates records named "zs-conformance-<random>-<behaviour>"
// under the zone given with [WithZone] (default "example.org") and deletes
// them afterwards, so it can run against a real zone. [WithTimeout] bounds
// each behaviour and [WithConcurrency] sets the number of goroutines of
// ConcurrentApply. Options can skip a behaviour only where a provider
// legitimately lacks it ([WithoutSetIdentifier]); the essential behaviours
// (create, update, delete, error cases) cannot be skipped.
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
package blueprinttest
