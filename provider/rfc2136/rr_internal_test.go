package rfc2136

import (
	"fmt"
	"strings"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/dnstxt"
)

// wireTXT packs a TXT RR holding the data v into a message, unpacks it
// and returns the data and the target Records reads: the round trip
// through the wire format.
func wireTXT(t testing.TB, v string) (data, target string) {
	m := new(dns.Msg)
	m.SetQuestion("t.example.org.", dns.TypeTXT)
	m.Answer = []dns.RR{&dns.TXT{Hdr: dns.RR_Header{Name: "t.example.org.", Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 1}, Txt: splitTXT(v)}}
	b, err := m.Pack()
	require.NoError(t, err)
	var back dns.Msg
	require.NoError(t, back.Unpack(b))
	require.Len(t, back.Answer, 1)
	typ, got, ok := fromRR(back.Answer[0])
	require.True(t, ok)
	require.Equal(t, endpoint.RecordTypeTXT, typ)
	return dnstxt.Unescape(back.Answer[0].(*dns.TXT).Txt...), got
}

func TestTXTWireRoundTrip(t *testing.T) {
	tests := []string{
		"",
		"plain",
		`"heritage=external-dns,external-dns/owner=default"`,
		`back\slash \\ double \"escaped\"`,
		`\065 is not an escape here`,
		"tab\tnewline\nnul\x00del\x7f",
		"grüße 日本",
		strings.Repeat("x", 255),
		strings.Repeat("y", 256),
		strings.Repeat(`"\`, 300),
		strings.Repeat("ü", 400), // multi-byte characters cut at 255 bytes
	}
	for _, v := range tests {
		data, target := wireTXT(t, v)
		assert.Equal(t, v, data, "%q", v)
		assert.Equal(t, dnstxt.FromData(v), target, "%q", v)
	}
}

func TestSplitTXT(t *testing.T) {
	parts := splitTXT(strings.Repeat("a", 600))
	require.Len(t, parts, 3)
	assert.Len(t, parts[0], 255)
	assert.Len(t, parts[1], 255)
	assert.Len(t, parts[2], 90)
	assert.Equal(t, []string{`a\"b\\c\009`}, splitTXT("a\"b\\c\t"))
	assert.Equal(t, []string{""}, splitTXT(""))
}

func TestFromRRTargets(t *testing.T) {
	tests := []struct {
		rr       string
		typ      string
		target   string
		accepted bool
	}{
		{"a.example.org. 300 IN A 192.0.2.1", "A", "192.0.2.1", true},
		{"a.example.org. 300 IN AAAA 2001:db8::1", "AAAA", "2001:db8::1", true},
		{"a.example.org. 300 IN CNAME Target.Example.com.", "CNAME", "Target.Example.com", true},
		{"a.example.org. 300 IN MX 10 mx.example.org.", "MX", "10 mx.example.org", true},
		{"a.example.org. 300 IN SRV 1 5 443 host.example.org.", "SRV", "1 5 443 host.example.org.", true},
		{"a.example.org. 300 IN NS ns.example.net.", "NS", "ns.example.net", true},
		{"a.example.org. 300 IN PTR host.example.org.", "PTR", "host.example.org", true},
		{`a.example.org. 300 IN NAPTR 100 10 "S" "SIP+D2U" "" _sip._udp.example.org.`, "NAPTR", `100 10 "S" "SIP+D2U" "" _sip._udp.example.org.`, true},
		{"a.example.org. 300 IN SOA ns. host. 1 2 3 4 5", "", "", false},
		{"a.example.org. 300 IN HINFO cpu os", "", "", false},
	}
	for _, tt := range tests {
		rr, err := dns.NewRR(tt.rr)
		require.NoError(t, err, tt.rr)
		typ, target, ok := fromRR(rr)
		assert.Equal(t, tt.accepted, ok, tt.rr)
		assert.Equal(t, tt.typ, typ, tt.rr)
		assert.Equal(t, tt.target, target, tt.rr)
	}
}

