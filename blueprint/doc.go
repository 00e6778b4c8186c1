// Package blueprint holds reusable building blocks for provider
// implementations: [ZoneCache], a value with a time to live (one value,
// safe for concurrent use, that tells when it must be read again), meant
// for the zone list a provider needs at every reconcile cycle and reads
// from its DNS API only when the list has expired. The caching wrapper
// provider/cache is built on it.
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
