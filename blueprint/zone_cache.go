package blueprint

import (
	"sync"
	"time"

	"github.com/zonesync/zonesync/clock"
)

// ZoneCache is a thread-safe cache of one value (typically a provider's
// list of zones) that expires a fixed time after it was last set. Listing
// zones is needed at every reconcile cycle while zones rarely change, so a
// provider reads its zone API only when the cache has expired:
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
