package blueprint_test

import (
	"fmt"
	"time"

	"github.com/zonesync/zonesync/blueprint"
	"github.com/zonesync/zonesync/clock/clocktest"
)

// The four calls of ZoneCache, on a zone list. The fake clock makes expiry
// visible.
func ExampleZoneCache() {
	clk := clocktest.New(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	cache := blueprint.NewZoneCacheWithClock[[]string](5*time.Minute, clk)

	apiCalls := 0
	listZones := func() []string {
		if !cache.Expired() {
			return cache.Get()
		}
		apiCalls++
		zones := []string{"example.org", "example.net"}
		cache.Reset(zones)
		return zones
	}

	fmt.Println(listZones(), apiCalls)
	clk.Advance(time.Minute)
	fmt.Println(listZones(), apiCalls)
	clk.Advance(5 * time.Minute)
	fmt.Println("expired:", cache.Expired(), "stale value:", cache.Get())
	fmt.Println(listZones(), apiCalls)
	// Output:
	// [example.org example.net] 1
	// [example.org example.net] 1
	// expired: true stale value: [example.org example.net]
	// [example.org example.net] 2
}

// With a TTL of zero the cache is disabled: it never holds a value.
func ExampleNewZoneCache_disabled() {
	cache := blueprint.NewZoneCache[[]string](0)
	cache.Reset([]string{"example.org"})
	fmt.Println(cache.Expired(), cache.Get() == nil)
	// Output:
	// true true
}
