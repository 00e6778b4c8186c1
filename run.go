package zonesync

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zonesync/zonesync/provider"
)

// Defaults of the [Reconciler] scheduling fields.
const (
	// DefaultInterval is the time between two regular cycles of Run.
	DefaultInterval = time.Minute
	// DefaultMinEventSyncInterval is the shortest time between the end of
	// a cycle and a cycle triggered by a source event.
	DefaultMinEventSyncInterval = 5 * time.Second
	// DefaultBackoffInitial is the wait after the first failed cycle.
	DefaultBackoffInitial = 5 * time.Second
)

func (r *Reconciler) interval() time.Duration {
	if r.Interval <= 0 {
		return DefaultInterval
	}
	return r.Interval
}

func (r *Reconciler) minEventSyncInterval() time.Duration {
	if r.MinEventSyncInterval <= 0 {
		return DefaultMinEventSyncInterval
	}
	return r.MinEventSyncInterval
}

// backoff returns the delay after the n-th consecutive failure (n >= 1).
func (r *Reconciler) backoff(n int) time.Duration {
	initial, maxDelay := r.BackoffInitial, r.BackoffMax
	if initial <= 0 {
		initial = DefaultBackoffInitial
	}
	if maxDelay <= 0 {
		maxDelay = r.interval()
	}
	d := initial
	for i := 1; i < n && d < maxDelay; i++ {
		d *= 2
	}
	return min(d, maxDelay)
}

// ScheduleRunOnce asks [Reconciler.Run] for a cycle soon: at now, but never
// sooner than MinEventSyncInterval after the end of the last cycle nor during
// the backoff after a failed cycle. Requests made while a cycle runs lead to one more
// cycle after it. The handler Run registers with the Source calls it (unless
// IgnoreSourceEvents is set), and a program may call it too; it never blocks
// and is safe for concurrent use. Without a running Run it only records the
// request.
//
// The time is the caller's, as in external-dns's Controller.ScheduleRunOnce
// whose signature this keeps (a fixed part of the API): the time at which
// the change was seen, on the caller's clock. Run compares it with the
// times of its own [Reconciler.Clock], so a program or test with a fake
// clock schedules by that clock; the handler Run registers passes
// Clock.Now(). Of several requests before a cycle, the earliest counts.
func (r *Reconciler) ScheduleRunOnce(now time.Time) {
	r.init()
	r.mu.Lock()
	if !r.eventPending || now.Before(r.eventAt) {
		r.eventAt = now
	}
	r.eventPending = true
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// nextDue returns when the next cycle is due, given the regular tick.
func (r *Reconciler) nextDue(tick time.Time) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	due := tick
	if r.eventPending {
		ev := r.eventAt
		if !r.lastRunEnd.IsZero() {
			if earliest := r.lastRunEnd.Add(r.minEventSyncInterval()); ev.Before(earliest) {
				ev = earliest
			}
		}
		if ev.Before(due) {
			due = ev
		}
	}
	if due.Before(r.backoffUntil) {
		due = r.backoffUntil
	}
	return due
}

// Run runs cycles until ctx is done: one at once, then every Interval, and
// sooner when [Reconciler.ScheduleRunOnce] is called, but never sooner than
// MinEventSyncInterval after the previous cycle. Unless IgnoreSourceEvents
// is set, Run registers a handler with the Source's AddEventHandler that
// calls ScheduleRunOnce, so a change the source reports brings the next
// cycle forward; with it set, Run does not call AddEventHandler and only
// the program's own ScheduleRunOnce calls do.
//
// Run returns only when ctx is done, without waiting for more than the
// cycle in progress, or on a configuration error ([ErrInvalidConfig]), which
// it returns. When ctx is done it returns nil if a cycle of this Run
// succeeded (or none finished), and otherwise the last failed cycle's
// error, wrapped: a program whose cycles all failed (a wrong TSIG secret,
// a provider it cannot reach) learns why even without a logger. Every other failed cycle — a soft error (errors.Is(err,
// provider.SoftError)), a plan refused by the safety threshold
// ([ErrUnsafePlan]) or a hard error such as a denied permission or a
// provider that cannot be reached — is logged and retried with a capped
// exponential backoff (see BackoffInitial); events do not shorten the
// backoff, and a successful cycle ends it. A cycle that only left out the
// objects the source could not read counts as a success. Only one Run may be
// active per Reconciler.
func (r *Reconciler) Run(ctx context.Context) error {
	if _, err := r.validate(); err != nil {
		return err
	}
	r.init()
	if !r.running.CompareAndSwap(false, true) {
		return errors.New("zonesync: Reconciler.Run is already running")
	}
	defer r.running.Store(false)

	clk := r.clock()
	log := r.logger(ctx).WithName("zonesync")
	if !r.IgnoreSourceEvents {
		r.Source.AddEventHandler(ctx, func() { r.ScheduleRunOnce(clk.Now()) })
	}

	tick := clk.Now() // first cycle at once
	failures := 0     // consecutive failed cycles
	// lastErr is the error of the last failed cycle while no cycle of this
	// Run succeeded; done returns what Run returns when ctx is done.
	var lastErr error
	succeeded := false
	done := func() error {
		if lastErr == nil {
			return nil
		}
		return fmt.Errorf("zonesync: Run stopped (%w) before any cycle succeeded; the last cycle failed: %w", context.Cause(ctx), lastErr)
	}
	for {
		if ctx.Err() != nil {
			return done()
		}
		now := clk.Now()
		due := r.nextDue(tick)
		if now.Before(due) {
			timer := clk.NewTimer(due.Sub(now))
			if !clk.Now().Before(due) {
				// The clock moved past due while the timer was made (a
				// timer is relative to the time it is made): run now.
				timer.Stop()
				continue
			}
			select {
			case <-ctx.Done():
				timer.Stop()
				return done()
			case <-timer.C():
			case <-r.wake:
				timer.Stop()
			}
			continue
		}

		_, err := r.RunOnce(ctx)
		if err == nil || isPartial(err) {
			// A cycle that succeeded counts even when ctx ended as it
			// finished.
			lastErr = nil
			succeeded = true
		}
		if ctx.Err() != nil {
			// A cycle that failed as ctx ended may have been cut short:
			// its error counts only when it is not ctx's own.
			if err != nil && !succeeded && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				lastErr = err
			}
			return done()
		}
		end := clk.Now()
		switch {
		case err == nil || isPartial(err):
			// RunOnce logged the partial error.
			failures = 0
			r.setBackoff(time.Time{})
			tick = end.Add(r.interval())
		case errors.Is(err, ErrInvalidConfig):
			return err
		default:
			if !succeeded {
				lastErr = err
			}
			failures++
			delay := r.backoff(failures)
			// RunOnce logged the error.
			log.Info("retrying after a failed reconcile cycle", "consecutiveErrors", failures, "retryIn", delay,
				"transient", errors.Is(err, provider.SoftError) || errors.Is(err, ErrUnsafePlan))
			r.setBackoff(end.Add(delay))
			tick = end.Add(delay)
		}
	}
}

func (r *Reconciler) setBackoff(until time.Time) {
	r.mu.Lock()
	r.backoffUntil = until
	r.mu.Unlock()
}
