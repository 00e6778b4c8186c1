package zonesync_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zonesync/zonesync/clock/clocktest"

	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/source"
)

const waitLimit = 10 * time.Second

// runHarness runs a Reconciler's Run in the background on a fake clock.
type runHarness struct {
	t     *testing.T
	clock *clocktest.FakeClock
	obs   *cycleObserver
	reg   *fakeRegistry
	src   *source.Static
	rec   *zonesync.Reconciler
	done  chan error
	stop  context.CancelFunc
}

func startRun(t *testing.T, reg *fakeRegistry, configure func(*zonesync.Reconciler)) *runHarness {
	t.Helper()
	h := &runHarness{
		t: t, clock: clocktest.New(time.Time{}), obs: newCycleObserver(), reg: reg,
		src:  source.NewStatic(endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1")),
		done: make(chan error, 1),
	}
	h.rec = &zonesync.Reconciler{
		Source: h.src, Registry: reg, Clock: h.clock, Observer: h.obs, Logger: testr.New(t),
		Interval: time.Hour, MinEventSyncInterval: 10 * time.Second,
	}
	if configure != nil {
		configure(h.rec)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.stop = cancel
	go func() { h.done <- h.rec.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(waitLimit):
			t.Error("Run did not return after cancel")
		}
	})
	return h
}

// cycle waits for the next finished cycle.
func (h *runHarness) cycle() zonesync.Cycle {
	h.t.Helper()
	select {
	case c := <-h.obs.finished:
		return c
	case <-time.After(waitLimit):
		h.t.Fatal("no cycle finished")
		return zonesync.Cycle{}
	}
}

// timer waits until Run blocks on a timer of duration d (skipping timers
// that were replaced before).
func (h *runHarness) timer(d time.Duration) {
	h.t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case got := <-h.clock.Timers():
			if got == d {
				return
			}
		case <-deadline:
			h.t.Fatalf("Run never waited for %v", d)
		}
	}
}

// noCycle asserts that no cycle has finished so far.
func (h *runHarness) noCycle() {
	h.t.Helper()
	select {
	case c := <-h.obs.finished:
		h.t.Fatalf("unexpected cycle at %v", c.Start)
	default:
	}
}

func TestRunFirstCycleAndInterval(t *testing.T) {
	h := startRun(t, &fakeRegistry{}, nil)
	c := h.cycle()
	require.NoError(t, c.Err)
	assert.Equal(t, 1, c.Creates)
	h.timer(time.Hour)
	h.clock.Advance(59 * time.Minute)
	h.noCycle()
	h.clock.Advance(time.Minute)
	c = h.cycle()
	require.NoError(t, c.Err)
	assert.Equal(t, 0, c.Creates, "second cycle converged")
	h.timer(time.Hour)
}

func TestRunEventsRespectMinEventSyncInterval(t *testing.T) {
	h := startRun(t, &fakeRegistry{}, nil)
	start := h.cycle().Start
	h.timer(time.Hour)

	// An event right after a cycle waits for MinEventSyncInterval.
	h.src.Set(endpoint.NewEndpoint("b.example.com", endpoint.RecordTypeA, "192.0.2.2"))
	h.timer(10 * time.Second)
	h.clock.Advance(9 * time.Second)
	h.noCycle()
	h.clock.Advance(time.Second)
	c := h.cycle()
	assert.Equal(t, start.Add(10*time.Second), c.Start)
	assert.Equal(t, 1, c.Creates)
	h.timer(time.Hour)

	// Long after the last cycle, an event runs one at once.
	h.clock.Advance(time.Minute)
	h.src.Set(endpoint.NewEndpoint("c.example.com", endpoint.RecordTypeA, "192.0.2.3"))
	c = h.cycle()
	assert.Equal(t, start.Add(70*time.Second), c.Start)
	assert.Equal(t, 1, c.Creates)
	h.timer(time.Hour)

	// A burst of events gives one cycle.
	for i := range 20 {
		h.rec.ScheduleRunOnce(h.clock.Now().Add(time.Duration(i) * time.Millisecond))
	}
	h.timer(10 * time.Second)
	h.clock.Advance(10 * time.Second)
	h.cycle()
	h.timer(time.Hour)
	h.noCycle()

	// The regular interval counts from the last cycle.
	h.clock.Advance(time.Hour)
	c = h.cycle()
	assert.Equal(t, start.Add(time.Hour+80*time.Second), c.Start)
}

