//go:build zonesync_count

package zonesync_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// TestConversionsPerCreatedRecord counts how often names are put in
// A-label form (calls of endpoint.ToALabel) in a cycle that creates n
// records, each with its ownership TXT, through the TXT registry over the
// in-memory provider, with a domain filter: the figure issue 33 asked for.
// Run it with: go test -tags zonesync_count -run TestConversionsPerCreatedRecord -v .
func TestConversionsPerCreatedRecord(t *testing.T) {
	const n = 100
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "count"})
	require.NoError(t, err)
	var desired []*endpoint.Endpoint
	for i := range n {
		desired = append(desired, endpoint.NewEndpoint(fmt.Sprintf("svc-%d.example.com", i), endpoint.RecordTypeA, "192.0.2.1").
			WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("service/default/svc-%d", i)))
	}
	r := &zonesync.Reconciler{Source: source.NewStatic(desired...), Registry: reg, DomainFilter: endpoint.NewDomainFilter([]string{"example.com"})}
	before := endpoint.Conversions()
	cyc, err := r.RunOnce(ctx)
	changes := cyc.Changes
	require.NoError(t, err)
	require.Len(t, changes.Create, n)
	created := endpoint.Conversions() - before
	before = endpoint.Conversions()
	cyc, err = r.RunOnce(ctx)
	changes = cyc.Changes
	require.NoError(t, err)
	require.False(t, changes.HasChanges())
	steady := endpoint.Conversions() - before
	t.Logf("A-label conversions (ToALabel calls): %.1f per created record in the creating cycle, %.1f per record in a steady cycle",
		float64(created)/n, float64(steady)/n)
}
