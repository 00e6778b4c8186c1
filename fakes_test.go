package zonesync_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// cycleObserver sends every finished cycle on a channel.
type cycleObserver struct {
	started  atomic.Int64
	finished chan zonesync.Cycle
}

func newCycleObserver() *cycleObserver {
	return &cycleObserver{finished: make(chan zonesync.Cycle, 1000)}
}

func (o *cycleObserver) CycleStarted(context.Context, time.Time) { o.started.Add(1) }
func (o *cycleObserver) CycleFinished(_ context.Context, c zonesync.Cycle) {
	o.finished <- c
}

// fakeRegistry is a registry that stores labels as given (so records carry
// whatever owner a test seeds) and whose calls can fail on
// demand and that detects overlapping cycles.
type fakeRegistry struct {
	mu       sync.Mutex
	records  []*endpoint.Endpoint
	errs     []error // returned by successive Records calls (nil = success)
	applied  []*plan.Changes
	inFlight atomic.Int64
	overlap  atomic.Bool
	delay    time.Duration
	calls    atomic.Int64
	owner    string
}

func (r *fakeRegistry) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	r.calls.Add(1)
	if r.inFlight.Add(1) > 1 {
		r.overlap.Store(true)
	}
	defer r.inFlight.Add(-1)
	if r.delay > 0 {
		select {
		case <-time.After(r.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) > 0 {
		err := r.errs[0]
		r.errs = r.errs[1:]
		if err != nil {
			return nil, err
		}
	}
	out := make([]*endpoint.Endpoint, len(r.records))
	for i, ep := range r.records {
		out[i] = ep.DeepCopy()
	}
	return out, nil
}

func (r *fakeRegistry) ApplyChanges(_ context.Context, c *plan.Changes) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.applied = append(r.applied, c)
	for _, ep := range c.Delete {
		r.records = slices.DeleteFunc(r.records, func(e *endpoint.Endpoint) bool { return e.Key() == ep.Key() })
	}
	for i, ep := range c.UpdateNew {
		old := c.UpdateOld[i]
		for j, e := range r.records {
			if e.Key() == old.Key() {
				r.records[j] = ep.DeepCopy()
			}
		}
	}
	for _, ep := range c.Create {
		for _, e := range r.records {
			if e.Key() == ep.Key() {
				return errors.New("fake registry: create of existing record " + ep.Key().String())
			}
		}
		r.records = append(r.records, ep.DeepCopy())
	}
	return nil
}

func (r *fakeRegistry) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return eps, nil
}

func (r *fakeRegistry) GetDomainFilter() endpoint.DomainFilterInterface {
	return &endpoint.DomainFilter{}
}

func (r *fakeRegistry) OwnerID() string { return r.owner }

func (r *fakeRegistry) appliedCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.applied)
}
