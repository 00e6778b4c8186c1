// Package registry defines [Registry], the ownership layer between the
// planner and a provider. A Registry reads records together with the labels
// that say who owns them (the [endpoint.OwnerLabelKey] label and whatever
// else the ownership data holds) and writes ownership data along with every
// change, so that several writers — zonesync instances with different owner
// ids, external-dns, people editing the zone — can share a zone without
// touching each other's records.
//
// # Implementations
//
//   - registry/txt keeps ownership in TXT records next to the records, in
//     the format of the external-dns TXT registry, so zones can be shared
//     with (or migrated from) external-dns.
//   - registry/noop keeps no ownership at all: every record is unowned, so a
//     planner with an owner id never updates or deletes anything; with an
//     empty owner id it manages every record in its domain filter.
//
// # Usage
//
// A Reconciler calls Records, plans against the result, then ApplyChanges
// with the plan's changes:
//
//	reg, err := txt.New(prov, txt.Config{OwnerID: "my-operator"})
//	current, err := reg.Records(ctx)
//	p := (&plan.Plan{Current: current, Desired: desired, OwnerID: reg.OwnerID()}).Calculate()
//	err = reg.ApplyChanges(ctx, p.Changes)
//
// # Contract
//
// Implementations follow the provider contract (see package provider) for
// context, concurrency, slice ownership and order: Records returns a fresh,
// sorted slice the caller may modify, endpoints and their labels included
// (endpoint.Labels is a value: setting a label on one record changes no
// other). ApplyChanges never modifies the
// changes it is given. ApplyChanges only updates and deletes records whose
// owner label is the registry's own id; asked for anything else, it fails
// with an error matching [ErrNotOwned] rather than drop the change.
//
// # Ownership and outcomes
//
// [OwnershipOf] is the one reading of a registry's ownership settings: the
// owner id of Registry.OwnerID, joined with the rest of [OwnershipReporter]
// and checked against it. [ApplyOutcome] is the one reading of an
// ApplyChanges error per change — applied, rejected by the provider
// ([provider.RejectedError]), in a zone that failed ([provider.ZoneError]),
// or failed — shared by a Reconciler's record statuses and registry/crd's
// DNSRecord conditions.
//
// Package registry/registrytest checks an implementation against these
// rules (ownership never lent, ownership data written and removed with its
// record, foreign changes refused, copies, order) and, when the registry
// declares it, one error per failed zone, as providertest does for
// providers.
package registry
