package zonesync

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/plan"
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
}

// String renders the preview: the plan's table ([plan.Plan.String], which
// lists the skipped changes with their reasons), a line with the safety
// verdict, then the pending repairs, the registry's warnings (one line
// each) and the source's partial error, when there are any.
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
	out.Unsafe = r.Safety.Check(calc.plan.Changes, calc.tally)
	return out, nil
}
