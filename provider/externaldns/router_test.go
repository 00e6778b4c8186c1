package externaldns_test

// One Reconciler over several DNS services and accounts through
// provider/router: PowerDNS (external-dns's pdns provider through the
// adapter), BIND (zonesync's rfc2136) and the in-memory provider, with
// delegated sub-zones; and two Route 53 accounts (two moto servers) with
// BIND beside them.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	"sigs.k8s.io/external-dns/provider/aws"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/internal/motoserver"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/provider/externaldns/internal/pdnstest"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/rfc2136"
	"github.com/zonesync/zonesync/provider/router"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// newBIND returns zonesync's rfc2136 provider for srv.
func newBIND(t *testing.T, srv *bindtest.Server) *rfc2136.Provider {
	t.Helper()
	k := srv.Key()
	p, err := rfc2136.New(rfc2136.Config{
		Server: srv.Addr(),
		Zones:  srv.Zones(),
		TSIG:   &rfc2136.TSIG{KeyName: k.Name, Algorithm: k.Algorithm, Secret: k.Secret},
	})
	require.NoError(t, err)
	return p
}

// failFirst fails the first n ApplyChanges calls of p (a route that is
// down for a while) and counts them.
func failFirst(p provider.Provider, n int32, calls *atomic.Int32) provider.Provider {
	return providertest.Intercept(p, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
			if calls.Add(1) <= n {
				return provider.NewSoftError(errors.New("injected: BIND unreachable"))
			}
			return next.ApplyChanges(ctx, changes)
		},
	})
}

// names returns "name type" of every record of p of the given types, but
// the zone's name server.
func names(t *testing.T, p provider.Provider, types ...string) []string {
	t.Helper()
	recs, err := p.Records(t.Context())
	require.NoError(t, err)
	var out []string
	for _, ep := range recs {
		// Not the name server record bindtest and pdnstest put in
		// every zone.
		if slices.Contains(types, ep.RecordType) && !strings.HasPrefix(ep.DNSName, "ns.") {
			out = append(out, ep.DNSName+" "+ep.RecordType)
		}
	}
	return out
}

func routedDesired(zones ...string) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	for _, zone := range zones {
		for i := range 3 {
			out = append(out, endpoint.NewEndpointWithTTL(fmt.Sprintf("svc-%d.%s", i, zone), endpoint.RecordTypeA, 300, fmt.Sprintf("192.0.2.%d", 10+i)).
				WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("service/default/svc-%d", i)))
		}
	}
	return out
}

// wantRouted is what a service holding zone (and no zone below it among
// others) must hold: the A records of the zone's names, each with its
// ownership TXT ("own-a-<name>", the TXT registry's typed name).
func wantRouted(zone string) []string {
	var out []string
	for i := range 3 {
		out = append(out, fmt.Sprintf("own-a-svc-%d.%s TXT", i, zone), fmt.Sprintf("svc-%d.%s A", i, zone))
	}
	slices.Sort(out)
	return out
}

func sorted(s []string) []string { slices.Sort(s); return s }

