package txt_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/txt"
)

// CheckOwnable refuses exactly the creates ApplyChanges would leave out, with
// the same cause, before anything is written.
func TestCheckOwnableAgreesWithApply(t *testing.T) {
	long := strings.Repeat("x", 62)
	tests := []struct {
		name   string
		cfg    txt.Config
		record *endpoint.Endpoint
		want   []string // parts of the error; nil = ownable
	}{
		{name: "plain record", record: a("ok.example.com", "192.0.2.1")},
		{name: "upper case and trailing dot", record: a("OK.Example.COM.", "192.0.2.1")},
		{name: "apex with a templated prefix", cfg: txt.Config{Prefix: "own-%{record_type}."}, record: a("example.com", "192.0.2.1")},
		{name: "label over 63 octets", record: a(long+".example.com", "192.0.2.1"), want: []string{"a-" + long}},
		{name: "prefix pushes label over 63 octets", cfg: txt.Config{Prefix: "owner-"}, record: a(strings.Repeat("y", 58)+".example.com", "192.0.2.1"), want: []string{"63"}},
		{
			name: "apex TXT outside the zone", record: a("example.com", "192.0.2.1"),
			want: []string{
				`"a-example.com" is outside the provider's domain filter`,
				// What to change, with a prefix that works and what it gives.
				`set Config.Prefix to a prefix that contains "%{record_type}" and ends with "."`, `"txt-%{record_type}."`, `"txt-a.example.com"`,
				// What the change does to the records owned today.
				"the records owned today under the current naming become unowned", "never updated or deleted",
			},
		},
		{
			name: "apex with a non-templated prefix", cfg: txt.Config{Prefix: "own-"}, record: a("example.com", "192.0.2.1"),
			want: []string{`"own-a-example.com" is outside the provider's domain filter`, "set Config.Prefix", "records owned today"},
		},
		{
			name: "apex AAAA with a suffix", cfg: txt.Config{Suffix: "-own"}, record: endpoint.NewEndpoint("example.com", endpoint.RecordTypeAAAA, "2001:db8::1"),
			want: []string{`"aaaa-example-own.com" is outside`, "use Config.Prefix instead of Config.Suffix", `"txt-aaaa.example.com"`, "records owned today"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			zone := newZone()
			reg := newRegistry(t, zone, tt.cfg)
			var checker registry.OwnabilityChecker = reg
			before := tt.record.DeepCopy()
			err := checker.CheckOwnable(tt.record)
			assert.Equal(t, before, tt.record, "the endpoint is not modified")

			_, rerr := reg.Records(ctx)
			require.NoError(t, rerr)
			applyErr := reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{tt.record}})
			if tt.want == nil {
				require.NoError(t, err)
				require.NoError(t, applyErr)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, txt.ErrTXTName)
			for _, part := range tt.want {
				assert.Contains(t, err.Error(), part)
				assert.Contains(t, applyErr.Error(), part, "ApplyChanges gives the same cause")
			}
			assert.Contains(t, err.Error(), endpoint.ToALabel(tt.record.DNSName), "names the record")
			assert.ErrorIs(t, applyErr, txt.ErrTXTName, "ApplyChanges refuses it too")
			assert.Empty(t, zoneDump(t, zone))
		})
	}
}

func TestRegistryListZones(t *testing.T) {
	ctx := context.Background()
	reg := newRegistry(t, inmemory.New(inmemory.Options{Zones: []string{"example.org", "example.com"}}), txt.Config{})
	zones, ok, err := provider.ZonesOf(ctx, reg)
	require.NoError(t, err)
	require.True(t, ok, "the registry forwards the zones of its provider")
	assert.ElementsMatch(t, []string{"example.com", "example.org"}, zones)

	// A provider without zones: the registry says so.
	flat := newRegistry(t, noZones{newZone()}, txt.Config{})
	_, ok, err = provider.ZonesOf(ctx, flat)
	require.NoError(t, err)
	assert.False(t, ok)
}

// noZones hides the ZoneLister of the provider it embeds.
type noZones struct{ p provider.Provider }

func (n noZones) Records(ctx context.Context) ([]*endpoint.Endpoint, error) { return n.p.Records(ctx) }
func (n noZones) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	return n.p.ApplyChanges(ctx, c)
}
func (n noZones) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return n.p.AdjustEndpoints(ctx, eps)
}
func (n noZones) GetDomainFilter() endpoint.DomainFilterInterface { return n.p.GetDomainFilter() }

// TestCheckOwnableTakesTheDomainFilterOnce: some providers answer
// GetDomainFilter with API calls (external-dns's pdns provider lists its
// zones), and CheckOwnable runs once per record to create.
func TestCheckOwnableTakesTheDomainFilterOnce(t *testing.T) {
	var calls atomic.Int32
	p := providertest.Intercept(newZone(txtRecord("a-app.example.com", v1), a("app.example.com", "192.0.2.1")), providertest.Funcs{
		GetDomainFilter: func(next provider.Provider) endpoint.DomainFilterInterface {
			calls.Add(1)
			return next.GetDomainFilter()
		},
	})
	reg := newRegistry(t, p, txt.Config{})
	for i := range 100 {
		require.NoError(t, reg.CheckOwnable(a(fmt.Sprintf("r%d.example.com", i), "192.0.2.1")))
	}
	assert.Equal(t, int32(1), calls.Load(), "before any read")
	calls.Store(0)
	_, err := reg.Records(context.Background())
	require.NoError(t, err)
	for i := range 100 {
		require.NoError(t, reg.CheckOwnable(a(fmt.Sprintf("r%d.example.com", i), "192.0.2.1")))
	}
	assert.Equal(t, int32(1), calls.Load(), "a read takes it once, CheckOwnable reuses it")
	calls.Store(0)
	_, err = reg.Records(context.Background())
	require.NoError(t, err)
	require.NoError(t, reg.CheckOwnable(a("x.example.com", "192.0.2.1")))
	assert.Equal(t, int32(1), calls.Load(), "every read takes it anew")
	calls.Store(0)
	_, err = reg.Records(context.Background())
	require.NoError(t, err)
	f := reg.GetDomainFilter()
	require.NotNil(t, f)
	assert.True(t, f.Match("app.example.com"))
	assert.Equal(t, int32(1), calls.Load(), "GetDomainFilter after a read returns the filter the read took: one provider call a cycle, as in external-dns")
}
