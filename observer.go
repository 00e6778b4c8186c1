package zonesync

import (
	"context"
	"time"

	"github.com/zonesync/zonesync/plan"
)

// Observer receives one notification when a reconcile cycle starts and one
// when it ends, for metrics and tracing. Each [Reconciler] has its own
// Observer (nil means [NopObserver]); zonesync keeps no package-level
// metrics.
//
// Calls happen on the goroutine that runs the cycle, never concurrently for
// one Reconciler (cycles are serialised). Implementations must be quick and
// must not call back into the Reconciler.
type Observer interface {
	// CycleStarted is called when a cycle begins, after it acquired the
	// Reconciler's run lock.
	CycleStarted(ctx context.Context, start time.Time)
	// CycleFinished is called with the outcome of every cycle that
	// started, successful or not.
	CycleFinished(ctx context.Context, c Cycle)
}

// Cycle describes one reconcile cycle for an [Observer].
type Cycle struct {
	// Start is when the cycle began and Duration how long it took, both
	// from [Reconciler.Clock].
	Start    time.Time
	Duration time.Duration
	// RecordsDuration, SourceDuration, PlanDuration and ApplyDuration time
	// the phases: reading the registry, reading and adjusting the source,
	// calculating the plan, and applying it (zero when nothing was
	// applied).
	RecordsDuration, SourceDuration, PlanDuration, ApplyDuration time.Duration
	// Records is the number of records the registry returned, Desired the
	// number of endpoints after the registry adjusted them, and Owned the
	// number of current records the plan may change (see
	// [SafetyThreshold]). Owned is always counted for an Observer; it is
	// -1 when the cycle failed before planning.
	Records, Desired, Owned int
	// Creates, Updates and Deletes count the changes of the plan (an
	// update is one old/new pair).
	Creates, Updates, Deletes int
	// Skipped counts the changes the plan did not make (foreign owner,
	// filtered out, lost conflict, policy, ...; see [plan.Skip]).
	Skipped int
	// Applied reports whether the changes were handed to the registry and
	// accepted: false in dry run, when there was nothing to do, and on
	// error.
	Applied bool
	// DryRun reports whether the Reconciler was in dry-run mode.
	DryRun bool
	// Plan is the calculated plan: its changes and every change it
	// skipped with the reason, so that an adapter can report per record or
	// per object (events, status). Nil when the cycle failed before
	// planning. Read-only: it holds the cycle's endpoints.
	Plan *plan.Plan
	// Err is the cycle's error, nil on success.
	Err error
}

// NopObserver is an [Observer] that does nothing.
type NopObserver struct{}

var _ Observer = NopObserver{}

// CycleStarted does nothing.
func (NopObserver) CycleStarted(context.Context, time.Time) {}

// CycleFinished does nothing.
func (NopObserver) CycleFinished(context.Context, Cycle) {}