// TestRouterThreeServices: a Reconciler over a router of three services —
// PowerDNS holding example.com, BIND the delegated int.example.com, the
// in-memory provider lab.int.example.com below it — converges; each
// record and its ownership TXT land in the service of the record's most
// specific zone; while BIND refuses its changes, exactly its zone fails
// and the other two are applied.
func TestRouterThreeServices(t *testing.T) {
	pdnsSrv := pdnstest.Start(t, pdnstest.Config{})
	pdnsSrv.CreateZone("example.com")
	bindSrv := bindtest.Start(t, bindtest.Config{Zones: []string{"int.example.com"}})

	pdnsP := newPDNS(t, pdnsSrv, "example.com")
	bindP := newBIND(t, bindSrv)
	memP := inmemory.New(inmemory.Options{Zones: []string{"lab.int.example.com"}})
	var bindCalls atomic.Int32
	r, err := router.New([]router.Route{
		{Name: "pdns", Provider: pdnsP, Zones: []string{"example.com"}},
		{Name: "bind", Provider: failFirst(bindP, 2, &bindCalls)}, // zones listed by rfc2136
		{Name: "memory", Provider: memP},
	}, router.Options{})
	require.NoError(t, err)
	reg, err := txt.New(r, txt.Config{OwnerID: "router-e2e", Prefix: "own-"})
	require.NoError(t, err)
	zones := []string{"example.com", "int.example.com", "lab.int.example.com"}
	src := source.NewStatic(routedDesired(zones...)...)
	rec := &zonesync.Reconciler{Source: src, Registry: reg}

	// BIND is down for two cycles: its zone, and only its zone, fails.
	for i := range 2 {
		_, err := rec.RunOnce(t.Context())
		require.Error(t, err, "cycle %d", i)
		assert.Equal(t, []string{"int.example.com"}, provider.FailedZones(err), "cycle %d: %v", i, err)
		assert.Equal(t, wantRouted("example.com"), sorted(names(t, pdnsP, "A", "TXT")), "cycle %d: PowerDNS applied", i)
		assert.Equal(t, wantRouted("lab.int.example.com"), sorted(names(t, memP, "A", "TXT")), "cycle %d: in-memory applied", i)
		assert.Empty(t, names(t, bindP, "A", "TXT"), "cycle %d", i)
	}
	c, err := rec.RunOnce(t.Context())
	require.NoError(t, err)
	assert.Len(t, c.Create, 3, "BIND's records, created once it is back")
	c, err = rec.RunOnce(t.Context())
	require.NoError(t, err)
	assert.False(t, c.HasChanges(), "converged: %v", c.Changes)

	assert.Equal(t, wantRouted("example.com"), sorted(names(t, pdnsP, "A", "TXT")))
	assert.Equal(t, wantRouted("int.example.com"), sorted(names(t, bindP, "A", "TXT")))
	assert.Equal(t, wantRouted("lab.int.example.com"), sorted(names(t, memP, "A", "TXT")))
	// PowerDNS's own view: the ownership TXT beside its record, in the
	// service of the record's zone.
	var pdnsNames []string
	for _, set := range pdnsSrv.RRsets("example.com") {
		if (set.Type == "A" || set.Type == "TXT") && !strings.HasPrefix(set.Name, "ns.") {
			pdnsNames = append(pdnsNames, set.Name+" "+set.Type)
			assert.NotContains(t, set.Name, "int.example.com", "PowerDNS holds nothing of the delegated zones")
		}
	}
	assert.Len(t, pdnsNames, 6)

	// The per-name guarantees: PowerDNS's creates overwrite, BIND's and
	// the in-memory provider's do not; set identifiers are kept only by
	// the in-memory provider.
	g := provider.GuaranteesByName(reg)
	assert.False(t, g.For("x.example.com").CreateFailsIfExists)
	assert.True(t, g.For("x.lab.int.example.com").KeepsSetIdentifiers)
	assert.False(t, g.For("x.int.example.com").KeepsSetIdentifiers)

	// A cycle that deletes one record per service.
	src.Set(slices.DeleteFunc(routedDesired(zones...), func(ep *endpoint.Endpoint) bool {
		return strings.HasPrefix(ep.DNSName, "svc-2.")
	})...)
	rec.Safety.Disabled = true
	c, err = rec.RunOnce(t.Context())
	require.NoError(t, err)
	assert.Len(t, c.Delete, 3)
	for _, p := range []provider.Provider{pdnsP, bindP, memP} {
		assert.Len(t, names(t, p, "A", "TXT"), 4, "%T: one record and its TXT gone", p)
	}
}

// TestRouterConformance: the provider contract checker passes on a
// router over BIND and the in-memory provider, on either route's zone.
func TestRouterConformance(t *testing.T) {
	bindSrv := bindtest.Start(t, bindtest.Config{Zones: []string{"int.example.org"}})
	r, err := router.New([]router.Route{
		{Name: "bind", Provider: newBIND(t, bindSrv)},
		{Name: "memory", Provider: inmemory.New(inmemory.Options{Zones: []string{"example.org"}})},
	}, router.Options{})
	require.NoError(t, err)
	for _, zone := range []string{"int.example.org", "example.org"} {
		t.Run(zone, func(t *testing.T) {
			// BIND keeps no set identifiers, and the router's plain
			// guarantees are the weakest.
			providertest.TestProvider(t, r, providertest.Options{Zone: zone, NoSetIdentifier: true})
		})
	}
}

