// Package cache is a provider wrapper that caches the records and the zone
// list of a provider for a while, so that a Reconciler reading a large zone
// every cycle does not list it from the DNS API every time.
//
// [New] wraps any [provider.Provider]. Records answers from the cache for
// [Options.TTL] after the last read; every ApplyChanges through the
// wrapper, successful or not, drops the cached records (a failed call may
// have applied part of its changes), and a read that raced with an
// ApplyChanges is not stored. The cache holds its own deep copy and
// returns a fresh one on every call, so a caller that modifies what it got
// never changes the cache. The zone list ([provider.ZoneLister]) and the
// domain filter (GetDomainFilter, which some providers build from the zone
// list with an API call, as Route 53 does) are each cached in a
// [blueprint.ZoneCache] for [Options.ZonesTTL].
//
// The cache only sees changes made through it: changes made to the zone
// by others show after the TTL. Records is one call for all zones, so the
// cache is dropped as a whole, not per zone.
//
// [Options.Observer] is told about every call and whether the cache
// answered it; metrics/prometheus supplies one that counts them under
// external-dns's metric names.
package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/zonesync/zonesync/blueprint"
	"github.com/zonesync/zonesync/clock"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// ErrInvalidOptions is wrapped by every error [New] returns: a nil
// provider or an [Options] field out of range, named in the message.
var ErrInvalidOptions = errors.New("invalid cache options")

// Options configures [New]. The zero value is valid: a wrapper that caches
// nothing.
type Options struct {
	// TTL is how long records read are served from the cache; zero
	// disables the records cache. Negative is an error.
	TTL time.Duration
	// ZonesTTL is how long the zone list and the domain filter are
	// cached; zero means TTL, negative disables both caches (so that
	// records can be cached without the zone list).
	ZonesTTL time.Duration
	// Clock times the entries; nil means [clock.Real].
	Clock clock.Clock
	// Observer, when set, is told about every call (metrics such as
	// metrics/prometheus count them); nil observes nothing.
	Observer Observer
}

// Observer is told about the calls of a cache, for metrics. Its methods
// must be safe for concurrent use and return quickly.
type Observer interface {
	// RecordsCalled reports a Records call: hit is true when the cache
	// answered it, false when it read the wrapped provider (whatever the
	// outcome).
	RecordsCalled(hit bool)
	// ApplyChangesCalled reports an ApplyChanges call.
	ApplyChangesCalled()
}

// nopObserver observes nothing.
type nopObserver struct{}

func (nopObserver) RecordsCalled(bool)  {}
func (nopObserver) ApplyChangesCalled() {}

// Provider is a caching [provider.Provider]; see [New]. It is safe for
// concurrent use when the wrapped provider is.
type Provider struct {
	next          provider.Provider
	ttl, zonesTTL time.Duration
	clock         clock.Clock
	obs           Observer

	mu      sync.Mutex
	zones   *blueprint.ZoneCache[[]string]                       // replaced by Invalidate
	filters *blueprint.ZoneCache[endpoint.DomainFilterInterface] // replaced by Invalidate
	gen     uint64                                               // incremented by every ApplyChanges, at its start and end
	records []*endpoint.Endpoint
	expires time.Time
	valid   bool
}

var (
	_ provider.Provider   = (*Provider)(nil)
	_ provider.ZoneLister = (*Provider)(nil)
)

// New returns a caching wrapper of p. It fails, with an error wrapping
// [ErrInvalidOptions], when p is nil or [Options.TTL] is negative. The
// wrapper has the optional capabilities of p ([provider.ZoneLister], ...;
// see [provider.As]); the zone list is cached.
func New(p provider.Provider, opts Options) (*Provider, error) {
	if p == nil {
		return nil, fmt.Errorf("cache: %w: the provider is nil", ErrInvalidOptions)
	}
	if opts.TTL < 0 {
		return nil, fmt.Errorf("cache: %w: Options.TTL is negative (%v): zero disables the records cache", ErrInvalidOptions, opts.TTL)
	}
	clk := clock.OrReal(opts.Clock)
	zttl := opts.ZonesTTL
	if zttl == 0 {
		zttl = opts.TTL
	}
	obs := opts.Observer
	if obs == nil {
		obs = nopObserver{}
	}
	return &Provider{next: p, ttl: opts.TTL, zonesTTL: zttl, clock: clk, obs: obs,
		zones:   blueprint.NewZoneCacheWithClock[[]string](zttl, clk),
		filters: blueprint.NewZoneCacheWithClock[endpoint.DomainFilterInterface](zttl, clk)}, nil
}

