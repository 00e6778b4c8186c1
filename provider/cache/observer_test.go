package cache_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/clock/clocktest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/cache"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
)

// recordingObserver keeps the calls a cache reports.
type recordingObserver struct {
	mu    sync.Mutex
	calls []string
}

func (o *recordingObserver) RecordsCalled(hit bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if hit {
		o.calls = append(o.calls, "hit")
	} else {
		o.calls = append(o.calls, "miss")
	}
}

func (o *recordingObserver) ApplyChangesCalled() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, "apply")
}

func TestObserver(t *testing.T) {
	ctx := context.Background()
	clk := clocktest.New(time.Unix(1_700_000_000, 0))
	fail := false
	zone := providertest.Intercept(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), providertest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			if fail {
				return nil, errors.New("down")
			}
			return next.Records(ctx)
		},
	})
	obs := &recordingObserver{}
	p := newCache(t, zone, cache.Options{TTL: time.Minute, Clock: clk, Observer: obs})

	for range 2 {
		_, err := p.Records(ctx)
		require.NoError(t, err)
	}
	require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.1")}}))
	fail = true
	_, err := p.Records(ctx)
	require.Error(t, err)
	fail = false
	clk.Advance(2 * time.Minute)
	_, err = p.Records(ctx)
	require.NoError(t, err)

	assert.Equal(t, []string{"miss", "hit", "apply", "miss", "miss"}, obs.calls)

	// Without an Observer nothing is reported and nothing breaks.
	_, err = newCache(t, zone, cache.Options{TTL: time.Minute}).Records(ctx)
	require.NoError(t, err)
}
