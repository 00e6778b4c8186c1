package rfc2136_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/plan"
)

// TestEscapedNamesAreNeitherReadNorTouched: records someone created with
// names that have no faithful endpoint form (a dot inside a label, a byte
// outside printable ASCII, a host target with an escaped dot) are not
// returned, under any name, and an endpoint spelling them with escapes
// cannot change them.
func TestEscapedNamesAreNeitherReadNorTouched(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	p := newProvider(t, srv)
	// Zone-file syntax: miekg/dns packs "fo\.o" as one label "fo.o".
	// (named's check-names refuses such owner names for A records, not
	// for TXT.)
	foreign := []string{
		`fo\.o.example.org. 300 IN TXT "one"`,
		`\233t.example.org. 300 IN TXT "two"`,
		`esc.example.org. 300 IN CNAME ta\.rget.example.org.`,
		`plain.example.org. 300 IN A 192.0.2.3`,
	}
	srv.Update("example.org", foreign, nil)

	var mu sync.Mutex
	var logged []string
	ctx := logr.NewContext(t.Context(), funcr.New(func(_, args string) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, args)
	}, funcr.Options{}))
	recs, err := p.Records(ctx)
	require.NoError(t, err)
	for _, r := range recs {
		assert.NotContains(t, r.DNSName, `\`, "%s returned", r.Key())
		for _, tg := range r.Targets {
			assert.NotContains(t, tg, `\`, "%s returned with target %q", r.Key(), tg)
		}
	}
	assert.Nil(t, find(recs, "fo.o.example.org", "TXT"), "not returned under the unescaped name")
	assert.Nil(t, find(recs, "esc.example.org", "CNAME"))
	assert.NotNil(t, find(recs, "plain.example.org", "A"), "the other records are read")
	mu.Lock()
	assert.Len(t, logged, 3, "each skipped record is logged: %q", logged)
	mu.Unlock()

	// Endpoints spelling those names with escapes are refused; the
	// records stay.
	err = p.ApplyChanges(t.Context(), &plan.Changes{
		Delete:    []*endpoint.Endpoint{ep(`fo\.o.example.org`, "TXT", 300, "one")},
		UpdateOld: []*endpoint.Endpoint{ep(`\233t.example.org`, "TXT", 300, "two")},
		UpdateNew: []*endpoint.Endpoint{ep(`\233t.example.org`, "TXT", 300, "changed")},
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `delete "fo\\.o.example.org" TXT: field dnsName`)
	assert.Contains(t, err.Error(), `update "\\233t.example.org" TXT: old record: field dnsName`)
	assert.Equal(t, []string{"one"}, txtData(srv, `fo\.o.example.org`))
	assert.Equal(t, []string{"two"}, txtData(srv, `\233t.example.org`))
}

// TestEscapedDesiredNameIsRefused: "\102oo" is "foo" in zone-file
// notation. An endpoint so named (or pointing there) is refused with an
// error naming the record and the field, and nothing is written: neither
// foo nor its ownership TXT.
func TestEscapedDesiredNameIsRefused(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	p := newProvider(t, srv)
	rec, txt := owned(`\102oo.example.org`, endpoint.RecordTypeA, "192.0.2.1")
	cname := ep("alias.example.org", "CNAME", 300, `\102oo.example.org`)
	for _, c := range []*plan.Changes{
		{Create: []*endpoint.Endpoint{rec, txt}},
		{Create: []*endpoint.Endpoint{cname}},
		{Create: []*endpoint.Endpoint{ep("mail.example.org", "MX", 300, `10 \102oo.example.org`)}},
		{Create: []*endpoint.Endpoint{ep("_x._tcp.example.org", "SRV", 300, `1 1 1 \102oo.example.org.`)}},
	} {
		err := p.ApplyChanges(t.Context(), c)
		require.Error(t, err)
		if c.Create[0] == rec {
			assert.Contains(t, err.Error(), `create "\\102oo.example.org" A: field dnsName "\\102oo.example.org"`)
		} else {
			assert.Contains(t, err.Error(), `target "`)
		}
		assert.Contains(t, err.Error(), `"\\102oo.example.org`)
		assert.Contains(t, err.Error(), `contains '\\'`)
	}
	assert.Empty(t, aData(srv, "foo.example.org"))
	assert.Empty(t, srv.Query("a-foo.example.org", dns.TypeTXT).Answer)
	assert.Empty(t, srv.Query("alias.example.org", dns.TypeCNAME).Answer)
	assert.Empty(t, srv.Query("mail.example.org", dns.TypeMX).Answer)
	assert.Empty(t, srv.Query("_x._tcp.example.org", dns.TypeSRV).Answer)
	for _, r := range records(t, p) {
		assert.False(t, strings.Contains(r.DNSName, "foo"), "%s written", r.Key())
	}
}

const ownership = "heritage=external-dns,external-dns/owner=me"

// txtPrefix is the prefix of the ownership TXT name for a record type, as
// the TXT registry names them.
func txtPrefix(typ string) string {
	if typ == endpoint.RecordTypeCNAME {
		return "cname-"
	}
	return "a-"
}

// owned returns a record and its ownership TXT, labelled as the TXT
// registry labels it.
func owned(name, typ, target string) (rec, txt *endpoint.Endpoint) {
	rec = ep(name, typ, 300, target)
	txt = ep(txtPrefix(typ)+name, endpoint.RecordTypeTXT, 300, ownership).
		WithLabel(endpoint.OwnedRecordLabelKey, name)
	return rec, txt
}

func txtData(srv *bindtest.Server, name string) []string {
	var out []string
	for _, rr := range srv.Query(name, dns.TypeTXT).Answer {
		if t, ok := rr.(*dns.TXT); ok {
			out = append(out, t.Txt...)
		}
	}
	return out
}

func aData(srv *bindtest.Server, name string) []string {
	var out []string
	for _, rr := range srv.Query(name, dns.TypeA).Answer {
		if a, ok := rr.(*dns.A); ok {
			out = append(out, a.A.String())
		}
	}
	return out
}

// TestWildcardWithItsOwnershipTXT: the ownership TXT of "*.example.org" is
// "a-*.example.org", a "*" inside a label; it is written with its record,
// and reads back under the same names.
func TestWildcardWithItsOwnershipTXT(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	p := newProvider(t, srv)
	rec, txt := owned("*.example.org", endpoint.RecordTypeA, "192.0.2.7")
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{rec, txt}}))
	recs, err := p.Records(t.Context())
	require.NoError(t, err)
	var names []string
	for _, r := range recs {
		names = append(names, r.DNSName+"/"+r.RecordType)
	}
	assert.Contains(t, names, "*.example.org/A")
	assert.Contains(t, names, "a-*.example.org/TXT")
	// A "*" inside a label is only for ownership TXT records.
	err = p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{ep("a-*.example.org", "A", 300, "192.0.2.8")}})
	require.Error(t, err)
}
