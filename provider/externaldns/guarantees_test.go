package externaldns_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
	xinmemory "sigs.k8s.io/external-dns/provider/inmemory"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/provider/externaldns/internal/etcdtest"
	"github.com/zonesync/zonesync/provider/externaldns/internal/pdnstest"
)

// TestGuaranteeTable checks the facts the table states for the providers
// the core treats differently, and the table's form: a name for every
// external-dns provider, upper-case types, new slices on every call.
func TestGuaranteeTable(t *testing.T) {
	tests := []struct {
		name                string
		createFailsIfExists bool
		keepsSetIdentifiers bool
		typesInclude        []string
		typesExclude        []string
		properties          []string
	}{
		// PATCH with changetype REPLACE; RRsets keyed by name and type.
		{name: "pdns"},
		// RFC 2136 additions merge into an existing RRset.
		{name: "rfc2136", typesInclude: []string{"A", "PTR", "TXT"}, typesExclude: []string{"MX", "SRV"}},
		// etcd keys with random prefixes; types guessed from targets.
		{name: "coredns", typesInclude: []string{"A", "CNAME", "TXT"}, typesExclude: []string{"MX"}, properties: []string{"coredns/"}},
		{name: "skydns", typesInclude: []string{"A", "CNAME", "TXT"}, properties: []string{"coredns/"}},
		// Route 53 CREATE; records keyed with their set identifier.
		{name: "aws", createFailsIfExists: true, keepsSetIdentifiers: true, typesInclude: []string{"MX", "NAPTR"}, typesExclude: []string{"PTR"},
			properties: []string{"alias", "aws/"}},
		// Cloud DNS additions of an existing record set fail.
		{name: "google", createFailsIfExists: true, typesInclude: []string{"MX"}, typesExclude: []string{"PTR"}},
		// CreateOrUpdate without a precondition.
		{name: "azure", typesInclude: []string{"MX", "NS"}, typesExclude: []string{"SRV"}, properties: []string{"azure/"}},
		{name: "azure-dns", typesInclude: []string{"MX", "NS"}, properties: []string{"azure/"}},
		{name: "azure-private-dns", typesInclude: []string{"MX"}, typesExclude: []string{"NS"}},
		// A create adds records beside those that exist.
		{name: "cloudflare", typesInclude: []string{"MX", "TLSA"}, properties: []string{"cloudflare/"}},
		{name: "ns1", createFailsIfExists: true},
		{name: "inmemory", createFailsIfExists: true, keepsSetIdentifiers: true},
		{name: "webhook"},
	}
	table := externaldns.GuaranteeTable()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, ok := table[tt.name]
			require.True(t, ok, "the table knows %s", tt.name)
			assert.Equal(t, tt.createFailsIfExists, g.CreateFailsIfExists, "CreateFailsIfExists")
			assert.Equal(t, tt.keepsSetIdentifiers, g.KeepsSetIdentifiers, "KeepsSetIdentifiers")
			for _, typ := range tt.typesInclude {
				assert.Contains(t, g.RecordTypes, typ)
			}
			for _, typ := range tt.typesExclude {
				assert.NotContains(t, g.RecordTypes, typ)
			}
			assert.Equal(t, tt.properties, g.ProviderSpecific)
		})
	}

	t.Run("every external-dns provider has an entry", func(t *testing.T) {
		for _, name := range xconfig.ProviderNames {
			_, ok := table[name]
			assert.True(t, ok, "no entry for %q", name)
		}
		assert.Len(t, table, len(xconfig.ProviderNames), "an entry for a name external-dns does not have")
	})
	t.Run("types are upper-case, properties non-empty", func(t *testing.T) {
		for name, g := range table {
			for _, typ := range g.RecordTypes {
				assert.Equal(t, strings.ToUpper(typ), typ, "%s: record type %q", name, typ)
			}
			for _, p := range g.ProviderSpecific {
				assert.NotEmpty(t, p, "%s: an empty property name", name)
			}
		}
	})
	t.Run("new on every call", func(t *testing.T) {
		mine := externaldns.GuaranteeTable()
		mine["aws"].RecordTypes[0] = "CHANGED"
		mine["azure"].ProviderSpecific[0] = "changed/"
		delete(mine, "pdns")
		again := externaldns.GuaranteeTable()
		assert.Equal(t, "A", again["aws"].RecordTypes[0])
		assert.Equal(t, "azure/", again["azure"].ProviderSpecific[0])
		assert.Equal(t, "azure/", mine["azure-dns"].ProviderSpecific[0], "aliases share no slice")
		assert.Contains(t, again, "pdns")
	})
}

