package zonesync

import (
	"context"
	"errors"
	"time"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/verify/result"
)

// Observer receives one notification when a reconcile cycle starts and one
// when it ends, for metrics and tracing. Each [Reconciler] has its own
// Observer (nil means none); zonesync keeps no package-level metrics.
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

// Cycle describes one reconcile cycle: [Reconciler.RunOnce] returns it and
// an [Observer] gets it. What happened to each record and each object is
// derived from it on demand ([Cycle.RecordStatuses],
// [Cycle.ResourceStatuses]).
type Cycle struct {
	// Changes are the changes of the cycle's plan: those applied, or, in
	// dry run or when the cycle failed after planning, those it would have
	// applied. Embedded, so that c.Create, c.Delete and c.HasChanges()
	// read as they do on a [plan.Changes] (what RunOnce returned before it
	// returned the cycle). Nil when the cycle failed before planning (Plan
	// is nil then): c.HasChanges() is false, but c.Create would panic.
	// Its String method is promoted too: fmt prints a Cycle as the table
	// of its changes.
	// Read-only: it belongs to the cycle's plan.
	*plan.Changes
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
	// [plan.SafetyThreshold]). Owned is always counted for an Observer; it is
	// -1 when the cycle failed before planning.
	Records, Desired, Owned int
	// Creates, Updates and Deletes count the changes of the plan (an
	// update is one old/new pair).
	Creates, Updates, Deletes int
	// Skipped counts the changes the plan did not make (foreign owner,
	// filtered out, lost conflict, policy, ...; see [plan.Skip]).
	Skipped int
	// Unownable counts the creates among them that the registry could not
	// own ([plan.SkipUnownable]): the cycle applied the rest and does not
	// fail for them, but they need a change of the registry's settings.
	Unownable int
	// Warnings are the registry's warnings about its own settings
	// ([github.com/zonesync/zonesync/registry.SettingsWarner]), one
	// sentence each, saying what to change: an owner id, TXT prefix or
	// suffix that leaves records owned today without their owner. Nil when
	// there are none, the registry cannot tell, or the cycle failed before
	// planning.
	Warnings []string
	// Shared are the record sets this owner publishes together with other
	// owners, as the registry read them at the start of the cycle
	// ([registry.SharedReporter]); nil when there are none. The record
	// statuses of our contributions say how many owners share each.
	Shared []registry.SharedRecord
	// shares is the registry's registry.SharedReporter.Shares; nil
	// without one.
	shares func(name, recordType string) bool
	// Invalid counts the desired endpoints that failed validation: they
	// were not planned and are reported, per object, in the cycle's
	// [*github.com/zonesync/zonesync/source.PartialError] (Err).
	Invalid int
	// Applied reports whether the changes were handed to the registry and
	// accepted: false in dry run, when there was nothing to do, and on
	// error. A plan without changes is handed to the registry, and counts
	// as applied, when the registry had repairs to make
	// ([github.com/zonesync/zonesync/registry.Repairer]).
	Applied bool
	// DryRun reports whether the Reconciler was in dry-run mode.
	DryRun bool
	// Plan is the calculated plan: its changes and every change it
	// skipped with the reason, so that an adapter can report per record or
	// per object (events, status). Nil when the cycle failed before
	// planning. Read-only: it holds the cycle's endpoints.
	Plan *plan.Plan
	// Err is the cycle's error, nil on success. When the registry applied
	// one zone per call, [provider.FailedZones](Err) names the zones that
	// failed; the others were applied.
	Err error
	// Rejected lists the changes the provider refused while the rest was
	// applied (a batching wrapper isolates them, see
	// [provider.RejectedError]), each with the provider's reason; the
	// ownership TXT changes of a refused record are listed with it. The
	// next cycle plans them again. Nil when nothing was refused.
	Rejected []provider.Rejection
	// Verified holds what [Reconciler.Verifier] found for the records the
	// cycle created or updated (the plan's Create and UpdateNew), one
	// result per record; nil without a Verifier or when nothing was
	// applied. VerifyErr is the Verifier's own error (such as a cancelled
	// context) and VerifyDuration the time it took. Verification never
	// changes Err: a record out of sync is reported here, not retried.
	Verified       []result.Result
	VerifyErr      error
	VerifyDuration time.Duration
}

// Verifier checks records against DNS after a cycle applied them, for
// [Reconciler.Verifier]. [verify.Verifier] implements it: it resolves each
// endpoint at a chosen name server with bounded concurrency. Verify returns
// one result per endpoint; an error means it could not verify at all.
//
// [verify.Verifier]: https://pkg.go.dev/github.com/zonesync/zonesync/verify#Verifier
type Verifier interface {
	Verify(ctx context.Context, eps []*endpoint.Endpoint) ([]result.Result, error)
}

// verifyApplied runs v on the records changes created or updated and
// records the outcome in c.
func verifyApplied(ctx context.Context, v Verifier, now func() time.Time, changes *plan.Changes, c *Cycle) {
	eps := make([]*endpoint.Endpoint, 0, len(changes.Create)+len(changes.UpdateNew))
	for _, list := range [][]*endpoint.Endpoint{changes.Create, changes.UpdateNew} {
		for _, ep := range list {
			if ep != nil {
				eps = append(eps, ep)
			}
		}
	}
	if len(eps) == 0 {
		return
	}
	start := now()
	c.Verified, c.VerifyErr = v.Verify(ctx, eps)
	c.VerifyDuration = now().Sub(start)
}

// Succeeded reports whether the cycle counts as a success, as [Reconciler.Run]
// counts it: no error, or only a source's partial error (the objects the
// source could read were reconciled).
func (c Cycle) Succeeded() bool {
	return c.Err == nil || isPartial(c.Err)
}

// Retryable reports whether the cycle failed with a transient error: a soft
// error (errors.Is(err, provider.SoftError)) or a plan refused by the safety
// threshold ([ErrUnsafePlan]). [Reconciler.Run] retries every failed cycle
// but those with a configuration error ([ErrInvalidConfig]); Retryable
// tells the transient failures from the others, which usually need a fix
// (a denied permission, a malformed response), for metrics such as
// external-dns's consecutive soft errors.
func (c Cycle) Retryable() bool {
	return !c.Succeeded() && (errors.Is(c.Err, provider.SoftError) || errors.Is(c.Err, ErrUnsafePlan))
}

// Observers returns an [Observer] that notifies each of obs in turn (nil
// entries are left out), for a Reconciler that reports to several places,
// such as metrics and Kubernetes Events.
func Observers(obs ...Observer) Observer {
	var list multiObserver
	for _, o := range obs {
		if o != nil {
			list = append(list, o)
		}
	}
	return list
}

type multiObserver []Observer

func (m multiObserver) CycleStarted(ctx context.Context, start time.Time) {
	for _, o := range m {
		o.CycleStarted(ctx, start)
	}
}

func (m multiObserver) CycleFinished(ctx context.Context, c Cycle) {
	for _, o := range m {
		o.CycleFinished(ctx, c)
	}
}

// noObserver is the Observer of a Reconciler whose Observer is nil.
type noObserver struct{}

func (noObserver) CycleStarted(context.Context, time.Time) {}
func (noObserver) CycleFinished(context.Context, Cycle)    {}
