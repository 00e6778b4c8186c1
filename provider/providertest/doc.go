// Package providertest is the test kit for provider authors and for code
// that calls providers: the conformance suite ([CheckProvider],
// [TestProvider]) that proves a [provider.Provider] keeps its contract,
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
//		providertest.TestProvider(t, myprovider.New(...), providertest.Options{Zone: "test.example.net"})
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
// [CheckProvider] runs every rule below against a provider and returns all
// violations, joined; [TestProvider] runs the same checks in a test and
// reports each violation with t.Error, as fstest.TestFS does for a file
// system. Each violation is a [*Violation] naming the rule, the call, the
// record and what was wrong; its text starts with the rule's name. The
// other contract kits, registry/registrytest and source/sourcetest, have
// the same shape: CheckX(ctx, subject, Options) error, TestX(t, subject,
// Options), and the same Violation.
//
// # Rules
//
// Each rule is a sentence of the provider contract (the package
// documentation of package provider, "Contract", and the docs of the
// methods and capabilities it names), quoted after the arrow; the name is
// the constant Rule... and the first word of every violation.
//
//   - Create: created records (A, TXT, CNAME) appear with their targets
//     and TTL. ← ApplyChanges "creates the Create records".
//   - UpdateTargets: an update changes the targets. ← ApplyChanges
//     "replaces each UpdateOld[i] by UpdateNew[i]".
//   - UpdateTTL: an update changes the TTL. ← the same sentence.
//   - Delete: a deleted record disappears and its neighbours stay. ←
//     ApplyChanges "removes the Delete records".
//   - ReadAfterWrite: once ApplyChanges has returned nil, the next Records
//     shows the change (create, update, delete, create again), even when
//     Records was called just before the write. ← Records "returns every
//     record the provider holds".
//   - NameNormalisation: a record created as "Zs-CoNf….eXaMpLe.oRg." is
//     stored once and returned as "zs-conf….example.org"; updates and
//     deletes spelled in another case, with or without the trailing dot,
//     reach it; every name Records returns is in lower-case A-label form
//     without a trailing dot. ← Names: "lower-case A-labels without a
//     trailing dot"; "a provider should also find a record when a change
//     spells its name in another case or with a trailing dot".
//   - PunycodeNames: a name with an A-label comes back unchanged (not
//     converted to Unicode) and can be deleted under that name. ← Names:
//     "xn--mnchen-3ya.example.org, never münchen.example.org".
//   - WildcardNames: records named "*.…" come back with "*" as their first
//     label (not escaped as "\052"), and are updated and deleted by that
//     name. ← Names: "every name Records returns is in the one form
//     zonesync holds names in".
//   - MultiTarget: a record keeps several targets, through create and
//     update, in one endpoint. ← Names: "One endpoint holds every target
//     of its (name, type, set identifier)".
//   - TXTQuotes: TXT values with leading, trailing and embedded double
//     quotes and with backslashes (as the TXT registry writes
//     "\"heritage=external-dns,…\"") round-trip byte for byte. ← What is
//     stored: "A provider stores what a DNS server stores: name, type, set
//     identifier, TTL, targets".
//   - TXTLongValues: TXT values of 255, 256 and 700 bytes, longer than one
//     DNS character string, round-trip byte for byte, through create and
//     update. ← the same sentence.
//   - UnknownProviderSpecific: UpdateOld and Delete entries carrying
//     provider-specific properties the provider does not know
//     ("txt/force-update", "webhook/foo") still update and delete the
//     record. ← What is stored: "Provider-specific properties a provider
//     does not know … must be ignored, never rejected".
//   - SetIdentifier: records that differ only in set identifier coexist.
//     ← What is stored: "set identifier". Skipped with
//     [Options.NoSetIdentifier].
//   - DomainFilter: GetDomainFilter is not nil and matches the names of
//     the zone the provider manages. ← GetDomainFilter "returns the names
//     the provider can manage … It never returns nil".
//   - AdjustEndpoints: AdjustEndpoints does not modify the endpoints it is
//     given, keeps valid A and TXT endpoints, and what it returns is
//     accepted by ApplyChanges and read back. ← AdjustEndpoints "must not
//     modify the endpoints it is given"; it canonicalises them "so that
//     plans converge".
//   - CreateExisting: creating an existing record fails and keeps it (with
//     [Options.Upsert]: succeeds and replaces it). ← Changes: "Creating a
//     record that exists … [is an error]".
//   - ChangeMissing: deleting a missing record fails; updating a missing
//     record fails and creates nothing (with [Options.Upsert] it may
//     instead create the record). ← Changes: "updating or deleting a
//     record that does not exist, are errors".
//   - SortedRecords: Records is sorted by (DNSName, SetIdentifier,
//     RecordType). ← Order: "Records returns endpoints sorted by DNSName,
//     then SetIdentifier, then RecordType".
//   - SliceOwnership: mutating Records results or the applied changes does
//     not change the provider, and ApplyChanges does not modify its input.
//     ← Slice ownership: "Records returns a fresh slice of fresh endpoints
//     on every call"; "ApplyChanges must not modify the plan.Changes it is
//     given … and must not keep references to them".
//   - Context: a cancelled context fails Records and ApplyChanges with an
//     error wrapping context.Canceled, and applies nothing. ← Context:
//     "return promptly with an error that wraps ctx.Err() … a call made
//     with an already cancelled context changes nothing".
//   - Concurrency: concurrent ApplyChanges and Records calls all take
//     effect (run it under -race). ← Concurrency: "All methods are safe
//     for concurrent use … Concurrent ApplyChanges calls touching
//     different records must all take effect".
//   - Zones: a provider that lists its zones ([provider.ZoneLister], as
//     seen through [provider.ZonesOf]) lists one holding the suite's zone
//     and names. ← ZoneLister: "a provider that can tell the zones it
//     holds". Providers without the capability pass.
//   - VisitRecords: a provider that shows its records one at a time
//     ([provider.RecordVisitor]) shows exactly what Records returns, in the
//     same order, and stops at the first error of the visitor, returning
//     it. ← RecordVisitor: "VisitRecords calls visit for every record the
//     provider holds, in the order Records returns them"; "An error from
//     visit stops the walk and VisitRecords returns it unchanged".
//     Providers without the capability pass.
//   - Guarantees: what the provider declares ([provider.GuaranteesOf])
//     holds and agrees with the options: a provider that declares
//     CreateFailsIfExists fails a create of an existing record and keeps
//     it (and must not be run with Options.Upsert); one that declares
//     KeepsSetIdentifiers keeps records that differ only in set
//     identifier apart (and must not be run with Options.NoSetIdentifier).
//     Declared record types are upper-case type names. ← Guarantees: "what
//     a provider promises about the records it stores"; the core trusts
//     them, so a false one fails. Providers that declare nothing pass.
//
// The suite only creates records whose name has a label starting with
// "zs-conformance-<random>-", under the zone given with [Options.Zone]
// (default "example.org"), and deletes them after each rule, so it can run
// against a real zone. [Options.Timeout] bounds each rule and
// [Options.Concurrency] sets the number of goroutines of Concurrency.
//
// # Options
//
// A provider declares how it legitimately differs from the strict default
// with options; the suite then checks it against its declaration:
//
//   - [Options.Upsert]: creates replace existing records, as Route 53
//     UPSERT does. CreateExisting then requires the replacement, and
//     ChangeMissing also accepts an update of a missing record that
//     creates it.
//   - [Options.NoSetIdentifier]: the provider has no set identifiers
//     (routing policies). SetIdentifier is skipped and no other rule writes
//     a set identifier.
//
// Every other rule always runs: no option skips create, read, update and
// delete, read-after-write, name normalisation or the error cases. A
// provider over a backend that cannot keep one (an external-dns provider,
// say, whose backend API lacks it) declares the gap with [Options.Lacks]
// and its reason: the rule still runs, its violations are reported as that
// gap rather than as failures ([TestProvider] logs them), and a declared
// gap that turns out to conform fails, so declarations stay true.
//
// [CheckProvider] also runs outside tests (for example against a staging
// zone).
//
// # Concurrency
//
// The fakes and [RecordingProvider] are safe for concurrent use (as far as
// the wrapped provider is). [CheckProvider] may be called from several
// goroutines on different providers.
package providertest
