// Package registrytest is the contract checker for [registry.Registry]
// implementations, with the shape of the other contract kits
// (provider/providertest, source/sourcetest): [CheckRegistry] runs every
// rule against registries built over a fresh in-memory provider and
// returns every violation it finds, joined; [TestRegistry] runs the same
// checks in a test and reports each violation with t.Error, as
// fstest.TestFS does for a file system. Each violation is a [*Violation]
// naming the rule, the call, the record and what was wrong.
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
// Each rule is a sentence of the registry contract (the package
// documentation of package registry, "Contract", the docs of
// [registry.Registry]'s methods, and the provider contract it follows),
// quoted after the arrow; the name is the constant Rule... and the first
// word of every violation:
//
//   - OwnerIDStable: OwnerID returns the owner id the registry was built
//     with, the same before and after reading and writing. ← OwnerID
//     "returns the id this registry writes as owner".
//   - ForeignRecordsNotOwned: records the registry did not create (written
//     to the provider directly, or created through another owner's
//     registry) are never reported with the registry's owner label, nor
//     with an ownership verdict ([endpoint.Endpoint.Ownership]) that makes
//     them ours; every record it reports carries a verdict. ← "A Registry
//     reads records together with the labels that say who owns them".
//   - OrphanOwnershipNotLent: when a record the registry created is
//     deleted behind its back, leaving the ownership data alone, and
//     somebody else writes a record of the same name and type later, the
//     registry that read the orphaned ownership data does not report the
//     new record as its own. ← the same sentence: the new record's labels
//     must say who owns it, and that is not the registry.
//   - ForeignChangesRefused: ApplyChanges asked to update or delete a
//     record the registry does not own (as Records reported it) fails with
//     an error matching [registry.ErrNotOwned] and leaves the provider
//     untouched. ← "ApplyChanges only updates and deletes records whose
//     owner label is the registry's own id; asked for anything else, it
//     fails with an error matching ErrNotOwned rather than drop the
//     change".
//   - OwnershipTravelsWithRecord: a record the registry creates is written
//     together with its ownership data: a new registry over the same
//     provider reports it as owned; an update keeps it owned; a delete
//     removes the record and its ownership data, leaving the provider as it
//     was before the create. ← ApplyChanges "applies changes and writes
//     the matching ownership data".
//   - SliceOwnership: changing what Records returned (names, targets,
//     labels) changes nothing the next Records returns, and no two records
//     share their labels. ← Records: "The slice and the endpoints (labels
//     included) belong to the caller".
//   - AdjustEndpoints: AdjustEndpoints does not modify the endpoints it is
//     given. ← "Implementations follow the provider contract … for slice
//     ownership": AdjustEndpoints "must not modify the endpoints it is
//     given".
//   - SortedRecords: two Records calls without a write in between return
//     the same records, sorted by name, set identifier and type. ← "Records
//     returns a fresh, sorted slice".
//   - OwnershipVerdict: every record Records returns carries the ownership
//     verdict the registry decided when it read it, and that verdict is the
//     one rule ([endpoint.Owners.Verdict], with the registry's owner id)
//     applied to the owner label the record is reported with: records it
//     created are [endpoint.OwnedByUs], others' records
//     [endpoint.OwnedByOther], records of nobody [endpoint.OwnedByNobody].
//     An owner label that the provider itself returns with a record (as
//     external-dns's coredns provider stores one), even the registry's own
//     owner id, claims nothing. ← [endpoint.Ownership]: "A registry decides
//     it once, when it reads the record, and attaches it to the record".
//
// # Optional checks
//
// A registry may promise more than the contract; it declares it with an
// option and the checker then holds it to the declaration:
//
//   - PerZoneErrors: with [Options.PerZone], when the provider lists its
//     zones and fails the changes of one zone, the changes of the other
//     zone are applied (and owned), and the error returns the provider's
//     and matches a [provider.ZoneError] naming the failing zone.
//     registry/txt and registry/crd declare it; the Registry contract does
//     not ask for it, so registry/noop, which hands every change set to
//     the provider in one call, does not.
//   - SharedContributions: with [Options.Shared], two owners that create
//     the same record set each contribute their targets: the provider holds
//     the union, each owner's Records reports its own contribution as ours
//     (with its own targets), and the registry reports the record set
//     through [registry.SharedReporter] with two live contributions.
//   - SharedLeave: with [Options.Shared], an owner that deletes its
//     contribution removes only its targets, and the last owner leaving
//     removes the record set and everything written for it: the provider
//     holds what it held before the first contribution.
//   - SharedForeignNotJoined: with [Options.Shared], a record set that is
//     not shared (written to the provider directly) is never reported as
//     ours, and a create of the same record set leaves it as it was.
//
// With [Options.Shared], a record set that others share and the owner
// being checked does not contribute to may be missing from Records (the
// registry reports its own contribution there, nothing otherwise) when
// [registry.SharedReporter] reports it: ForeignRecordsNotOwned and
// ForeignChangesRefused then check it as reported there.
//
// # Registries that keep no ownership
//
// A registry that records no ownership at all (registry/noop: owner id "",
// every record counts as the caller's) sets [Options.NoOwnership]. The
// ownership rules then check what such a registry promises instead:
// OwnerID is "", no record is reported with an owner label, every record's
// verdict is [endpoint.OwnedByUs], changes of any record are applied
// (ForeignChangesRefused and OrphanOwnershipNotLent have nothing to check
// and pass), and a create writes the record alone, with no ownership data
// beside it.
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
