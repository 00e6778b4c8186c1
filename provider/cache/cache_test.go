package cache_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/clock/clocktest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/cache"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
)

type counting struct {
	records, zones, filters atomic.Int32
}

func newCounted(zone *inmemory.Provider, c *counting) provider.Provider {
	return providertest.Intercept(zone, providertest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			c.records.Add(1)
			return next.Records(ctx)
		},
		ListZones: func(ctx context.Context, next provider.Provider) ([]string, error) {
			c.zones.Add(1)
			return next.(provider.ZoneLister).ListZones(ctx)
		},
		GetDomainFilter: func(next provider.Provider) endpoint.DomainFilterInterface {
			c.filters.Add(1)
			return next.GetDomainFilter()
		},
	})
}

// newCache is cache.New for options that are valid.
func newCache(t testing.TB, p provider.Provider, opts cache.Options) *cache.Provider {
	t.Helper()
	c, err := cache.New(p, opts)
	require.NoError(t, err)
	return c
}

func TestRecordsCache(t *testing.T) {
	ctx := context.Background()
	clk := clocktest.New(time.Unix(0, 0))
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: []*endpoint.Endpoint{endpoint.NewEndpoint("a.example.com", "A", "192.0.2.1")}})
	var n counting
	p := newCache(t, newCounted(zone, &n), cache.Options{TTL: time.Minute, Clock: clk})

	first, err := p.Records(ctx)
	require.NoError(t, err)
	first[0].Targets[0] = "203.0.113.9" // the caller owns what it got
	first[0].Labels = endpoint.LabelsFromMap(map[string]string{"x": "y"})
	second, err := p.Records(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(1), n.records.Load(), "served from the cache")
	assert.Equal(t, "192.0.2.1", second[0].Targets[0], "no aliasing between callers and the cache")
	assert.Empty(t, second[0].Labels)
	second[0].Targets[0] = "203.0.113.10"
	third, _ := p.Records(ctx)
	assert.Equal(t, "192.0.2.1", third[0].Targets[0])

	clk.Advance(time.Minute)
	_, err = p.Records(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(2), n.records.Load(), "expired")

	require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("b.example.com", "A", "192.0.2.2")}}))
	after, err := p.Records(ctx)
	require.NoError(t, err)
	assert.Len(t, after, 2, "ApplyChanges drops the cache")
	assert.Equal(t, int32(3), n.records.Load())

	err = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("b.example.com", "A", "192.0.2.2")}})
	require.Error(t, err)
	_, err = p.Records(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(4), n.records.Load(), "a failed ApplyChanges drops the cache too")
}

func TestNoTTLNoCache(t *testing.T) {
	ctx := context.Background()
	var n counting
	p := newCache(t, newCounted(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), &n), cache.Options{})
	for range 3 {
		_, err := p.Records(ctx)
		require.NoError(t, err)
	}
	assert.Equal(t, int32(3), n.records.Load())
}

func TestZoneCache(t *testing.T) {
	ctx := context.Background()
	clk := clocktest.New(time.Unix(0, 0))
	var n counting
	p := newCache(t, newCounted(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), &n), cache.Options{TTL: time.Minute, ZonesTTL: time.Hour, Clock: clk})
	zones, ok, err := provider.ZonesOf(ctx, p)
	require.NoError(t, err)
	require.True(t, ok)
	zones[0] = "changed"
	zones, _, _ = provider.ZonesOf(ctx, p)
	assert.Equal(t, []string{"example.com"}, zones)
	assert.Equal(t, int32(1), n.zones.Load())
	p.Invalidate()
	_, _, _ = provider.ZonesOf(ctx, p)
	assert.Equal(t, int32(2), n.zones.Load())
}

func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	p := newCache(t, inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), cache.Options{TTL: time.Hour})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			name := "r" + string(rune('a'+i)) + ".example.com"
			assert.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint(name, "A", "192.0.2.1")}}))
			recs, err := p.Records(ctx)
			assert.NoError(t, err)
			found := false
			for _, r := range recs {
				found = found || r.DNSName == name
				r.Targets[0] = "203.0.113.1"
			}
			assert.True(t, found, "a read after an apply sees it")
		})
	}
	wg.Wait()
	recs, err := p.Records(ctx)
	require.NoError(t, err)
	assert.Len(t, recs, 8)
	for _, r := range recs {
		assert.Equal(t, "192.0.2.1", r.Targets[0])
	}
}

// TestDomainFilterCache checks that GetDomainFilter, which some providers
// answer with an API call (Route 53 lists its hosted zones), is asked of the
// wrapped provider once per ZonesTTL, every time when the zone cache is off,
// and again after Invalidate.
func TestDomainFilterCache(t *testing.T) {
	tests := []struct {
		name     string
		zonesTTL time.Duration
		advance  time.Duration
		want     int32 // calls reaching the provider after three calls
	}{
		{name: "cached", zonesTTL: time.Hour, want: 1},
		{name: "expired between calls", zonesTTL: time.Hour, advance: time.Hour, want: 3},
		{name: "zone cache disabled", zonesTTL: -1, want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktest.New(time.Unix(0, 0))
			var n counting
			zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, DomainFilter: endpoint.NewDomainFilter([]string{"example.com"})})
			p := newCache(t, newCounted(zone, &n), cache.Options{TTL: time.Minute, ZonesTTL: tt.zonesTTL, Clock: clk})
			for range 3 {
				f := p.GetDomainFilter()
				require.NotNil(t, f)
				assert.True(t, f.Match("a.example.com"))
				assert.False(t, f.Match("a.example.org"))
				clk.Advance(tt.advance)
			}
			assert.Equal(t, tt.want, n.filters.Load())
			p.Invalidate()
			p.GetDomainFilter()
			assert.Equal(t, tt.want+1, n.filters.Load(), "Invalidate drops the filter")
		})
	}
}

func TestNewInvalidOptions(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	tests := []struct {
		name  string
		p     provider.Provider
		opts  cache.Options
		field string // named in the error; empty: valid
	}{
		{name: "zero options", p: zone},
		{name: "negative ZonesTTL disables the zone cache", p: zone, opts: cache.Options{TTL: time.Minute, ZonesTTL: -1}},
		{name: "nil provider", p: nil, field: "provider is nil"},
		{name: "negative TTL", p: zone, opts: cache.Options{TTL: -time.Second}, field: "Options.TTL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := cache.New(tt.p, tt.opts)
			if tt.field == "" {
				require.NoError(t, err)
				require.NotNil(t, p)
				return
			}
			require.ErrorIs(t, err, cache.ErrInvalidOptions)
			assert.Contains(t, err.Error(), tt.field)
			assert.Nil(t, p)
		})
	}
}
