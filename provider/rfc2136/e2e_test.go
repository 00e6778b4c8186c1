package rfc2136_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// answers returns the A or CNAME data of name, as a plain client sees it.
func answers(t *testing.T, srv *bindtest.Server, name string, qtype uint16) []string {
	t.Helper()
	var out []string
	for _, rr := range srv.Query(name, qtype).Answer {
		switch r := rr.(type) {
		case *dns.A:
			out = append(out, r.A.String())
		case *dns.CNAME:
			out = append(out, r.Target)
		case *dns.TXT:
			out = append(out, strings.Join(r.Txt, ""))
		}
	}
	return out
}

// TestReconcilerAgainstNamed runs zonesync's Reconciler with the TXT
// registry over the rfc2136 provider against a real named: it converges,
// stays converged across a restart of named, and survives named being down.
func TestReconcilerAgainstNamed(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.org"}})
	p := newProvider(t, srv)
	reg, err := txt.New(p, txt.Config{OwnerID: "e2e"})
	require.NoError(t, err)
	src := source.NewStatic(
		endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.1", "192.0.2.2").
			WithLabel(endpoint.ResourceLabelKey, "service/default/www"),
		endpoint.NewEndpointWithTTL("api.example.org", endpoint.RecordTypeCNAME, 300, "www.example.org").
			WithLabel(endpoint.ResourceLabelKey, "ingress/default/api"),
	)
	r := &zonesync.Reconciler{Source: src, Registry: reg}

	cyc, err := r.RunOnce(t.Context())
	changes := cyc.Changes
	require.NoError(t, err)
	assert.Len(t, changes.Create, 2)

	cyc, err = r.RunOnce(t.Context())
	changes = cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "the second cycle has nothing to do: %+v", changes)

	assert.ElementsMatch(t, []string{"192.0.2.1", "192.0.2.2"}, answers(t, srv, "www.example.org", dns.TypeA))
	assert.Equal(t, []string{"www.example.org."}, answers(t, srv, "api.example.org", dns.TypeCNAME))
	// The ownership TXT, as external-dns writes it: the registry's quotes
	// are syntax, not data.
	assert.Equal(t, []string{`heritage=external-dns,external-dns/owner=e2e,external-dns/resource=service/default/www`},
		answers(t, srv, "a-www.example.org", dns.TypeTXT))
	assert.Equal(t, []string{`heritage=external-dns,external-dns/owner=e2e,external-dns/resource=ingress/default/api`},
		answers(t, srv, "cname-api.example.org", dns.TypeTXT))

	// named restarts: the records persist in its journal, nothing changes.
	srv.Restart()
	cyc, err = r.RunOnce(t.Context())
	changes = cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "nothing to do after a restart of named: %+v", changes)

	// named is down: a soft error, nothing applied.
	srv.Stop()
	src.Set(append(mustEndpoints(t, src),
		endpoint.NewEndpointWithTTL("new.example.org", endpoint.RecordTypeA, 300, "192.0.2.3"))...)
	_, err = r.RunOnce(t.Context())
	require.Error(t, err)
	assert.True(t, errors.Is(err, provider.SoftError), "named down is a soft error: %v", err)

	// named is back: the cycle converges.
	srv.Restart()
	cyc, err = r.RunOnce(t.Context())
	changes = cyc.Changes
	require.NoError(t, err)
	require.Len(t, changes.Create, 1)
	assert.Equal(t, "new.example.org", changes.Create[0].DNSName)
	cyc, err = r.RunOnce(t.Context())
	changes = cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges())
	assert.Equal(t, []string{"192.0.2.3"}, answers(t, srv, "new.example.org", dns.TypeA))
	assert.Len(t, answers(t, srv, "a-new.example.org", dns.TypeTXT), 1)
}

func mustEndpoints(t *testing.T, s source.Source) []*endpoint.Endpoint {
	t.Helper()
	eps, err := s.Endpoints(t.Context())
	require.NoError(t, err)
	return eps
}

// TestReadsOwnershipWrittenByExternalDNS: external-dns's rfc2136 provider
// writes the ownership value through the zone-file parser, so the quotes
// are syntax and the TXT data has none. zonesync's registry reads that form
// as ownership: the records are managed without churn.
func TestReadsOwnershipWrittenByExternalDNS(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	srv.Update("example.org", []string{
		"old.example.org. 300 IN A 192.0.2.1",
		`a-old.example.org. 300 IN TXT "heritage=external-dns,external-dns/owner=e2e,external-dns/resource=service/default/old"`,
	}, nil)
	reg, err := txt.New(newProvider(t, srv), txt.Config{OwnerID: "e2e"})
	require.NoError(t, err)
	recs, err := reg.Records(t.Context())
	require.NoError(t, err)
	var owner string
	for _, r := range recs {
		if r.DNSName == "old.example.org" && r.RecordType == endpoint.RecordTypeA {
			owner = labelValue(r.Labels, endpoint.OwnerLabelKey)
		}
	}
	assert.Equal(t, "e2e", owner)

	// The same endpoint desired: nothing to do.
	r := &zonesync.Reconciler{Registry: reg, Source: source.NewStatic(
		endpoint.NewEndpointWithTTL("old.example.org", endpoint.RecordTypeA, 300, "192.0.2.1").
			WithLabel(endpoint.ResourceLabelKey, "service/default/old"))}
	cyc, err := r.RunOnce(t.Context())
	changes := cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "%+v", changes)
}

// labelValue returns the value of key in l, "" when it is not set.
func labelValue(l endpoint.Labels, key string) string {
	v, _ := l.Get(key)
	return v
}
