package externaldns_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xplan "sigs.k8s.io/external-dns/plan"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/externaldns"
)

// full returns an endpoint with every field set.
func full(name string) *endpoint.Endpoint {
	ep := endpoint.NewEndpointWithTTL(name, endpoint.RecordTypeA, 300, "192.0.2.1", "192.0.2.2").
		WithSetIdentifier("eu-1").
		WithProviderSpecific("aws/weight", "10").
		WithProviderSpecific("cloudflare/proxied", "true")
	ep.Labels = endpoint.LabelsFromMap(map[string]string{"owner": "me", "resource": "ingress/ns/app"})
	return ep
}

func TestConversionsKeepEveryField(t *testing.T) {
	tests := []struct {
		name string
		in   *endpoint.Endpoint
	}{
		{"every field", full("app.example.org")},
		{"bare", endpoint.NewEndpoint("bare.example.org", endpoint.RecordTypeCNAME, "target.example.org")},
		{"no targets", &endpoint.Endpoint{DNSName: "empty.example.org", RecordType: endpoint.RecordTypeTXT}},
		{"txt with quotes", endpoint.NewEndpoint("a-app.example.org", endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=me"`)},
		{"unicode and odd bytes kept as given", endpoint.NewEndpoint("München.Example.org.", endpoint.RecordTypeTXT, "a\x00b", "")},
		{"empty label value", func() *endpoint.Endpoint {
			ep := endpoint.NewEndpoint("l.example.org", endpoint.RecordTypeA, "192.0.2.9")
			ep.Labels = endpoint.LabelsFromMap(map[string]string{"k": ""})
			return ep
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.in.DeepCopy()
			x := externaldns.ToExternalDNS([]*endpoint.Endpoint{tt.in})
			require.Len(t, x, 1)
			assert.Equal(t, tt.in.DNSName, x[0].DNSName)
			assert.Equal(t, []string(tt.in.Targets), []string(x[0].Targets))
			assert.Equal(t, tt.in.RecordType, x[0].RecordType)
			assert.Equal(t, tt.in.SetIdentifier, x[0].SetIdentifier)
			assert.Equal(t, int64(tt.in.RecordTTL), int64(x[0].RecordTTL))
			assert.Equal(t, tt.in.Labels.Len(), len(x[0].Labels))
			for k, v := range tt.in.Labels.All() {
				assert.Equal(t, v, x[0].Labels[k], "label %s", k)
			}
			require.Len(t, x[0].ProviderSpecific, len(tt.in.ProviderSpecific))
			for i, p := range tt.in.ProviderSpecific {
				assert.Equal(t, p.Name, x[0].ProviderSpecific[i].Name)
				assert.Equal(t, p.Value, x[0].ProviderSpecific[i].Value)
			}
			back := externaldns.FromExternalDNS(x)
			require.Len(t, back, 1)
			assert.True(t, want.Equal(back[0]), "round trip: got %v, want %v", back[0], want)
			assert.Equal(t, want.Labels.String(), back[0].Labels.String())
			assert.True(t, want.Equal(tt.in), "the input was modified")
		})
	}
}

func TestConversionsLeaveOutNil(t *testing.T) {
	a, b := full("a.example.org"), full("b.example.org")
	x := externaldns.ToExternalDNS([]*endpoint.Endpoint{nil, a, nil, b})
	require.Len(t, x, 2)
	assert.Equal(t, "a.example.org", x[0].DNSName)
	assert.Equal(t, "b.example.org", x[1].DNSName)
	z := externaldns.FromExternalDNS([]*xendpoint.Endpoint{nil, x[1], nil})
	require.Len(t, z, 1)
	assert.Equal(t, "b.example.org", z[0].DNSName)
	assert.Empty(t, externaldns.FromExternalDNS(nil))
	assert.Empty(t, externaldns.ToExternalDNS(nil))
}

// The endpoints of one batch share backing arrays; appending to one must
// never write into another.
func TestConversionsDoNotShareMemory(t *testing.T) {
	in := []*endpoint.Endpoint{full("a.example.org"), full("b.example.org"), full("c.example.org")}
	x := externaldns.ToExternalDNS(in)
	x[0].Targets = append(x[0].Targets, "198.51.100.1")
	x[0].ProviderSpecific = append(x[0].ProviderSpecific, xendpoint.ProviderSpecificProperty{Name: "n", Value: "v"})
	x[0].Labels["owner"] = "changed"
	assert.Equal(t, xendpoint.Targets{"192.0.2.1", "192.0.2.2"}, x[1].Targets)
	assert.Len(t, x[1].ProviderSpecific, 2)
	assert.Equal(t, "me", x[1].Labels["owner"])
	owner, _ := in[0].Labels.Get("owner")
	assert.Equal(t, "me", owner)
	assert.Equal(t, endpoint.Targets{"192.0.2.1", "192.0.2.2"}, in[0].Targets)

	z := externaldns.FromExternalDNS(x)
	z[1].Targets = append(z[1].Targets, "198.51.100.2")
	z[1].ProviderSpecific = append(z[1].ProviderSpecific, endpoint.ProviderSpecificProperty{Name: "n", Value: "v"})
	assert.Equal(t, endpoint.Targets{"192.0.2.1", "192.0.2.2"}, z[2].Targets)
	assert.Len(t, z[2].ProviderSpecific, 2)
	assert.Equal(t, xendpoint.Targets{"192.0.2.1", "192.0.2.2"}, x[1].Targets)
}

func TestChangesConversions(t *testing.T) {
	c := &plan.Changes{
		Create:    []*endpoint.Endpoint{full("c.example.org")},
		UpdateOld: []*endpoint.Endpoint{full("u.example.org")},
		UpdateNew: []*endpoint.Endpoint{full("u.example.org").WithProviderSpecific("x", "y")},
		Delete:    []*endpoint.Endpoint{full("d.example.org")},
	}
	x := externaldns.ChangesToExternalDNS(c)
	require.Len(t, x.Create, 1)
	require.Len(t, x.UpdateOld, 1)
	require.Len(t, x.UpdateNew, 1)
	require.Len(t, x.Delete, 1)
	back := externaldns.ChangesFromExternalDNS(x)
	for _, pair := range [][2][]*endpoint.Endpoint{
		{c.Create, back.Create}, {c.UpdateOld, back.UpdateOld}, {c.UpdateNew, back.UpdateNew}, {c.Delete, back.Delete},
	} {
		require.Len(t, pair[1], 1)
		assert.True(t, pair[0][0].Equal(pair[1][0]))
	}
	assert.Equal(t, &xplan.Changes{}, externaldns.ChangesToExternalDNS(nil))
	assert.Equal(t, &plan.Changes{}, externaldns.ChangesFromExternalDNS(nil))
}
