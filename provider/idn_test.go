package provider_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
)

// bücher.example in A-labels, the form of record names.
const buecher = "xn--bcher-kva.example"

// TestFailedIDNZoneIsNamedInALabels is finding 12: a provider that lists
// an IDN zone in its Unicode form (a configured zone, a webhook filter)
// and fails that zone's changes. The failed zone must be reported in the
// form of record names, so that a record in it is seen as failed and not as
// applied.
func TestFailedIDNZoneIsNamedInALabels(t *testing.T) {
	ctx := context.Background()
	errZone := errors.New("zone refused")
	for _, listed := range []string{"bücher.example", "Bücher.Example.", buecher, "XN--BCHER-KVA.example."} {
		t.Run(listed, func(t *testing.T) {
			zone := inmemory.New(inmemory.Options{Zones: []string{buecher, "example.com"}})
			p := providertest.Intercept(zone, providertest.Funcs{
				ListZones: func(context.Context, provider.Provider) ([]string, error) {
					return []string{"example.com", listed}, nil
				},
				ApplyChanges: func(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
					for _, ep := range changes.Create {
						if strings.HasSuffix(ep.DNSName, "."+buecher) {
							return errZone
						}
					}
					return next.ApplyChanges(ctx, changes)
				},
			})
			zones, ok, err := provider.ZonesOf(ctx, p)
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, []string{"example.com", buecher}, zones)

			reg, err := txt.New(p, txt.Config{OwnerID: "me"})
			require.NoError(t, err)
			failed := endpoint.NewEndpoint("www."+buecher, endpoint.RecordTypeA, "192.0.2.1")
			err = reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
				failed,
				endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.2"),
			}})
			require.ErrorIs(t, err, errZone)
			assert.Equal(t, []string{buecher}, provider.FailedZones(err))
			var ze *provider.ZoneError
			require.ErrorAs(t, err, &ze)
			assert.True(t, strings.HasSuffix(failed.DNSName, "."+ze.Zone), "the failed zone %q holds the record %q", ze.Zone, failed.DNSName)
		})
	}
}

// TestNamesInALabels: the matcher, SplitByZone and GroupKey give names in
// the form of record names, whatever the spelling they were given.
func TestNamesInALabels(t *testing.T) {
	m := provider.NewZoneMatcher("Bücher.example.", "example.com")
	assert.Equal(t, []string{"example.com", buecher}, m.Zones())
	tests := []struct {
		name, wantZone string
	}{
		{name: "www." + buecher, wantZone: buecher},
		{name: "www.bücher.example", wantZone: buecher},
		{name: "WWW.BÜCHER.EXAMPLE.", wantZone: buecher},
		{name: buecher, wantZone: buecher},
		{name: "www.example.com", wantZone: "example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z, ok := m.Zone(tt.name)
			require.True(t, ok)
			assert.Equal(t, tt.wantZone, z)
		})
	}

	txtRec := endpoint.NewEndpoint("a-www.bücher.example", endpoint.RecordTypeTXT, `"heritage=external-dns"`).
		WithLabel(endpoint.OwnedRecordLabelKey, "www.bücher.example")
	name, _ := provider.GroupKey(txtRec)
	assert.Equal(t, "www."+buecher, name)
	name, _ = provider.GroupKey(endpoint.NewEndpoint("WWW.Bücher.example.", endpoint.RecordTypeA, "192.0.2.1"))
	assert.Equal(t, "www."+buecher, name)

	names, parts := provider.SplitByZone(&plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("www."+buecher, endpoint.RecordTypeA, "192.0.2.1"),
		endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.2"),
	}}, m)
	assert.Equal(t, []string{"example.com", buecher}, names)
	require.Len(t, parts[buecher].Create, 1)
	assert.Equal(t, "www."+buecher, parts[buecher].Create[0].DNSName)
}
