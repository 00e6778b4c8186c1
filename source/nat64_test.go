package source_test

import (
	"context"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

func TestNAT64(t *testing.T) {
	aaaa := endpoint.NewEndpointWithTTL("web.example.com", endpoint.RecordTypeAAAA, 300,
		"64:ff9b::c000:20a", "2001:db8::1", "64:ff9b:1::c633:6401").
		WithSetIdentifier("eu").WithLabel(endpoint.ResourceLabelKey, "service/ns/web").WithProviderSpecific("alias", "false")
	plainV6 := endpoint.NewEndpoint("v6only.example.com", endpoint.RecordTypeAAAA, "2001:db8::2")
	v4 := swA("v4.example.com", "192.0.2.20", "not-an-ip")

	t.Run("A from AAAA inside the prefixes (external-dns)", func(t *testing.T) {
		n, err := source.NewNAT64(&swStub{eps: []*endpoint.Endpoint{aaaa, plainV6, v4}}, source.NAT64Options{Prefixes: prefixes("64:ff9b::/96", "64:ff9b:1::/96")})
		require.NoError(t, err)
		got, err := n.Endpoints(context.Background())
		require.NoError(t, err)
		require.Len(t, got, 4)
		assert.Equal(t, []string{
			"web.example.com AAAA 64:ff9b::c000:20a;2001:db8::1;64:ff9b:1::c633:6401",
			"v6only.example.com AAAA 2001:db8::2",
			"v4.example.com A 192.0.2.20;not-an-ip",
			"web.example.com A 192.0.2.10;198.51.100.1",
		}, swNames(got))
		syn := got[3]
		assert.Equal(t, "eu", syn.SetIdentifier)
		assert.Equal(t, endpoint.TTL(300), syn.RecordTTL)
		assert.Equal(t, "service/ns/web", labelValue(syn.Labels, endpoint.ResourceLabelKey))
		assert.Equal(t, endpoint.ProviderSpecific{{Name: "alias", Value: "false"}}, syn.ProviderSpecific)
		// The copy shares nothing with the original.
		syn.Labels.Set("x", "y")
		_, leaked := got[0].Labels.Get("x")
		assert.False(t, leaked)
	})
	t.Run("AAAA from A with the option", func(t *testing.T) {
		n, err := source.NewNAT64(&swStub{eps: []*endpoint.Endpoint{v4, plainV6}}, source.NAT64Options{Prefixes: prefixes("64:ff9b::/96"), SynthesizeAAAA: true})
		require.NoError(t, err)
		got, err := n.Endpoints(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []string{
			"v4.example.com A 192.0.2.20;not-an-ip",
			"v6only.example.com AAAA 2001:db8::2",
			"v4.example.com AAAA 64:ff9b::c000:214",
		}, swNames(got))
	})
	t.Run("bad prefixes", func(t *testing.T) {
		for _, p := range []netip.Prefix{netip.MustParsePrefix("64:ff9b::/64"), netip.MustParsePrefix("10.0.0.0/8"), {}} {
			_, err := source.NewNAT64(nil, source.NAT64Options{Prefixes: []netip.Prefix{p}})
			assert.ErrorContains(t, err, "nat64 prefix 0", "prefix %v", p)
		}
	})
}
