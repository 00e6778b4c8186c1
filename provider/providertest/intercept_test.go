package providertest_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/providertest"
)

func create(name string) *plan.Changes {
	return &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint(name, endpoint.RecordTypeA, "192.0.2.1")}}
}

func TestInterceptPassesThrough(t *testing.T) {
	base := newInMemory()
	p := providertest.Intercept(base, providertest.Funcs{})
	require.NoError(t, p.ApplyChanges(t.Context(), create("a.example.org")))
	recs, err := p.Records(t.Context())
	require.NoError(t, err)
	require.Len(t, recs, 1)
	in := []*endpoint.Endpoint{endpoint.NewEndpoint("b.example.org", endpoint.RecordTypeA, "192.0.2.1")}
	out, err := p.AdjustEndpoints(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, in, out)
	assert.Same(t, base.GetDomainFilter(), p.GetDomainFilter())
}

func TestInterceptFuncs(t *testing.T) {
	base := newInMemory()
	var seen []string
	filter := endpoint.NewDomainFilter([]string{"only.example.org"})
	p := providertest.Intercept(base, providertest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			seen = append(seen, "Records")
			assert.Same(t, base, next)
			return nil, errors.New("records down")
		},
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			seen = append(seen, "ApplyChanges")
			return next.ApplyChanges(ctx, c)
		},
		AdjustEndpoints: func(_ context.Context, next provider.Provider, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
			seen = append(seen, "AdjustEndpoints")
			return nil, nil
		},
		GetDomainFilter: func(next provider.Provider) endpoint.DomainFilterInterface {
			seen = append(seen, "GetDomainFilter")
			return filter
		},
	})
	_, err := p.Records(t.Context())
	require.EqualError(t, err, "records down")
	require.NoError(t, p.ApplyChanges(t.Context(), create("a.example.org")))
	out, err := p.AdjustEndpoints(context.Background(), []*endpoint.Endpoint{endpoint.NewEndpoint("a.example.org", "A", "192.0.2.1")})
	require.NoError(t, err)
	assert.Nil(t, out)
	assert.Same(t, filter, p.GetDomainFilter())
	assert.Equal(t, []string{"Records", "ApplyChanges", "AdjustEndpoints", "GetDomainFilter"}, seen)

	recs, err := base.Records(t.Context())
	require.NoError(t, err)
	assert.Len(t, recs, 1, "ApplyChanges reached the wrapped provider")
}

// outcomes records, for n ApplyChanges calls, whether each failed.
func outcomes(t *testing.T, p provider.Provider, n int) []bool {
	t.Helper()
	out := make([]bool, n)
	for i := range out {
		out[i] = p.ApplyChanges(t.Context(), &plan.Changes{}) != nil
	}
	return out
}

func TestFailRandomly(t *testing.T) {
	soft := provider.NewSoftError(errors.New("rate limited"))
	tests := []struct {
		name      string
		rate      float64
		wantFails func(t *testing.T, fails int)
	}{
		{name: "never", rate: 0, wantFails: func(t *testing.T, fails int) { assert.Zero(t, fails) }},
		{name: "always", rate: 1, wantFails: func(t *testing.T, fails int) { assert.Equal(t, 1000, fails) }},
		{name: "a third", rate: 1.0 / 3, wantFails: func(t *testing.T, fails int) { assert.InDelta(t, 333, fails, 60) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := providertest.FailRandomly(newInMemory(), tt.rate, rand.New(rand.NewPCG(7, 8)), soft)
			got := outcomes(t, p, 1000)
			fails := 0
			for _, f := range got {
				if f {
					fails++
				}
			}
			tt.wantFails(t, fails)
			// Same seed, same sequence.
			again := outcomes(t, providertest.FailRandomly(newInMemory(), tt.rate, rand.New(rand.NewPCG(7, 8)), soft), 1000)
			assert.Equal(t, got, again)
		})
	}
}

func TestFailRandomlyErrors(t *testing.T) {
	base := newInMemory()
	soft := provider.NewSoftError(errors.New("rate limited"))
	p := providertest.FailRandomly(base, 1, nil, soft)
	err := p.ApplyChanges(t.Context(), create("a.example.org"))
	require.Error(t, err)
	assert.ErrorIs(t, err, provider.SoftError)
	assert.ErrorIs(t, err, soft)
	assert.Contains(t, err.Error(), "ApplyChanges")
	_, err = p.Records(t.Context())
	assert.ErrorIs(t, err, soft)
	recs, err := base.Records(t.Context())
	require.NoError(t, err)
	assert.Empty(t, recs, "a failed ApplyChanges applies nothing")

	p = providertest.FailRandomly(base, 1, nil, nil)
	assert.ErrorIs(t, p.ApplyChanges(t.Context(), create("a.example.org")), providertest.ErrInjected)
}

func TestFailRandomlyConcurrent(t *testing.T) {
	p := providertest.FailRandomly(newInMemory(), 0.5, rand.New(rand.NewPCG(1, 1)), nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	fails := 0
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if _, err := p.Records(context.Background()); err != nil {
					mu.Lock()
					fails++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	assert.InDelta(t, 400, fails, 100)
}

func TestFailAfterApplyRandomly(t *testing.T) {
	base := newInMemory()
	p := providertest.FailAfterApplyRandomly(base, 1, nil, nil)
	err := p.ApplyChanges(t.Context(), create("a.example.org"))
	require.ErrorIs(t, err, providertest.ErrInjected)
	recs, err := p.Records(t.Context())
	require.NoError(t, err)
	assert.Len(t, recs, 1, "the change was applied although an error was reported")

	// Errors of the wrapped provider are returned as they are.
	err = p.ApplyChanges(t.Context(), create("a.example.org"))
	require.Error(t, err)
	assert.NotErrorIs(t, err, providertest.ErrInjected)

	p = providertest.FailAfterApplyRandomly(newInMemory(), 0, nil, nil)
	require.NoError(t, p.ApplyChanges(t.Context(), create("a.example.org")))
}

func TestWithLatency(t *testing.T) {
	base := newInMemory()
	p := providertest.WithLatency(base, time.Hour)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	err := p.ApplyChanges(ctx, create("a.example.org"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = p.Records(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	recs, err := base.Records(t.Context())
	require.NoError(t, err)
	assert.Empty(t, recs)

	p = providertest.WithLatency(base, time.Millisecond)
	require.NoError(t, p.ApplyChanges(t.Context(), create("a.example.org")))
	recs, err = p.Records(t.Context())
	require.NoError(t, err)
	assert.Len(t, recs, 1)

	p = providertest.WithLatency(base, 0)
	recs, err = p.Records(t.Context())
	require.NoError(t, err)
	assert.Len(t, recs, 1)
}
