package txt_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
)

func mustNamer(t testing.TB, prefix, suffix, wildcard string) txt.Namer {
	t.Helper()
	n, err := txt.NewNamer(prefix, suffix, wildcard)
	require.NoError(t, err)
	return n
}

func TestNamerTXTName(t *testing.T) {
	tests := []struct {
		name                     string
		prefix, suffix, wildcard string
		dnsName, recordType      string
		want, wantLegacy         string
	}{
		// The external-dns worked examples (name part).
		{name: "row1 A no affix", dnsName: "app.example.com", recordType: "A", want: "a-app.example.com", wantLegacy: "app.example.com"},
		{name: "row2 AAAA no affix", dnsName: "app.example.com", recordType: "AAAA", want: "aaaa-app.example.com", wantLegacy: "app.example.com"},
		{name: "row3 prefix txt-", prefix: "txt-", dnsName: "www.example.com", recordType: "CNAME", want: "txt-cname-www.example.com", wantLegacy: "txt-www.example.com"},
		{name: "row4 templated suffix", suffix: "-%{record_type}", dnsName: "api.example.com", recordType: "CNAME", want: "api-cname.example.com", wantLegacy: "api-.example.com"},
		{name: "row5 wildcard replacement", prefix: "txt-", wildcard: "any", dnsName: "*.apps.example.com", recordType: "A", want: "txt-a-any.apps.example.com", wantLegacy: "txt-any.apps.example.com"},
		{name: "row6 apex templated prefix", prefix: "extdns-%{record_type}.", dnsName: "example.com", recordType: "A", want: "extdns-a.example.com", wantLegacy: "extdns-.example.com"},
		{name: "row8 legacy with prefix", prefix: "txt-", dnsName: "app.example.com", recordType: "A", want: "txt-a-app.example.com", wantLegacy: "txt-app.example.com"},
		{name: "row9 SRV", dnsName: "_sip._udp.example.com", recordType: "SRV", want: "srv-_sip._udp.example.com", wantLegacy: "_sip._udp.example.com"},
		// Other rules of §3.1.
		{name: "templated prefix equals no affix", prefix: "%{record_type}-", dnsName: "app.example.com", recordType: "A", want: "a-app.example.com", wantLegacy: "-app.example.com"},
		{name: "apex without affix leaves the zone", dnsName: "example.com", recordType: "A", want: "a-example.com", wantLegacy: "example.com"},
		{name: "suffix cannot keep apex in zone", suffix: "-.%{record_type}", dnsName: "ex.com", recordType: "A", want: "ex-.a.com", wantLegacy: "ex-..com"},
		{name: "wildcard without replacement", dnsName: "*.example.com", recordType: "A", want: "a-*.example.com", wantLegacy: "*.example.com"},
		{name: "single label", dnsName: "localhost", recordType: "A", want: "a-localhost", wantLegacy: "localhost"},
		{name: "single label suffix", suffix: "-own", dnsName: "localhost", recordType: "MX", want: "mx-localhost-own", wantLegacy: "localhost-own"},
		{name: "name case kept, type lowered", dnsName: "App.Example.com", recordType: "CNAME", want: "cname-App.Example.com", wantLegacy: "App.Example.com"},
		{name: "affix lower-cased", prefix: "TXT-", dnsName: "app.example.com", recordType: "A", want: "txt-a-app.example.com", wantLegacy: "txt-app.example.com"},
		{name: "template twice", prefix: "%{record_type}-x-%{record_type}.", dnsName: "app.example.com", recordType: "NS", want: "ns-x-ns.app.example.com", wantLegacy: "-x-.app.example.com"},
		{name: "unknown type", dnsName: "app.example.com", recordType: "CAA", want: "caa-app.example.com", wantLegacy: "app.example.com"},
		{name: "wildcard only first label", wildcard: "any", dnsName: "a.*.example.com", recordType: "A", want: "a-a.*.example.com", wantLegacy: "a.*.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustNamer(t, tt.prefix, tt.suffix, tt.wildcard)
			assert.Equal(t, tt.want, n.TXTName(tt.dnsName, tt.recordType))
			assert.Equal(t, tt.wantLegacy, n.LegacyTXTName(tt.dnsName))
		})
	}
}

