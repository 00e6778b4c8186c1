// Package registrytest is the contract checker for [registry.Registry]
// implementations, in the style of providertest.CheckProvider: [CheckRegistry]
// runs every rule against a registry built over a fresh in-memory provider
// and returns every violation it finds, joined; [TestRegistry] runs the
// rules as subtests.
//
// The checker builds the registries itself, through a [NewRegistry]
// function, so that it can put a second owner's registry over the same
// provider and read the provider behind the registry's back.
// Ownership data is whatever the registry writes to the provider and does
// not report from Records (the ownership TXT records of registry/txt, for
// instance): the checker needs no knowledge of its format.
//
// # Rules
//
// Each rule has a name (the constants Rule...), used as the subtest name and
// in every [Violation]:
//
//   - OwnerIDStable: OwnerID returns the owner id the registry was built
//     with, the same before and after reading and writing.
//   - ForeignRecordsNotOwned: records the registry did not create (written
//     to the provider directly, or created through another owner's
//     registry) are never reported with the registry's owner label, nor
//     with an ownership verdict ([endpoint.Endpoint.Ownership]) that makes
//     them ours; every record it reports carries a verdict.
//   - OrphanOwnershipNotLent: when a record the registry created is
//     deleted behind its back, leaving the ownership data alone, and
//     somebody else writes a record of the same name and type later, the
//     registry that read the orphaned ownership data does not report the
//     new record as its own.
//   - ForeignChangesRefused: ApplyChanges asked to update or delete a
//     record the registry does not own (as Records reported it) fails with
//     an error matching [registry.ErrNotOwned] and leaves the provider
//     untouched.
//   - OwnershipTravelsWithRecord: a record the registry creates is written
//     together with its ownership data: a new registry over the same
//     provider reports it as owned; an update keeps it owned; a delete
//     removes the record and its ownership data, leaving the provider as it
//     was before the create.
//   - PerZoneErrors: when the provider lists its zones and fails the
//     changes of one zone, the changes of the other zone are applied (and
//     owned), and the error matches a [provider.ZoneError] naming the
//     failing zone.
//   - RecordsAreCopies: changing what Records returned (names, targets,
//     labels) changes nothing the next Records returns.
//   - AdjustEndpointsKeepsInput: AdjustEndpoints does not modify the
//     endpoints it is given.
//   - DeterministicRecords: two Records calls without a write in between
//     return the same records in the same order.
//   - OwnershipVerdict: every record Records returns carries the ownership
//     verdict the registry decided when it read it, and that verdict is the
//     one rule ([endpoint.Owners.Verdict], with the registry's owner id)
//     applied to the owner label the record is reported with: records it
//     created are [endpoint.OwnedByUs], others' records
//     [endpoint.OwnedByOther], records of nobody [endpoint.OwnedByNobody].
//     An owner label that the provider itself returns with a record (as
//     external-dns's coredns provider stores one), even the registry's own
//     owner id, claims nothing.
//
// # Registries that keep no ownership
//
// A registry that records no ownership at all (registry/noop: owner id "",
// every record counts as the caller's) sets [Options.NoOwnership]. The
// ownership rules then check what such a registry promises instead:
// OwnerID is "", no record is reported with an owner label, every record's
// verdict is [endpoint.OwnedByUs], changes of any
// record are applied (ForeignChangesRefused and OrphanOwnershipNotLent
// have nothing to check and pass), and a create writes the record alone,
// with no ownership data beside it. A registry that hands each change set
// to the provider in a single call sets [Options.OneApplyCall]:
// PerZoneErrors then only requires that the provider's error is returned.
//
// # Registries that keep ownership outside the provider
//
// A registry whose ownership data lives elsewhere (registry/crd keeps it in
// DNSRecord objects of a Kubernetes API server) sets
// [Options.OwnershipOutsideProvider]: OwnershipTravelsWithRecord then
// requires that a create writes the record alone to the provider, and still
// that a new registry (built by NewRegistry over the same provider, and so
// over the same store) reports it as owned. Its NewRegistry keeps one store
// per provider: the checker gives every rule a fresh provider.
package registrytest
