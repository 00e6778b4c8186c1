package interop

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xplan "sigs.k8s.io/external-dns/plan"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// jsonEndpoints is the corpus of tricky endpoint values.
func jsonEndpoints() []*endpoint.Endpoint {
	return []*endpoint.Endpoint{
		{},
		{DNSName: "a.example.com", RecordType: "A", Targets: endpoint.Targets{"192.0.2.1"}},
		{DNSName: "a.example.com.", RecordType: "A", Targets: endpoint.Targets{}},
		{DNSName: "Mixed.Case.example.com", RecordType: "cname", Targets: endpoint.Targets{"Target.Example.org."}},
		{DNSName: "bücher.example.com", RecordType: "A", Targets: endpoint.Targets{"192.0.2.1"}},
		{DNSName: "xn--bcher-kva.example.com", RecordType: "AAAA", Targets: endpoint.Targets{"2001:db8::1", "::ffff:192.0.2.1"}},
		{DNSName: "*.wild.example.com", RecordType: "A", Targets: endpoint.Targets{"192.0.2.1"}, SetIdentifier: "ëu-west <1>"},
		{DNSName: "txt.example.com", RecordType: "TXT", Targets: endpoint.Targets{`"quoted \"inner\" \\ back"`, "<script>&amp;</script>", "line\nbreak\ttab\u2028sep\u2029", "\x00\x01\x7f", "emoji 😀"}},
		{DNSName: "ttl.example.com", RecordType: "A", RecordTTL: 9223372036854775807, Targets: endpoint.Targets{"192.0.2.1"}},
		{DNSName: "negttl.example.com", RecordType: "A", RecordTTL: -1, Targets: endpoint.Targets{"192.0.2.1"}},
		{DNSName: "labels.example.com", RecordType: "A", Targets: endpoint.Targets{"192.0.2.1"}, Labels: endpoint.LabelsFromMap(map[string]string{
			"owner": "team,a=b", "resource": "service/default/x", "": "empty key", "empty": "", "ünï": "cödé",
		})},
		{DNSName: "labels-empty.example.com", RecordType: "A", Labels: endpoint.Labels{}},
		{DNSName: "ps.example.com", RecordType: "A", Targets: endpoint.Targets{"192.0.2.1"}, ProviderSpecific: endpoint.ProviderSpecific{
			{Name: "alias", Value: "true"}, {Name: "aws/weight", Value: ""}, {Name: "", Value: "nameless"}, {Name: "dup", Value: "1"}, {Name: "dup", Value: "2"},
		}},
		{DNSName: "ps-empty.example.com", ProviderSpecific: endpoint.ProviderSpecific{}},
		{DNSName: "srv.example.com", RecordType: "SRV", Targets: endpoint.Targets{"10 5 5060 sip.example.com."}},
		{DNSName: "mx.example.com", RecordType: "MX", Targets: endpoint.Targets{"10 mail.example.com", "20 mail2.example.com"}},
		{DNSName: "\u00a0space .example.com", RecordType: "A", Targets: endpoint.Targets{" 192.0.2.1 "}},
	}
}

// TestJSONEndpoint: an endpoint encoded by either side decodes on the
// other to what the encoder's own side decodes.
func TestJSONEndpoint(t *testing.T) {
	for i, ep := range jsonEndpoints() {
		// zonesync encodes, both decode.
		b, err := json.Marshal(ep)
		require.NoError(t, err)
		var z endpoint.Endpoint
		require.NoError(t, json.Unmarshal(b, &z), "case %d: zonesync decodes its own %s", i, b)
		var x xendpoint.Endpoint
		require.NoError(t, json.Unmarshal(b, &x), "case %d: external-dns decodes %s", i, b)
		require.Equal(t, &z, ToZonesync(&x), "case %d: %s", i, b)

		// external-dns encodes, both decode.
		xb, err := json.Marshal(FromZonesync(ep))
		require.NoError(t, err)
		require.JSONEq(t, string(xb), string(b), "case %d: both encode the same JSON", i)
		var x2 xendpoint.Endpoint
		require.NoError(t, json.Unmarshal(xb, &x2))
		var z2 endpoint.Endpoint
		require.NoError(t, json.Unmarshal(xb, &z2), "case %d: zonesync decodes %s", i, xb)
		require.Equal(t, ToZonesync(&x2), &z2, "case %d: %s", i, xb)
	}
}

