package zonesync

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &plan.Changes{UpdateOld: []*endpoint.Endpoint{tt.old}, UpdateNew: []*endpoint.Endpoint{tt.new}}
			assert.Equal(t, tt.want, countDataUpdates(c))
		})
	}
}

func TestSafetyIgnoresLabelOnlyUpdates(t *testing.T) {
	var c plan.Changes
	for range 20 {
		old := endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1").
			WithProviderSpecific(endpoint.ProviderSpecificForceUpdate, "true")
		c.UpdateOld = append(c.UpdateOld, old)
		c.UpdateNew = append(c.UpdateNew, endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1"))
	}
	assert.Nil(t, SafetyThreshold{}.check(ownedTally{total: 20}, &c), "upgrading the ownership format of every record is safe")
	c.Delete = make([]*endpoint.Endpoint, 7)
	assert.ErrorIs(t, SafetyThreshold{}.check(ownedTally{total: 20}, &c), ErrUnsafePlan)
}

func TestBackoff(t *testing.T) {
	r := &Reconciler{Interval: 40e9, BackoffInitial: 3e9}
	var got []int64
	for n := 1; n <= 6; n++ {
		got = append(got, int64(r.backoff(n)/1e9))
	}
	assert.Equal(t, []int64{3, 6, 12, 24, 40, 40}, got)
	assert.Equal(t, DefaultBackoffInitial, (&Reconciler{}).backoff(1))
	assert.Equal(t, DefaultInterval, (&Reconciler{}).backoff(100), "capped at the interval, no overflow")
}
