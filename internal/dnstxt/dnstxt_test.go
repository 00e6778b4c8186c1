package dnstxt_test

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

func TestUnescape(t *testing.T) {
	tests := []struct {
		name  string
		parts []string
		want  string
	}{
		{"plain", []string{"heritage=external-dns"}, "heritage=external-dns"},
		{"quote", []string{`\"heritage=external-dns\"`}, `"heritage=external-dns"`},
		{"backslash", []string{`a\\b`}, `a\b`},
		{"decimal escape", []string{`a\009b\255`}, "a\tb\xff"},
		{"decimal escape of a digit", []string{`\0491`}, "11"},
		{"escaped other byte", []string{`\;\ x`}, "; x"},
		{"short decimal is a plain escape", []string{`\12`}, "12"},
		{"trailing backslash kept", []string{`ab\`}, `ab\`},
		{"several strings concatenated", []string{`a\"`, `b\\`, "c"}, `a"b\c`},
		{"escape does not span strings", []string{`a\0`, `65`}, "a065"},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, dnstxt.Unescape(tt.parts...))
		})
	}
}

// TestUnescapeReadsMiekgDNS checks Unescape against the form miekg/dns gives
// the strings of a TXT record read from the wire: every byte value comes
// back.
func TestUnescapeReadsMiekgDNS(t *testing.T) {
	raw := make([]byte, 0, 256)
	for c := range 256 {
		raw = append(raw, byte(c))
	}
	for _, value := range []string{string(raw[:128]), string(raw[128:]), `"quoted" \ back`} {
		t.Run(fmt.Sprintf("%q", value[:min(len(value), 8)]), func(t *testing.T) {
			// Build the record on the wire with the raw bytes, then read it
			// back the way a client does.
			msg := append([]byte{byte(len(value))}, value...)
			full := make([]byte, 512)
			off, err := dns.PackRR(&dns.RFC3597{Hdr: dns.RR_Header{Name: "a.example.", Rrtype: dns.TypeTXT, Class: dns.ClassINET}, Rdata: fmt.Sprintf("%x", msg)}, full, 0, nil, false)
			require.NoError(t, err)
			got, _, err := dns.UnpackRR(full[:off], 0)
			require.NoError(t, err)
			txt, ok := got.(*dns.TXT)
			require.True(t, ok)
			assert.Equal(t, value, dnstxt.Unescape(txt.Txt...))
		})
	}
}

const own = "heritage=external-dns,external-dns/owner=x,external-dns/resource=service/default/www"

// TestTargetMapping is the table of docs/compatibility.md and
// provider/rfc2136's documentation: target -> data -> target.
func TestTargetMapping(t *testing.T) {
	tests := []struct {
		target, data, back string
	}{
		{`"` + own + `"`, own, `"` + own + `"`},
		{own, own, `"` + own + `"`},
		{`"v=spf1 -all"`, "v=spf1 -all", "v=spf1 -all"},
		{"v=spf1 -all", "v=spf1 -all", "v=spf1 -all"},
		{"plain", "plain", "plain"},
		{`""`, "", ""},
		{"", "", ""},
		{`"grüße"`, "grüße", "grüße"},
		{`say "hi"`, `say "hi"`, `say "hi"`},
		{`"say \"hi\""`, `"say \"hi\""`, `"say \"hi\""`},
		{`back\slash`, `back\slash`, `back\slash`},
		{`"lead`, `"lead`, `"lead`},
		{`trail"`, `trail"`, `trail"`},
		{`"`, `"`, `"`},
		{`"heritage=someone-else"`, "heritage=someone-else", "heritage=someone-else"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.data, dnstxt.Data(tt.target), "Data(%q)", tt.target)
		assert.Equal(t, tt.back, dnstxt.FromData(tt.data), "FromData(%q)", tt.data)
		assert.Equal(t, tt.back, dnstxt.Canonical(tt.target), "Canonical(%q)", tt.target)
		forms := dnstxt.Forms(tt.target)
		assert.Equal(t, tt.data, forms[0], "Forms(%q)[0]", tt.target)
		for _, f := range forms {
			assert.Equal(t, tt.back, dnstxt.FromData(f), "FromData of form %q of %q", f, tt.target)
		}
	}
	// Data written by zonesync before it followed external-dns: the
	// quotes as data read as the same target as the data without them.
	assert.Equal(t, `"`+own+`"`, dnstxt.FromData(`"`+own+`"`))
	assert.Equal(t, "v=spf1 -all", dnstxt.FromData(`"v=spf1 -all"`))
	assert.Equal(t, `"`+own+`"`, dnstxt.Target(`\"`+own+`\"`))
}

func TestIsOwnershipAgreesWithParseLabels(t *testing.T) {
	for _, x := range []string{
		own, "heritage=external-dns", "x=1,heritage=external-dns", "heritage=external-dns,heritage=other",
		"heritage=other", "heritage=external-dns2", "", "heritage", "external-dns/owner=x", ",,heritage=external-dns,,",
		"heritage=external-dns=x", " heritage=external-dns",
	} {
		_, err := endpoint.ParseLabels(x)
		assert.Equal(t, err == nil, dnstxt.IsOwnership(x), "%q", x)
	}
}

// FuzzMapping: data reads as a target that is written back as data
// reading the same, every form of a target reads as its canonical form,
// and Canonical is idempotent; IsOwnership agrees with endpoint.ParseLabels.
func FuzzMapping(f *testing.F) {
	for _, s := range []string{"", `""`, `"x"`, `"` + own + `"`, own, `a"b`, `\`, "heritage=external-dns,heritage=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := dnstxt.Canonical(s)
		if dnstxt.Canonical(c) != c {
			t.Fatalf("Canonical(%q) = %q is not canonical", s, c)
		}
		if got := dnstxt.FromData(dnstxt.Data(c)); got != c {
			t.Fatalf("canonical %q reads back as %q", c, got)
		}
		for _, form := range dnstxt.Forms(s) {
			if got := dnstxt.FromData(form); got != c {
				t.Fatalf("form %q of %q reads as %q, want %q", form, s, got, c)
			}
		}
		if r := dnstxt.FromData(s); dnstxt.Canonical(r) != r {
			t.Fatalf("data %q reads as %q, not canonical", s, r)
		}
		if !strings.ContainsAny(s, `"\`) {
			_, err := endpoint.ParseLabels(s)
			if (err == nil) != dnstxt.IsOwnership(s) {
				t.Fatalf("IsOwnership(%q) = %v, ParseLabels error %v", s, dnstxt.IsOwnership(s), err)
			}
		}
	})
}
