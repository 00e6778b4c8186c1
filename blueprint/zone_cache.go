package blueprint

import (
	"sync"
	"time"

	"github.com/zonesync/zonesync/clock"
)

// ZoneCache is a value with a time to live: it holds one value of type T,
// says when that value has expired, and is safe for concurrent use. A
// provider keeps in one what it needs at every reconcile cycle but what
// rarely changes — above all its list of zones, which the TXT registry and
// the wrappers ask for ([github.com/zonesync/zonesync/provider.ZoneLister])
// and which many DNS APIs give in a separate, rate-limited call — and reads
// its API only when the value has expired:
//
//	if !c.Expired() {
//		return c.Get(), nil
//	}
//	zones, err := api.ListZones(ctx)
//	if err != nil {
//		return nil, err
//	}
//	c.Reset(zones)
//	return zones, nil
//
// Nothing in it is specific to zones (the name is the design's): the
// caching wrapper provider/cache keeps both a zone list and a
// domain filter in one. See the example of a provider author's provider
// that caches its zone list.
//
// A TTL of zero or less disables caching: [ZoneCache.Reset] stores nothing
// and [ZoneCache.Expired] is always true. [ZoneCache.Get] returns the last
// value stored even after it expired (stale data, not a zero value), until
// the next Reset; callers decide with Expired whether to refresh.
//
// The cache stores the value as given: when T is a slice or a map, the
// caller and the cache share it, and neither may modify it after Reset.
type ZoneCache[T any] struct {
	ttl   time.Duration
	clock clock.Clock

	mu      sync.RWMutex
	value   T
	expires time.Time
	set     bool
}

// NewZoneCache returns an empty (expired) cache whose values live for ttl,
// measured with the real clock.
func NewZoneCache[T any](ttl time.Duration) *ZoneCache[T] {
	return NewZoneCacheWithClock[T](ttl, nil)
}

// NewZoneCacheWithClock is [NewZoneCache] with the clock c telling the time
// (nil means [clock.Real]). Tests pass a clocktest.FakeClock to control
// expiry.
func NewZoneCacheWithClock[T any](ttl time.Duration, c clock.Clock) *ZoneCache[T] {
	return &ZoneCache[T]{ttl: ttl, clock: clock.OrReal(c)}
}

// Get returns the cached value: the zero value before the first Reset, and
// the last value stored afterwards, whether or not it has expired.
func (c *ZoneCache[T]) Get() T {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.value
}

// Reset stores v and restarts the TTL. With caching disabled (TTL ≤ 0) it
// does nothing.
func (c *ZoneCache[T]) Reset(v T) {
	if c.ttl <= 0 {
		return
	}
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.value = v
	c.expires = now.Add(c.ttl)
	c.set = true
}

// Expired reports whether the cache must be refreshed: nothing was stored
// yet, the TTL has passed since the last Reset, or caching is disabled.
func (c *ZoneCache[T]) Expired() bool {
	if c.ttl <= 0 {
		return true
	}
	now := c.clock.Now()
	c.mu.RLock()
	defer c.mu.RUnlock()
	return !c.set || !now.Before(c.expires)
}
