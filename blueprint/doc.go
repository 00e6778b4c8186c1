// Package blueprint holds reusable building blocks for provider
// implementations: [ZoneCache], a thread-safe single-value cache with a
// time to live, meant for the zone list a provider reads at every
// reconcile cycle.
//
// Production code may import blueprint freely: it does not link package
// testing. The conformance suite, the provider fakes and the fault
// injectors live in the test kit [github.com/zonesync/zonesync/provider/providertest],
// as net/http/httptest sits beside net/http.
//
// # Usage
//
// A provider keeps its zone list in a ZoneCache and reads its DNS API only
// when the cache has expired:
//
//	zones := blueprint.NewZoneCache[[]string](time.Hour)
//	...
//	if zones.Expired() {
//		list, err := api.ListZones(ctx)
//		if err != nil {
//			return err
//		}
//		zones.Reset(list)
//	}
//	use(zones.Get())
//
// [NewZoneCacheWithClock] takes a [clock.Clock], so tests control expiry
// with a clocktest.FakeClock.
//
// # Concurrency
//
// [ZoneCache] is safe for concurrent use.
package blueprint