// Unwrap returns the wrapped provider, through which [provider.As] finds
// the optional capabilities of the wrapper.
func (p *Provider) Unwrap() provider.Provider { return p.next }

// Records returns a copy of the cached records while they are fresh, and
// otherwise reads the wrapped provider (and caches a copy).
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return p.read(ctx, true)
}

var _ provider.FreshReader = (*Provider)(nil)

// FreshRecords reads the wrapped provider whatever the cache holds, and
// caches a copy of what it read ([provider.FreshReader]): callers that
// must see the zone as it is now, such as [provider.RecheckCreates], read
// through it.
func (p *Provider) FreshRecords(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return p.read(ctx, false)
}

// read implements Records and, without useCache, FreshRecords.
func (p *Provider) read(ctx context.Context, useCache bool) ([]*endpoint.Endpoint, error) {
	p.mu.Lock()
	if useCache && p.valid && p.clock.Now().Before(p.expires) {
		out := endpoint.DeepCopyAll(p.records)
		p.mu.Unlock()
		p.obs.RecordsCalled(true)
		return out, nil
	}
	gen := p.gen
	p.mu.Unlock()
	p.obs.RecordsCalled(false)

	eps, err := p.next.Records(ctx)
	if err != nil || p.ttl <= 0 {
		return eps, err
	}
	cp := endpoint.DeepCopyAll(eps)
	p.mu.Lock()
	if p.gen == gen { // no ApplyChanges started or ended meanwhile
		p.records, p.valid = cp, true
		p.expires = p.clock.Now().Add(p.ttl)
	}
	p.mu.Unlock()
	return eps, nil
}

// Invalidate drops the cached records and zones.
func (p *Provider) Invalidate() {
	p.mu.Lock()
	p.gen++
	p.records, p.valid = nil, false
	p.zones = blueprint.NewZoneCacheWithClock[[]string](p.zonesTTL, p.clock)
	p.filters = blueprint.NewZoneCacheWithClock[endpoint.DomainFilterInterface](p.zonesTTL, p.clock)
	p.mu.Unlock()
}

func (p *Provider) dropRecords() {
	p.mu.Lock()
	p.gen++
	p.records, p.valid = nil, false
	p.mu.Unlock()
}

// ApplyChanges calls the wrapped provider and drops the cached records,
// whatever the outcome.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	p.obs.ApplyChangesCalled()
	p.dropRecords()
	defer p.dropRecords()
	return p.next.ApplyChanges(ctx, changes)
}

// ListZones returns a copy of the cached zone list while it is fresh, and
// otherwise asks the wrapped provider; it fails with
// [provider.ErrZonesUnsupported] when that one does not list zones (then
// [provider.As] does not find the capability).
func (p *Provider) ListZones(ctx context.Context) ([]string, error) {
	zl, ok := provider.As[provider.ZoneLister](p.next)
	if !ok {
		return nil, fmt.Errorf("cache: %w", provider.ErrZonesUnsupported)
	}
	p.mu.Lock()
	zc := p.zones
	p.mu.Unlock()
	if !zc.Expired() {
		return slices.Clone(zc.Get()), nil
	}
	zones, err := zl.ListZones(ctx)
	if err != nil {
		return nil, err
	}
	zc.Reset(slices.Clone(zones))
	return zones, nil
}

// AdjustEndpoints calls the wrapped provider.
func (p *Provider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return p.next.AdjustEndpoints(ctx, eps)
}

// GetDomainFilter returns the wrapped provider's filter, asking it at most
// once per [Options.ZonesTTL] (every time when the zone cache is
// disabled).
func (p *Provider) GetDomainFilter() endpoint.DomainFilterInterface {
	p.mu.Lock()
	fc := p.filters
	p.mu.Unlock()
	if !fc.Expired() {
		return fc.Get()
	}
	f := p.next.GetDomainFilter()
	fc.Reset(f)
	return f
}
