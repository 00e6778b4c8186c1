package source_test

import (
	"context"
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
		{provider: "cloudflare", want: []string{
			"alias=false", "aws/evaluate-target-health=true", "external-dns.kubernetes.io/cloudflare-proxied=true",
			"record-type=ptr", "webhook/priority=10",
		}},
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
