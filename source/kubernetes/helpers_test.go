package kubernetes_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// syncer is what every source of the package offers besides source.Source.
type syncer interface {
	source.Source
	HasSynced() bool
	WaitForSync(ctx context.Context) error
}

// started waits for s to sync and registers a handler counting calls.
func started(t *testing.T, ctx context.Context, s syncer) *atomic.Int32 {
	t.Helper()
	require.NoError(t, s.WaitForSync(ctx))
	var calls atomic.Int32
	s.AddEventHandler(ctx, func() { calls.Add(1) })
	return &calls
}

// render returns the endpoints as sorted strings "name ttl IN type set targets resource".
func render(eps []*endpoint.Endpoint) []string {
	out := make([]string, 0, len(eps))
	for _, ep := range eps {
		resource, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
		out = append(out, ep.String()+" "+resource)
	}
	slices.Sort(out)
	return out
}

func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, 5*time.Millisecond)
}

func ptrTo[T any](v T) *T { return &v }