// TestRunIgnoreSourceEvents: by default a source event brings the next
// cycle forward (to MinEventSyncInterval after the last one); with
// IgnoreSourceEvents Run never registers a handler, the change waits for
// the regular Interval, and the program's own ScheduleRunOnce still works.
func TestRunIgnoreSourceEvents(t *testing.T) {
	tests := []struct {
		name     string
		ignore   bool
		schedule bool          // the program calls ScheduleRunOnce itself
		handlers int32         // AddEventHandler calls made by Run
		next     time.Duration // start of the cycle after the change, from the first
	}{
		{name: "zero value: a source event runs a cycle early", handlers: 1, next: 10 * time.Second},
		{name: "ignored: the change waits for the interval", ignore: true, handlers: 0, next: time.Hour},
		{name: "ignored: ScheduleRunOnce still runs a cycle early", ignore: true, schedule: true, handlers: 0, next: 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var src *handlerCounter
			h := startRun(t, &fakeRegistry{}, func(r *zonesync.Reconciler) {
				src = &handlerCounter{Source: r.Source}
				r.Source = src
				r.IgnoreSourceEvents = tt.ignore
			})
			first := h.cycle()
			require.NoError(t, first.Err)
			h.timer(time.Hour)
			assert.Equal(t, tt.handlers, src.calls.Load(), "AddEventHandler calls")

			h.src.Set(endpoint.NewEndpoint("b.example.com", endpoint.RecordTypeA, "192.0.2.2"))
			if tt.schedule {
				h.rec.ScheduleRunOnce(h.clock.Now())
			}
			if tt.next < time.Hour {
				h.timer(tt.next)
			}
			h.clock.Advance(tt.next)
			c := h.cycle()
			assert.Equal(t, first.Start.Add(tt.next), c.Start, "the cycle after the change")
			assert.Equal(t, 1, c.Creates, "it applies the change")
			h.timer(time.Hour)
		})
	}
}

// handlerCounter counts the AddEventHandler calls made on a source.
type handlerCounter struct {
	source.Source
	calls atomic.Int32
}

func (s *handlerCounter) AddEventHandler(ctx context.Context, handler func()) {
	s.calls.Add(1)
	s.Source.AddEventHandler(ctx, handler)
}

func TestRunEventDuringCycleRunsAgain(t *testing.T) {
	reg := &fakeRegistry{}
	var once sync.Once
	h := startRun(t, reg, func(r *zonesync.Reconciler) {
		// The event arrives while the first cycle reads the source.
		r.Source = eventDuringRead{Source: r.Source, fire: func() {
			once.Do(func() { r.ScheduleRunOnce(r.Clock.Now()) })
		}}
	})
	h.cycle()
	h.timer(10 * time.Second)
	h.clock.Advance(10 * time.Second)
	h.cycle()
	h.timer(time.Hour)
}

type eventDuringRead struct {
	source.Source
	fire func()
}

func (s eventDuringRead) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	s.fire()
	return s.Source.Endpoints(ctx)
}

func TestRunSoftErrorBackoff(t *testing.T) {
	soft := provider.NewSoftError(errors.New("rate limited"))
	reg := &fakeRegistry{errs: []error{soft, soft, soft, nil}}
	h := startRun(t, reg, func(r *zonesync.Reconciler) {
		r.BackoffInitial = time.Second
		r.BackoffMax = 3 * time.Second
	})
	c := h.cycle()
	require.ErrorIs(t, c.Err, provider.SoftError)
	h.timer(time.Second)
	h.clock.Advance(time.Second)
	require.ErrorIs(t, h.cycle().Err, provider.SoftError)
	h.timer(2 * time.Second)

	// An event does not shorten the backoff.
	h.rec.ScheduleRunOnce(h.clock.Now())
	h.timer(2 * time.Second)
	h.clock.Advance(time.Second)
	h.noCycle()
	h.clock.Advance(time.Second)
	require.ErrorIs(t, h.cycle().Err, provider.SoftError)
	h.timer(3 * time.Second) // 4s capped at BackoffMax
	h.clock.Advance(3 * time.Second)
	c = h.cycle()
	require.NoError(t, c.Err)
	assert.True(t, c.Applied)
	// Success resets the backoff: back to the regular interval.
	h.timer(time.Hour)
}

