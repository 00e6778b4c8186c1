package provider_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/cache"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/noop"
	"github.com/zonesync/zonesync/registry/txt"
)

func TestGuaranteesCheck(t *testing.T) {
	a := func() *endpoint.Endpoint {
		return endpoint.NewEndpoint("app.example.com", endpoint.RecordTypeA, "192.0.2.1")
	}
	tests := []struct {
		name string
		g    provider.Guarantees
		ep   *endpoint.Endpoint
		want string // "" for nil
	}{
		{"nothing declared, plain record", provider.Guarantees{}, a(), ""},
		{"nothing declared, set identifier", provider.Guarantees{}, a().WithSetIdentifier("eu"), `set identifier "eu": the provider does not keep set identifiers`},
		{"set identifiers kept", provider.Guarantees{KeepsSetIdentifiers: true}, a().WithSetIdentifier("eu"), ""},
		{"declared types", provider.Guarantees{RecordTypes: []string{"A", "AAAA"}}, a(), ""},
		{"type not declared", provider.Guarantees{RecordTypes: []string{"AAAA"}},
			a(), `record type "A": the provider stores only AAAA`},
		{"types compared without case", provider.Guarantees{RecordTypes: []string{"a"}}, a(), ""},
		{"property by name", provider.Guarantees{ProviderSpecific: []string{"alias"}}, a().WithProviderSpecific("alias", "true"), ""},
		{"property by prefix", provider.Guarantees{ProviderSpecific: []string{"aws/"}}, a().WithProviderSpecific("aws/weight", "10"), ""},
		{"property not kept", provider.Guarantees{ProviderSpecific: []string{"aws/"}}, a().WithProviderSpecific("cloudflare-proxied", "true"),
			`provider-specific property "cloudflare-proxied": the provider does not keep it`},
		{"no property kept", provider.Guarantees{ProviderSpecific: []string{}}, a().WithProviderSpecific("alias", "true"), `provider-specific property "alias"`},
		{"force-update is the registry's own", provider.Guarantees{ProviderSpecific: []string{}}, a().WithProviderSpecific(endpoint.ProviderSpecificForceUpdate, "true"), ""},
		{"nil endpoint", provider.Guarantees{}, nil, "nil endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.g.Check(tt.ep)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, provider.ErrUnsupported)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestGuaranteesThroughWrappersAndRegistries: what a provider declares is
// seen through every wrapper of the module and through the registries; a
// provider that declares nothing gets the safe defaults.
func TestGuaranteesThroughWrappersAndRegistries(t *testing.T) {
	mem := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	want := provider.Guarantees{CreateFailsIfExists: true, KeepsSetIdentifiers: true}
	assert.Equal(t, want, provider.GuaranteesOf(mem))
	for name, wrap := range wrappers(t) {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, want, provider.GuaranteesOf(wrap(mem)))
			assert.Equal(t, provider.Guarantees{}, provider.GuaranteesOf(wrap(hideZones{mem})), "a provider that declares nothing: safe defaults")
		})
	}
	reg, err := txt.New(must(cache.New(mem, cache.Options{})), txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	assert.Equal(t, want, provider.GuaranteesOf(reg))
	assert.Equal(t, want, provider.GuaranteesOf(noop.New(mem)))
	assert.Equal(t, provider.Guarantees{}, provider.GuaranteesOf(providertest.Intercept(hideZones{mem}, providertest.Funcs{})))
}

func TestRecheckCreates(t *testing.T) {
	ctx := context.Background()
	own := func(record, txtName string) *endpoint.Endpoint {
		return endpoint.NewEndpoint(txtName, endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=me"`).WithLabel(endpoint.OwnedRecordLabelKey, record)
	}
	a := func(name, target string) *endpoint.Endpoint {
		return endpoint.NewEndpoint(name, endpoint.RecordTypeA, target)
	}
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: []*endpoint.Endpoint{
		a("taken.example.com", "198.51.100.1"),
		endpoint.NewEndpoint("a-txt-taken.example.com", endpoint.RecordTypeTXT, `"someone else's"`),
	}})
	changes := &plan.Changes{
		Create: []*endpoint.Endpoint{
			own("taken.example.com", "a-taken.example.com"), a("taken.example.com", "192.0.2.1"),
			own("free.example.com", "a-free.example.com"), a("free.example.com", "192.0.2.2"),
			own("txt-taken.example.com", "a-txt-taken.example.com"), a("txt-taken.example.com", "192.0.2.3"),
			endpoint.NewEndpoint("taken.example.com", endpoint.RecordTypeAAAA, "2001:db8::1"),
		},
		UpdateOld: []*endpoint.Endpoint{a("other.example.com", "192.0.2.9")},
		UpdateNew: []*endpoint.Endpoint{a("other.example.com", "192.0.2.10")},
	}
	before := &plan.Changes{Create: endpoint.DeepCopyAll(changes.Create), UpdateOld: endpoint.DeepCopyAll(changes.UpdateOld), UpdateNew: endpoint.DeepCopyAll(changes.UpdateNew)}
	kept, dropped, err := provider.RecheckCreates(ctx, zone, changes)
	require.NoError(t, err)
	assert.Equal(t, before, changes, "the changes given are not modified")
	assert.Equal(t, []string{"a-free.example.com/TXT", "free.example.com/A"}, keys(kept.Create), "a group with a create that would overwrite goes whole")
	assert.Equal(t, []string{"other.example.com/A"}, keys(kept.UpdateNew))
	assert.Equal(t, []string{
		"a-taken.example.com/TXT", "taken.example.com/A", "a-txt-taken.example.com/TXT", "txt-taken.example.com/A", "taken.example.com/AAAA",
	}, keys(dropped))

	nothing, none, err := provider.RecheckCreates(ctx, zone, &plan.Changes{Create: []*endpoint.Endpoint{a("new.example.com", "192.0.2.4")}})
	require.NoError(t, err)
	assert.Empty(t, none)
	assert.Len(t, nothing.Create, 1)

	failing := providertest.Intercept(zone, providertest.Funcs{Records: func(context.Context, provider.Provider) ([]*endpoint.Endpoint, error) {
		return nil, errors.New("down")
	}})
	_, _, err = provider.RecheckCreates(ctx, failing, changes)
	require.Error(t, err)
	assert.ErrorIs(t, err, provider.SoftError)
}