// FuzzTXTRoundTrip checks that any TXT data survives splitting,
// escaping, the wire format and joining byte for byte, and reads as the
// target dnstxt.FromData gives.
func FuzzTXTRoundTrip(f *testing.F) {
	for _, s := range []string{"", "a", `"q"`, `\`, `\\065`, "\x00\xff", strings.Repeat("z", 256)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if len(v) > 4000 {
			return
		}
		if data, target := wireTXT(t, v); data != v || target != dnstxt.FromData(v) {
			t.Fatalf("round trip of %q gave data %q, target %q", v, data, target)
		}
	})
}

// FuzzToRRs feeds arbitrary targets (outside input: they come from
// sources) to the RR builder: it must not panic, and whatever it accepts
// must read back as the same target.
func FuzzToRRs(f *testing.F) {
	for _, s := range []struct{ typ, target string }{
		{"A", "192.0.2.1"}, {"AAAA", "2001:db8::1"}, {"CNAME", "a.example.org"},
		{"MX", "10 mx.example.org"}, {"SRV", "1 5 443 host.example.org."}, {"NS", "ns.example.org"},
		{"PTR", "p.example.org"}, {"NAPTR", `100 10 "S" "SIP+D2U" "" _sip._udp.example.org.`},
		{"TXT", `"x"`}, {"MX", "10 a ; comment"}, {"CNAME", "a b"},
	} {
		f.Add(s.typ, s.target)
	}
	f.Fuzz(func(t *testing.T, typ, target string) {
		e := endpoint.NewEndpointWithTTL("f.example.org", typ, 300, target)
		rrs, err := toRRs(e, 300)
		if err != nil {
			return
		}
		require.Len(t, rrs, 1)
		gotType, got, ok := fromRR(rrs[0])
		require.True(t, ok)
		require.Equal(t, typ, gotType)
		want := e.Targets
		if typ == endpoint.RecordTypeTXT {
			want = endpoint.Targets{dnstxt.Canonical(target)}
		}
		if !endpoint.Targets([]string{got}).Same(want) {
			t.Fatalf("%s target %q reads back as %q", typ, e.Targets[0], got)
		}
	})
}

func TestToRRsRefusesTargetsThatReadBackDifferently(t *testing.T) {
	for _, tt := range []struct{ typ, target, want string }{
		{"MX", "010 mx.example.org", "would be read back as"},
		{"NS", "@", `contains '@'`}, // no longer a DNS name for endpoint.ValidateTarget
		{"SRV", "01 5 443 host.example.org.", "would be read back as"},
	} {
		_, err := toRRs(endpoint.NewEndpoint("f.example.org", tt.typ, tt.target), 300)
		assert.ErrorContains(t, err, tt.want, "%s %q", tt.typ, tt.target)
	}
}

func TestResponseErrTellsTSIGFromNotAuthoritative(t *testing.T) {
	notauth := func(tsigErr uint16, signed bool) *dns.Msg {
		r := new(dns.Msg)
		r.Rcode = dns.RcodeNotAuth
		if signed {
			r.Extra = []dns.RR{&dns.TSIG{Hdr: dns.RR_Header{Name: "k.", Rrtype: dns.TypeTSIG, Class: dns.ClassANY}, Algorithm: dns.HmacSHA256, Error: tsigErr}}
		}
		return r
	}
	tests := []struct {
		name      string
		r         *dns.Msg
		signedReq bool
		class     error
		want      string
	}{
		{"bad time", notauth(dns.RcodeBadTime, true), true, ErrTSIG, "NOTAUTH (TSIG error BADTIME)"},
		{"bad signature", notauth(dns.RcodeBadSig, true), true, ErrTSIG, "NOTAUTH (TSIG error BADSIG)"},
		{"unsigned answer to a signed request", notauth(0, false), true, ErrTSIG, "NOTAUTH (unsigned answer to a signed request)"},
		{"signed, no TSIG error", notauth(0, true), true, ErrNotAuthoritative, "NOTAUTH: the server is not authoritative for zone example.org"},
		{"unsigned request", notauth(0, false), false, ErrNotAuthoritative, "NOTAUTH: the server is not authoritative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := responseErr("example.org", "transfer", tt.r, tt.signedReq)
			assert.ErrorIs(t, err, tt.class)
			assert.Contains(t, err.Error(), "rfc2136: zone example.org: transfer: "+tt.want)
		})
	}
}

func TestOwnerNameFromLabels(t *testing.T) {
	good := map[string]string{
		"Foo.Example.org":     "foo.example.org.",
		"*.example.org.":      "*.example.org.",
		"_sip._tcp.example":   "_sip._tcp.example.",
		"xn--bcher-kva.de":    "xn--bcher-kva.de.",
		"bücher.de":           "xn--bcher-kva.de.",
		"a-1.b_2.example.org": "a-1.b_2.example.org.",
	}
	for in, want := range good {
		got, err := ownerName(in, false)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{`\102oo.example.org`, `fo\.o.example.org`, `a"b.example.org`, "a(b.example.org",
		"a)b.example.org", "a;b.example.org", "@.example.org", "$x.example.org", "a b.example.org", "a\tb.example.org",
		"a\x00b.example.org", "a/b.example.org", "x.*.example.org", "*.*.example.org", "a..example.org", ""} {
		_, err := ownerName(bad, false)
		assert.Error(t, err, "%q", bad)
	}
}

// newRRExternalDNS builds the RR external-dns v0.23's rfc2136 provider
// builds for a target: the presentation text through dns.NewRR.
func newRRExternalDNS(t *testing.T, target string) (dns.RR, error) {
	t.Helper()
	return dns.NewRR(fmt.Sprintf("%s %d %s %s", "a.example.org", 300, "TXT", target))
}

// rdata packs rr and returns its RDATA bytes.
func rdata(t *testing.T, rr dns.RR) []byte {
	t.Helper()
	buf := make([]byte, dns.Len(rr)+16)
	n, err := dns.PackRR(rr, buf, 0, nil, false)
	require.NoError(t, err)
	return buf[n-int(rr.Header().Rdlength) : n]
}

// TestTXTDataAsExternalDNS: for quoted targets without '"' and '\' inside
// (ownership values, SPF, empty, long, non-ASCII) and for unquoted single
// tokens, the provider writes byte for byte the RDATA external-dns's
// rfc2136 provider writes, character-string boundaries included.
func TestTXTDataAsExternalDNS(t *testing.T) {
	targets := []string{
		`"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/www"`,
		`"heritage=external-dns,external-dns/owner=x"`,
		`"v=spf1 include:_spf.example.org -all"`,
		`""`,
		`"grüße 日本"`,
		`"a;b (c) $ORIGIN @"`,
		"\"tab\there\"",
		`"` + strings.Repeat("x", 255) + `"`,
		`"` + strings.Repeat("y", 256) + `"`,
		`"` + strings.Repeat("word ", 140) + `"`, // 700 bytes, 3 strings
		`"` + strings.Repeat("ü", 200) + `"`,     // cut inside a character at 255 bytes
		"plain",
		"v=spf1",
		"héllo",
		"heritage=external-dns,external-dns/owner=x",
	}
	hdr := dns.RR_Header{Name: "a.example.org.", Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 300}
	for _, target := range targets {
		want, err := newRRExternalDNS(t, target)
		require.NoError(t, err, target)
		got, err := targetRR(hdr, endpoint.RecordTypeTXT, target)
		require.NoError(t, err, target)
		assert.Equal(t, rdata(t, want), rdata(t, got), "%q", target)
		assert.Equal(t, len(want.(*dns.TXT).Txt), len(got.(*dns.TXT).Txt), "character-strings of %q", target)
		// And it reads back as the target, up to AdjustEndpoints' form.
		_, back, _ := fromRR(want)
		assert.Equal(t, dnstxt.Canonical(target), back, "%q", target)
	}
}

// TestTXTDataDepartsFromExternalDNS: targets whose presentation text
// external-dns's parser would split, unescape or cut are written as their
// exact bytes instead (docs/compatibility.md).
func TestTXTDataDepartsFromExternalDNS(t *testing.T) {
	hdr := dns.RR_Header{Name: "a.example.org.", Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 300}
	for _, target := range []string{
		"two words",          // external-dns: two character-strings
		`say "hi"`,           // external-dns: quotes as syntax
		`"say \"hi\""`,       // external-dns: unescaped
		`back\slash`,         // external-dns: unescaped
		"semi;colon",         // external-dns: a comment from ';'
		`"zs-leading-quote`,  // external-dns: an error
		`zs-trailing-quote"`, // external-dns: quote as syntax
	} {
		got, err := targetRR(hdr, endpoint.RecordTypeTXT, target)
		require.NoError(t, err, target)
		txt := got.(*dns.TXT)
		assert.Equal(t, target, dnstxt.Unescape(txt.Txt...), "%q is written as its bytes", target)
		if want, err := newRRExternalDNS(t, target); err == nil && want != nil {
			assert.NotEqual(t, rdata(t, want), rdata(t, got), "%q", target)
		}
		_, back, _ := fromRR(got)
		assert.Equal(t, target, back, "%q reads back as itself", target)
	}
}

// TestGuaranteedTypesAreConverted: the record types the provider declares
// ([Provider.Guarantees]) are exactly those it converts to RRs, so that the
// core sends it nothing it would refuse and refuses nothing it stores.
func TestGuaranteedTypesAreConverted(t *testing.T) {
	declared := (&Provider{}).Guarantees().RecordTypes
	var converted []string
	for _, rt := range append(endpoint.KnownRecordTypes(), "CAA", "SOA", "HTTPS") {
		if _, ok := rrType(rt); ok {
			converted = append(converted, rt)
		}
	}
	assert.ElementsMatch(t, converted, declared)
	assert.True(t, (&Provider{}).Guarantees().CreateFailsIfExists)
	assert.False(t, (&Provider{}).Guarantees().KeepsSetIdentifiers)
}