func TestNamerParseTXTName(t *testing.T) {
	tests := []struct {
		name           string
		prefix, suffix string
		txtName        string
		wantName       string
		wantType       string
		wantOK         bool
	}{
		// Reading back §3.7.
		{name: "row1", txtName: "a-app.example.com", wantName: "app.example.com", wantType: "A", wantOK: true},
		{name: "row2", txtName: "aaaa-app.example.com", wantName: "app.example.com", wantType: "AAAA", wantOK: true},
		{name: "row3", prefix: "txt-", txtName: "txt-cname-www.example.com", wantName: "www.example.com", wantType: "CNAME", wantOK: true},
		{name: "row4", suffix: "-%{record_type}", txtName: "api-cname.example.com", wantName: "api.example.com", wantType: "CNAME", wantOK: true},
		{name: "row5 wildcard replacement is not undone", prefix: "txt-", txtName: "txt-a-any.apps.example.com", wantName: "any.apps.example.com", wantType: "A", wantOK: true},
		{name: "row6 apex", prefix: "extdns-%{record_type}.", txtName: "extdns-a.example.com", wantName: "example.com", wantType: "A", wantOK: true},
		{name: "row8 legacy no affix", txtName: "app.example.com", wantName: "app.example.com", wantType: "", wantOK: true},
		{name: "row8 legacy prefix", prefix: "txt-", txtName: "txt-app.example.com", wantName: "app.example.com", wantType: "", wantOK: true},
		{name: "row9 SRV", txtName: "srv-_sip._udp.example.com", wantName: "_sip._udp.example.com", wantType: "SRV", wantOK: true},
		// The full type list, §0.
		{name: "mx", txtName: "mx-m.example.com", wantName: "m.example.com", wantType: "MX", wantOK: true},
		{name: "ns", txtName: "ns-sub.example.com", wantName: "sub.example.com", wantType: "NS", wantOK: true},
		{name: "ptr", txtName: "ptr-1.2.0.192.in-addr.arpa", wantName: "1.2.0.192.in-addr.arpa", wantType: "PTR", wantOK: true},
		{name: "naptr", txtName: "naptr-n.example.com", wantName: "n.example.com", wantType: "NAPTR", wantOK: true},
		{name: "txt", txtName: "txt-t.example.com", wantName: "t.example.com", wantType: "TXT", wantOK: true},
		{name: "dname", txtName: "dname-d.example.com", wantName: "d.example.com", wantType: "DNAME", wantOK: true},
		{name: "tlsa", txtName: "tlsa-_443._tcp.example.com", wantName: "_443._tcp.example.com", wantType: "TLSA", wantOK: true},
		{name: "tlsa prefix", prefix: "txt-", txtName: "txt-tlsa-_443._tcp.example.com", wantName: "_443._tcp.example.com", wantType: "TLSA", wantOK: true},
		{name: "tlsa templated suffix", suffix: "-%{record_type}", txtName: "_443-tlsa._tcp.example.com", wantName: "_443._tcp.example.com", wantType: "TLSA", wantOK: true},
		{name: "tlsa templated prefix", prefix: "extdns-%{record_type}.", txtName: "extdns-tlsa._443._tcp.example.com", wantName: "_443._tcp.example.com", wantType: "TLSA", wantOK: true},
		{name: "unknown type prefix is untyped", txtName: "caa-app.example.com", wantName: "caa-app.example.com", wantType: "", wantOK: true},
		// Case.
		{name: "TXT name lower-cased", txtName: "A-App.Example.COM", wantName: "app.example.com", wantType: "A", wantOK: true},
		{name: "prefix matched case-insensitively", prefix: "TXT-", txtName: "Txt-A-app.example.com", wantName: "app.example.com", wantType: "A", wantOK: true},
		// Prefix mismatch.
		{name: "prefix missing", prefix: "txt-", txtName: "a-app.example.com", wantOK: false},
		{name: "templated prefix missing", prefix: "extdns-%{record_type}.", txtName: "a-app.example.com", wantOK: false},
		// Templated prefix: legacy path when no expansion matches.
		{name: "templated prefix legacy", prefix: "extdns-%{record_type}.", txtName: "extdns-.app.example.com", wantName: "app.example.com", wantType: "", wantOK: true},
		{name: "templated prefix legacy typed default position", prefix: "x%{record_type}.", txtName: "x.cname-app.example.com", wantName: "app.example.com", wantType: "CNAME", wantOK: true},
		// Ambiguous cases.
		{name: "legacy untyped cname-shop reads as typed", txtName: "cname-shop.example.com", wantName: "shop.example.com", wantType: "CNAME", wantOK: true},
		{name: "bare template: aaaafoo is A", prefix: "%{record_type}", txtName: "aaaafoo.example.com", wantName: "aaafoo.example.com", wantType: "A", wantOK: true},
		{name: "bare template: type order", prefix: "%{record_type}", txtName: "cnamefoo.example.com", wantName: "foo.example.com", wantType: "CNAME", wantOK: true},
		{name: "remainder equal to a type without dash", txtName: "a", wantName: "a", wantType: "A", wantOK: true},
		{name: "first label only before dash", txtName: "a.b-c.example.com", wantName: "a.b-c.example.com", wantType: "", wantOK: true},
		{name: "dash in type position of first label", txtName: "a-b-c.example.com", wantName: "b-c.example.com", wantType: "A", wantOK: true},
		// Suffix mode.
		{name: "suffix untemplated typed", suffix: "-own", txtName: "a-app-own.example.com", wantName: "app.example.com", wantType: "A", wantOK: true},
		{name: "suffix untemplated legacy", suffix: "-own", txtName: "app-own.example.com", wantName: "app.example.com", wantType: "", wantOK: true},
		{name: "suffix missing", suffix: "-own", txtName: "a-app.example.com", wantOK: false},
		{name: "suffix with dot", suffix: ".%{record_type}", txtName: "app.aaaa.example.com", wantName: "app.example.com", wantType: "AAAA", wantOK: true},
		{name: "suffix with dot, too few labels", suffix: ".x.%{record_type}", txtName: "app.x", wantOK: false},
		{name: "suffix with dot, no rest", suffix: ".%{record_type}", txtName: "app.a", wantName: "app", wantType: "A", wantOK: true},
		{name: "suffix single label", suffix: "-%{record_type}", txtName: "host-mx", wantName: "host", wantType: "MX", wantOK: true},
		{name: "suffix template legacy", suffix: "-%{record_type}", txtName: "api-.example.com", wantName: "api.example.com", wantType: "", wantOK: true},
		{name: "suffix ends with type letter only", suffix: "-%{record_type}", txtName: "x-aaaa.example.com", wantName: "x.example.com", wantType: "AAAA", wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			namers := []txt.Namer{mustNamer(t, tt.prefix, tt.suffix, "")}
			if tt.prefix == "" && tt.suffix == "" {
				namers = append(namers, txt.Namer{}) // the zero value reads the same
			}
			for _, n := range namers {
				gotName, gotType, ok := n.ParseTXTName(tt.txtName)
				require.Equal(t, tt.wantOK, ok)
				if !ok {
					assert.Empty(t, gotName)
					assert.Empty(t, gotType)
					continue
				}
				assert.Equal(t, tt.wantName, gotName)
				assert.Equal(t, tt.wantType, gotType)
			}
		})
	}
}

