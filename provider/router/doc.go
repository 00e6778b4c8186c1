// Package router is a provider over several providers: each [Route] names
// a provider and the zones it serves, and the [Router] sends every record
// to the provider of its zone. One Reconciler, one source and one registry
// then manage zones that live in several DNS services or accounts — a
// public zone on Route 53 in one account, another in a second account, an
// internal zone on BIND — where external-dns runs one provider per
// process.
//
// # Usage
//
//	r, err := router.New([]router.Route{
//		{Name: "route53-prod", Provider: prod, Zones: []string{"example.com"}},
//		{Name: "route53-shop", Provider: shop, Zones: []string{"shop.example"}},
//		{Name: "bind", Provider: bind, Zones: []string{"int.example.com"}},
//	}, router.Options{})
//	if err != nil {
//		return err
//	}
//	reg, err := txt.New(r, txt.Config{OwnerID: "my-cluster"})
//	rec := &zonesync.Reconciler{Source: src, Registry: reg}
//
// # Zones and routing
//
// A route's zones are declared in [Route.Zones] or, when it declares none,
// listed by its provider ([provider.ZonesOf]) at every call that needs
// them (wrap a provider whose listing is costly in provider/cache, which
// caches zone lists). Routing uses the one zone matcher,
// [provider.ZoneMatcher], over every route's zones: a name goes to its
// most specific zone, as DNS resolution does, so a sub-zone delegated to
// another service ("example.com" on Route 53, "int.example.com" on BIND)
// takes the names below it, and the parent's records at those names (its
// delegation NS records, say) are neither read nor written through the
// router. A record and its ownership TXT travel together, into the
// record's zone ([provider.GroupKey]). A zone two routes claim is refused
// ([ErrZoneConflict]): by [New] when both declare it, by every call when a
// listing route lists a zone another route serves.
//
// # Capabilities
//
//   - [provider.ZoneLister]: the union of the routes' zones, always.
//   - Records: every route, read concurrently (at most
//     [Options.Concurrency] at once), the union sorted. Any route's
//     failure fails the call: a plan on a partial view could create or
//     delete on a wrong basis.
//   - ApplyChanges: split by zone, one call per zone to the zone's route,
//     routes concurrently. A zone's failure is a [*provider.ZoneError] for
//     that zone and the others still apply, so a failing route fails
//     exactly its own zones ([provider.FailedZones]). Names no route
//     holds are refused with an error naming them ([ErrNoRoute]).
//   - AdjustEndpoints: each route's provider adjusts the endpoints of its
//     zones.
//   - GetDomainFilter: a name is managed when a route holds it and that
//     route's provider's filter matches it.
//   - [provider.GuaranteeDeclarer]: the weakest combination of the routes'
//     guarantees (true of every zone). [provider.ZoneGuaranteeDeclarer]:
//     each zone has its route's guarantees; the core asks per name
//     ([provider.GuaranteesByName]), so a set identifier is sent to a
//     Route 53 zone even when a BIND route drops set identifiers, and the
//     re-read before creates ([provider.RecheckCreates]) covers only the
//     zones whose provider's creates may overwrite. The weakest
//     guarantees never silently hold for all zones.
//   - [provider.FreshReader]: FreshRecords reads every route past its
//     records cache, if it has one ([provider.FreshRecords] per route).
//   - [provider.RecordVisitor] is not offered: the routes' records
//     interleave in name order, so they are read with Records.
//
// The routes' providers keep their own capabilities: a route's provider
// wrapped in provider/batch or provider/ratelimit batches and limits that
// route alone. Cache the routes' providers (provider/cache) or the
// router, not both: a cache around the router reads through the routes'
// caches even when asked for fresh records. The Reconciler's safety
// threshold, which it applies per zone of the registry's zone list, holds
// per zone across the providers, because the router lists every route's
// zones.
//
// # Errors
//
// [New] refuses what cannot work with an error wrapping
// [ErrInvalidOptions] that names the route and field. Call errors name the
// route (and for ApplyChanges the zone) and wrap the provider's error with
// %w, so errors.Is(err, provider.SoftError) holds when a route's failure
// is transient.
//
// # Concurrency
//
// A [Router] is safe for concurrent use when its routes' providers are.
// It keeps no package-level state; the last routing table built is kept
// per Router, for [Router.ZoneGuarantees] and the domain filter, which
// have no context to list zones with.
package router
