package provider_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	zsprom "github.com/zonesync/zonesync/metrics/prometheus"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/batch"
	"github.com/zonesync/zonesync/provider/cache"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/ratelimit"
	"github.com/zonesync/zonesync/registry/txt"
)

// hideZones hides every optional capability of the provider it holds: a
// provider that does not list zones.
type hideZones struct{ provider.Provider }

// must returns v, and panics on err: for constructors given options known
// to be valid.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// wrappers are every provider wrapper of the module, each a function from
// the wrapped provider to the wrapper.
func wrappers(t *testing.T) map[string]func(provider.Provider) provider.Provider {
	m, err := zsprom.New(prometheus.NewRegistry(), zsprom.Options{})
	require.NoError(t, err)
	return map[string]func(provider.Provider) provider.Provider{
		"batch": func(p provider.Provider) provider.Provider { return must(batch.New(p, batch.Options{})) },
		"ratelimit": func(p provider.Provider) provider.Provider {
			return must(ratelimit.New(p, ratelimit.Options{}))
		},
		"cache": func(p provider.Provider) provider.Provider {
			return must(cache.New(p, cache.Options{TTL: time.Minute}))
		},
		"prometheus.WebhookProvider": m.WebhookProvider,
		"cache with prometheus.CacheObserver": func(p provider.Provider) provider.Provider {
			return must(cache.New(p, cache.Options{TTL: time.Minute, Observer: m.CacheObserver()}))
		},
		"providertest.Intercept": func(p provider.Provider) provider.Provider {
			return providertest.Intercept(p, providertest.Funcs{})
		},
		"providertest.FailRandomly": func(p provider.Provider) provider.Provider {
			return providertest.FailRandomly(p, 0, nil, nil)
		},
		"providertest.FailAfterApplyRandomly": func(p provider.Provider) provider.Provider {
			return providertest.FailAfterApplyRandomly(p, 0, nil, nil)
		},
		"providertest.WithLatency": func(p provider.Provider) provider.Provider {
			return providertest.WithLatency(p, 0)
		},
	}
}

// TestWrappersForwardCapabilities: every wrapper lists zones exactly when
// the provider it wraps does, and the zones come through; so does a stack
// of all of them.
func TestWrappersForwardCapabilities(t *testing.T) {
	ctx := context.Background()
	ws := wrappers(t)
	names := slices.Sorted(maps.Keys(ws))
	ws["all stacked"] = func(p provider.Provider) provider.Provider {
		for _, name := range names {
			p = ws[name](p)
		}
		return p
	}
	for name, wrap := range ws {
		t.Run(name, func(t *testing.T) {
			lister := wrap(inmemory.New(inmemory.Options{Zones: []string{"example.com", "example.org"}}))
			zl, ok := provider.As[provider.ZoneLister](lister)
			require.True(t, ok, "wrapping a ZoneLister must give a ZoneLister")
			zones, err := zl.ListZones(ctx)
			require.NoError(t, err)
			assert.ElementsMatch(t, []string{"example.com", "example.org"}, zones)
			zones, ok, err = provider.ZonesOf(ctx, lister)
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, []string{"example.com", "example.org"}, zones)

			plain := wrap(hideZones{inmemory.New(inmemory.Options{Zones: []string{"example.com"}})})
			_, ok = provider.As[provider.ZoneLister](plain)
			assert.False(t, ok, "wrapping a provider without ZoneLister must not give one")
			_, ok, err = provider.ZonesOf(ctx, plain)
			require.NoError(t, err)
			assert.False(t, ok)

			// The wrapper still works as a provider.
			require.NoError(t, lister.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
				endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.1"),
			}}))
			eps, err := lister.Records(ctx)
			require.NoError(t, err)
			require.Len(t, eps, 1)
			assert.Equal(t, "www.example.com", eps[0].DNSName)
		})
	}
}

// TestWrappersHideRecordVisitor: no wrapper offers provider.RecordVisitor,
// even over the in-memory provider, which does: the capability reads
// around a wrapper, so it is used only by a type assertion on the provider
// held, and a registry over a wrapper reads through the wrapper's Records.
func TestWrappersHideRecordVisitor(t *testing.T) {
	ctx := context.Background()
	_, ok := provider.Provider(inmemory.New()).(provider.RecordVisitor)
	require.True(t, ok, "the in-memory provider is a RecordVisitor")
	for name, wrap := range wrappers(t) {
		t.Run(name, func(t *testing.T) {
			zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: []*endpoint.Endpoint{
				endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.1"),
			}})
			_, ok := wrap(zone).(provider.RecordVisitor)
			assert.False(t, ok, "a wrapper must not implement RecordVisitor")

			reads := 0
			counted := providertest.Intercept(zone, providertest.Funcs{
				Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
					reads++
					return next.Records(ctx)
				},
			})
			reg, err := txt.New(wrap(counted), txt.Config{OwnerID: "me"})
			require.NoError(t, err)
			recs, err := reg.Records(ctx)
			require.NoError(t, err)
			require.Len(t, recs, 1)
			assert.Equal(t, 1, reads, "the registry reads through the wrappers' Records")
		})
	}
}

// TestRegistryAppliesPerZoneThroughWrappers is finding 11 end to end: with
// a zone whose changes fail, the TXT registry over any wrapper still
// applies the other zone (it only can when it sees the zones).
func TestRegistryAppliesPerZoneThroughWrappers(t *testing.T) {
	ctx := context.Background()
	errBroken := errors.New("zone broken")
	for name, wrap := range wrappers(t) {
		t.Run(name, func(t *testing.T) {
			zone := inmemory.New(inmemory.Options{Zones: []string{"example.com", "example.org"}})
			failing := failZone{Provider: zone, zone: "example.org", err: errBroken}
			reg, err := txt.New(wrap(failing), txt.Config{OwnerID: "me"})
			require.NoError(t, err)
			err = reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
				endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1"),
				endpoint.NewEndpoint("a.example.org", endpoint.RecordTypeA, "192.0.2.2"),
			}})
			require.ErrorIs(t, err, errBroken)
			assert.Equal(t, []string{"example.org"}, provider.FailedZones(err))
			eps, err := zone.Records(ctx)
			require.NoError(t, err)
			var names []string
			for _, ep := range eps {
				names = append(names, ep.DNSName+"/"+ep.RecordType)
			}
			assert.Contains(t, names, "a.example.com/A", "the healthy zone is applied")
		})
	}
}

// failZone fails every ApplyChanges that touches a name in zone.
type failZone struct {
	provider.Provider
	zone string
	err  error
}

// Unwrap forwards the capabilities of the provider.
func (f failZone) Unwrap() provider.Provider { return f.Provider }

func (f failZone) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	m := provider.NewZoneMatcher(f.zone)
	for _, list := range [][]*endpoint.Endpoint{changes.Create, changes.UpdateNew, changes.Delete} {
		for _, ep := range list {
			if _, ok := m.Zone(ep.DNSName); ok {
				return f.err
			}
		}
	}
	return f.Provider.ApplyChanges(ctx, changes)
}
