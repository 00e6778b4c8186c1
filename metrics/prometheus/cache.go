package prometheus

import "github.com/zonesync/zonesync/provider/cache"

// CacheObserver returns the [cache.Observer] that counts the calls of a
// provider cache in external_dns_provider_cache_records_calls (by
// from_cache) and external_dns_provider_cache_apply_changes_calls. Give it
// to the cache you build:
//
//	cached, err := cache.New(p, cache.Options{TTL: time.Minute, Observer: m.CacheObserver()})
func (m *Metrics) CacheObserver() cache.Observer { return cacheObserver{m} }

type cacheObserver struct{ m *Metrics }

func (o cacheObserver) RecordsCalled(hit bool) {
	from := "false"
	if hit {
		from = "true"
	}
	o.m.cacheRecords.WithLabelValues(from).Inc()
}

func (o cacheObserver) ApplyChangesCalled() { o.m.cacheApply.Inc() }
