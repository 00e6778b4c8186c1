package endpoint_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

func TestValidateTarget(t *testing.T) {
	long := strings.Repeat("a", 64)
	tests := []struct {
		recordType string
		target     string
		wantErr    string // substring; "" means valid
	}{
		{"A", "192.0.2.1", ""},
		{"A", "2001:db8::1", `A target "2001:db8::1" is not an IPv4 address`},
		{"A", "192.0.2", `A target "192.0.2" is not an IPv4 address`},
		{"A", "192.0.2.256", `"192.0.2.256" is not an IPv4 address`},
		{"A", "192.0.2.01", `"192.0.2.01" is not an IPv4 address`},
		{"A", "", `A target "" is not an IPv4 address`},
		{"A", "example.com", `"example.com" is not an IPv4 address`},

		{"AAAA", "2001:db8::1", ""},
		{"AAAA", "2001:DB8:0:0:0:0:0:1", ""},
		{"AAAA", "192.0.2.1", `AAAA target "192.0.2.1" is not an IPv6 address`},
		{"AAAA", "::ffff:192.0.2.1", `"::ffff:192.0.2.1" is not an IPv6 address`},
		{"AAAA", "fe80::1%eth0", `"fe80::1%eth0" is not an IPv6 address`},
		{"AAAA", "2001:db8::g", `"2001:db8::g" is not an IPv6 address`},

		{"CNAME", "lb.example.com", ""},
		{"CNAME", "lb.example.com.", ""},
		{"CNAME", "", `CNAME target "": host name is empty`},
		{"CNAME", "lb example.com", `CNAME target "lb example.com": DNS name "lb example.com" contains white space`},
		{"CNAME", "lb.example.com ", `CNAME target "lb.example.com ": DNS name "lb.example.com " contains white space`},
		{"CNAME", "a..example.com", `CNAME target "a..example.com": DNS name "a..example.com" has an empty label`},
		{"CNAME", long + ".example.com", `of 64 octets`},
		{"NS", "ns1.example.net", ""},
		{"NS", "ns1..example.net", `NS target "ns1..example.net"`},
		{"PTR", "host.example.com", ""},
		{"PTR", "\thost", `PTR target "\thost"`},
		{"DNAME", "new.example.com", ""},
		{"DNAME", ".", `DNAME target ".": DNS name "." is empty`},

		{"MX", "10 mail.example.com", ""},
		{"MX", "0 mail.example.com.", ""},
		{"MX", "mail.example.com", `MX target "mail.example.com": want "<preference> <host>"`},
		{"MX", "10 mail.example.com extra", `MX target "10 mail.example.com extra": want`},
		{"MX", "65536 mail.example.com", `MX target "65536 mail.example.com": preference "65536" is not a 16-bit number`},
		{"MX", "-1 mail.example.com", `preference "-1" is not a 16-bit number`},
		{"MX", "10 a..b", `MX target "10 a..b": DNS name "a..b" has an empty label`},

		{"SRV", "10 5 5060 sip.example.com.", ""},
		{"SRV", "0 0 0 .", ""},
		{"SRV", "10 5 5060 sip.example.com", `SRV target "10 5 5060 sip.example.com": host "sip.example.com" must end with a dot`},
		{"SRV", "10 5 sip.example.com.", `SRV target "10 5 sip.example.com.": want "<priority> <weight> <port> <host>."`},
		{"SRV", "x 5 5060 sip.example.com.", `SRV target "x 5 5060 sip.example.com.": priority "x" is not a 16-bit number`},
		{"SRV", "10 70000 5060 sip.example.com.", `weight "70000" is not a 16-bit number`},
		{"SRV", "10 5 -1 sip.example.com.", `port "-1" is not a 16-bit number`},
		{"SRV", "10 5 5060 a..b.", `SRV target "10 5 5060 a..b.": DNS name "a..b." has an empty label`},

		{"NAPTR", `100 10 "S" "SIP+D2U" "" _sip._udp.example.com.`, ""},
		{"NAPTR", `100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .`, ""},
		{"NAPTR", `100 10 "S" "SIP+D2U" _sip._udp.example.com.`, `NAPTR target "100 10 \"S\" \"SIP+D2U\" _sip._udp.example.com.": want 6 fields`},
		{"NAPTR", `100 10 "S" "SIP+D2U" "" `, `want 6 fields`},
		{"NAPTR", `x 10 "S" "SIP+D2U" "" .`, `order "x" is not a 16-bit number`},
		{"NAPTR", `100 99999 "S" "SIP+D2U" "" .`, `preference "99999" is not a 16-bit number`},
		{"NAPTR", `100 10 S "SIP+D2U" "" .`, `flags "S" must be a quoted string`},
		{"NAPTR", `100 10 "S" "SIP+D2U" "unterminated .`, `unterminated quoted string`},

		{"TLSA", "3 1 1 " + sha256Hex, ""},
		{"TLSA", "2 0 2 " + sha512Hex, ""},
		{"TLSA", "0 0 1 " + strings.ToUpper(sha256Hex), ""},
		{"TLSA", "3 1 0 deadbeef", ""},
		{"TLSA", "3 1 0 de", ""},
		{"TLSA", "  3   1\t1 " + sha256Hex[:32] + " " + sha256Hex[32:] + " ", ""},
		{"TLSA", "3 1 1 " + colonHex(sha256Hex), ""},
		{"TLSA", "003 1 0 00", ""},
		{"TLSA", "", `TLSA target "": want "<usage> <selector> <matching-type> <data>", got 0 fields`},
		{"TLSA", "3 1 1", `want "<usage> <selector> <matching-type> <data>", got 3 fields`},
		{"TLSA", "4 1 1 " + sha256Hex, `usage "4" is not a number from 0 to 3`},
		{"TLSA", "-1 1 1 " + sha256Hex, `usage "-1" is not a number from 0 to 3`},
		{"TLSA", "x 1 1 " + sha256Hex, `usage "x" is not a number from 0 to 3`},
		{"TLSA", "3 2 1 " + sha256Hex, `selector "2" is not a number from 0 to 1`},
		{"TLSA", "3 1 3 " + sha256Hex, `matching type "3" is not a number from 0 to 2`},
		{"TLSA", "3 1 256 00", `matching type "256" is not a number from 0 to 2`},
		{"TLSA", "3 1 1 " + strings.Repeat("z", 64), `certificate association data "zzzz`},
		{"TLSA", "3 1 1 " + sha256Hex + " extra", `is not hex`},
		{"TLSA", "3 1 0 abc", `odd number of hex digits (3)`},
		{"TLSA", "3 1 0 :", `certificate association data is empty`},
		{"TLSA", "3 1 1 deadbeef", `matching type 1 (SHA-256) needs 64 hex digits, got 8`},
		{"TLSA", "3 1 2 " + sha256Hex, `matching type 2 (SHA-512) needs 128 hex digits, got 64`},

		{"TXT", "anything at all, even \"quotes\"", ""},
		{"TXT", "", ""},
		{"CAA", `0 issue "ca.example.net"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.recordType+" "+tt.target, func(t *testing.T) {
			err := endpoint.ValidateTarget(tt.recordType, tt.target)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

const (
	sha256Hex = "54ee30e752c6e751b7bfde666e638ec4e25f3974207258072299caa15e15820f"
	sha512Hex = "f758ae635ec9b464b46d89e05274b791b72ac4245f8eb18ccad836ef59238706" +
		"fa201cf1616169813a8d0743f3e0275eb69bad17bcf1032217830d0aacbbc843"
)

// colonHex writes hex data as colon-separated bytes.
func colonHex(h string) string {
	var parts []string
	for i := 0; i+2 <= len(h); i += 2 {
		parts = append(parts, h[i:i+2])
	}
	return strings.Join(parts, ":")
}

func TestNewEndpointKeepsTLSATargetsVerbatim(t *testing.T) {
	for _, target := range []string{"3 1 1 " + sha256Hex, "3 1 0 AB:CD", "3 1 0 ab."} {
		ep := endpoint.NewEndpoint("_443._tcp.www.example.com.", endpoint.RecordTypeTLSA, target)
		assert.Equal(t, "_443._tcp.www.example.com", ep.DNSName)
		assert.Equal(t, endpoint.Targets{target}, ep.Targets)
	}
	ok := endpoint.NewEndpoint("_443._tcp.www.example.com", endpoint.RecordTypeTLSA, "3 1 1 "+sha256Hex)
	assert.NoError(t, ok.Validate())
	bad := endpoint.NewEndpoint("_443._tcp.www.example.com", endpoint.RecordTypeTLSA, "3 1 0 ab.")
	assert.ErrorContains(t, bad.Validate(), `targets[0]: TLSA target "3 1 0 ab.": certificate association data "ab." is not hex`)
}

func TestEndpointValidate(t *testing.T) {
	t.Run("valid", func(t *testing.T) {
		for _, ep := range []*endpoint.Endpoint{
			endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1", "192.0.2.2"),
			endpoint.NewEndpointWithTTL("a.example.com.", endpoint.RecordTypeAAAA, 60, "2001:db8::1"),
			endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeCNAME, "lb.example.com.").WithProviderSpecific("alias", "true"),
			endpoint.NewEndpoint("example.com", endpoint.RecordTypeMX, "10 mail.example.com").WithProviderSpecific("alias", "false"),
			endpoint.NewEndpoint("_sip._tcp.example.com", endpoint.RecordTypeSRV, "10 5 5060 sip.example.com."),
			endpoint.NewEndpoint("example.com", endpoint.RecordTypeTXT, "v=spf1 -all"),
		} {
			assert.NoError(t, ep.Validate(), ep.String())
		}
	})

	t.Run("aggregates every problem and names the record", func(t *testing.T) {
		ep := endpoint.NewEndpointWithTTL("a..example.com", endpoint.RecordTypeA, -5, "192.0.2.1", "2001:db8::1", "x").
			WithSetIdentifier("eu").
			WithProviderSpecific("alias", "true")
		ep.RecordType = endpoint.RecordTypeSRV
		err := ep.Validate()
		require.Error(t, err)
		msg := err.Error()
		assert.True(t, strings.HasPrefix(msg, "invalid endpoint a..example.com/SRV/eu: "), msg)
		for _, want := range []string{
			`dnsName: DNS name "a..example.com" has an empty label`,
			`targets[0]: SRV target "192.0.2.1"`,
			`targets[1]: SRV target "2001:db8::1"`,
			`targets[2]: SRV target "x"`,
			`recordTTL -5 is negative`,
			`provider-specific alias="true" is only allowed on A, AAAA and CNAME records`,
		} {
			assert.Contains(t, msg, want)
		}
		var joined interface{ Unwrap() []error }
		require.ErrorAs(t, err, &joined)
		assert.Len(t, joined.Unwrap(), 6)
	})

	t.Run("missing type and targets", func(t *testing.T) {
		err := (&endpoint.Endpoint{DNSName: "a.example.com"}).Validate()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "invalid endpoint a.example.com/: ")
		assert.Contains(t, err.Error(), "record type is empty")
		assert.Contains(t, err.Error(), "no targets")
	})

	t.Run("empty name", func(t *testing.T) {
		err := endpoint.NewEndpoint("", endpoint.RecordTypeA, "192.0.2.1").Validate()
		require.Error(t, err)
		assert.Contains(t, err.Error(), `DNS name "" is empty`)
	})

	t.Run("nil", func(t *testing.T) {
		var ep *endpoint.Endpoint
		assert.EqualError(t, ep.Validate(), "endpoint is nil")
	})
}

func TestRegression_WhiteSpaceInDNSName(t *testing.T) {
	tests := []struct {
		name, dnsName, want string
	}{
		{"leading", " a.example.com", `invalid endpoint  a.example.com/A: dnsName: DNS name " a.example.com" contains white space (U+0020 at offset 0)`},
		{"trailing", "a.example.com ", `invalid endpoint a.example.com /A: dnsName: DNS name "a.example.com " contains white space (U+0020 at offset 13)`},
		{"inside", "a b.example.com", `invalid endpoint a b.example.com/A: dnsName: DNS name "a b.example.com" contains white space (U+0020 at offset 1)`},
		{"tab before trailing dot", "a.example.com\t.", `dnsName: DNS name "a.example.com\t." contains white space (U+0009 at offset 13)`},
		{"no-break space", "a\u00a0b.example.com", `dnsName: DNS name "a\u00a0b.example.com" contains white space (U+00A0 at offset 1)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := &endpoint.Endpoint{DNSName: tt.dnsName, RecordType: endpoint.RecordTypeA, Targets: endpoint.Targets{"192.0.2.1"}}
			err := ep.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	// One trailing dot stays valid.
	assert.NoError(t, endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1").Validate())
	assert.NoError(t, (&endpoint.Endpoint{DNSName: "a.example.com.", RecordType: endpoint.RecordTypeA, Targets: endpoint.Targets{"192.0.2.1"}}).Validate())
}

// TestRegression_EscapedNames: names with zone-file escapes and other
// characters that are not in DNS names used to be valid; "\102oo" is "foo"
// to a zone-file parser (issue 21, finding 2).
func TestRegression_EscapedNames(t *testing.T) {
	tests := []struct {
		name, dnsName, recordType, target, want string
	}{
		{"escaped name", `\102oo.example.org`, "A", "192.0.2.1",
			`dnsName: DNS name "\\102oo.example.org" contains '\\' (U+005C at offset 0) in label "\\102oo"`},
		{"NUL in name", "foo\x00.example.org", "A", "192.0.2.1", `dnsName: DNS name "foo\x00.example.org" contains '\x00'`},
		{"quote in name", `f"oo.example.org`, "A", "192.0.2.1", `dnsName: DNS name "f\"oo.example.org" contains '"'`},
		{"slash in name", "f/oo.example.org", "A", "192.0.2.1", `dnsName: DNS name "f/oo.example.org" contains '/'`},
		{"escaped CNAME target", "www.example.org", "CNAME", `\102oo.example.org`,
			`targets[0]: CNAME target "\\102oo.example.org": DNS name "\\102oo.example.org" contains '\\'`},
		{"NS target with a slash", "sub.example.org", "NS", "ns/1.example.org", `targets[0]: NS target "ns/1.example.org"`},
		{"PTR target with NUL", "1.2.0.192.in-addr.arpa", "PTR", "h\x00.example.org", `targets[0]: PTR target`},
		{"MX host escaped", "example.org", "MX", `10 \109ail.example.org`, `targets[0]: MX target "10 \\109ail.example.org": DNS name`},
		{"SRV host escaped", "_sip._tcp.example.org", "SRV", `10 5 5060 \115ip.example.org.`, `targets[0]: SRV target`},
		{"NAPTR replacement escaped", "example.org", "NAPTR", `100 10 "S" "SIP+D2U" "" \095sip._udp.example.org.`,
			`targets[0]: NAPTR target "100 10 \"S\" \"SIP+D2U\" \"\" \\095sip._udp.example.org.": replacement: DNS name`},
		{"NAPTR replacement quoted", "example.org", "NAPTR", `100 10 "S" "SIP+D2U" "" "x"`, `replacement: DNS name "\"x\""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := &endpoint.Endpoint{DNSName: tt.dnsName, RecordType: tt.recordType, Targets: endpoint.Targets{tt.target}}
			err := ep.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	// The valid spellings stay valid.
	for _, ep := range []*endpoint.Endpoint{
		endpoint.NewEndpoint("foo.example.org", "A", "192.0.2.1"),
		endpoint.NewEndpoint("*.bücher.example", "CNAME", "xn--bcher-kva.example"),
		endpoint.NewEndpoint("example.org", "NAPTR", `100 10 "S" "SIP+D2U" "!^.*$!sip:\\1@example.org!" _sip._udp.example.org.`),
	} {
		assert.NoError(t, ep.Validate(), ep.String())
	}
}

// TestRegression_LabelsValidated: labels that would inject other labels
// into the ownership TXT text used to pass Validate (issue 21, finding 4).
func TestRegression_LabelsValidated(t *testing.T) {
	ep := endpoint.NewEndpoint("a.example.org", "A", "192.0.2.1").
		WithLabel("zz", "x,external-dns/owner=victim").
		WithLabel("owner", "me").
		WithLabel("a=b", "c")
	err := ep.Validate()
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, `invalid endpoint a.example.org/A: `)
	assert.Contains(t, msg, `labels["zz"]: value "x,external-dns/owner=victim" contains ',' (U+002C at offset 1)`)
	assert.Contains(t, msg, `labels["a=b"]: key contains '=' (U+003D at offset 1)`)
	assert.NotContains(t, msg, `labels["owner"]`)
	assert.Less(t, strings.Index(msg, `labels["a=b"]`), strings.Index(msg, `labels["zz"]`), "labels in key order")

	assert.NoError(t, endpoint.NewEndpoint("a.example.org", "A", "192.0.2.1").
		WithLabel("owner", "me").WithLabel("resource", "crd/default/a").Validate())
}

// TestValidateOwnershipTXTName: the ownership TXT of a wildcard record
// keeps its "*" inside a label, an ordinary character there; everything
// else follows ValidateDNSName.
func TestValidateOwnershipTXTName(t *testing.T) {
	for _, name := range []string{"a-*.example.com", "txt.a-*.example.com", "*.example.com", "a-app.example.com", "*-own.example.com",
		"a-own.*.wild.example.com", "xn--caf-dma-cname.example.com"} {
		assert.NoError(t, endpoint.ValidateOwnershipTXTName(name), name)
	}
	for _, name := range []string{`a-\042.example.com`, "a-*.ex/ample.com", "a b.example.com", "", "a..b"} {
		assert.Error(t, endpoint.ValidateOwnershipTXTName(name), name)
	}
	require.Error(t, endpoint.ValidateDNSName("a-*.example.com"))

	txt := endpoint.NewEndpoint("a-*.example.com", endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=me"`).
		WithLabel(endpoint.OwnedRecordLabelKey, "*.example.com")
	assert.NoError(t, txt.Validate(), "an ownership TXT endpoint")
	// TXT records read from a zone (external-dns's, or ours read back)
	// carry no label: they follow the same rule.
	plain := endpoint.NewEndpoint("a-*.example.com", endpoint.RecordTypeTXT, "x")
	assert.NoError(t, plain.Validate())
	assert.ErrorContains(t, endpoint.NewEndpoint("a-*.example.com", endpoint.RecordTypeA, "192.0.2.1").Validate(),
		`"*" is allowed only as the whole leftmost label`)
}

func TestValidateRecordName(t *testing.T) {
	tests := []struct {
		recordType, name string
		ok               bool
	}{
		{endpoint.RecordTypeTXT, "a-*.apps.example.com", true},
		{endpoint.RecordTypeTXT, "xn--caf-dma-cname.example.com", true},
		{endpoint.RecordTypeA, "a-*.apps.example.com", false},
		{endpoint.RecordTypeCNAME, "*.apps.example.com", true},
		{endpoint.RecordTypeTXT, `a\032b.example.com`, false},
		{endpoint.RecordTypeA, "www.example.com", true},
	}
	for _, tt := range tests {
		t.Run(tt.recordType+" "+tt.name, func(t *testing.T) {
			err := endpoint.ValidateRecordName(tt.recordType, tt.name)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			assert.Error(t, err)
		})
	}
}

// TestAliasTargets is the rule for the targets of alias records: an A or
// AAAA record that asks for an alias may point at a host name (what
// external-dns's AWS provider makes of a CNAME to a load balancer in its
// AdjustEndpoints); nothing else is relaxed.
func TestAliasTargets(t *testing.T) {
	const elb = "k8s-shop-1234567890.us-east-1.elb.amazonaws.com"
	tests := []struct {
		name       string
		recordType string
		alias      string // "" for none
		target     string
		isAlias    bool
		wantErr    string // "" for valid
	}{
		{"A alias=true to a host name", "A", "true", elb, true, ""},
		{"AAAA alias=true to a host name", "AAAA", "true", elb, true, ""},
		{"A alias=true with a trailing dot", "A", "true", "dualstack." + elb + ".", true, ""},
		{"A alias=A (external-dns v0.22 spelling)", "A", "A", elb, true, ""},
		{"AAAA alias=AAAA", "AAAA", "AAAA", elb, true, ""},
		{"A alias=true to an address", "A", "true", "192.0.2.1", true, ""},
		{"AAAA alias=true to an address", "AAAA", "true", "2001:db8::1", true, ""},
		{"AAAA alias=true to an IPv4 address, a valid host name", "AAAA", "true", "192.0.2.1", true, ""},
		{"A alias=true to an IPv6 address", "A", "true", "2001:db8::1", true, `alias A target "2001:db8::1" is neither an address of its family nor a host name`},
		{"A alias=true to a bad host name", "A", "true", "bad..name", true, `alias A target "bad..name"`},
		{"A alias=true to an empty target", "A", "true", "", true, `alias A target "" is neither an address of its family nor a host name: host name is empty`},
		{"A alias=true to a name with a space", "A", "true", "a b.example.com", true, `alias A target "a b.example.com"`},
		{"A alias=AAAA is not an A alias", "A", "AAAA", elb, false, "is not an IPv4 address"},
		{"AAAA alias=A is not an AAAA alias", "AAAA", "A", elb, false, "is not an IPv6 address"},
		{"A alias=false", "A", "false", elb, false, "is not an IPv4 address"},
		{"A alias=TRUE (not external-dns's value)", "A", "TRUE", elb, false, "is not an IPv4 address"},
		{"A alias=1", "A", "1", elb, false, "is not an IPv4 address"},
		{"A without alias", "A", "", elb, false, "is not an IPv4 address"},
		{"A without alias to an address", "A", "", "192.0.2.1", false, ""},
		{"AAAA without alias", "AAAA", "", elb, false, "is not an IPv6 address"},
		{"CNAME alias=true", "CNAME", "true", elb, true, ""},
		{"CNAME alias=A", "CNAME", "A", elb, true, ""},
		{"CNAME alias=false", "CNAME", "false", elb, false, ""},
		{"MX alias=true is no alias", "MX", "true", "10 " + elb, false, ""},
		{"TXT alias=true is no alias", "TXT", "true", "x", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := endpoint.NewEndpoint("shop.example.com", tt.recordType, tt.target)
			if tt.alias != "" {
				ep.WithProviderSpecific(endpoint.ProviderSpecificAlias, tt.alias)
			}
			assert.Equal(t, tt.isAlias, ep.IsAlias())
			err := ep.CheckTarget(tt.target)
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
			}
			// Validate applies the same rule to every target.
			verr := ep.Validate()
			if tt.wantErr == "" && tt.recordType != "MX" && tt.recordType != "TXT" {
				assert.NoError(t, verr)
			}
			if tt.wantErr != "" {
				require.Error(t, verr)
				assert.Contains(t, verr.Error(), "targets[0]: ")
				assert.Contains(t, verr.Error(), tt.wantErr)
			}
		})
	}
}
