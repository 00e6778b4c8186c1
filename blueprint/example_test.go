package blueprint_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/zonesync/zonesync/blueprint"
	"github.com/zonesync/zonesync/clock"
	"github.com/zonesync/zonesync/clock/clocktest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// dnsAPI stands for the client of a DNS service's API. Listing the hosted
// zones is a call of its own, often with a tight quota (Route 53 allows
// five requests per second per account).
type dnsAPI struct {
	zoneCalls int
	records   map[string][]*endpoint.Endpoint // by zone
}

func (a *dnsAPI) HostedZones(context.Context) ([]string, error) {
	a.zoneCalls++
	return []string{"example.net", "example.org"}, nil
}

func (a *dnsAPI) ZoneRecords(_ context.Context, zone string) ([]*endpoint.Endpoint, error) {
	return endpoint.DeepCopyAll(a.records[zone]), nil
}

// apiProvider is a provider written by a provider author. Records reads
// the records zone by zone, so it needs the zone list at every reconcile
// cycle; the list changes rarely, so it is kept in a ZoneCache and the API
// is asked again only once the cache has expired. ListZones gives the
// provider the optional [provider.ZoneLister] capability from the same
// cache.
type apiProvider struct {
	provider.BaseProvider // AdjustEndpoints, GetDomainFilter
	api                   *dnsAPI
	zones                 *blueprint.ZoneCache[[]string]
}

var _ provider.ZoneLister = (*apiProvider)(nil)

// newAPIProvider takes the clock so that tests control the expiry.
func newAPIProvider(api *dnsAPI, zonesTTL time.Duration, clk clock.Clock) *apiProvider {
	return &apiProvider{api: api, zones: blueprint.NewZoneCacheWithClock[[]string](zonesTTL, clk)}
}

// ListZones answers from the cache while it is fresh. The cache shares the
// slice it holds, so callers get a copy.
func (p *apiProvider) ListZones(ctx context.Context) ([]string, error) {
	if !p.zones.Expired() {
		return slices.Clone(p.zones.Get()), nil
	}
	zones, err := p.api.HostedZones(ctx)
	if err != nil {
		return nil, err
	}
	p.zones.Reset(slices.Clone(zones))
	return zones, nil
}

func (p *apiProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	zones, err := p.ListZones(ctx)
	if err != nil {
		return nil, err
	}
	var all []*endpoint.Endpoint
	for _, z := range zones {
		recs, err := p.api.ZoneRecords(ctx, z)
		if err != nil {
			return nil, err
		}
		all = append(all, recs...)
	}
	return all, nil
}

func (p *apiProvider) ApplyChanges(context.Context, *plan.Changes) error {
	return nil // the API calls that apply changes are left out
}

// A provider author keeps the zone list of a provider in a ZoneCache:
// reconcile cycles a minute apart read the records every time, and the
// zone list once an hour.
func ExampleZoneCache_providerZoneList() {
	ctx := context.Background()
	clk := clocktest.New(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	api := &dnsAPI{records: map[string][]*endpoint.Endpoint{
		"example.org": {endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1")},
	}}
	var p provider.Provider = newAPIProvider(api, time.Hour, clk)

	for range 90 { // 90 cycles, one a minute
		if _, err := p.Records(ctx); err != nil {
			fmt.Println(err)
			return
		}
		clk.Advance(time.Minute)
	}
	fmt.Println("zone list calls in 90 minutes:", api.zoneCalls)

	zones, ok, err := provider.ZonesOf(ctx, p) // from the cache
	fmt.Println(zones, ok, err, api.zoneCalls)
	// Output:
	// zone list calls in 90 minutes: 2
	// [example.net example.org] true <nil> 2
}