func TestNamerRoundTrip(t *testing.T) {
	types := endpoint.KnownRecordTypes()
	require.Equal(t, endpoint.RecordTypeTLSA, types[len(types)-1], "TLSA is known and tried last")
	configs := []struct{ prefix, suffix string }{
		{}, {prefix: "txt-"}, {prefix: "%{record_type}-"}, {prefix: "extdns-%{record_type}."},
		{prefix: "_own.%{record_type}-"}, {suffix: "-own"}, {suffix: "-%{record_type}"}, {suffix: ".%{record_type}"},
		{suffix: "-%{record_type}.own"},
	}
	names := []string{"app.example.com", "example.com", "a-b.example.com", "aaaa.example.com", "_sip._udp.example.com", "x"}
	for _, c := range configs {
		n := mustNamer(t, c.prefix, c.suffix, "")
		for _, name := range names {
			for _, typ := range types {
				txtName := n.TXTName(name, typ)
				gotName, gotType, ok := n.ParseTXTName(txtName)
				if assert.True(t, ok, "prefix %q suffix %q: %s", c.prefix, c.suffix, txtName) {
					assert.Equal(t, name, gotName, "prefix %q suffix %q: %s", c.prefix, c.suffix, txtName)
					assert.Equal(t, typ, gotType, "prefix %q suffix %q: %s", c.prefix, c.suffix, txtName)
				}
			}
		}
	}
}

