// Package noop provides a [registry.Registry] that keeps no ownership data:
// [Registry.Records] and [Registry.ApplyChanges] go straight to the provider
// and [Registry.OwnerID] is "".
//
// # Usage
//
// Use it when zonesync is the only writer of a zone, or to drive a provider
// directly. Beware: records read through it carry no owner label, so a plan
// with an owner id set never updates or deletes them; plan with an empty
// owner id (as [Registry.OwnerID] returns) to manage every record the domain
// filter lets through — including records somebody else created.
//
// # Concurrency
//
// A Registry is as safe for concurrent use as its provider (providers are
// required to be).
package noop
