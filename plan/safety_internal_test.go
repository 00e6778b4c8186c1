package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync/endpoint"
)

func TestCountDataUpdates(t *testing.T) {
	a := func(targets ...string) *endpoint.Endpoint {
		return endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, targets...).WithLabel(endpoint.OwnerLabelKey, "me")
	}
	tests := []struct {
		name     string
		old, new *endpoint.Endpoint
		want     int
	}{
		{name: "new target", old: a("192.0.2.1"), new: a("192.0.2.2"), want: 1},
		{name: "same targets in another order", old: a("192.0.2.1", "192.0.2.2"), new: a("192.0.2.2", "192.0.2.1"), want: 0},
		{name: "new TTL", old: a("192.0.2.1"), new: func() *endpoint.Endpoint { e := a("192.0.2.1"); e.RecordTTL = 60; return e }(), want: 1},
		{name: "new provider-specific property", old: a("192.0.2.1"), new: a("192.0.2.1").WithProviderSpecific("alias", "true"), want: 1},
		{name: "TXT format upgrade only", old: a("192.0.2.1").WithProviderSpecific(endpoint.ProviderSpecificForceUpdate, "true"), new: a("192.0.2.1"), want: 0},
		{
			name: "format upgrade plus real change",
			old:  a("192.0.2.1").WithProviderSpecific(endpoint.ProviderSpecificForceUpdate, "true").WithProviderSpecific("alias", "false"),
			new:  a("192.0.2.1").WithProviderSpecific("alias", "true"), want: 1,
		},
		{name: "owner migration relabels only", old: a("192.0.2.1").WithLabel(endpoint.OwnerLabelKey, "old"), new: a("192.0.2.1"), want: 0},
		{name: "unpaired update", old: nil, new: a("192.0.2.1"), want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Changes{UpdateOld: []*endpoint.Endpoint{tt.old}, UpdateNew: []*endpoint.Endpoint{tt.new}}
			assert.Equal(t, tt.want, countDataUpdates(c))
		})
	}
}