// TestJSONChanges: Changes encoded by either side decode identically on
// the other.
func TestJSONChanges(t *testing.T) {
	eps := jsonEndpoints()
	cases := []*plan.Changes{
		{},
		{Create: eps[:3]},
		{Create: eps[1:2], UpdateOld: eps[3:6], UpdateNew: eps[6:9], Delete: eps[9:]},
		{Delete: []*endpoint.Endpoint{}},
	}
	for i, c := range cases {
		b, err := json.Marshal(c)
		require.NoError(t, err)
		var x xplan.Changes
		require.NoError(t, json.Unmarshal(b, &x), "case %d: external-dns decodes %s", i, b)
		var z plan.Changes
		require.NoError(t, json.Unmarshal(b, &z))
		require.Equal(t, changeLists(&z), changeLists(ChangesToZonesync(&x)), "case %d", i)

		xc := &xplan.Changes{Create: FromZonesyncAll(c.Create), UpdateOld: FromZonesyncAll(c.UpdateOld), UpdateNew: FromZonesyncAll(c.UpdateNew), Delete: FromZonesyncAll(c.Delete)}
		xb, err := json.Marshal(xc)
		require.NoError(t, err)
		var z2 plan.Changes
		require.NoError(t, json.Unmarshal(xb, &z2), "case %d: zonesync decodes %s", i, xb)
		var x2 xplan.Changes
		require.NoError(t, json.Unmarshal(xb, &x2))
		require.Equal(t, changeLists(ChangesToZonesync(&x2)), changeLists(&z2), "case %d", i)
	}
}

// changeLists renders the four lists with endpointLines, in order.
func changeLists(c *plan.Changes) [4][]string {
	return [4][]string{endpointLines(c.Create), endpointLines(c.UpdateOld), endpointLines(c.UpdateNew), endpointLines(c.Delete)}
}

// TestJSONDomainFilter: a domain filter encoded by either side decodes on
// the other to a filter that matches the same names.
func TestJSONDomainFilter(t *testing.T) {
	names := []string{
		"example.com", "a.example.com", "A.EXAMPLE.COM.", "x.internal.example.com", "internal.example.com",
		"example.org", "badexample.com", "bücher.example.com", "xn--bcher-kva.example.com", "foo.test", "a.b.foo.test",
		"", ".", "*.example.com", "exämple.com",
	}
	cases := []struct {
		name string
		x    *xendpoint.DomainFilter
		z    *endpoint.DomainFilter
	}{
		{"empty", xendpoint.NewDomainFilter(nil), endpoint.NewDomainFilter(nil)},
		{"include", xendpoint.NewDomainFilter([]string{"example.com", " Foo.Test. "}), endpoint.NewDomainFilter([]string{"example.com", " Foo.Test. "})},
		{"exclude", xendpoint.NewDomainFilterWithExclusions([]string{"example.com"}, []string{"internal.example.com"}), endpoint.NewDomainFilterWithExclusions([]string{"example.com"}, []string{"internal.example.com"})},
		{"leading dot", xendpoint.NewDomainFilter([]string{".example.com"}), endpoint.NewDomainFilter([]string{".example.com"})},
		{"idn", xendpoint.NewDomainFilter([]string{"bücher.example.com"}), endpoint.NewDomainFilter([]string{"bücher.example.com"})},
		{"regex", xendpoint.NewRegexDomainFilter(regexp.MustCompile(`(^|\.)example\.(com|org)$`), regexp.MustCompile(`^internal\.`)),
			endpoint.NewRegexDomainFilter(regexp.MustCompile(`(^|\.)example\.(com|org)$`), regexp.MustCompile(`^internal\.`))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			xb, err := json.Marshal(c.x)
			require.NoError(t, err)
			zb, err := json.Marshal(c.z)
			require.NoError(t, err)
			require.JSONEq(t, string(xb), string(zb), "both encode the same JSON")

			var zFromX endpoint.DomainFilter
			require.NoError(t, json.Unmarshal(xb, &zFromX))
			var xFromZ xendpoint.DomainFilter
			require.NoError(t, json.Unmarshal(zb, &xFromZ))
			for _, n := range names {
				require.Equal(t, c.x.Match(n), zFromX.Match(n), "zonesync decoding external-dns's %s on %q", xb, n)
				require.Equal(t, c.z.Match(n), xFromZ.Match(n), "external-dns decoding zonesync's %s on %q", zb, n)
				require.Equal(t, c.x.MatchParent(n), c.z.MatchParent(n), "MatchParent(%q) of %s", n, xb)
				require.Equal(t, c.x.MatchParent(n), zFromX.MatchParent(n), "MatchParent(%q), zonesync decoding %s", n, xb)
			}
		})
	}
}