// TestGuaranteesByName checks where a Provider's declaration comes from:
// the table by name, nothing for an unknown or default name, the override
// when given (copied), with [New] naming the provider after --provider.
func TestGuaranteesByName(t *testing.T) {
	aws, _ := externaldns.KnownGuarantees("aws")
	override := provider.Guarantees{CreateFailsIfExists: true, RecordTypes: []string{"A"}}
	tests := []struct {
		name string
		opts []externaldns.Options
		want provider.Guarantees
	}{
		{name: "known name", opts: []externaldns.Options{{Name: "aws"}}, want: aws},
		{name: "unknown name", opts: []externaldns.Options{{Name: "route53-prod"}}, want: provider.Guarantees{}},
		{name: "default name", want: provider.Guarantees{}},
		{name: "override", opts: []externaldns.Options{{Name: "aws", Guarantees: &override}}, want: override},
		{name: "override for an unknown name", opts: []externaldns.Options{{Name: "mine"}, {Guarantees: &override}}, want: override},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := externaldns.Wrap(&fake{}, tt.opts...)
			assert.Equal(t, tt.want, p.Guarantees())
			assert.Equal(t, tt.want, provider.GuaranteesOf(p), "found through provider.GuaranteesOf")
		})
	}

	t.Run("the override is copied", func(t *testing.T) {
		g := provider.Guarantees{RecordTypes: []string{"A", "AAAA"}}
		p := externaldns.Wrap(&fake{}, externaldns.Options{Guarantees: &g})
		g.RecordTypes[0] = "TXT"
		g.KeepsSetIdentifiers = true
		assert.Equal(t, provider.Guarantees{RecordTypes: []string{"A", "AAAA"}}, p.Guarantees())
		p.Guarantees().RecordTypes[1] = "MX"
		assert.Equal(t, []string{"A", "AAAA"}, p.Guarantees().RecordTypes, "callers get copies")
	})

	t.Run("New names the provider after --provider", func(t *testing.T) {
		cfg, err := externaldns.ParseFlags([]string{"--provider=inmemory", "--inmemory-zone=example.org"})
		require.NoError(t, err)
		p, err := externaldns.New(t.Context(), xinmemory.New, cfg, nil)
		require.NoError(t, err)
		want, _ := externaldns.KnownGuarantees("inmemory")
		assert.Equal(t, want, p.Guarantees())
		p, err = externaldns.New(t.Context(), xinmemory.New, cfg, nil, externaldns.Options{Name: "sandbox"})
		require.NoError(t, err)
		assert.Equal(t, provider.Guarantees{}, p.Guarantees(), "renamed to a name the table does not know")
	})
}

// TestConstructedProvidersDeclare builds every external-dns provider this
// module can build, as TestCloudProvidersConstruct does, and checks that
// each declares its table entry and lists its zones as expected.
func TestConstructedProvidersDeclare(t *testing.T) {
	for _, c := range cloudCases() {
		t.Run(c.provider, func(t *testing.T) {
			p, s := constructCase(t, c)
			want, ok := externaldns.KnownGuarantees(c.provider)
			require.True(t, ok)
			assert.Equal(t, want, provider.GuaranteesOf(p))

			how, why := externaldns.ZoneListing(p)
			assert.Equal(t, c.zonesFrom, how, "how zones are listed (%s)", why)
			zones, listed, err := provider.ZonesOf(s.ctx, p)
			if c.zonesFrom == "" {
				require.NoError(t, err)
				assert.False(t, listed, "does not list zones")
				_, err := p.ListZones(s.ctx)
				assert.ErrorIs(t, err, provider.ErrZonesUnsupported)
				assert.ErrorContains(t, err, "external-dns "+c.provider+" provider")
				return
			}
			if c.zones == nil {
				return // listing needs the service, which no test stands in for
			}
			require.NoError(t, err)
			assert.True(t, listed)
			assert.Equal(t, c.zones, zones)
		})
	}
}

