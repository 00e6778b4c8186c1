package source_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

func TestPTR(t *testing.T) {
	in := func() []*endpoint.Endpoint {
		return []*endpoint.Endpoint{
			endpoint.NewEndpointWithTTL("web.example.com", endpoint.RecordTypeA, 300, "192.0.2.10", "198.51.100.7"),
			endpoint.NewEndpointWithTTL("www.example.com", endpoint.RecordTypeA, 60, "192.0.2.10").WithLabel(endpoint.ResourceLabelKey, "ingress/ns/www"),
			endpoint.NewEndpoint("v6.example.com", endpoint.RecordTypeAAAA, "2001:db8::1"),
			endpoint.NewEndpoint("off.example.com", endpoint.RecordTypeA, "192.0.2.11").WithProviderSpecific("record-type", "none"),
			endpoint.NewEndpoint("on.example.com", endpoint.RecordTypeA, "192.0.2.12").WithProviderSpecific("record-type", "PTR"),
			endpoint.NewEndpoint("*.example.com", endpoint.RecordTypeA, "192.0.2.13"),
			endpoint.NewEndpoint("alias.example.com", endpoint.RecordTypeCNAME, "web.example.com"),
		}
	}
	ptrs := func(eps []*endpoint.Endpoint) []*endpoint.Endpoint {
		var out []*endpoint.Endpoint
		for _, ep := range eps {
			if ep.RecordType == endpoint.RecordTypePTR {
				out = append(out, ep)
			}
		}
		return out
	}

	t.Run("default: every A/AAAA unless opted out", func(t *testing.T) {
		got, err := source.NewPTR(&swStub{eps: in()}, source.PTROptions{}).Endpoints(context.Background())
		require.NoError(t, err)
		assert.Len(t, got, 7+4)
		p := ptrs(got)
		assert.Equal(t, []string{
			"10.2.0.192.in-addr.arpa PTR web.example.com;www.example.com",
			"7.100.51.198.in-addr.arpa PTR web.example.com",
			"1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa PTR v6.example.com",
			"12.2.0.192.in-addr.arpa PTR on.example.com",
		}, swNames(p))
		assert.Equal(t, endpoint.TTL(60), p[0].RecordTTL, "smallest TTL of the merged names")
		assert.Equal(t, endpoint.TTL(300), p[1].RecordTTL)
		assert.Equal(t, endpoint.LabelsFromMap(map[string]string{endpoint.ResourceLabelKey: "ingress/ns/www"}), p[0].Labels, "resource of the first target with one")
		assert.Equal(t, endpoint.Labels{}, p[1].Labels)
		for _, ep := range got {
			_, has := ep.GetProviderSpecificProperty("record-type")
			assert.False(t, has, "record-type is consumed: %s", ep.DNSName)
		}
	})
	t.Run("only when asked", func(t *testing.T) {
		got, err := source.NewPTR(&swStub{eps: in()}, source.PTROptions{OnlyAnnotated: true}).Endpoints(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []string{"12.2.0.192.in-addr.arpa PTR on.example.com"}, swNames(ptrs(got)))
	})
	t.Run("domain filter limits the reverse zones", func(t *testing.T) {
		f := endpoint.NewDomainFilter([]string{"2.0.192.in-addr.arpa"})
		got, err := source.NewPTR(&swStub{eps: in()}, source.PTROptions{ReverseZones: f}).Endpoints(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []string{
			"10.2.0.192.in-addr.arpa PTR web.example.com;www.example.com",
			"12.2.0.192.in-addr.arpa PTR on.example.com",
		}, swNames(ptrs(got)))
	})
	t.Run("names differing in case are one target", func(t *testing.T) {
		eps := []*endpoint.Endpoint{swA("Web.example.com", "192.0.2.10"), swA("web.example.com.", "192.0.2.10")}
		got, err := source.NewPTR(&swStub{eps: eps}, source.PTROptions{}).Endpoints(context.Background())
		require.NoError(t, err)
		require.Len(t, ptrs(got), 1)
		assert.Len(t, ptrs(got)[0].Targets, 1)
	})
}
