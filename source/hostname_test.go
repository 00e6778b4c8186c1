package source_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

func TestEndpointsForHostname(t *testing.T) {
	meta := source.EndpointMeta{
		TTL:              300,
		SetIdentifier:    "eu",
		ProviderSpecific: endpoint.ProviderSpecific{{Name: "alias", Value: "true"}},
		Resource:         "service/default/web",
	}
	withMeta := func(ep *endpoint.Endpoint) *endpoint.Endpoint {
		ep.SetIdentifier = "eu"
		ep.ProviderSpecific = endpoint.ProviderSpecific{{Name: "alias", Value: "true"}}
		ep.Labels = endpoint.LabelsFromMap(map[string]string{endpoint.ResourceLabelKey: "service/default/web"})
		return ep
	}
	tests := []struct {
		name     string
		hostname string
		targets  []string
		meta     source.EndpointMeta
		want     []*endpoint.Endpoint
	}{
		{name: "no targets", hostname: "a.example.com", targets: nil, want: nil},
		{name: "empty hostname", hostname: ".", targets: []string{"192.0.2.1"}, want: nil},
		{
			name: "typed per target, one endpoint per type, A AAAA CNAME order", hostname: "a.example.com.",
			targets: []string{"lb.example.net.", "2001:db8::1", "192.0.2.2", "192.0.2.1", "192.0.2.2", "", "::ffff:192.0.2.3"},
			want: []*endpoint.Endpoint{
				endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1", "192.0.2.2"),
				endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeAAAA, "2001:db8::1", "::ffff:192.0.2.3"),
				endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeCNAME, "lb.example.net"),
			},
		},
		{
			name: "meta on every endpoint", hostname: "a.example.com", meta: meta,
			targets: []string{"192.0.2.1", "lb.example.net"},
			want: []*endpoint.Endpoint{
				withMeta(endpoint.NewEndpointWithTTL("a.example.com", endpoint.RecordTypeA, 300, "192.0.2.1")),
				withMeta(endpoint.NewEndpointWithTTL("a.example.com", endpoint.RecordTypeCNAME, 300, "lb.example.net")),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, source.EndpointsForHostname(tt.hostname, tt.targets, tt.meta))
		})
	}
}

func TestEndpointsForHostnameSharesNothing(t *testing.T) {
	targets := []string{"192.0.2.2", "192.0.2.1"}
	meta := source.EndpointMeta{ProviderSpecific: endpoint.ProviderSpecific{{Name: "alias", Value: "true"}}}
	eps := source.EndpointsForHostnames([]string{"a.example.com", "b.example.com"}, targets, meta)
	require.Len(t, eps, 2)
	assert.Equal(t, []string{"192.0.2.2", "192.0.2.1"}, targets, "input targets reordered")

	eps[0].ProviderSpecific[0].Value = "false"
	eps[0].Targets[0] = "198.51.100.1"
	assert.Equal(t, "true", meta.ProviderSpecific[0].Value)
	assert.Equal(t, "true", eps[1].ProviderSpecific[0].Value)
	assert.Equal(t, endpoint.Targets{"192.0.2.1", "192.0.2.2"}, eps[1].Targets)
	assert.Equal(t, "b.example.com", eps[1].DNSName)
}

func BenchmarkEndpointsForHostname(b *testing.B) {
	targets := []string{"192.0.2.1", "192.0.2.2", "2001:db8::1"}
	meta := source.EndpointMeta{TTL: 300, Resource: "service/default/web"}
	b.ReportAllocs()
	for b.Loop() {
		if eps := source.EndpointsForHostname("web.example.com", targets, meta); len(eps) != 2 {
			b.Fatal(eps)
		}
	}
}
