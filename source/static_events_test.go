package source_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

func names(eps []*endpoint.Endpoint) []string {
	out := make([]string, len(eps))
	for i, ep := range eps {
		out[i] = ep.Key().String()
	}
	return out
}

func TestStaticEndpoints(t *testing.T) {
	tests := []struct {
		name string
		in   []*endpoint.Endpoint
		want []string
	}{
		{name: "empty", in: nil, want: []string{}},
		{
			name: "sorted by name, set identifier, type",
			in: []*endpoint.Endpoint{
				endpoint.NewEndpoint("b.example.com", endpoint.RecordTypeA, "192.0.2.2"),
				endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeAAAA, "2001:db8::1"),
				endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1").WithSetIdentifier("eu"),
				endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1"),
			},
			want: []string{"a.example.com/A", "a.example.com/AAAA", "a.example.com/A/eu", "b.example.com/A"},
		},
		{
			name: "nil entries skipped",
			in:   []*endpoint.Endpoint{nil, endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1")},
			want: []string{"a.example.com/A"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := source.NewStatic(tt.in...)
			got, err := s.Endpoints(context.Background())
			require.NoError(t, err)
			require.NotNil(t, got)
			assert.Equal(t, tt.want, names(got))
		})
	}
}

func TestStaticCopies(t *testing.T) {
	in := endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1", "192.0.2.2").
		WithLabel(endpoint.ResourceLabelKey, "svc/default/a").
		WithProviderSpecific("alias", "false")
	other := endpoint.NewEndpoint("b.example.com", endpoint.RecordTypeA, "192.0.2.3")
	s := source.NewStatic(in, other)

	// Changing the caller's endpoint after NewStatic changes nothing.
	in.Targets[0] = "198.51.100.1"
	in.Labels.Set(endpoint.ResourceLabelKey, "changed")

	first, err := s.Endpoints(context.Background())
	require.NoError(t, err)
	require.Len(t, first, 2)
	assert.Equal(t, endpoint.Targets{"192.0.2.1", "192.0.2.2"}, first[0].Targets)
	assert.Equal(t, "svc/default/a", labelValue(first[0].Labels, endpoint.ResourceLabelKey))

	// Changing (and appending to) a returned endpoint changes neither the
	// source nor its neighbour in the same result.
	first[0].Targets = append(first[0].Targets, "192.0.2.99")
	first[0].Targets[0] = "203.0.113.1"
	first[0].Labels.Set("x", "y")
	first[0].ProviderSpecific[0].Value = "true"
	first[0].ProviderSpecific = append(first[0].ProviderSpecific, endpoint.ProviderSpecificProperty{Name: "n", Value: "v"})
	assert.Equal(t, endpoint.Targets{"192.0.2.3"}, first[1].Targets)

	second, err := s.Endpoints(context.Background())
	require.NoError(t, err)
	require.Len(t, second, 2)
	assert.Equal(t, endpoint.Targets{"192.0.2.1", "192.0.2.2"}, second[0].Targets)
	assert.Equal(t, endpoint.LabelsFromMap(map[string]string{endpoint.ResourceLabelKey: "svc/default/a"}), second[0].Labels)
	assert.Equal(t, endpoint.ProviderSpecific{{Name: "alias", Value: "false"}}, second[0].ProviderSpecific)
}

func TestStaticCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := source.NewStatic().Endpoints(ctx)
	require.ErrorIs(t, err, context.Canceled)
}

func TestStaticZeroValue(t *testing.T) {
	var s source.Static
	got, err := s.Endpoints(context.Background())
	require.NoError(t, err)
	assert.Empty(t, got)
	calls := 0
	s.AddEventHandler(context.Background(), func() { calls++ })
	s.Set(endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1"))
	assert.Equal(t, 1, calls)
}

func TestStaticEventHandlers(t *testing.T) {
	s := source.NewStatic()
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	var order []string
	s.AddEventHandler(ctx1, func() { order = append(order, "one") })
	s.AddEventHandler(ctx2, func() { order = append(order, "two") })
	s.AddEventHandler(ctx2, nil) // ignored

	s.Set(endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1"))
	assert.Equal(t, []string{"one", "two"}, order)

	cancel1()
	require.Eventually(t, func() bool {
		order = nil
		s.Set()
		return len(order) == 1
	}, 5*time.Second, time.Millisecond, "handler of a cancelled context is removed")
	assert.Equal(t, []string{"two"}, order)

	got, err := s.Endpoints(context.Background())
	require.NoError(t, err)
	assert.Empty(t, got, "Set() with no endpoints empties the source")

	done, cancelDone := context.WithCancel(context.Background())
	cancelDone()
	s.AddEventHandler(done, func() { t.Error("handler registered with a done context was called") })
	s.Set()
}

func TestStaticConcurrent(t *testing.T) {
	s := source.NewStatic()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var fired atomic.Int64
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hctx, hcancel := context.WithCancel(ctx)
			defer hcancel()
			s.AddEventHandler(hctx, func() { fired.Add(1) })
			for j := range 50 {
				s.Set(endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1"),
					endpoint.NewEndpoint("b.example.com", endpoint.RecordTypeA, "192.0.2.2").WithLabel("i", string(rune('a'+i+j%3))))
				eps, err := s.Endpoints(ctx)
				assert.NoError(t, err)
				assert.Len(t, eps, 2)
				eps[0].Targets[0] = "mutated"
			}
		}()
	}
	wg.Wait()
	assert.Positive(t, fired.Load())
	eps, err := s.Endpoints(ctx)
	require.NoError(t, err)
	assert.Equal(t, endpoint.Targets{"192.0.2.1"}, eps[0].Targets)
}
