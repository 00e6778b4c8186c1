package prometheus

import (
	"context"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/cache"
)

// CachedProvider is a [cache.Provider] whose calls count in
// external_dns_provider_cache_records_calls (by from_cache) and
// external_dns_provider_cache_apply_changes_calls. Every other method is
// the cache's own. [Metrics.Cache] returns it as a [provider.Provider];
// its Unwrap method gives the [cache.Provider] below it.
type CachedProvider struct {
	provider.Provider // what cache.New returned
	m                 *Metrics
}

var _ provider.Provider = (*CachedProvider)(nil)

// Cache returns a caching wrapper of next ([cache.New] with opts) that
// counts its calls. It has the optional capabilities of next
// ([provider.ZoneLister], ...; see [provider.As]).
func (m *Metrics) Cache(next provider.Provider, opts cache.Options) provider.Provider {
	return &CachedProvider{Provider: cache.New(&missMarker{Provider: next}, opts), m: m}
}

// Unwrap returns the cache wrapper, for [provider.As].
func (p *CachedProvider) Unwrap() provider.Provider { return p.Provider }

// missKey is the context key under which Records leaves a flag that the
// provider below the cache sets when the cache had to read it.
type missKey struct{}

// Records returns the cache's records and counts whether they came from the
// cache.
func (p *CachedProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	var missed bool
	eps, err := p.Provider.Records(context.WithValue(ctx, missKey{}, &missed))
	from := "true"
	if missed {
		from = "false"
	}
	p.m.cacheRecords.WithLabelValues(from).Inc()
	return eps, err
}

// ApplyChanges applies through the cache and counts the call.
func (p *CachedProvider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	p.m.cacheApply.Inc()
	return p.Provider.ApplyChanges(ctx, changes)
}

// missMarker sits below the cache and marks the calls that reach it.
type missMarker struct {
	provider.Provider
}

func (p *missMarker) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if flag, ok := ctx.Value(missKey{}).(*bool); ok {
		*flag = true
	}
	return p.Provider.Records(ctx)
}

// Unwrap returns the provider below the marker, for [provider.As].
func (p *missMarker) Unwrap() provider.Provider { return p.Provider }
