package txt_test

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

// TestApplyPerZone: over a provider that lists its zones, each zone is
// applied in a call of its own with every record's ownership TXT; a zone
// that fails leaves the others applied, the error names it, and the next
// cycle completes it without duplicate or orphan TXT anywhere.
func TestApplyPerZone(t *testing.T) {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com", "example.org"}})
	broken := true
	errDown := errors.New("zone API down")
	rec := providertest.NewRecordingProvider(providertest.Intercept(zone, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			for _, ep := range c.Create {
				if broken && strings.HasSuffix(ep.DNSName, "example.org") {
					return errDown
				}
			}
			return next.ApplyChanges(ctx, c)
		},
	}))
	reg := newRegistry(t, rec, txt.Config{Prefix: "own-"})
	desired := []*endpoint.Endpoint{a("x.example.com", "192.0.2.1"), a("y.example.org", "192.0.2.2"), a("z.example.com", "192.0.2.3")}

	_, err := cycle(ctx, reg, desired)
	require.Error(t, err)
	assert.ErrorIs(t, err, errDown)
	var ze *provider.ZoneError
	require.ErrorAs(t, err, &ze)
	assert.Equal(t, "example.org", ze.Zone)
	assert.Contains(t, err.Error(), "zone example.org")

	calls := rec.CallsTo(providertest.MethodApplyChanges)
	require.Len(t, calls, 2, "one call per zone")
	assert.Equal(t, []string{
		"own-a-x.example.com/TXT/" + `"heritage=external-dns,external-dns/owner=default"`, "x.example.com/A/192.0.2.1",
		"own-a-z.example.com/TXT/" + `"heritage=external-dns,external-dns/owner=default"`, "z.example.com/A/192.0.2.3",
	}, keysOf(calls[0].Changes.Create), "each TXT before its record")
	assert.Equal(t, []string{
		`own-a-x.example.com TXT "heritage=external-dns,external-dns/owner=default"`,
		`own-a-z.example.com TXT "heritage=external-dns,external-dns/owner=default"`,
		"x.example.com A 192.0.2.1", "z.example.com A 192.0.2.3",
	}, zoneDump(t, zone), "the healthy zone was applied")
	checkOwnershipInvariant(t, zone, reg.Namer(), "default")

	broken = false
	_, err = cycle(ctx, reg, desired)
	require.NoError(t, err, "no duplicate TXT in the zone applied before")
	assert.Len(t, zoneDump(t, zone), 6)
	checkOwnershipInvariant(t, zone, reg.Namer(), "default")
	changes, err := cycle(ctx, reg, desired)
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "converged")
}

// A provider whose zone list fails gets no change: the error says why.
func TestApplyZoneListFails(t *testing.T) {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	errList := errors.New("zone API down")
	p := providertest.Intercept(zone, providertest.Funcs{
		ListZones: func(context.Context, provider.Provider) ([]string, error) { return nil, errList },
	})
	reg := newRegistry(t, p, txt.Config{})
	_, err := cycle(ctx, reg, []*endpoint.Endpoint{a("x.example.com", "192.0.2.1")})
	require.ErrorIs(t, err, errList)
	assert.ErrorContains(t, err, "listing zones")
	assert.Empty(t, zoneDump(t, zone))
}
