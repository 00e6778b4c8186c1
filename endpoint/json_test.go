package endpoint_test

import (
	"bytes"
	"encoding/json"
	"regexp/syntax"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

// A fully populated endpoint in external-dns wire JSON.
const fullEndpointJSON = `{"dnsName":"app.example.com","targets":["192.0.2.10","192.0.2.11"],"recordType":"A","setIdentifier":"eu-west","recordTTL":300,"labels":{"owner":"default","resource":"service/default/app"},"providerSpecific":[{"name":"record-type","value":"ptr"},{"name":"webhook/priority","value":"10"}]}`

func fullEndpoint() *endpoint.Endpoint {
	return endpoint.NewEndpointWithTTL("app.example.com", endpoint.RecordTypeA, 300, "192.0.2.10", "192.0.2.11").
		WithSetIdentifier("eu-west").
		WithLabel(endpoint.ResourceLabelKey, "service/default/app").
		WithLabel(endpoint.OwnerLabelKey, "default").
		WithProviderSpecific("record-type", "ptr").
		WithProviderSpecific("webhook/priority", "10")
}

func TestEndpointJSONExactBytes(t *testing.T) {
	tests := []struct {
		name string
		ep   *endpoint.Endpoint
		want string
	}{
		{"fully populated", fullEndpoint(), fullEndpointJSON},
		{"minimal", &endpoint.Endpoint{DNSName: "foo"}, `{"dnsName":"foo"}`},
		{"zero", &endpoint.Endpoint{}, `{}`},
		{"empty collections omitted", &endpoint.Endpoint{
			DNSName: "foo", Targets: endpoint.Targets{}, Labels: endpoint.Labels{}, ProviderSpecific: endpoint.ProviderSpecific{},
		}, `{"dnsName":"foo"}`},
		{"property with empty value", endpoint.NewEndpoint("foo", "A", "192.0.2.1").WithProviderSpecific("record-type", ""),
			`{"dnsName":"foo","targets":["192.0.2.1"],"recordType":"A","providerSpecific":[{"name":"record-type"}]}`},
		{"HTML characters escaped, Unicode raw", endpoint.NewEndpoint("bücher.example", "TXT", "<a&b>\u2028").WithLabel("k", "é"),
			`{"dnsName":"bücher.example","targets":["\u003ca\u0026b\u003e\u2028"],"recordType":"TXT","labels":{"k":"é"}}`},
		{"label keys sorted", (&endpoint.Endpoint{}).WithLabel("owner", "o").WithLabel("ownedRecord", "r").WithLabel("Z", "z"),
			`{"labels":{"Z":"z","ownedRecord":"r","owner":"o"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.ep)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))

			var buf bytes.Buffer
			require.NoError(t, json.NewEncoder(&buf).Encode(tt.ep))
			assert.Equal(t, tt.want+"\n", buf.String(), "a streaming encoder adds one newline")
		})
	}
}

func TestEndpointJSONDecode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *endpoint.Endpoint
	}{
		{"fully populated", fullEndpointJSON, fullEndpoint()},
		{"minimal", `{"dnsName":"foo"}`, &endpoint.Endpoint{DNSName: "foo"}},
		{"keys are case-insensitive", `{"DNSName":"foo","TARGETS":["x"],"recordtype":"CNAME","SetIdentifier":"s","RecordTTL":5,"Labels":{"owner":"o"},"ProviderSpecific":[{"Name":"n","VALUE":"v"}]}`,
			&endpoint.Endpoint{DNSName: "foo", Targets: endpoint.Targets{"x"}, RecordType: "CNAME", SetIdentifier: "s", RecordTTL: 5,
				Labels: endpoint.LabelsFromMap(map[string]string{"owner": "o"}), ProviderSpecific: endpoint.ProviderSpecific{{Name: "n", Value: "v"}}}},
		{"null collections", `{"dnsName":"foo","targets":null,"labels":null,"providerSpecific":null}`, &endpoint.Endpoint{DNSName: "foo"}},
		{"missing value", `{"providerSpecific":[{"name":"record-type"}]}`,
			&endpoint.Endpoint{ProviderSpecific: endpoint.ProviderSpecific{{Name: "record-type"}}}},
		{"unknown keys ignored", `{"dnsName":"foo","refObjects":[{"kind":"Service"}],"extra":1}`, &endpoint.Endpoint{DNSName: "foo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got endpoint.Endpoint
			require.NoError(t, json.Unmarshal([]byte(tt.in), &got))
			assert.Equal(t, tt.want, &got)
		})
	}

	t.Run("wrong types are errors", func(t *testing.T) {
		for _, in := range []string{`{"recordTTL":"300"}`, `{"recordTTL":1.5}`, `{"targets":"a"}`, `{"labels":[]}`, `[]`} {
			var ep endpoint.Endpoint
			assert.Error(t, json.Unmarshal([]byte(in), &ep), in)
		}
	})
}

func TestDomainFilterJSONEncode(t *testing.T) {
	tests := []struct {
		name   string
		filter *endpoint.DomainFilter
		want   string
	}{
		{"lists sorted and normalised", endpoint.NewDomainFilterWithExclusions(
			[]string{"example.org", " Example.COM. ", "", "  "}, []string{"internal.example.com"}),
			`{"include":["example.com","example.org"],"exclude":["internal.example.com"]}`},
		{"IDNA decoded", endpoint.NewDomainFilter([]string{"stonks📈.org", "API.xn--StonkS-u354e.ORG"}),
			`{"include":["api.stonks📈.org","stonks📈.org"]}`},
		{"exclude only", endpoint.NewDomainFilterWithExclusions(nil, []string{".internal.example.com"}),
			`{"exclude":[".internal.example.com"]}`},
		{"regex form", endpoint.NewRegexDomainFilter(mustRegexp(t, `\.prod\.example\.com$`), mustRegexp(t, `^temp-`)),
			`{"regexInclude":"\\.prod\\.example\\.com$","regexExclude":"^temp-"}`},
		{"regex exclude only", endpoint.NewRegexDomainFilter(nil, mustRegexp(t, `^internal\.`)),
			`{"regexExclude":"^internal\\."}`},
		{"empty regexes", endpoint.NewRegexDomainFilter(mustRegexp(t, ""), mustRegexp(t, "")), `{}`},
		{"nothing configured", endpoint.NewDomainFilter(nil), `{}`},
		{"zero value", &endpoint.DomainFilter{}, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.filter)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			assert.Equal(t, tt.want, tt.filter.String())
		})
	}

	t.Run("nil", func(t *testing.T) {
		// As in external-dns: MarshalJSON of a nil filter gives {}, while
		// encoding/json writes null for a nil pointer without calling it.
		var nilFilter *endpoint.DomainFilter
		got, err := nilFilter.MarshalJSON()
		require.NoError(t, err)
		assert.Equal(t, `{}`, string(got))
		assert.Equal(t, `{}`, nilFilter.String())
		got, err = json.Marshal(nilFilter)
		require.NoError(t, err)
		assert.Equal(t, `null`, string(got))
	})

	t.Run("nil pointer inside an interface", func(t *testing.T) {
		var nilFilter *endpoint.DomainFilter
		got, err := json.Marshal(struct {
			Filter endpoint.DomainFilterInterface `json:"filter"`
		}{nilFilter})
		require.NoError(t, err)
		assert.Equal(t, `{"filter":null}`, string(got))
	})
}

func TestDomainFilterJSONDecode(t *testing.T) {
	tests := []struct {
		name         string
		in           string
		include      []string
		exclude      []string
		regexInclude string
		regexExclude string
	}{
		{"list form", `{"include":["example.org","example.com"],"exclude":["internal.example.com"]}`,
			[]string{"example.com", "example.org"}, []string{"internal.example.com"}, "", ""},
		{"entries in A-label form", `{"include":[" API.xn--StonkS-u354e.ORG. ","","Stonks📈.org"]}`,
			[]string{"api.xn--stonks-u354e.org", "xn--stonks-u354e.org"}, nil, "", ""},
		{"regex form", `{"regexInclude":"\\.prod\\.example\\.com$","regexExclude":"^temp-"}`,
			nil, nil, `\.prod\.example\.com$`, `^temp-`},
		{"empty regexes mean list form", `{"include":["example.com"],"regexInclude":"","regexExclude":""}`,
			[]string{"example.com"}, nil, "", ""},
		{"empty lists with regex", `{"include":[],"exclude":null,"regexInclude":"a"}`, nil, nil, "a", ""},
		{"empty", `{}`, nil, nil, "", ""},
		{"null", `null`, nil, nil, "", ""},
		{"case-insensitive keys", `{"Include":["a.example"],"EXCLUDE":["b.a.example"]}`, []string{"a.example"}, []string{"b.a.example"}, "", ""},
		{"stale filters shape is ignored", `{"filters":["example.com"]}`, nil, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var df endpoint.DomainFilter
			require.NoError(t, json.Unmarshal([]byte(tt.in), &df))
			assert.Equal(t, tt.include, df.Include())
			assert.Equal(t, tt.exclude, df.Exclude())
			if tt.regexInclude == "" {
				assert.Nil(t, df.RegexInclude())
			} else {
				require.NotNil(t, df.RegexInclude())
				assert.Equal(t, tt.regexInclude, df.RegexInclude().String())
			}
			if tt.regexExclude == "" {
				assert.Nil(t, df.RegexExclude())
			} else {
				require.NotNil(t, df.RegexExclude())
				assert.Equal(t, tt.regexExclude, df.RegexExclude().String())
			}
		})
	}

	t.Run("null into a pointer field", func(t *testing.T) {
		var v struct {
			Filter *endpoint.DomainFilter `json:"filter"`
		}
		require.NoError(t, json.Unmarshal([]byte(`{"filter":null}`), &v))
		assert.Nil(t, v.Filter)
		assert.True(t, v.Filter.Match("anything.example"))
	})

	t.Run("errors", func(t *testing.T) {
		var df endpoint.DomainFilter
		err := json.Unmarshal([]byte(`{"include":["example.com"],"regexInclude":"x"}`), &df)
		require.ErrorIs(t, err, endpoint.ErrDomainListAndRegex)
		err = json.Unmarshal([]byte(`{"exclude":["example.com"],"regexExclude":"x"}`), &df)
		require.ErrorIs(t, err, endpoint.ErrDomainListAndRegex)

		// The texts are external-dns's (its TestDomainFilterDeserializeError).
		assert.EqualError(t, err, "cannot have both domain list and regex")

		err = json.Unmarshal([]byte(`{"regexInclude":"(unclosed"}`), &df)
		assert.EqualError(t, err, "invalid regexInclude: error parsing regexp: missing closing ): `(unclosed`")
		var reErr *syntax.Error
		assert.ErrorAs(t, err, &reErr, "the regexp error is wrapped")
		err = json.Unmarshal([]byte(`{"regexExclude":"[z-a]"}`), &df)
		assert.EqualError(t, err, "invalid regexExclude: error parsing regexp: invalid character class range: `z-a`")

		err = json.Unmarshal([]byte(`{"include":"example.com"}`), &df)
		assert.EqualError(t, err, "json: cannot unmarshal string into Go struct field domainFilterSerde.include of type []string")
	})

	t.Run("round trip", func(t *testing.T) {
		for _, in := range []string{
			`{"include":["example.com","example.org"],"exclude":["internal.example.com"]}`,
			`{"regexInclude":"\\.prod\\.example\\.com$","regexExclude":"^temp-"}`,
			`{"include":["api.stonks📈.org","stonks📈.org"]}`,
			`{}`,
		} {
			var df endpoint.DomainFilter
			require.NoError(t, json.Unmarshal([]byte(in), &df))
			out, err := json.Marshal(&df)
			require.NoError(t, err)
			assert.Equal(t, in, string(out))
		}
	})
}