func TestRunBackoffDefaultsToInterval(t *testing.T) {
	soft := provider.NewSoftError(errors.New("unavailable"))
	errs := make([]error, 10)
	for i := range errs {
		errs[i] = soft
	}
	h := startRun(t, &fakeRegistry{errs: errs}, func(r *zonesync.Reconciler) { r.Interval = 30 * time.Second })
	for _, d := range []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 30 * time.Second, 30 * time.Second} {
		require.ErrorIs(t, h.cycle().Err, provider.SoftError)
		h.timer(d)
		h.clock.Advance(d)
	}
}

// TestRunRetriesHardErrors: a registry or provider that fails with a hard
// error (a sidecar restarting, a permission briefly denied) does not end
// Run: it backs off and carries on once the failure is gone.
func TestRunRetriesHardErrors(t *testing.T) {
	hard := errors.New("dial tcp 127.0.0.1:8888: connection refused")
	reg := &fakeRegistry{errs: []error{hard, hard, hard, nil}}
	h := startRun(t, reg, func(r *zonesync.Reconciler) {
		r.BackoffInitial = time.Second
		r.BackoffMax = 3 * time.Second
	})
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 3 * time.Second} {
		c := h.cycle()
		require.ErrorIs(t, c.Err, hard)
		assert.NotErrorIs(t, c.Err, provider.SoftError)
		assert.False(t, c.Retryable(), "not a transient error, but retried all the same")
		h.timer(d)
		select {
		case err := <-h.done:
			t.Fatalf("Run returned %v on a hard error", err)
		default:
		}
		h.clock.Advance(d)
	}
	c := h.cycle()
	require.NoError(t, c.Err)
	assert.True(t, c.Applied)
	assert.Equal(t, 1, reg.appliedCount())
	h.timer(time.Hour) // back to the regular interval
}

// TestRunReturnsOnConfigError: a configuration error found by a cycle (the
// registry's ownership settings now contradict the Reconciler's) ends Run.
func TestRunReturnsOnConfigError(t *testing.T) {
	reg := &reportingRegistry{fakeRegistry: &fakeRegistry{owner: "me"}}
	h := startRun(t, reg.fakeRegistry, func(r *zonesync.Reconciler) { r.Registry = reg })
	require.NoError(t, h.cycle().Err)
	h.timer(time.Hour)
	reg.otherOwner.Store(true)
	h.clock.Advance(time.Hour)
	select {
	case err := <-h.done:
		require.ErrorIs(t, err, zonesync.ErrInvalidConfig)
		h.done <- nil // for the cleanup
	case <-time.After(waitLimit):
		t.Fatal("Run did not return the configuration error")
	}
}

// reportingRegistry reports its ownership, with an owner id that can be made
// to contradict OwnerID.
type reportingRegistry struct {
	*fakeRegistry
	otherOwner atomic.Bool
}

func (r *reportingRegistry) Ownership() registry.Ownership {
	if r.otherOwner.Load() {
		return registry.Ownership{OwnerID: "someone-else"}
	}
	return registry.Ownership{OwnerID: r.OwnerID()}
}

func TestRunUnsafePlanIsRetried(t *testing.T) {
	records := make([]*endpoint.Endpoint, 12)
	for i := range records {
		records[i] = endpoint.NewEndpoint(string(rune('a'+i))+".example.com", endpoint.RecordTypeA, "192.0.2.1")
	}
	reg := &fakeRegistry{records: records}
	h := startRun(t, reg, func(r *zonesync.Reconciler) {
		r.Source = source.NewStatic() // looks empty: would delete all 12
		r.BackoffInitial = time.Second
	})
	c := h.cycle()
	require.ErrorIs(t, c.Err, zonesync.ErrUnsafePlan)
	assert.False(t, c.Applied)
	h.timer(time.Second)
	h.clock.Advance(time.Second)
	require.ErrorIs(t, h.cycle().Err, zonesync.ErrUnsafePlan)
	assert.Zero(t, reg.appliedCount())
}

