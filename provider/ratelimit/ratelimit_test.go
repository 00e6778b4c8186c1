package ratelimit_test

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/clock/clocktest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/ratelimit"
)

// newLimited is ratelimit.New for options that are valid.
func newLimited(t testing.TB, p provider.Provider, opts ratelimit.Options) *ratelimit.Provider {
	t.Helper()
	l, err := ratelimit.New(p, opts)
	require.NoError(t, err)
	return l
}

func create(name string) *plan.Changes {
	return &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint(name, "A", "192.0.2.1")}}
}

func TestTokenBucket(t *testing.T) {
	clk := clocktest.New(time.Unix(0, 0))
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	p := newLimited(t, zone, ratelimit.Options{Rate: 2, Burst: 2, Clock: clk})
	ctx := context.Background()
	require.NoError(t, p.ApplyChanges(ctx, create("a.example.com")))
	_, err := p.Records(ctx)
	require.NoError(t, err, "the burst allows two calls at once")

	done := make(chan error, 1)
	go func() { done <- p.ApplyChanges(ctx, create("b.example.com")) }()
	assert.Equal(t, 500*time.Millisecond, <-clk.Timers(), "the third call waits for a token")
	clk.Advance(500 * time.Millisecond)
	require.NoError(t, <-done)
	recs, err := zone.Records(ctx)
	require.NoError(t, err)
	assert.Len(t, recs, 2)
}

func TestWaitHonoursContext(t *testing.T) {
	clk := clocktest.New(time.Unix(0, 0))
	var calls atomic.Int32
	inner := providertest.Intercept(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), providertest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			calls.Add(1)
			return next.Records(ctx)
		},
	})
	p := newLimited(t, inner, ratelimit.Options{Rate: 0.001, Clock: clk})
	ctx, cancel := context.WithCancel(context.Background())
	_, err := p.Records(ctx)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { _, err := p.Records(ctx); done <- err }()
	<-clk.Timers()
	cancel()
	err = <-done
	require.ErrorIs(t, err, context.Canceled)
	assert.ErrorContains(t, err, "ratelimit: Records: waiting for the rate limit")
	assert.Equal(t, int32(1), calls.Load(), "the waiting call never reached the provider")
}

func TestSoftErrorsBackOff(t *testing.T) {
	throttled := provider.NewSoftError(errors.New("Throttling"))
	hard := errors.New("InvalidChangeBatch")
	tests := []struct {
		name     string
		failures []error // errors of the first calls, then success
		retries  int
		want     error
		calls    int
		waits    []time.Duration
	}{
		{"throttled twice then applied", []error{throttled, throttled}, 0, nil, 3, []time.Duration{time.Second, 2 * time.Second}},
		{"retries spent", []error{throttled, throttled, throttled}, 2, throttled, 3, []time.Duration{time.Second, 2 * time.Second}},
		{"hard errors are not retried", []error{hard}, 0, hard, 1, nil},
		{"retries off", []error{throttled}, -1, throttled, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktest.New(time.Unix(0, 0))
			calls := 0
			inner := providertest.Intercept(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), providertest.Funcs{
				ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
					calls++
					if calls <= len(tt.failures) {
						return tt.failures[calls-1]
					}
					return next.ApplyChanges(ctx, c)
				},
			})
			p := newLimited(t, inner, ratelimit.Options{Retries: tt.retries, Clock: clk})
			done := make(chan error, 1)
			go func() { done <- p.ApplyChanges(context.Background(), create("a.example.com")) }()
			for _, w := range tt.waits {
				assert.Equal(t, w, <-clk.Timers())
				clk.Advance(w)
			}
			err := <-done
			if tt.want == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tt.want)
			}
			assert.Equal(t, tt.calls, calls)
		})
	}
}

func TestForwardsZones(t *testing.T) {
	ctx := context.Background()
	zones, ok, err := provider.ZonesOf(ctx, newLimited(t, inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), ratelimit.Options{}))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, []string{"example.com"}, zones)
}

func TestNewInvalidOptions(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	tests := []struct {
		name  string
		p     provider.Provider
		opts  ratelimit.Options
		field string // named in the error; empty: valid
	}{
		{name: "zero options", p: zone},
		{name: "negative Retries means never", p: zone, opts: ratelimit.Options{Retries: -1}},
		{name: "BackoffInitial above the default BackoffMax", p: zone, opts: ratelimit.Options{BackoffInitial: time.Minute}},
		{name: "BackoffMax below the default BackoffInitial", p: zone, opts: ratelimit.Options{BackoffMax: time.Millisecond}},
		{name: "nil provider", p: nil, field: "provider is nil"},
		{name: "negative Rate", p: zone, opts: ratelimit.Options{Rate: -1}, field: "Options.Rate"},
		{name: "NaN Rate", p: zone, opts: ratelimit.Options{Rate: math.NaN()}, field: "Options.Rate"},
		{name: "negative Burst", p: zone, opts: ratelimit.Options{Burst: -1}, field: "Options.Burst"},
		{name: "negative BackoffInitial", p: zone, opts: ratelimit.Options{BackoffInitial: -time.Second}, field: "Options.BackoffInitial"},
		{name: "negative BackoffMax", p: zone, opts: ratelimit.Options{BackoffMax: -time.Second}, field: "Options.BackoffMax"},
		{name: "BackoffMax below BackoffInitial", p: zone, opts: ratelimit.Options{BackoffInitial: 2 * time.Second, BackoffMax: time.Second}, field: "Options.BackoffMax"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ratelimit.New(tt.p, tt.opts)
			if tt.field == "" {
				require.NoError(t, err)
				require.NotNil(t, p)
				return
			}
			require.ErrorIs(t, err, ratelimit.ErrInvalidOptions)
			assert.Contains(t, err.Error(), tt.field)
			assert.Nil(t, p)
		})
	}
}
