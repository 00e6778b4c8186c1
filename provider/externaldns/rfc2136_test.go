package externaldns_test

import (
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xrfc2136 "sigs.k8s.io/external-dns/provider/rfc2136"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// newRFC2136 constructs external-dns's rfc2136 provider for srv's zones
// through the adapter, with TSIG and zone transfers (AXFR) on, as
// external-dns's flags configure it.
func newRFC2136(t *testing.T, srv *bindtest.Server) *externaldns.Provider {
	t.Helper()
	host, port, err := net.SplitHostPort(srv.Addr())
	require.NoError(t, err)
	k := srv.Key()
	args := []string{
		"--provider=rfc2136",
		"--rfc2136-host=" + host,
		"--rfc2136-port=" + port,
		"--rfc2136-tsig-keyname=" + k.Name,
		"--rfc2136-tsig-secret=" + k.Secret,
		"--rfc2136-tsig-secret-alg=" + k.Algorithm,
		"--rfc2136-axfr",
	}
	for _, z := range srv.Zones() {
		args = append(args, "--rfc2136-zone="+z)
	}
	cfg, err := externaldns.ParseFlags(args)
	require.NoError(t, err)
	p, err := externaldns.New(t.Context(), xrfc2136.New, cfg, xendpoint.NewDomainFilter(srv.Zones()))
	require.NoError(t, err)
	return p
}

func TestConformanceRFC2136(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.org"}})
	providertest.TestProvider(t, newRFC2136(t, srv), providertest.Options{
		Zone: "example.org",
		// DNS has no set identifiers; the provider ignores them.
		NoSetIdentifier: true,
		Lacks: map[string]string{
			providertest.RuleTXTQuotes:      zoneFileText + "; quotes are syntax, spaces split the value into strings that Records returns as separate targets, backslashes are escapes",
			providertest.RuleTXTLongValues:  zoneFileText + "; a value over 255 bytes without spaces is refused as too long, one with spaces is split into strings that Records returns as separate targets",
			providertest.RuleCreateExisting: "a create is an RFC 2136 update adding RRs without prerequisites: creating an existing record adds its targets to the RRset instead of failing or replacing it",
			providertest.RuleChangeMissing:  "updates carry no prerequisites: deleting RRs that do not exist succeeds, and an update of a missing record deletes nothing and adds the new RRs",
		},
	})
}

// zoneFileText: external-dns's rfc2136 provider (v0.23.0, AddRecord)
// formats each record as zone-file text and parses it with miekg/dns; a
// value the parser refuses is dropped without an error (ApplyChanges
// ignores AddRecord's).
const zoneFileText = "TXT values are written as zone-file text (\"name ttl TXT value\") and parsed, and a value the parser refuses is dropped without an error"

// zoneRR is one RRset of named's own view of a zone.
type zoneRR struct {
	TTL  uint32
	Data []string // rdata in presentation form, sorted
}

// axfr transfers zone from srv (signed with its key) and returns its
// RRsets but the SOA, by "name TYPE" (name without the trailing dot).
func axfr(t *testing.T, srv *bindtest.Server, zone string) map[string]zoneRR {
	t.Helper()
	k := srv.Key()
	m := new(dns.Msg)
	m.SetAxfr(dns.Fqdn(zone))
	m.SetTsig(k.Name, dns.Fqdn(k.Algorithm), 300, time.Now().Unix())
	tr := &dns.Transfer{TsigSecret: map[string]string{k.Name: k.Secret}}
	env, err := tr.In(m, srv.Addr())
	require.NoError(t, err)
	out := make(map[string]zoneRR)
	for e := range env {
		require.NoError(t, e.Error)
		for _, rr := range e.RR {
			h := rr.Header()
			if h.Rrtype == dns.TypeSOA {
				continue
			}
			key := strings.TrimSuffix(h.Name, ".") + " " + dns.TypeToString[h.Rrtype]
			set := out[key]
			set.TTL = h.Ttl
			set.Data = append(set.Data, strings.TrimPrefix(rr.String(), h.String()))
			out[key] = set
		}
	}
	for k, set := range out {
		slices.Sort(set.Data)
		out[k] = set
	}
	return out
}

// TestReconcilerRFC2136 runs zonesync's Reconciler with the TXT registry
// over external-dns's rfc2136 provider against a real named, through the
// adapter: records are created, updated and deleted over several cycles,
// named's zone (by AXFR) holds exactly what is desired after each cycle, a
// converged state plans nothing, and records that are not the
// Reconciler's are never touched.
func TestReconcilerRFC2136(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.org"}})
	// Not ours: a record of another writer, and one at a name we later
	// manage records beside ("www" has an A; this is its MX).
	srv.Update("example.org", []string{
		"foreign.example.org. 60 IN A 192.0.2.99",
		"www.example.org. 60 IN MX 10 mail.example.net.",
	}, nil)
	base := axfr(t, srv, "example.org") // NS, ns A and the foreign records

	p := newRFC2136(t, srv)
	types := []string{endpoint.RecordTypeA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT}
	reg, err := txt.New(p, txt.Config{OwnerID: "e2e", ManagedRecordTypes: types})
	require.NoError(t, err)
	src := source.NewStatic()
	r := &zonesync.Reconciler{Source: src, Registry: reg}

	const (
		www  = "service/default/www"
		api  = "ingress/default/api"
		note = "service/default/note"
	)
	with := func(ep *endpoint.Endpoint, res string) *endpoint.Endpoint {
		return ep.WithLabel(endpoint.ResourceLabelKey, res)
	}
	// ownership is the ownership TXT the registry writes, as named holds
	// it: external-dns's rfc2136 provider parses the registry's quoted
	// value as zone-file text, so the quotes are syntax, not data.
	ownership := func(res string) []string {
		return []string{`"heritage=external-dns,external-dns/owner=e2e,external-dns/resource=` + res + `"`}
	}

	cycles := []struct {
		name                   string
		desired                []*endpoint.Endpoint
		create, update, delete int
		want                   map[string][]string // rdata by "name TYPE"
		ttl                    map[string]uint32
	}{{
		name: "create",
		desired: []*endpoint.Endpoint{
			with(endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.1", "192.0.2.2"), www),
			with(endpoint.NewEndpointWithTTL("api.example.org", endpoint.RecordTypeCNAME, 300, "www.example.org"), api),
			with(endpoint.NewEndpointWithTTL("note.example.org", endpoint.RecordTypeTXT, 300, "hello"), note),
		},
		create: 3,
		want: map[string][]string{
			"www.example.org A":         {"192.0.2.1", "192.0.2.2"},
			"api.example.org CNAME":     {"www.example.org."},
			"note.example.org TXT":      {`"hello"`},
			"a-www.example.org TXT":     ownership(www),
			"cname-api.example.org TXT": ownership(api),
			"txt-note.example.org TXT":  ownership(note),
		},
		ttl: map[string]uint32{"www.example.org A": 300, "api.example.org CNAME": 300, "note.example.org TXT": 300},
	}, {
		name: "update targets, TTL and text",
		desired: []*endpoint.Endpoint{
			with(endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 600, "192.0.2.2", "192.0.2.3"), www),
			with(endpoint.NewEndpointWithTTL("api.example.org", endpoint.RecordTypeCNAME, 300, "other.example.net"), api),
			with(endpoint.NewEndpointWithTTL("note.example.org", endpoint.RecordTypeTXT, 300, "goodbye"), note),
		},
		update: 3,
		want: map[string][]string{
			"www.example.org A":         {"192.0.2.2", "192.0.2.3"},
			"api.example.org CNAME":     {"other.example.net."},
			"note.example.org TXT":      {`"goodbye"`},
			"a-www.example.org TXT":     ownership(www),
			"cname-api.example.org TXT": ownership(api),
			"txt-note.example.org TXT":  ownership(note),
		},
		ttl: map[string]uint32{"www.example.org A": 600, "api.example.org CNAME": 300, "note.example.org TXT": 300},
	}, {
		name: "delete",
		desired: []*endpoint.Endpoint{
			with(endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 600, "192.0.2.2", "192.0.2.3"), www),
		},
		delete: 2,
		want: map[string][]string{
			"www.example.org A":     {"192.0.2.2", "192.0.2.3"},
			"a-www.example.org TXT": ownership(www),
		},
		ttl: map[string]uint32{"www.example.org A": 600},
	}, {
		name:   "delete the rest",
		delete: 1,
		want:   map[string][]string{},
	}}
	for _, c := range cycles {
		t.Run(c.name, func(t *testing.T) {
			src.Set(c.desired...)
			cyc, err := r.RunOnce(t.Context())
			changes := cyc.Changes
			require.NoError(t, err)
			assert.Len(t, changes.Create, c.create, "creates")
			assert.Len(t, changes.UpdateNew, c.update, "updates")
			assert.Len(t, changes.Delete, c.delete, "deletes")

			zone := axfr(t, srv, "example.org")
			got := make(map[string][]string)
			for k, set := range zone {
				if b, ok := base[k]; ok {
					assert.Equal(t, b, set, "%s is not ours and must not change", k)
					continue
				}
				got[k] = set.Data
			}
			for k := range base {
				assert.Contains(t, zone, k, "%s is not ours and must stay", k)
			}
			assert.Equal(t, c.want, got, "named's zone")
			for k, ttl := range c.ttl {
				assert.Equal(t, ttl, zone[k].TTL, "TTL of %s", k)
			}

			// Converged: the next cycle plans nothing and the zone stays.
			cyc, err = r.RunOnce(t.Context())
			changes = cyc.Changes
			require.NoError(t, err)
			assert.False(t, changes.HasChanges(), "a converged state plans nothing: %+v", changes)
			assert.Equal(t, zone, axfr(t, srv, "example.org"), "a converged cycle changes nothing")
		})
	}
}