func TestRunCancelReturnsPromptly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rec := &zonesync.Reconciler{Source: source.NewStatic(), Registry: &fakeRegistry{}, Interval: time.Hour}
	done := make(chan error, 1)
	go func() { done <- rec.Run(ctx) }()
	time.Sleep(10 * time.Millisecond) // let it reach its wait; correctness does not depend on it
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(waitLimit):
		t.Fatal("Run did not return after cancel")
	}
}

func TestRunCancelDuringCycle(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	reg := &fakeRegistry{delay: time.Hour} // Records blocks until ctx ends
	rec := &zonesync.Reconciler{Source: source.NewStatic(), Registry: reg}
	done := make(chan error, 1)
	go func() { done <- rec.Run(ctx) }()
	require.Eventually(t, func() bool { return reg.calls.Load() > 0 }, waitLimit, time.Millisecond)
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err, "a cycle cut short by the end of ctx is not an error of Run")
	case <-time.After(waitLimit):
		t.Fatal("Run did not return after cancel")
	}
}

func TestRunTwiceAtOnce(t *testing.T) {
	h := startRun(t, &fakeRegistry{}, nil)
	h.cycle()
	err := h.rec.Run(context.Background())
	require.ErrorContains(t, err, "already running")
}

func TestRunValidates(t *testing.T) {
	err := (&zonesync.Reconciler{Registry: &fakeRegistry{}}).Run(context.Background())
	require.ErrorContains(t, err, "Source is nil")
}

func TestConcurrentRunOnceNeverOverlap(t *testing.T) {
	reg := &fakeRegistry{delay: time.Millisecond}
	rec := &zonesync.Reconciler{Source: source.NewStatic(endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1")), Registry: reg}
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := rec.RunOnce(context.Background())
			assert.NoError(t, err)
			rec.ScheduleRunOnce(time.Now())
		}()
	}
	wg.Wait()
	assert.False(t, reg.overlap.Load(), "two cycles ran at once")
	assert.Equal(t, 1, reg.appliedCount(), "only the first cycle had changes")
}

func TestRunOnceWaitingForLockHonoursContext(t *testing.T) {
	reg := &fakeRegistry{delay: time.Hour}
	rec := &zonesync.Reconciler{Source: source.NewStatic(), Registry: reg}
	ctx1, cancel1 := context.WithCancel(context.Background())
	defer cancel1()
	go func() { _, _ = rec.RunOnce(ctx1) }()
	require.Eventually(t, func() bool { return reg.calls.Load() > 0 }, waitLimit, time.Millisecond)

	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	_, err := rec.RunOnce(ctx2)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualValues(t, 1, reg.calls.Load(), "the waiting call never started a cycle")
}

// TestRunReturnsLastErrorWhenNothingSucceeded: when ctx ends and no cycle
// of the Run succeeded, Run returns the last cycle's error (wrapped), so a
// program without a logger learns why; after a success it returns nil.
func TestRunReturnsLastErrorWhenNothingSucceeded(t *testing.T) {
	first := errors.New("dns: bad TSIG signature")
	last := errors.New("dns: bad TSIG signature (again)")
	tests := []struct {
		name string
		errs []error // of the successive cycles; then Run is stopped
		want error   // nil: Run returns nil
	}{
		{"only failures", []error{first, last}, last},
		{"a failure after a success", []error{nil, last}, nil},
		{"a success after a failure", []error{first, nil}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := &fakeRegistry{errs: tt.errs}
			h := startRun(t, reg, func(r *zonesync.Reconciler) { r.BackoffInitial = time.Second })
			for i := range tt.errs {
				c := h.cycle()
				require.ErrorIs(t, c.Err, tt.errs[i], "cycle %d", i)
				if i < len(tt.errs)-1 {
					if tt.errs[i] == nil {
						h.timer(time.Hour)
						h.clock.Advance(time.Hour)
					} else {
						h.timer(time.Second)
						h.clock.Advance(time.Second)
					}
				}
			}
			h.stop()
			var err error
			select {
			case err = <-h.done:
			case <-time.After(waitLimit):
				t.Fatal("Run did not return after cancel")
			}
			h.done <- err // for the cleanup
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.want)
			require.ErrorIs(t, err, context.Canceled)
			assert.Contains(t, err.Error(), "before any cycle succeeded")
		})
	}
}
