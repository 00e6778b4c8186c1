package annotations_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
)

var webRef = source.ObjectRef{Kind: "Service", Namespace: "default", Name: "web"}

func TestParseAnnotations(t *testing.T) {
	const p = annotations.Prefix
	const alpha = annotations.AlphaPrefix
	tests := []struct {
		name string
		cfg  annotations.Config
		ann  map[string]string
		want annotations.Values
	}{
		{name: "nil map", ann: nil, want: annotations.Values{}},
		{name: "unrelated annotations", ann: map[string]string{"example.com/hostname": "a.example.com", "hostname": "b"}},
		{
			name: "hostname list: spaces removed, trailing dot dropped, duplicates and empties dropped",
			ann:  map[string]string{p + "hostname": " a.example.com., b.example.com ,, a.example.com,"},
			want: annotations.Values{Hostnames: []string{"a.example.com", "b.example.com"}},
		},
		{
			name: "alpha prefix read by default",
			ann:  map[string]string{alpha + "hostname": "a.example.com", alpha + "ttl": "60"},
			want: annotations.Values{Hostnames: []string{"a.example.com"}, TTL: 60},
		},
		{
			name: "newer prefix wins over alpha",
			ann: map[string]string{
				alpha + "hostname": "old.example.com", p + "hostname": "new.example.com",
				alpha + "ttl": "60", p + "ttl": "120",
				alpha + "webhook-weight": "1", p + "webhook-weight": "2",
			},
			want: annotations.Values{
				Hostnames: []string{"new.example.com"}, TTL: 120,
				ProviderSpecific: endpoint.ProviderSpecific{{Name: "webhook/weight", Value: "2"}},
			},
		},
		{
			name: "custom prefix only (split horizon)",
			cfg:  annotations.Config{Prefixes: []string{"internal.example.org/"}},
			ann:  map[string]string{"internal.example.org/hostname": "in.example.com", p + "hostname": "out.example.com"},
			want: annotations.Values{Hostnames: []string{"in.example.com"}},
		},
		{
			name: "every plain key",
			ann: map[string]string{
				p + "internal-hostname":       "int.example.com",
				p + "target":                  "192.0.2.1, lb.example.com.,2001:db8::1",
				p + "ttl":                     "1h30m",
				p + "set-identifier":          "eu west",
				p + "access":                  "private",
				p + "endpoints-type":          "HostIP",
				p + "ingress-hostname-source": "annotation-only",
				p + "gateway-hostname-source": "defined-hosts-only",
				p + "ingress":                 "ns/ing",
				p + "controller":              "dns-controller",
			},
			want: annotations.Values{
				InternalHostnames:     []string{"int.example.com"},
				Targets:               []string{"192.0.2.1", "lb.example.com", "2001:db8::1"},
				TTL:                   5400,
				SetIdentifier:         "eu west",
				Access:                "private",
				EndpointsType:         "HostIP",
				IngressHostnameSource: "annotation-only",
				GatewayHostnameSource: "defined-hosts-only",
				Ingress:               "ns/ing",
				Controller:            "dns-controller",
			},
		},
		{name: "empty target is not set", ann: map[string]string{p + "target": " "}},
		{
			name: "another controller: skip, the rest is not read (not even a bad ttl)",
			ann:  map[string]string{p + "controller": "someone-else", p + "hostname": "a.example.com", p + "ttl": "bad"},
			want: annotations.Values{Skip: true, Controller: "someone-else"},
		},
		{
			name: "empty controller value is another controller",
			ann:  map[string]string{p + "controller": ""},
			want: annotations.Values{Skip: true},
		},
		{
			name: "own controller name",
			cfg:  annotations.Config{ControllerName: "zonesync"},
			ann:  map[string]string{p + "controller": "zonesync"},
			want: annotations.Values{Controller: "zonesync"},
		},
		{
			name: "alias only for exact true",
			ann:  map[string]string{p + "alias": "True"},
		},
		{
			name: "provider-specific families, sorted by name",
			ann: map[string]string{
				p + "alias":                     "true",
				p + "record-type":               "",
				p + "aws-weight":                "10",
				p + "aws-":                      "ignored: no attribute",
				p + "scw-priority":              "5",
				p + "webhook-x":                 "y",
				p + "coredns-group":             "g",
				p + "azure-tags":                "a=b",
				p + "cloudflare-proxied":        "true",
				alpha + "cloudflare-tags":       "t1",
				p + "cloudflare-unknown":        "dropped",
				"other.example/aws-weight":      "dropped",
				alpha + "cloudflare-region-key": "eu",
			},
			want: annotations.Values{ProviderSpecific: endpoint.ProviderSpecific{
				{Name: "alias", Value: "true"},
				{Name: "aws/weight", Value: "10"},
				{Name: "azure/tags", Value: "a=b"},
				// Cloudflare properties get their canonical names,
				// whichever prefix the annotation was found under.
				{Name: annotations.CloudflareProxiedProperty, Value: "true"},
				{Name: annotations.CloudflareRegionProperty, Value: "eu"},
				{Name: annotations.CloudflareTagsProperty, Value: "t1"},
				{Name: "coredns/group", Value: "g"},
				{Name: "record-type", Value: ""},
				{Name: "scw/priority", Value: "5"},
				{Name: "webhook/x", Value: "y"},
			}},
		},
		{
			name: "every Cloudflare annotation gets its canonical name",
			ann: map[string]string{
				p + "cloudflare-proxied":         "false",
				p + "cloudflare-custom-hostname": "a.example.net,b.example.net",
				p + "cloudflare-region-key":      "us",
				p + "cloudflare-record-comment":  "owned by web",
				p + "cloudflare-tags":            "env:prod,team:web",
			},
			want: annotations.Values{ProviderSpecific: endpoint.ProviderSpecific{
				{Name: annotations.CloudflareCustomHostnameProperty, Value: "a.example.net,b.example.net"},
				{Name: annotations.CloudflareProxiedProperty, Value: "false"},
				{Name: annotations.CloudflareRecordCommentProperty, Value: "owned by web"},
				{Name: annotations.CloudflareRegionProperty, Value: "us"},
				{Name: annotations.CloudflareTagsProperty, Value: "env:prod,team:web"},
			}},
		},
		{
			name: "Cloudflare: the first prefix wins, unknown attributes dropped",
			ann: map[string]string{
				p + "cloudflare-proxied":                       "true",
				alpha + "cloudflare-proxied":                   "false",
				p + "cloudflare-":                              "dropped: no attribute",
				p + "cloudflare-Proxied":                       "dropped: attributes are case sensitive",
				p + "cloudflare-x/cloudflare-tags":             "dropped: the attribute is x/cloudflare-tags",
				p + "cloudflare/proxied":                       "dropped: not an annotation name",
				"other.example/cloudflare-tags":                "dropped: not a prefix read",
				p + "webhook-cloudflare-tags":                  "t",
				alpha + "cloudflare-record-comment":            "from alpha",
				"custom.example/cloudflare-record-comment":     "dropped: not a prefix read",
				p + "aws-cloudflare-proxied":                   "true",
				annotations.CloudflareRecordCommentProperty:    "dropped: not an annotation",
				"external-dns.kubernetes.io/cloudflare-region": "dropped: the attribute is region-key",
			},
			want: annotations.Values{ProviderSpecific: endpoint.ProviderSpecific{
				{Name: "aws/cloudflare-proxied", Value: "true"},
				{Name: annotations.CloudflareProxiedProperty, Value: "true"},
				{Name: annotations.CloudflareRecordCommentProperty, Value: "from alpha"},
				{Name: "webhook/cloudflare-tags", Value: "t"},
			}},
		},
		{
			name: "Cloudflare under a custom prefix",
			cfg:  annotations.Config{Prefixes: []string{"internal.example/", alpha}},
			ann: map[string]string{
				"internal.example/cloudflare-proxied": "true",
				alpha + "cloudflare-proxied":          "false",
				p + "cloudflare-tags":                 "dropped: prefix not read",
			},
			want: annotations.Values{ProviderSpecific: endpoint.ProviderSpecific{
				{Name: annotations.CloudflareProxiedProperty, Value: "true"},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.cfg.Parse(webRef, tt.ann)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestCloudflarePropertyConstants ties the exported names to the one
// legacy-to-canonical mapping, source.CanonicalProviderSpecificName.
func TestCloudflarePropertyConstants(t *testing.T) {
	for _, tc := range []struct{ attr, want string }{
		{"proxied", annotations.CloudflareProxiedProperty},
		{"custom-hostname", annotations.CloudflareCustomHostnameProperty},
		{"region-key", annotations.CloudflareRegionProperty},
		{"record-comment", annotations.CloudflareRecordCommentProperty},
		{"tags", annotations.CloudflareTagsProperty},
	} {
		t.Run(tc.attr, func(t *testing.T) {
			assert.Equal(t, "cloudflare/"+tc.attr, tc.want)
			for _, legacy := range []string{"cloudflare-" + tc.attr, annotations.Prefix + "cloudflare-" + tc.attr, annotations.AlphaPrefix + "cloudflare-" + tc.attr} {
				got, ok := source.CanonicalProviderSpecificName(legacy)
				assert.True(t, ok, legacy)
				assert.Equal(t, tc.want, got, legacy)
			}
			got, ok := source.CanonicalProviderSpecificName(tc.want)
			assert.False(t, ok, "a canonical name is not renamed")
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseAnnotationsErrors(t *testing.T) {
	const p = annotations.Prefix
	tests := []struct {
		name    string
		ann     map[string]string
		key     string
		value   string
		message string
		want    annotations.Values // what is still parsed
	}{
		{
			name: "ttl not a number", ann: map[string]string{p + "ttl": "abc", p + "hostname": "a.example.com"},
			key: p + "ttl", value: "abc", message: "neither whole seconds nor a duration",
			want: annotations.Values{Hostnames: []string{"a.example.com"}},
		},
		{name: "ttl zero", ann: map[string]string{p + "ttl": "0"}, key: p + "ttl", value: "0", message: "out of range"},
		{name: "ttl negative duration", ann: map[string]string{p + "ttl": "-5m"}, key: p + "ttl", value: "-5m", message: "out of range"},
		{name: "ttl too large", ann: map[string]string{p + "ttl": "2147483648"}, key: p + "ttl", value: "2147483648", message: "out of range"},
		{name: "ttl below a second", ann: map[string]string{p + "ttl": "500ms"}, key: p + "ttl", value: "500ms", message: "out of range"},
		{
			name: "hostname with an empty label", ann: map[string]string{p + "hostname": "a..example.com,b.example.com"},
			key: p + "hostname", value: "a..example.com,b.example.com", message: "empty label",
			want: annotations.Values{Hostnames: []string{"b.example.com"}},
		},
		{
			name: "hostname with a tab", ann: map[string]string{p + "internal-hostname": "a\t.example.com"},
			key: p + "internal-hostname", value: "a\t.example.com", message: "white space",
		},
		// Issue 21, finding 2: "\102oo" is "foo" to a zone-file parser.
		{
			name: "hostname with a zone-file escape", ann: map[string]string{p + "hostname": `\102oo.example.org,bar.example.org`},
			key: p + "hostname", value: `\102oo.example.org,bar.example.org`, message: `DNS name "\\102oo.example.org" contains '\\' (U+005C at offset 0)`,
			want: annotations.Values{Hostnames: []string{"bar.example.org"}},
		},
		{
			name: "hostname with NUL", ann: map[string]string{p + "hostname": "foo\x00.example.org"},
			key: p + "hostname", message: `contains '\x00'`,
		},
		{
			name: "hostname with a quote", ann: map[string]string{p + "hostname": `"foo".example.org`},
			key: p + "hostname", message: `contains '"'`,
		},
		{
			name: "hostname with a slash", ann: map[string]string{p + "hostname": "foo/bar.example.org"},
			key: p + "hostname", message: `contains '/'`,
		},
		{
			name: "internal hostname escaped", ann: map[string]string{p + "internal-hostname": `\102oo.example.org`},
			key: p + "internal-hostname", message: `contains '\\'`,
		},
		{
			name: "target escaped", ann: map[string]string{p + "target": `\108b.example.net,192.0.2.1`},
			key: p + "target", message: `neither an IP address nor a DNS name: DNS name "\\108b.example.net" contains '\\'`,
			want: annotations.Values{Targets: []string{"192.0.2.1"}},
		},
		{
			name: "target IPv6 with a zone", ann: map[string]string{p + "target": "fe80::1%eth0"},
			key: p + "target", message: `"fe80::1%eth0" is an IPv6 address with a zone`,
		},
		{
			name: "target label too long", ann: map[string]string{p + "target": "192.0.2.1," + strings.Repeat("a", 64) + ".example.com"},
			key: p + "target", message: "neither an IP address nor a DNS name",
			want: annotations.Values{Targets: []string{"192.0.2.1"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := annotations.Config{}.Parse(webRef, tt.ann)
			require.Error(t, err)
			var ae *annotations.Error
			require.True(t, errors.As(err, &ae), "error %v is not an *annotations.Error", err)
			assert.Equal(t, webRef, ae.Object)
			assert.Equal(t, tt.key, ae.Key)
			if tt.value != "" {
				assert.Equal(t, tt.value, ae.Value)
			}
			assert.ErrorContains(t, err, "Service default/web: annotation "+tt.key+"=")
			assert.ErrorContains(t, err, tt.message)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseAnnotationsReportsEveryBadKey(t *testing.T) {
	const p = annotations.Prefix
	_, err := annotations.Config{}.Parse(webRef, map[string]string{p + "ttl": "x", p + "hostname": "a..b"})
	require.Error(t, err)
	assert.ErrorContains(t, err, p+"ttl")
	assert.ErrorContains(t, err, p+"hostname")
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, annotations.Config{}.Validate())
	require.NoError(t, annotations.Config{Prefixes: []string{"a/", "b/"}}.Validate())
	assert.ErrorContains(t, annotations.Config{Prefixes: []string{""}}.Validate(), "empty")
	assert.ErrorContains(t, annotations.Config{Prefixes: []string{"a"}}.Validate(), `"a" does not end with "/"`)
	assert.ErrorContains(t, annotations.Config{Prefixes: []string{"a/", "a/"}}.Validate(), "twice")
}

func TestParseDoesNotModifyInput(t *testing.T) {
	ann := map[string]string{annotations.Prefix + "hostname": "a.example.com."}
	_, err := annotations.Config{}.Parse(webRef, ann)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{annotations.Prefix + "hostname": "a.example.com."}, ann)
}

func TestEndpointMeta(t *testing.T) {
	a := annotations.Values{TTL: 60, SetIdentifier: "x", ProviderSpecific: endpoint.ProviderSpecific{{Name: "alias", Value: "true"}}}
	assert.Equal(t, source.EndpointMeta{
		TTL: 60, SetIdentifier: "x", Resource: "service/default/web",
		ProviderSpecific: endpoint.ProviderSpecific{{Name: "alias", Value: "true"}},
	}, a.EndpointMeta(webRef))
}

func BenchmarkParseAnnotations(b *testing.B) {
	const p = annotations.Prefix
	ann := map[string]string{
		p + "hostname":   "a.example.com,b.example.com",
		p + "ttl":        "300",
		p + "target":     "192.0.2.1",
		p + "aws-weight": "10",
		"kubectl.kubernetes.io/last-applied-configuration": "{}",
		"app.kubernetes.io/name":                           "web",
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (annotations.Config{}).Parse(webRef, ann); err != nil {
			b.Fatal(err)
		}
	}
}

func TestErrorsOf(t *testing.T) {
	cfg := annotations.Config{}
	obj := source.ObjectRef{Kind: "Gateway", Namespace: "ns", Name: "gw"}
	_, err := cfg.Parse(obj, map[string]string{
		"external-dns.kubernetes.io/ttl":      "abc",
		"external-dns.kubernetes.io/hostname": "bad_host!.example.com",
		"external-dns.kubernetes.io/target":   "192.0.2.1",
	})
	require.Error(t, err)
	for _, tt := range []struct {
		name string
		read func(string) bool
		want []string // annotation keys whose errors remain
	}{
		{"everything read", func(string) bool { return true }, []string{"/ttl=", "/hostname="}},
		{"nothing read", func(string) bool { return false }, nil},
		{"only the target read", func(n string) bool { return n == annotations.Target }, nil},
		{"the ttl read", func(n string) bool { return n == annotations.TTL }, []string{"/ttl="}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := annotations.ErrorsOf(err, tt.read)
			if tt.want == nil {
				assert.NoError(t, got)
				return
			}
			require.Error(t, got)
			for _, k := range tt.want {
				assert.Contains(t, got.Error(), k)
			}
			var ae *annotations.Error
			assert.ErrorAs(t, got, &ae, "the remaining errors keep their type")
		})
	}
	assert.NoError(t, annotations.ErrorsOf(nil, func(string) bool { return true }))
	other := errors.New("not an annotation error")
	assert.ErrorIs(t, annotations.ErrorsOf(other, func(string) bool { return false }), other, "other errors are kept")
}
