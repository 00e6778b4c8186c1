package source_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

func TestPostProcessorTTL(t *testing.T) {
	in := func() []*endpoint.Endpoint {
		return []*endpoint.Endpoint{
			swA("unset.example.com", "192.0.2.1"),
			endpoint.NewEndpointWithTTL("low.example.com", endpoint.RecordTypeA, 30, "192.0.2.2"),
			endpoint.NewEndpointWithTTL("high.example.com", endpoint.RecordTypeA, 3600, "192.0.2.3"),
		}
	}
	ttls := func(eps []*endpoint.Endpoint) []endpoint.TTL {
		out := make([]endpoint.TTL, len(eps))
		for i, ep := range eps {
			out[i] = ep.RecordTTL
		}
		return out
	}
	for _, tc := range []struct {
		name string
		opts source.PostProcessorOptions
		want []endpoint.TTL
	}{
		{name: "none", want: []endpoint.TTL{0, 30, 3600}},
		{name: "default fills unset only (external-dns --min-ttl)", opts: source.PostProcessorOptions{DefaultTTL: 300}, want: []endpoint.TTL{300, 30, 3600}},
		{name: "minimum raises unset and low", opts: source.PostProcessorOptions{MinTTL: 60}, want: []endpoint.TTL{60, 60, 3600}},
		{name: "default then minimum", opts: source.PostProcessorOptions{DefaultTTL: 300, MinTTL: 60}, want: []endpoint.TTL{300, 60, 3600}},
		{name: "non-positive disables", opts: source.PostProcessorOptions{DefaultTTL: -1, MinTTL: 0}, want: []endpoint.TTL{0, 30, 3600}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := source.NewPostProcessor(&swStub{eps: in()}, tc.opts).Endpoints(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.want, ttls(got))
		})
	}
}

func TestPostProcessorProviderSpecific(t *testing.T) {
	in := func() []*endpoint.Endpoint {
		return []*endpoint.Endpoint{
			swA("web.example.com", "192.0.2.1").
				WithProviderSpecific("webhook/priority", "10").
				WithProviderSpecific("aws/evaluate-target-health", "true").
				WithProviderSpecific("record-type", "ptr").
				WithProviderSpecific("external-dns.kubernetes.io/cloudflare-proxied", "true").
				WithProviderSpecific("alias", "false"),
			endpoint.NewEndpoint("cname.example.com", endpoint.RecordTypeCNAME, "lb.example.net"),
			endpoint.NewEndpoint("cname2.example.com", endpoint.RecordTypeCNAME, "lb.example.net").WithProviderSpecific("alias", "false"),
		}
	}
	propNames := func(ep *endpoint.Endpoint) []string {
		var out []string
		for _, p := range ep.ProviderSpecific {
			out = append(out, p.Name+"="+p.Value)
		}
		return out
	}
	for _, tc := range []struct {
		provider string
		want     []string
	}{
		{provider: "aws", want: []string{"alias=false", "aws/evaluate-target-health=true", "record-type=ptr"}},
		{provider: "webhook", want: []string{"alias=false", "record-type=ptr", "webhook/priority=10"}},
		{provider: "cloudflare", want: []string{"alias=false", "cloudflare/proxied=true", "record-type=ptr"}},
		{provider: " inmemory ", want: []string{"alias=false", "record-type=ptr"}},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			got, err := source.NewPostProcessor(&swStub{eps: in()}, source.PostProcessorOptions{Provider: tc.provider}).Endpoints(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.want, propNames(got[0]))
			assert.Nil(t, got[1].ProviderSpecific)
		})
	}
	t.Run("prefer alias", func(t *testing.T) {
		got, err := source.NewPostProcessor(&swStub{eps: in()}, source.PostProcessorOptions{PreferAlias: true}).Endpoints(context.Background())
		require.NoError(t, err)
		assert.NotContains(t, propNames(got[0]), "alias=true", "A endpoints are not touched")
		assert.Equal(t, []string{"alias=true"}, propNames(got[1]))
		assert.Equal(t, []string{"alias=false"}, propNames(got[2]), "an explicit alias wins")
	})
}

func TestCanonicalProviderSpecificName(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		renamed    bool
	}{
		{name: "external-dns.kubernetes.io/cloudflare-proxied", want: "cloudflare/proxied", renamed: true},
		{name: "external-dns.alpha.kubernetes.io/cloudflare-custom-hostname", want: "cloudflare/custom-hostname", renamed: true},
		{name: "custom.example/cloudflare-region-key", want: "cloudflare/region-key", renamed: true},
		{name: "cloudflare-record-comment", want: "cloudflare/record-comment", renamed: true},
		{name: "a/b/cloudflare-tags", want: "cloudflare/tags", renamed: true},
		{name: "webhook/cloudflare-tags", want: "cloudflare/tags", renamed: true},
		{name: "cloudflare/cloudflare-tags", want: "cloudflare/tags", renamed: true},
		{name: "cloudflare/proxied", want: "cloudflare/proxied"},
		{name: "cloudflare/unknown", want: "cloudflare/unknown"},
		{name: "external-dns.kubernetes.io/cloudflare-unknown", want: "external-dns.kubernetes.io/cloudflare-unknown"},
		{name: "external-dns.kubernetes.io/cloudflare-", want: "external-dns.kubernetes.io/cloudflare-"},
		{name: "external-dns.kubernetes.io/cloudflare-Proxied", want: "external-dns.kubernetes.io/cloudflare-Proxied"},
		{name: "cloudflare-tags/x", want: "cloudflare-tags/x"},
		{name: "aws/weight", want: "aws/weight"},
		{name: "alias", want: "alias"},
		{name: "", want: ""},
		{name: "/", want: "/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, renamed := source.CanonicalProviderSpecificName(tc.name)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.renamed, renamed)
		})
	}
}

