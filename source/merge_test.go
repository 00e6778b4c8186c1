package source_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

func TestMergeEndpoints(t *testing.T) {
	ep := func(name, typ string, ttl endpoint.TTL, resource string, targets ...string) *endpoint.Endpoint {
		e := endpoint.NewEndpointWithTTL(name, typ, ttl, targets...)
		e.Labels.Set(endpoint.ResourceLabelKey, resource)
		return e
	}
	render := func(eps []*endpoint.Endpoint) []string {
		var out []string
		for _, e := range eps {
			r, _ := e.Labels.Get(endpoint.ResourceLabelKey)
			out = append(out, e.String()+" <"+r+">")
		}
		return out
	}
	for _, tt := range []struct {
		name string
		in   []*endpoint.Endpoint
		want []*endpoint.Endpoint
	}{
		{name: "nothing", in: nil, want: nil},
		{
			name: "A records of two objects join, the first object's labels kept, targets sorted without duplicates",
			in: []*endpoint.Endpoint{
				ep("shared.example.com", "A", 0, "routegroup/default/b", "192.0.2.2", "192.0.2.1"),
				ep("shared.example.com", "A", 0, "routegroup/default/a", "192.0.2.1"),
			},
			want: []*endpoint.Endpoint{ep("shared.example.com", "A", 0, "routegroup/default/b", "192.0.2.1", "192.0.2.2")},
		},
		{
			name: "different TTLs, types or set identifiers stay apart",
			in: []*endpoint.Endpoint{
				ep("x.example.com", "A", 60, "a", "192.0.2.1"),
				ep("x.example.com", "A", 0, "b", "192.0.2.2"),
				ep("x.example.com", "AAAA", 0, "c", "2001:db8::1"),
			},
			want: []*endpoint.Endpoint{
				ep("x.example.com", "A", 0, "b", "192.0.2.2"),
				ep("x.example.com", "A", 60, "a", "192.0.2.1"),
				ep("x.example.com", "AAAA", 0, "c", "2001:db8::1"),
			},
		},
		{
			name: "CNAMEs join only with the same target",
			in: []*endpoint.Endpoint{
				ep("c.example.com", "CNAME", 0, "a", "lb-b.example.net"),
				ep("c.example.com", "CNAME", 0, "b", "lb-a.example.net"),
				ep("c.example.com", "CNAME", 0, "c", "lb-b.example.net"),
			},
			want: []*endpoint.Endpoint{
				ep("c.example.com", "CNAME", 0, "b", "lb-a.example.net"),
				ep("c.example.com", "CNAME", 0, "a", "lb-b.example.net"),
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, render(tt.want), render(source.MergeEndpoints(tt.in)))
		})
	}
	t.Run("set identifiers", func(t *testing.T) {
		a := ep("w.example.com", "A", 0, "a", "192.0.2.1")
		a.SetIdentifier = "blue"
		b := ep("w.example.com", "A", 0, "b", "192.0.2.2")
		b.SetIdentifier = "green"
		got := source.MergeEndpoints([]*endpoint.Endpoint{b, a})
		assert.Equal(t, []string{"blue", "green"}, []string{got[0].SetIdentifier, got[1].SetIdentifier})
	})
}
