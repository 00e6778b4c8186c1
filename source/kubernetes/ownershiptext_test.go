package kubernetes_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// TestRegression_DNSEndpointOwnershipText (issue 33, finding 2): a
// DNSEndpoint asking for a TXT record whose value reads as an ownership
// record (quoted or not, naming any owner) is reported by the source itself
// under its resource key, with an error that says why; the other
// DNSEndpoints' endpoints, a TXT record with other text included, are
// returned.
func TestRegression_DNSEndpointOwnershipText(t *testing.T) {
	txt := func(value string) map[string]any {
		return map[string]any{"dnsName": "claim.example.org", "recordType": "TXT", "targets": []any{value}}
	}
	tests := []struct {
		name string
		ep   map[string]any
	}{
		{"quoted, our owner", txt(`"heritage=external-dns,external-dns/owner=default,external-dns/resource=crd/ns/x"`)},
		{"unquoted, another owner", txt("heritage=external-dns,external-dns/owner=x,external-dns/resource=ingress/ns/y")},
		{"heritage alone", txt("heritage=external-dns")},
		{"second of two targets", map[string]any{"dnsName": "claim.example.org", "recordType": "TXT",
			"targets": []any{"v=spf1 -all", "heritage=external-dns,external-dns/owner=x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			client := dynClient(
				dnsEndpoint("ns", "a-good", 1, map[string]any{"dnsName": "good.example.org", "recordType": "TXT", "targets": []any{"v=spf1 -all"}}),
				dnsEndpoint("ns", "bad", 1, map[string]any{"dnsName": "fine.example.org", "recordType": "A", "targets": []any{"192.0.2.9"}}, tt.ep),
				dnsEndpoint("ns", "z-good", 1, map[string]any{"dnsName": "other.example.org", "recordType": "A", "targets": []any{"192.0.2.1"}}),
			)
			src, err := kubernetes.NewDNSEndpointSource(ctx, client, kubernetes.DNSEndpointConfig{})
			require.NoError(t, err)
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			var pe *source.PartialError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, []string{"crd/ns/bad"}, slices.Sorted(maps.Keys(pe.Failed)))
			assert.ErrorIs(t, pe.Failed["crd/ns/bad"], endpoint.ErrOwnershipText)
			assert.ErrorContains(t, pe.Failed["crd/ns/bad"], "DNSEndpoint ns/bad: spec.endpoints[1]")
			assert.ErrorContains(t, pe.Failed["crd/ns/bad"], "ownership records are written by registries only")
			assert.Equal(t, []string{
				"good.example.org 0 IN TXT  v=spf1 -all crd/ns/a-good",
				"other.example.org 0 IN A  192.0.2.1 crd/ns/z-good",
			}, render(eps), "the other objects' endpoints, and none of the bad one's")
		})
	}
}

// TestRegression_UnstructuredOwnershipText (issue 33, finding 2): the
// unstructured source, configured for TXT records whose value it reads from
// the object, refuses an object whose value reads as an ownership record,
// under the object's resource key; the other objects' records are returned.
func TestRegression_UnstructuredOwnershipText(t *testing.T) {
	widget := func(name, value string) *unstructured.Unstructured {
		return obj("example.com/v1", "Widget", "ns", name, nil, map[string]any{"status": map[string]any{
			"host": name + ".example.com", "text": value}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := kubernetes.NewUnstructuredSource(ctx, dynClient(widget("good", "v=spf1 -all"), widget("bad", "heritage=external-dns")),
		kubernetes.UnstructuredConfig{GVR: widgetGVR, RecordType: "TXT", HostnameJSONPath: "{.status.host}", TargetJSONPath: "{.status.text}"})
	require.NoError(t, err)
	started(t, ctx, src)
	eps, err := src.Endpoints(ctx)
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, []string{"widget/ns/bad"}, slices.Sorted(maps.Keys(pe.Failed)))
	assert.ErrorIs(t, pe.Failed["widget/ns/bad"], endpoint.ErrOwnershipText)
	assert.Equal(t, []string{"good.example.com 0 IN TXT  v=spf1 -all widget/ns/good"}, render(eps))
}
