// Package noop provides a [registry.Registry] that keeps no ownership data:
// [Registry.Records] and [Registry.ApplyChanges] go straight to the provider
// and [Registry.OwnerID] is "".
//
// # Usage
//
// Use it when zonesync is the only writer of a zone, or to drive a provider
// directly. Beware: without ownership data every record is ours — the
// verdict Records attaches to each is [endpoint.OwnedByUs], the rule of a
// registry without owner id — so a plan manages every record the domain
// filter and the managed record types let through, including records
// somebody else created.
//
// # Ownership settings
//
// Registry deliberately does not implement [registry.OwnershipReporter]:
// it has no ownership configuration (no owner id written, no old owner,
// no managed record types), so it cannot be the source of truth for
// them. A Reconciler over it plans with its own ManagedRecordTypes,
// which matter all the more here: with an empty owner id they are what
// keeps the plan from deleting records of other types. Reporting "no
// restriction" instead would either override those settings or
// contradict them.
//
// Checked with registrytest, it is a registry with Options.NoOwnership
// (owner id "", no owner label on any record, no ownership data written);
// it does not declare Options.PerZone: each change set goes to the
// provider as it is, in one call.
//
// # Concurrency
//
// A Registry is as safe for concurrent use as its provider (providers are
// required to be).
package noop