func TestNewNamerErrors(t *testing.T) {
	_, err := txt.NewNamer("p-", "-s", "")
	require.ErrorIs(t, err, txt.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "mutually exclusive")

	n := mustNamer(t, "P-", "", "ANY")
	assert.Equal(t, "p-a-any.example.com", n.TXTName("*.example.com", "A"), "affixes are lower-cased")
}

func TestValidateTXTName(t *testing.T) {
	long := strings.Repeat("x", 62)
	n := txt.Namer{}
	require.NoError(t, txt.ValidateTXTName(n.TXTName(strings.Repeat("x", 61)+".example.com", "A")))
	err := txt.ValidateTXTName(n.TXTName(long+".example.com", "A"))
	require.ErrorIs(t, err, txt.ErrTXTName)
	assert.Contains(t, err.Error(), "a-"+long)
	require.ErrorIs(t, txt.ValidateTXTName("a-.example.com."), nil)
	require.ErrorIs(t, txt.ValidateTXTName("a..example.com"), txt.ErrTXTName)
}

// TestNamerWorkedExample: a templated prefix for apex records, and the
// zero value with no prefix, suffix or wildcard replacement.
func TestNamerWorkedExample(t *testing.T) {
	n := mustNamer(t, "extdns-%{record_type}.", "", "")
	assert.Equal(t, "extdns-a.example.com", n.TXTName("example.com", "A"))
	name, recordType, ok := n.ParseTXTName("extdns-cname.www.example.com")
	assert.Equal(t, []any{"www.example.com", "CNAME", true}, []any{name, recordType, ok})

	var plain txt.Namer
	assert.Equal(t, "aaaa-app.example.com", plain.TXTName("app.example.com", "AAAA"))
	name, recordType, ok = plain.ParseTXTName("app.example.com") // legacy untyped
	assert.Equal(t, []any{"app.example.com", "", true}, []any{name, recordType, ok})
}

// TestOwnershipTXTWorkedExample: the TXT of a wildcard record with a prefix
// and a wildcard replacement.
func TestOwnershipTXTWorkedExample(t *testing.T) {
	reg := newRegistry(t, inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), txt.Config{
		OwnerID: "default", Prefix: "txt-", WildcardReplacement: "any",
	})
	rec := endpoint.NewEndpoint("*.apps.example.com", "A", "192.0.2.20").WithLabel(endpoint.OwnerLabelKey, "default")
	own, err := reg.OwnershipTXT(rec)
	require.NoError(t, err)
	assert.Equal(t, "txt-a-any.apps.example.com", own.DNSName)
	assert.Equal(t, endpoint.Targets{`"heritage=external-dns,external-dns/owner=default"`}, own.Targets)
	owned, _ := own.Labels.Get(endpoint.OwnedRecordLabelKey)
	assert.Equal(t, "*.apps.example.com", owned)
}