// TestDeclaredGuaranteesOnRealServers checks the declarations of the
// providers this module runs against real servers with what those servers
// do: a create of a record set that exists fails and changes nothing only
// where CreateFailsIfExists is declared, and otherwise replaces the record
// set or adds to it (so declaring it would be false); a set identifier is
// read back only where KeepsSetIdentifiers is declared; the zones listed
// are the server's.
func TestDeclaredGuaranteesOnRealServers(t *testing.T) {
	const zone = "example.org"
	tests := []struct {
		name string
		new  func(t *testing.T) *externaldns.Provider
		// replaces: a create of an existing record set replaces it (else
		// it adds to it, when CreateFailsIfExists is false).
		replaces bool
	}{
		{name: "inmemory", new: func(t *testing.T) *externaldns.Provider {
			return externaldns.Wrap(xinmemory.NewInMemoryProvider(xinmemory.InMemoryInitZones([]string{zone})), externaldns.Options{Name: "inmemory"})
		}},
		{name: "pdns", replaces: true, new: func(t *testing.T) *externaldns.Provider {
			srv := pdnstest.Start(t, pdnstest.Config{})
			srv.CreateZone(zone)
			return newPDNS(t, srv, zone)
		}},
		{name: "rfc2136", new: func(t *testing.T) *externaldns.Provider {
			return newRFC2136(t, bindtest.Start(t, bindtest.Config{Zones: []string{zone}}))
		}},
		{name: "coredns", new: func(t *testing.T) *externaldns.Provider {
			srv := etcdtest.Start(t, etcdtest.Config{})
			t.Setenv("ETCD_URLS", srv.URL())
			return newCoreDNS(t, zone)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.new(t)
			ctx := t.Context()
			g := p.Guarantees()
			want, _ := externaldns.KnownGuarantees(tt.name)
			require.Equal(t, want, g)

			first := endpoint.NewEndpointWithTTL("taken."+zone, endpoint.RecordTypeA, 300, "192.0.2.1")
			require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{first}}))
			second := endpoint.NewEndpointWithTTL("taken."+zone, endpoint.RecordTypeA, 300, "192.0.2.2")
			err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{second}})
			targets := targetsOf(t, p, "taken."+zone, endpoint.RecordTypeA, "")
			switch {
			case g.CreateFailsIfExists:
				require.Error(t, err, "declared: a create of an existing record set fails")
				assert.Equal(t, []string{"192.0.2.1"}, targets, "and changes nothing")
			case tt.replaces:
				require.NoError(t, err)
				assert.Equal(t, []string{"192.0.2.2"}, targets, "the create replaced the record set: CreateFailsIfExists must be false")
			default:
				require.NoError(t, err)
				assert.ElementsMatch(t, []string{"192.0.2.1", "192.0.2.2"}, targets, "the create added to the record set: CreateFailsIfExists must be false")
			}

			withID := endpoint.NewEndpointWithTTL("routed."+zone, endpoint.RecordTypeA, 300, "192.0.2.3").WithSetIdentifier("eu")
			err = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{withID}})
			if g.KeepsSetIdentifiers {
				require.NoError(t, err)
				assert.Equal(t, []string{"192.0.2.3"}, targetsOf(t, p, "routed."+zone, endpoint.RecordTypeA, "eu"), "the set identifier is kept")
			} else {
				assert.Nil(t, targetsOf(t, p, "routed."+zone, endpoint.RecordTypeA, "eu"),
					"declared: set identifiers are not kept (the create failed or dropped it: %v)", err)
			}

			zones, listed, err := provider.ZonesOf(ctx, p)
			if tt.name == "coredns" {
				require.NoError(t, err)
				assert.False(t, listed, "etcd has no zones to list")
				return
			}
			require.NoError(t, err)
			require.True(t, listed)
			assert.Equal(t, []string{zone}, zones)
		})
	}
}

// targetsOf returns the sorted targets of the record name/type/setID the
// provider returns, or nil when it returns none.
func targetsOf(t *testing.T, p provider.Provider, name, typ, setID string) []string {
	t.Helper()
	recs, err := p.Records(context.WithoutCancel(t.Context()))
	require.NoError(t, err)
	for _, r := range recs {
		if r.DNSName == name && r.RecordType == typ && r.SetIdentifier == setID {
			return slices.Sorted(slices.Values(r.Targets))
		}
	}
	return nil
}
