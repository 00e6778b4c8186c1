package zonesync_test

import (
	"context"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
)

// aliasProvider adjusts endpoints as external-dns's AWS provider does: a
// CNAME to a load balancer's host name becomes an alias A record, and an
// alias AAAA copy is added.
type aliasProvider struct{ *inmemory.Provider }

func (p aliasProvider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	out := make([]*endpoint.Endpoint, 0, len(eps))
	var aaaa []*endpoint.Endpoint
	for _, ep := range eps {
		if ep.RecordType != endpoint.RecordTypeCNAME || !strings.HasSuffix(ep.Targets[0], ".elb.amazonaws.com") {
			out = append(out, ep)
			continue
		}
		a := ep.DeepCopy()
		a.RecordType = endpoint.RecordTypeA
		a.SetProviderSpecificProperty(endpoint.ProviderSpecificAlias, "true")
		a.SetProviderSpecificProperty("aws/evaluate-target-health", "true")
		b := a.DeepCopy()
		b.RecordType = endpoint.RecordTypeAAAA
		out = append(out, a)
		aaaa = append(aaaa, b)
	}
	return append(out, aaaa...), nil
}

// TestAliasRecordsToLoadBalancerHostNames (issue 34): a Service whose load
// balancer is a host name asks for a CNAME; a provider that turns it into
// alias A and AAAA records pointing at that host name (Route 53) gets them
// created with their ownership records, and the next cycle plans nothing.
// Before, the alias records were refused as invalid, with an error that
// blamed the source.
func TestAliasRecordsToLoadBalancerHostNames(t *testing.T) {
	ctx := context.Background()
	const lb = "k8s-shop-1234567890.us-east-1.elb.amazonaws.com"
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(aliasProvider{zone}, txt.Config{OwnerID: "me", Prefix: "edns-"})
	require.NoError(t, err)
	src := staticSource{eps: []*endpoint.Endpoint{
		endpoint.NewEndpoint("shop.example.com", endpoint.RecordTypeCNAME, lb).WithLabel(endpoint.ResourceLabelKey, "ingress/shop/shop"),
		endpoint.NewEndpoint("ip.example.com", endpoint.RecordTypeA, "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/web/ip"),
	}}
	r := &zonesync.Reconciler{Source: src, Registry: reg, Logger: testr.New(t)}

	cyc, err := r.RunOnce(ctx)
	changes := cyc.Changes
	require.NoError(t, err)
	assert.Len(t, changes.Create, 3, "alias A, alias AAAA and the plain A (ownership records are the registry's)")
	lines := zoneLines(t, zone)
	for _, want := range []string{
		"shop.example.com A " + lb,
		"shop.example.com AAAA " + lb,
		"ip.example.com A 192.0.2.1",
	} {
		assert.Contains(t, lines, want)
	}
	for _, want := range []string{"edns-a-shop.example.com TXT", "edns-aaaa-shop.example.com TXT", "edns-a-ip.example.com TXT"} {
		assert.True(t, containsPrefix(lines, want), "ownership TXT %s in %v", want, lines)
	}

	cyc, err = r.RunOnce(ctx)
	changes = cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "the second cycle plans nothing: %v", changeLines(changes))
}

func containsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}
