package providertest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
)

func TestLimitedProvider(t *testing.T) {
	ctx := context.Background()
	a := func(name string) *endpoint.Endpoint { return endpoint.NewEndpoint(name, "A", "192.0.2.1") }
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	p := providertest.NewLimitedProvider(zone, providertest.APILimits{
		MaxRecords: 2, MaxValueBytes: 20, ThrottleEvery: 4, Poisoned: []string{"Bad.example.com."},
	})
	tests := []struct {
		name    string
		changes *plan.Changes
		want    error
	}{
		{"within the limits", &plan.Changes{Create: []*endpoint.Endpoint{a("a.example.com"), a("b.example.com")}}, nil},
		{"too many records", &plan.Changes{Create: []*endpoint.Endpoint{a("c.example.com"), a("d.example.com"), a("e.example.com")}}, providertest.ErrBatchTooLarge},
		{"too many bytes", &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("t.example.com", "TXT", "0123456789012345678901")}}, providertest.ErrBatchTooLarge},
		{"fourth call throttled", &plan.Changes{Create: []*endpoint.Endpoint{a("f.example.com")}}, provider.SoftError},
		{"poisoned", &plan.Changes{Create: []*endpoint.Endpoint{a("f.example.com"), a("bad.example.com")}}, providertest.ErrPoisoned},
	}
	for _, tt := range tests {
		err := p.ApplyChanges(ctx, tt.changes)
		if tt.want == nil {
			require.NoError(t, err, tt.name)
			continue
		}
		require.ErrorIs(t, err, tt.want, tt.name)
	}
	recs, err := zone.Records(ctx)
	require.NoError(t, err)
	assert.Len(t, recs, 2, "refused calls apply nothing")
	assert.Equal(t, providertest.APIStats{Calls: 5, Applied: 1, Throttled: 1, TooLarge: 2, Poisoned: 1}, p.Stats())
	assert.NotErrorIs(t, p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("bad.example.com")}}), provider.SoftError, "poison is hard")
}