// TestJSONDomainFilterEdges: what a program may depend on besides the
// encoding of a filter: the JSON of a nil filter (MarshalJSON gives {},
// encoding/json writes null for a nil pointer on both sides), and the
// errors of decoding, word for word.
func TestJSONDomainFilterEdges(t *testing.T) {
	var xNil *xendpoint.DomainFilter
	var zNil *endpoint.DomainFilter
	xb, err := xNil.MarshalJSON()
	require.NoError(t, err)
	zb, err := zNil.MarshalJSON()
	require.NoError(t, err)
	require.Equal(t, string(xb), string(zb), "MarshalJSON of a nil filter")
	xb, err = json.Marshal(xNil)
	require.NoError(t, err)
	zb, err = json.Marshal(zNil)
	require.NoError(t, err)
	require.Equal(t, string(xb), string(zb), "json.Marshal of a nil filter")
	xb, err = json.Marshal(struct{ F *xendpoint.DomainFilter }{})
	require.NoError(t, err)
	zb, err = json.Marshal(struct{ F *endpoint.DomainFilter }{})
	require.NoError(t, err)
	require.Equal(t, string(xb), string(zb), "a nil filter field")

	for _, in := range []string{
		`{"include":3}`, `{"include":"example.com"}`, `{"exclude":{}}`, `{"regexInclude":1}`, `[1]`, `"text"`, `{`, `{"include":["a"]}x`,
		`{"include":["example.com"],"regexInclude":"example.com"}`,
		`{"exclude":["example.com"],"regexInclude":"example.com"}`,
		`{"include":["example.com"],"regexExclude":"example.com"}`,
		`{"exclude":["example.com"],"regexExclude":"example.com"}`,
		`{"include":["example.com"],"regexInclude":"*"}`,
		`{"regexInclude":"*"}`, `{"regexExclude":"*"}`, `{"regexInclude":"(","regexExclude":"["}`,
		`{"regexInclude":"a","regexExclude":"[z-a]"}`, `{"regexInclude":"\\p{Nope}"}`,
		`{"include":[],"regexInclude":"ok"}`, `null`, `{}`,
	} {
		var x xendpoint.DomainFilter
		var z endpoint.DomainFilter
		xErr := json.Unmarshal([]byte(in), &x)
		zErr := json.Unmarshal([]byte(in), &z)
		if xErr == nil || zErr == nil {
			require.Equal(t, xErr == nil, zErr == nil, "%s: external-dns %v, zonesync %v", in, xErr, zErr)
			continue
		}
		require.Equal(t, xErr.Error(), zErr.Error(), "decoding %s", in)
	}
}
