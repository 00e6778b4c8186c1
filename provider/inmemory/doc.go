// Package inmemory is a zone-aware DNS provider that keeps its records in
// memory: the embedded default of zonesync, the backend of its examples and
// benchmarks, and the reference implementation of the [provider.Provider]
// contract (it passes providertest.CheckProvider). It is meant to be read:
// a provider author finds in it, in a few short functions, what the
// contract in package provider asks for — sorted deep copies from Records,
// validation of a whole change set before any of it is applied, errors
// that name the record at fault, zones listed through
// [provider.ZoneLister], records shown one at a time through
// [provider.RecordVisitor].
//
// # Usage
//
//	p := inmemory.New(inmemory.Options{
//		Zones:   []string{"example.org"},
//		Records: []*endpoint.Endpoint{endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1")},
//	})
//	if err := p.Err(); err != nil { // the options New refused, if any
//		return err
//	}
//	err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{...}})
//	records, err := p.Records(ctx)
//
// Zones are given in [Options.Zones] or added later with [Provider.CreateZone].
// Every record must fall in a zone (the most specific one holds it); by
// default [Provider.GetDomainFilter] matches the zones and the names below
// them, so a Reconciler never plans records the provider would refuse.
//
// # What is stored
//
// Like a DNS server, the provider stores a record's name in the form DNS
// stores it ([endpoint.ToALabel]: lower-case A-labels without a
// trailing dot, so "München.example.com." is kept and returned as
// "xn--mnchen-3ya.example.com"), type, set identifier, TTL, targets and
// provider-specific properties. It does not store labels: ownership lives in
// TXT records written by the registry. The property
// [endpoint.ProviderSpecificForceUpdate] is dropped.
//
// # Errors
//
// [Provider.ApplyChanges] is atomic per call: it validates the whole change
// set first and a failing call changes nothing. A record outside every zone
// ([ErrNoZone]), a create of an existing record ([ErrRecordExists]), an
// update or delete of a missing one ([ErrRecordNotFound]), a record touched
// twice ([ErrDuplicateChange]) and an invalid endpoint ([ErrInvalidChanges])
// are reported together, each naming the record (name/type/set identifier).
// Updates and deletes match stored records by key only; their targets need
// not equal the stored ones. A cancelled context gives an error wrapping
// ctx.Err() and changes nothing.
//
// [New] never fails or panics (its signature is fixed by zonesync's API and
// has no error): invalid options (a bad zone name, an initial record
// outside every zone, more than one [Options]) are reported by
// [Provider.Err], to be checked right after New as a constructor's error,
// and by every Records, ListZones and ApplyChanges call, as an error
// wrapping [ErrInvalidOptions].
//
// # Concurrency
//
// A [Provider] is safe for concurrent use; it holds no package-level state,
// so any number of providers can live in one process. [Provider.Records]
// returns deep copies the caller may modify.
//
// # Performance
//
// [Provider.ApplyChanges] costs O(k) for k changes. Records are kept in a
// sorted, immutable snapshot held in a few large allocations (cheap for the
// garbage collector); the records changed since the last [Provider.Records]
// call are merged into a new snapshot by that call, in O(n) plus
// O(k log k). Records then copies n records in at most four allocations,
// whatever n, outside the lock, so writers are not held up by readers.
package inmemory
