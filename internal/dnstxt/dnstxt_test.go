package dnstxt_test

import (
	"fmt"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
