package providertest_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/providertest"
)

func TestRecordingProvider(t *testing.T) {
	r := providertest.NewRecordingProvider(newInMemory())
	ep := endpoint.NewEndpoint("a.example.org", endpoint.RecordTypeA, "192.0.2.1")
	changes := &plan.Changes{Create: []*endpoint.Endpoint{ep}}
	require.NoError(t, r.ApplyChanges(t.Context(), changes))
	require.Error(t, r.ApplyChanges(t.Context(), changes), "duplicate create")
	recs, err := r.Records(t.Context())
	require.NoError(t, err)
	_, err = r.AdjustEndpoints(context.Background(), []*endpoint.Endpoint{ep})
	require.NoError(t, err)
	assert.NotNil(t, r.GetDomainFilter())

	// Later mutations do not show through.
	ep.Targets[0] = "198.51.100.1"
	recs[0].DNSName = "changed"

	calls := r.Calls()
	require.Len(t, calls, 5)
	methods := make([]providertest.Method, len(calls))
	for i, c := range calls {
		methods[i] = c.Method
	}
	assert.Equal(t, []providertest.Method{
		providertest.MethodApplyChanges, providertest.MethodApplyChanges, providertest.MethodRecords,
		providertest.MethodAdjustEndpoints, providertest.MethodGetDomainFilter,
	}, methods)
	assert.NoError(t, calls[0].Err)
	assert.Equal(t, endpoint.Targets{"192.0.2.1"}, calls[0].Changes.Create[0].Targets)
	assert.Error(t, calls[1].Err)
	assert.Equal(t, "a.example.org", calls[2].Endpoints[0].DNSName)
	assert.Equal(t, endpoint.Targets{"192.0.2.1"}, calls[3].Endpoints[0].Targets)
	assert.Nil(t, calls[4].Endpoints)

	// Calls returns copies.
	calls[0].Changes.Create[0].Targets[0] = "x"
	assert.Equal(t, endpoint.Targets{"192.0.2.1"}, r.Calls()[0].Changes.Create[0].Targets)

	assert.Len(t, r.CallsTo(providertest.MethodApplyChanges), 2)
	r.Reset()
	assert.Empty(t, r.Calls())
}

func TestRecordingProviderConcurrent(t *testing.T) {
	r := providertest.NewRecordingProvider(newInMemory())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				_, _ = r.Records(t.Context())
			}
		})
	}
	wg.Wait()
	assert.Len(t, r.CallsTo(providertest.MethodRecords), 160)
}
