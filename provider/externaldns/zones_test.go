package externaldns_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xinmemory "sigs.k8s.io/external-dns/provider/inmemory"
	"sigs.k8s.io/external-dns/provider/pdns"
	xrfc2136 "sigs.k8s.io/external-dns/provider/rfc2136"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/provider/externaldns/internal/pdnstest"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// TestPerZoneSafetyThroughTheAdapter is the regression test of finding 5
// of issue 33: with 100 owned records in big.example and 12 in
// small.example, a source that stops returning small.example's records
// asks to delete 12 of 112 owned records, under the total threshold (30%),
// but every record of small.example. Through the adapter the zones are
// listed, so the Reconciler applies the threshold per zone: RunOnce fails
// with ErrUnsafePlan naming small.example, and nothing is deleted. Before,
// the adapter listed no zones and all 12 records were deleted.
func TestPerZoneSafetyThroughTheAdapter(t *testing.T) {
	zones := []string{"big.example", "small.example"}
	backends := []struct {
		name string
		new  func(t *testing.T) *externaldns.Provider
	}{
		{name: "external-dns inmemory", new: func(t *testing.T) *externaldns.Provider {
			return externaldns.Wrap(xinmemory.NewInMemoryProvider(xinmemory.InMemoryInitZones(zones)), externaldns.Options{Name: "inmemory"})
		}},
		{name: "pdns", new: func(t *testing.T) *externaldns.Provider {
			srv := pdnstest.Start(t, pdnstest.Config{})
			for _, z := range zones {
				srv.CreateZone(z)
			}
			return newPDNS(t, srv, zones...)
		}},
	}
	record := func(name string) *endpoint.Endpoint {
		return endpoint.NewEndpointWithTTL(name, endpoint.RecordTypeA, 300, "192.0.2.10").
			WithLabel(endpoint.ResourceLabelKey, "service/default/"+name)
	}
	var big, small []*endpoint.Endpoint
	for i := range 100 {
		big = append(big, record(fmt.Sprintf("svc-%d.big.example", i)))
	}
	for i := range 12 {
		small = append(small, record(fmt.Sprintf("svc-%d.small.example", i)))
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			p := b.new(t)
			listed, ok, err := provider.ZonesOf(t.Context(), p)
			require.NoError(t, err)
			require.True(t, ok, "the adapter lists the zones")
			require.Equal(t, zones, listed)

			reg, err := txt.New(p, txt.Config{OwnerID: "zonesync"})
			require.NoError(t, err)
			src := source.NewStatic(append(append([]*endpoint.Endpoint(nil), big...), small...)...)
			r := &zonesync.Reconciler{Source: src, Registry: reg}
			cyc, err := r.RunOnce(t.Context())
			changes := cyc.Changes
			require.NoError(t, err)
			require.Len(t, changes.Create, 112)
			require.Equal(t, 12, countIn(t, p, "small.example"))

			src.Set(big...)
			_, err = r.RunOnce(t.Context())
			require.ErrorIs(t, err, zonesync.ErrUnsafePlan)
			var unsafe *plan.UnsafePlanError
			require.ErrorAs(t, err, &unsafe)
			require.Len(t, unsafe.Zones, 1, "%v", err)
			assert.Equal(t, plan.ZoneChanges{Zone: "small.example", Owned: 12, Deletes: 12}, unsafe.Zones[0])
			assert.Equal(t, 12, countIn(t, p, "small.example"), "nothing was deleted")
			assert.Equal(t, 100, countIn(t, p, "big.example"))
		})
	}
}

// countIn counts the A records p returns below zone.
func countIn(t *testing.T, p provider.Provider, zone string) int {
	t.Helper()
	recs, err := p.Records(t.Context())
	require.NoError(t, err)
	n := 0
	for _, r := range recs {
		if _, in := provider.NewZoneMatcher(zone).Zone(r.DNSName); in && r.RecordType == endpoint.RecordTypeA {
			n++
		}
	}
	return n
}

// zonesFake is an external-dns provider that lists its zones the way
// external-dns's in-memory provider does.
type zonesFake struct {
	fake
	zones func() map[string]string
}

func (f *zonesFake) Zones() map[string]string { return f.zones() }