func TestPostProcessorCloudflareNames(t *testing.T) {
	const (
		p     = "external-dns.kubernetes.io/"
		alpha = "external-dns.alpha.kubernetes.io/"
	)
	type props = []string // name=value, in endpoint order
	tests := []struct {
		name     string
		provider string
		in       props
		want     props // sorted by name
	}{
		{
			name: "legacy names under any prefix renamed", provider: "cloudflare",
			in: props{
				p + "cloudflare-proxied=true", alpha + "cloudflare-tags=a,b", "custom.example/cloudflare-record-comment=c",
				"cloudflare-region-key=eu", "x/y/cloudflare-custom-hostname=h.example.net",
			},
			want: props{
				"cloudflare/custom-hostname=h.example.net", "cloudflare/proxied=true", "cloudflare/record-comment=c",
				"cloudflare/region-key=eu", "cloudflare/tags=a,b",
			},
		},
		{
			name: "canonical wins over legacy, before or after it", provider: "cloudflare",
			in:   props{p + "cloudflare-proxied=false", "cloudflare/proxied=true", "cloudflare/tags=t", alpha + "cloudflare-tags=legacy"},
			want: props{"cloudflare/proxied=true", "cloudflare/tags=t"},
		},
		{
			name: "first of two legacy names wins", provider: "cloudflare",
			in:   props{alpha + "cloudflare-proxied=first", p + "cloudflare-proxied=second"},
			want: props{"cloudflare/proxied=first"},
		},
		{
			name: "webhook name renamed too, then kept", provider: "cloudflare",
			in:   props{"webhook/cloudflare-tags=w", "webhook/x=y"},
			want: props{"cloudflare/tags=w"},
		},
		{
			name: "unknown attributes and other providers dropped, plain names kept", provider: "cloudflare",
			in: props{
				p + "cloudflare-unknown=u", "cloudflare-unknown=plain", "cloudflare/unknown=kept", "aws/weight=1",
				"alias=true", "record-type=ptr",
			},
			want: props{"alias=true", "cloudflare-unknown=plain", "cloudflare/unknown=kept", "record-type=ptr"},
		},
		{
			name: "duplicate canonical names both kept", provider: "cloudflare",
			in:   props{"cloudflare/proxied=true", "cloudflare/proxied=false", p + "cloudflare-proxied=legacy"},
			want: props{"cloudflare/proxied=true", "cloudflare/proxied=false"},
		},
		{
			name: "webhook keeps webhook/cloudflare-tags unchanged", provider: "webhook",
			in:   props{"webhook/cloudflare-tags=w", p + "cloudflare-proxied=true", "cloudflare/tags=t", "cloudflare-tags=plain"},
			want: props{"cloudflare-tags=plain", "webhook/cloudflare-tags=w"},
		},
		{
			name: "aws drops Cloudflare names, legacy or canonical", provider: "aws",
			in:   props{p + "cloudflare-proxied=true", "cloudflare/tags=t", "aws/weight=1"},
			want: props{"aws/weight=1"},
		},
		{
			name: "no provider keeps legacy names", provider: "",
			in:   props{p + "cloudflare-proxied=true", "cloudflare/tags=t"},
			want: props{"cloudflare/tags=t", p + "cloudflare-proxied=true"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ep := swA("web.example.com", "192.0.2.1")
			for _, prop := range tc.in {
				name, value, _ := strings.Cut(prop, "=")
				ep.ProviderSpecific = append(ep.ProviderSpecific, endpoint.ProviderSpecificProperty{Name: name, Value: value})
			}
			// DefaultTTL makes the wrapper act when no provider is set.
			opts := source.PostProcessorOptions{Provider: tc.provider, DefaultTTL: 300}
			got, err := source.NewPostProcessor(&swStub{eps: []*endpoint.Endpoint{ep}}, opts).Endpoints(context.Background())
			require.NoError(t, err)
			var names props
			for _, prop := range got[0].ProviderSpecific {
				names = append(names, prop.Name+"="+prop.Value)
			}
			assert.Equal(t, tc.want, names)
		})
	}
}

func ExampleCanonicalProviderSpecificName() {
	for _, name := range []string{
		"external-dns.alpha.kubernetes.io/cloudflare-proxied",
		"cloudflare/tags",
		"aws/weight",
	} {
		canonical, renamed := source.CanonicalProviderSpecificName(name)
		fmt.Println(canonical, renamed)
	}
	// Output:
	// cloudflare/proxied true
	// cloudflare/tags false
	// aws/weight false
}