// TestRouterTwoRoute53Accounts: two accounts of external-dns's aws
// provider in one process, each its own moto server, told apart by
// nothing but their Config (--aws-profile naming a profile of the shared
// config file with its own keys and endpoint_url), with BIND holding a
// sub-zone of the first account's zone, under one Reconciler.
func TestRouterTwoRoute53Accounts(t *testing.T) {
	srvA, srvB := motoserver.Start(t), motoserver.Start(t)
	zoneA, zoneB := srvA.CreateZone("example.com"), srvB.CreateZone("example.net")
	bindSrv := bindtest.Start(t, bindtest.Config{Zones: []string{"int.example.com"}})

	isolateEnv(t)
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL_ROUTE_53"} {
		t.Setenv(k, "")
		require.NoError(t, os.Unsetenv(k))
	}
	home := os.Getenv("HOME")
	require.NoError(t, os.WriteFile(filepath.Join(home, "aws-config"), []byte(fmt.Sprintf(
		"[profile account-a]\nregion = us-east-1\nendpoint_url = %s\n\n[profile account-b]\nregion = us-east-1\nendpoint_url = %s\n",
		srvA.URL(), srvB.URL())), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(home, "aws-credentials"), []byte(
		"[account-a]\naws_access_key_id = AKIAACCOUNTAAAAAAAAA\naws_secret_access_key = secret-a\n\n"+
			"[account-b]\naws_access_key_id = AKIAACCOUNTBBBBBBBBB\naws_secret_access_key = secret-b\n"), 0o600))

	account := func(profile, zone string) *externaldns.Provider {
		cfg := parseFlags(t, "--provider=aws", "--aws-zone-type=public", "--aws-profile="+profile, "--aws-batch-change-interval=0s")
		p, err := externaldns.New(t.Context(), aws.New, cfg, xendpoint.NewDomainFilter([]string{zone}))
		require.NoError(t, err)
		return p
	}
	a, b := account("account-a", "example.com"), account("account-b", "example.net")
	bindP := newBIND(t, bindSrv)
	r, err := router.New([]router.Route{
		{Name: "route53-a", Provider: a, Zones: []string{"example.com"}},
		{Name: "route53-b", Provider: b, Zones: []string{"example.net"}},
		{Name: "bind", Provider: bindP, Zones: []string{"int.example.com"}},
	}, router.Options{})
	require.NoError(t, err)
	reg, err := txt.New(r, txt.Config{OwnerID: "two-accounts", Prefix: "own-"})
	require.NoError(t, err)
	rec := &zonesync.Reconciler{Source: source.NewStatic(routedDesired("example.com", "example.net", "int.example.com")...), Registry: reg}

	c, err := rec.RunOnce(t.Context())
	require.NoError(t, err)
	assert.Len(t, c.Create, 9)
	c, err = rec.RunOnce(t.Context())
	require.NoError(t, err)
	assert.False(t, c.HasChanges(), "converged: %v", c.Changes)

	view := func(srv *motoserver.Server, zoneID string) []string {
		var out []string
		for _, set := range srv.RecordSets(zoneID) {
			if set.Type == "A" || set.Type == "TXT" {
				out = append(out, strings.TrimSuffix(set.Name, ".")+" "+set.Type)
			}
		}
		return sorted(out)
	}
	assert.Equal(t, wantRouted("example.com"), view(srvA, zoneA), "account A holds example.com, and nothing of int.example.com")
	assert.Equal(t, wantRouted("example.net"), view(srvB, zoneB), "account B holds example.net")
	assert.Equal(t, wantRouted("int.example.com"), sorted(names(t, bindP, "A", "TXT")), "BIND holds the delegated sub-zone")
	assert.Positive(t, srvA.Counts()[motoserver.OpChangeResourceRecordSets], "account A's endpoint was written")
	assert.Positive(t, srvB.Counts()[motoserver.OpChangeResourceRecordSets], "account B's endpoint was written")

	// Route 53 keeps set identifiers and refuses a create of an existing
	// record set; BIND does neither: per name, each zone has its own.
	g := provider.GuaranteesByName(reg)
	assert.True(t, g.For("x.example.net").KeepsSetIdentifiers)
	assert.True(t, g.For("x.example.com").CreateFailsIfExists)
	assert.False(t, g.For("x.int.example.com").KeepsSetIdentifiers)
}