func TestListZones(t *testing.T) {
	tests := []struct {
		name        string
		p           *externaldns.Provider
		want        []string
		unsupported bool
		err         string
	}{
		{
			name:        "a provider that cannot tell",
			p:           externaldns.Wrap(&fake{}, externaldns.Options{Name: "mine"}),
			unsupported: true,
			err:         "external-dns mine provider: ListZones",
		},
		{
			name: "Options.Zones",
			p:    externaldns.Wrap(&fake{}, externaldns.Options{Zones: []string{"b.example.", "a.example", "b.example."}}),
			want: []string{"a.example", "b.example"},
		},
		{
			name: "Options.Zones over the provider's own",
			p: externaldns.Wrap(&zonesFake{zones: func() map[string]string { return map[string]string{"x": "x.example"} }},
				externaldns.Options{Zones: []string{"y.example"}}),
			want: []string{"y.example"},
		},
		{
			name: "a provider with Zones()",
			p: externaldns.Wrap(&zonesFake{zones: func() map[string]string {
				return map[string]string{"id-1": "example.org.", "id-2": "Example.NET"}
			}}),
			want: []string{"example.net", "example.org"},
		},
		{
			name: "a provider that panics",
			p:    externaldns.Wrap(&zonesFake{zones: func() map[string]string { panic("nil map") }}, externaldns.Options{Name: "buggy"}),
			err:  "external-dns buggy provider panicked in ListZones: nil map",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zones, ok, err := provider.ZonesOf(t.Context(), tt.p)
			_, direct := tt.p.ListZones(t.Context())
			switch {
			case tt.unsupported:
				require.NoError(t, err)
				assert.False(t, ok)
				assert.ErrorIs(t, direct, provider.ErrZonesUnsupported)
				assert.ErrorContains(t, direct, tt.err)
			case tt.err != "":
				require.Error(t, err)
				assert.True(t, ok)
				assert.ErrorContains(t, err, tt.err)
				var pe *externaldns.PanicError
				assert.ErrorAs(t, err, &pe)
			default:
				require.NoError(t, err)
				assert.True(t, ok)
				assert.Equal(t, tt.want, zones)
			}
		})
	}

	t.Run("Options.Zones are copied", func(t *testing.T) {
		given := []string{"a.example"}
		p := externaldns.Wrap(&fake{}, externaldns.Options{Zones: given})
		given[0] = "b.example"
		zones, err := p.ListZones(t.Context())
		require.NoError(t, err)
		assert.Equal(t, []string{"a.example"}, zones)
		zones[0] = "c.example"
		zones, err = p.ListZones(t.Context())
		require.NoError(t, err)
		assert.Equal(t, []string{"a.example"}, zones, "callers get copies")
	})
	t.Run("rfc2136 without --rfc2136-zone works on the root zone", func(t *testing.T) {
		cfg, err := externaldns.ParseFlags([]string{"--provider=rfc2136", "--rfc2136-host=127.0.0.1", "--rfc2136-insecure"})
		require.NoError(t, err)
		p, err := externaldns.New(t.Context(), xrfc2136.New, cfg, nil)
		require.NoError(t, err)
		zones, ok, err := provider.ZonesOf(t.Context(), p)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, []string{"."}, zones)
	})
	t.Run("a wrapped pdns provider's empty domain filter is an error", func(t *testing.T) {
		srv := fakeAPI(t, "application/json", map[string]string{"GET /api/v1/servers/localhost/zones": `[]`})
		cfg, err := externaldns.ParseFlags([]string{"--provider=pdns", "--pdns-server=" + srv.URL, "--pdns-api-key=fake"})
		require.NoError(t, err)
		p, err := externaldns.New(t.Context(), pdns.New, cfg, nil)
		require.NoError(t, err)
		_, ok, err := provider.ZonesOf(t.Context(), p)
		assert.True(t, ok)
		require.ErrorContains(t, err, "names no zone")
		assert.True(t, errors.Is(err, provider.SoftError), "retried at the next cycle: %v", err)
	})
	t.Run("a cancelled context is not passed on", func(t *testing.T) {
		called := false
		p := externaldns.Wrap(&zonesFake{zones: func() map[string]string { called = true; return nil }})
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := p.ListZones(ctx)
		assert.ErrorIs(t, err, context.Canceled)
		assert.False(t, called)
	})
}