// TestFreshRecordsPastTheCache: the re-read before creates is never
// answered by a records cache.
func TestFreshRecordsPastTheCache(t *testing.T) {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	cached, err := cache.New(zone, cache.Options{TTL: 1 << 40})
	require.NoError(t, err)
	first, err := cached.Records(ctx)
	require.NoError(t, err)
	require.Empty(t, first)
	require.NoError(t, zone.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("x.example.com", "A", "192.0.2.1")}}))
	stale, err := cached.Records(ctx)
	require.NoError(t, err)
	assert.Empty(t, stale, "the cache answers")
	fresh, err := provider.FreshRecords(ctx, providertest.Intercept(cached, providertest.Funcs{}))
	require.NoError(t, err)
	assert.Equal(t, []string{"x.example.com/A"}, keys(fresh))
	again, err := cached.Records(ctx)
	require.NoError(t, err)
	assert.Len(t, again, 1, "the fresh read refreshed the cache")
}

func keys(eps []*endpoint.Endpoint) []string {
	out := []string{}
	for _, e := range eps {
		out = append(out, e.Key().String())
	}
	return out
}

// zoned declares guarantees per zone over an in-memory provider.
type zoned struct {
	*inmemory.Provider
	zones map[string]provider.Guarantees
}

func (z zoned) ZoneGuarantees() map[string]provider.Guarantees { return z.zones }

func TestGuaranteesByName(t *testing.T) {
	p := zoned{Provider: inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), zones: map[string]provider.Guarantees{
		"Example.COM.":    {KeepsSetIdentifiers: true},
		"int.example.com": {CreateFailsIfExists: true, RecordTypes: []string{"A"}},
	}}
	setID := func(name string) *endpoint.Endpoint {
		return endpoint.NewEndpoint(name, endpoint.RecordTypeA, "192.0.2.1").WithSetIdentifier("eu")
	}
	tests := []struct {
		name           string
		p              provider.Provider
		keepsSetIDs    bool
		createFails    bool
		setIDSupported bool
	}{
		{"zone", p, true, false, true},
		{"www.example.com", p, true, false, true},
		{"db.INT.example.com.", p, false, true, false},
		{"www.example.org", p, true, true, true}, // outside every zone: the plain guarantees (inmemory's)
		{"through a wrapper", providertest.Intercept(p, providertest.Funcs{}), true, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.name
			if name == "zone" || name == "through a wrapper" {
				name = "example.com"
			}
			g := provider.GuaranteesFor(tt.p, name)
			assert.Equal(t, tt.keepsSetIDs, g.KeepsSetIdentifiers)
			assert.Equal(t, tt.createFails, g.CreateFailsIfExists)
			assert.Equal(t, tt.setIDSupported, provider.GuaranteesByName(tt.p).Check(setID(name)) == nil)
		})
	}
	var zero provider.NameGuarantees
	assert.Equal(t, provider.Guarantees{}, zero.For("www.example.com"), "the zero value: the safe assumptions")
	assert.Nil(t, provider.ZoneGuaranteesOf(inmemory.New()), "no per-zone guarantees declared")
}
