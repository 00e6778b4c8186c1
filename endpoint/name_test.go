package endpoint_test

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

func TestNormalizeDNSName(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{".", ""},
		{"example.com", "example.com"},
		{"example.com.", "example.com"},
		{"example.com..", "example.com"},
		{"Example.COM.", "example.com"},
		{"WWW.Example.Com", "www.example.com"},
		{"*.example.com", "*.example.com"},
		{"_sip._tcp.Example.com", "_sip._tcp.example.com"},
		{"xn--bcher-kva.example", "bücher.example"},
		{"XN--BCHER-KVA.example.", "bücher.example"},
		{"Bücher.Example", "bücher.example"},
		{"xn--r28h.org", "😍.org"},
		{"API.xn--StonkS-u354e.ORG", "api.stonks📈.org"},
		{"FoOoo.Api.Stonks📈.Org", "foooo.api.stonks📈.org"},
		{"ÄÖÜ.example", "äöü.example"},
		// Not valid punycode: kept as lower-case ASCII.
		{"xn--.example", "xn--.example"},
		{"xn--ab_c.example", "xn--ab_c.example"},
		{"XN--!!!.example", "xn--!!!.example"},
		{"xn--99999999999.example", "xn--99999999999.example"},
		// Decodes to plain ASCII: not an A-label, kept.
		{"xn--abc-.example", "xn--abc-.example"},
		{"not-xn--bcher-kva.example", "not-xn--bcher-kva.example"},
		// Invalid UTF-8 becomes U+FFFD.
		{"a\xffb.example", "a\uFFFDb.example"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := endpoint.NormalizeDNSName(tt.in)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, got, endpoint.NormalizeDNSName(got), "idempotent")
		})
	}
}

func TestNormalizeDNSNameASCIIFastPath(t *testing.T) {
	name := "www.app.example.com"
	got := endpoint.NormalizeDNSName(name)
	require.Equal(t, name, got)
	assert.Equal(t, unsafeStringData(name), unsafeStringData(got), "returns the same string")

	for _, in := range []string{"www.app.example.com", "www.app.example.com.", "*.example.com", "_acme-challenge.example.com", ""} {
		allocs := testing.AllocsPerRun(100, func() {
			_ = endpoint.NormalizeDNSName(in)
		})
		assert.Zero(t, allocs, "NormalizeDNSName(%q) allocates", in)
	}
}

func TestValidateDNSName(t *testing.T) {
	long := strings.Repeat("a", 63)
	tests := []struct {
		name    string
		in      string
		wantErr string
	}{
		{"simple", "example.com", ""},
		{"trailing dot", "example.com.", ""},
		{"single label", "localhost", ""},
		{"wildcard", "*.example.com", ""},
		{"underscore", "_sip._tcp.example.com", ""},
		{"63 octet label", long + ".example.com", ""},
		{"253 octets", strings.Repeat(strings.Repeat("a", 49)+".", 5) + "abc", ""},
		{"empty", "", `DNS name "" is empty`},
		{"root only", ".", `DNS name "." is empty`},
		{"empty label", "a..example.com", `DNS name "a..example.com" has an empty label`},
		{"leading dot", ".example.com", `has an empty label`},
		{"two trailing dots", "example.com..", `has an empty label`},
		{"64 octet label", long + "a.example.com", `has label "` + long + `a" of 64 octets (at most 63 allowed)`},
		{"254 octets", strings.Repeat(strings.Repeat("a", 49)+".", 5) + "abcd", `is 254 octets long (at most 253 allowed)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := endpoint.ValidateDNSName(tt.in)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func unsafeStringData(s string) *byte { return unsafe.StringData(s) }
