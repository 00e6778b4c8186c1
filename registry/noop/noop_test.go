package noop_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/noop"
)

func TestPassThrough(t *testing.T) {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: []*endpoint.Endpoint{
		endpoint.NewEndpoint("a.example.com", "A", "192.0.2.1"),
		endpoint.NewEndpoint("a-a.example.com", "TXT", `"heritage=external-dns,external-dns/owner=default"`),
	}})
	rp := providertest.NewRecordingProvider(zone)
	reg := noop.New(rp)
	assert.Empty(t, reg.OwnerID())
	assert.Same(t, zone.GetDomainFilter(), reg.GetDomainFilter())

	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 2, "TXT records are ordinary records")
	for _, r := range recs {
		assert.Empty(t, r.Labels, "no ownership labels")
	}

	changes := &plan.Changes{
		Create: []*endpoint.Endpoint{endpoint.NewEndpoint("b.example.com", "A", "192.0.2.2")},
		Delete: []*endpoint.Endpoint{recs[0]},
	}
	want := &plan.Changes{Create: []*endpoint.Endpoint{changes.Create[0].DeepCopy()}, Delete: []*endpoint.Endpoint{recs[0].DeepCopy()}}
	require.NoError(t, reg.ApplyChanges(ctx, changes))
	assert.Equal(t, want, changes)
	calls := rp.CallsTo(providertest.MethodApplyChanges)
	require.Len(t, calls, 1)
	assert.Equal(t, want, calls[0].Changes, "changes reach the provider unchanged, no TXT added")

	adjusted, err := reg.AdjustEndpoints(context.Background(), []*endpoint.Endpoint{endpoint.NewEndpoint("c.example.com", "A", "192.0.2.3")})
	require.NoError(t, err)
	assert.Len(t, adjusted, 1)
	assert.Len(t, rp.CallsTo(providertest.MethodAdjustEndpoints), 1)
}

func TestErrorsPassThrough(t *testing.T) {
	reg := noop.New(providertest.FailRandomly(inmemory.New(), 1, nil, nil))
	_, err := reg.Records(context.Background())
	require.ErrorIs(t, err, providertest.ErrInjected)
	require.ErrorIs(t, reg.ApplyChanges(context.Background(), &plan.Changes{}), providertest.ErrInjected)
}

// TestNoOwnershipReporter: the no-op registry has no ownership settings of
// its own, so it does not claim to be the source of truth for them: a
// Reconciler over it plans with its own managed record types.
func TestNoOwnershipReporter(t *testing.T) {
	var reg registry.Registry = noop.New(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}))
	_, ok := registry.As[registry.OwnershipReporter](reg)
	assert.False(t, ok)
}
