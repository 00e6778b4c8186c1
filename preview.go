package zonesync

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/registry"
)

// Preview is what a cycle would do, computed without writing anything: see
// [Reconciler.Preview].
type Preview struct {
	// Plan is the calculated plan: its Changes (after the policy) and
	// every change it skipped with the reason ([plan.Plan.Skipped]).
	Plan *plan.Plan
	// Owned is the number of current records the plan may change (see
	// [plan.SafetyThreshold]).
	Owned int
	// Unsafe is non-nil when the safety threshold would refuse the plan;
	// a real cycle would then apply nothing and return it.
	Unsafe *plan.UnsafePlanError
	// SourceErr is the partial error of the source (a
	// [*source.PartialError], possibly wrapped), nil when the source built
	// every object. The records of the objects it names are protected in
	// Plan. Desired endpoints that fail validation are reported in it too
	// (see [Reconciler.RunOnce]).
	SourceErr error
	// Warnings are the registry's warnings about its own settings
	// ([registry.SettingsWarner]): an owner id, TXT prefix or suffix that
	// leaves records owned today without an owner. Nil when there are none
	// or the registry cannot tell.
	Warnings []string
	// Repairs is the number of ownership records the registry would
	// repair ([registry.Repairer]); a real cycle applies them even when
	// Plan has no changes.
	Repairs int
	// Shared are the record sets this owner publishes together with
	// others, as the registry read them ([registry.SharedReporter]): each
	// owner's contribution, and what they merge into. What this owner
	// changes of its own contribution is in Plan, where the contribution
	// stands as a record of ours. Nil without shared record sets.
	Shared []registry.SharedRecord
}

// String renders the preview: the plan's table ([plan.Plan.String], which
// lists the skipped changes with their reasons), a line with the safety
// verdict, then the pending repairs, the shared record sets (a line each,
// then one per contribution), the registry's warnings (one line each) and
// the source's partial error, when there are any.
func (p *Preview) String() string {
	if p == nil {
		return "no preview"
	}
	var b strings.Builder
	if p.Plan != nil {
		b.WriteString(p.Plan.String())
	} else {
		b.WriteString("no changes")
	}
	b.WriteString("\nsafety: ")
	if p.Unsafe != nil {
		b.WriteString("refused: ")
		b.WriteString(p.Unsafe.Error())
	} else {
		fmt.Fprintf(&b, "ok (%d owned records)", p.Owned)
	}
	if p.Repairs > 0 {
		fmt.Fprintf(&b, "\nrepairs: %d ownership record(s)", p.Repairs)
	}
	for _, sr := range p.Shared {
		writeShared(&b, sr)
	}
	for _, w := range p.Warnings {
		b.WriteString("\nwarning: ")
		b.WriteString(w)
	}
	if p.SourceErr != nil {
		b.WriteString("\nsource: ")
		b.WriteString(p.SourceErr.Error())
	}
	return b.String()
}

// Preview reads the registry and the source, as a cycle does, and returns
// what a cycle would do — the calculated changes, every skipped change with
// its reason (creates the registry could not own among them,
// [plan.SkipUnownable]), the safety verdict, the registry's warnings about
// its settings — without applying anything, whether or not DryRun is set. A
// safety refusal is reported in [Preview.Unsafe], not as an error, and so is
// a source's partial error ([Preview.SourceErr]). Errors are those of
// RunOnce before the plan (configuration, a source that is not ready,
// failed reads). Preview does not wait for a running cycle and does not
// count as one for scheduling.
func (r *Reconciler) Preview(ctx context.Context) (*Preview, error) {
	set, err := r.validate()
	if err != nil {
		return nil, err
	}
	log := r.logger(ctx).WithName("zonesync").WithValues("ownerID", set.ownership.OwnerID, "preview", true)
	ctx = logr.NewContext(ctx, log)
	c := Cycle{Owned: -1}
	calc, err := r.calculate(ctx, r.clock(), set, &c)
	if err != nil {
		return nil, err
	}
	out := &Preview{Plan: calc.plan, Owned: c.Owned, SourceErr: calc.srcErr, Warnings: calc.warnings, Repairs: calc.repairs}
	out.Shared = calc.shared
	out.Unsafe = calc.checkSafety(r.Safety)
	return out, nil
}

// writeShared renders a shared record set for Preview.String: its key, its
// targets as read and as merged, then one line per contribution.
func writeShared(b *strings.Builder, sr registry.SharedRecord) {
	fmt.Fprintf(b, "\nshared: %s, %d live contribution(s)", sr.Key, sr.Live())
	switch {
	case sr.Want == nil:
		b.WriteString(", to be deleted")
	case sr.Record == nil:
		fmt.Fprintf(b, ", missing, to be created with %s", endpoint.Printable(sr.Want.Targets.String()))
	case !sr.Record.Targets.Same(sr.Want.Targets):
		fmt.Fprintf(b, ", holds %s, to be %s", endpoint.Printable(sr.Record.Targets.String()), endpoint.Printable(sr.Want.Targets.String()))
	default:
		fmt.Fprintf(b, ", holds %s", endpoint.Printable(sr.Record.Targets.String()))
	}
	for _, c := range sr.Contributions {
		fmt.Fprintf(b, "\n  %s: %s ttl %d, seen %s", endpoint.Printable(c.Owner), endpoint.Printable(c.Targets.String()), c.TTL, c.Seen.UTC().Format(time.RFC3339))
		if c.Resource != "" {
			fmt.Fprintf(b, ", %s", endpoint.Printable(c.Resource))
		}
		if c.Expired {
			b.WriteString(", expired: removed by this owner")
		}
	}
}
