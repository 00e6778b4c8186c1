package zonesync

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/clock"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/policy"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/source"
)

// RunOnce runs one reconcile cycle: it reads the registry's records and the
// source's endpoints, lets the registry adjust the endpoints, calculates the
// plan (domain filter = [Reconciler.DomainFilter] AND the registry's filter,
// the configured policy, the registry's ownership settings), checks the
// safety threshold and, unless DryRun is set, applies the changes through
// the registry. A plan without changes is not sent to the registry.
//
// It returns the cycle as a value, together with the cycle's error (the
// same as the Cycle's Err): the changes applied, or that would have been
// applied in dry run ([Cycle.Changes]), every change skipped with its
// reason ([Cycle.Plan]), what happened to each record and each object
// ([Cycle.RecordStatuses], [Cycle.ResourceStatuses]: also the objects the
// source could not read), the registry's warnings, the counts and
// durations. The [Observer] gets the same Cycle; a program that calls
// RunOnce itself does not need one. When no cycle started (an invalid
// configuration, ctx done while another cycle ran), the Cycle holds only
// the error.
//
// A source that is not ready ([source.Syncer]) stops the cycle before
// anything is read: RunOnce returns an error matching [ErrSourceNotReady]
// and [provider.SoftError]. A source that returns a [*source.PartialError]
// does not stop it: the endpoints it built are planned and applied, the
// records of the objects it could not read are neither updated nor deleted
// (each such change is skipped with [plan.SkipSourceError]), and RunOnce
// returns the changes with an error from which errors.As extracts the
// *source.PartialError. Protection is keyed on what the records carry: when
// a failed object's key is the resource label of no record of ours (an
// object never applied, a connector endpoint without a resource label), no
// record at all is deleted in that cycle, since any of them could be one the
// object would have kept; updates and creates still go ahead.
//
// Every desired endpoint is validated ([endpoint.Endpoint.Validate]) after
// the source and again after the registry adjusted the endpoints. Invalid
// ones are not planned (they are listed in the plan with [plan.SkipInvalid])
// and are reported like objects the source could not read, in the
// *source.PartialError: under their resource label when they carry one, so
// that the object's records are protected, otherwise under a key of their
// own ("zonesync/invalid-endpoint/" and the quoted record key), which holds
// every delete of the cycle. Each object's error lists at most a few causes
// and counts the others.
//
// When the registry can tell which records it could not own
// ([registry.OwnabilityChecker]), creates it refuses are left out of the
// changes and listed in the plan with [plan.SkipUnownable]; the rest is
// applied, the cycle does not fail for them, and they are logged and counted
// ([Cycle.Unownable]). Warnings of the registry about its own settings
// ([registry.SettingsWarner]: an owner id or TXT naming that changed while
// records were owned under the old one) are logged at V(0) every cycle and
// given to the Observer ([Cycle.Warnings]); they do not fail the cycle. When the registry has repairs to make
// ([registry.Repairer]) and the plan has no changes, RunOnce still calls its
// ApplyChanges, with the empty changes, unless DryRun is set.
//
// The safety threshold applies in total and, when the registry lists its
// zones, in each zone (see [Reconciler.Safety]).
//
// Cycles never overlap: a call made while another cycle runs waits for it
// (or for ctx). Errors name the step that failed and wrap the cause, so
// errors.Is(err, provider.SoftError) classifies transient failures. When the
// safety threshold refuses a plan, RunOnce applies nothing and returns the
// refused changes together with an error matching [ErrUnsafePlan]; when the
// registry fails to apply them, the attempted changes are returned with the
// error. Errors before the plan is calculated leave Plan nil, and
// [Cycle.Changes] nil.
func (r *Reconciler) RunOnce(ctx context.Context) (Cycle, error) {
	set, err := r.validate()
	if err != nil {
		return notStarted(err)
	}
	r.init()
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return notStarted(ctx.Err())
	}
	defer func() { <-r.sem }()
	if err := ctx.Err(); err != nil {
		return notStarted(err)
	}

	clk := r.clock()
	obs := r.observer()
	start := clk.Now()
	r.mu.Lock()
	r.eventPending = false // this cycle reads the source as it is now
	r.mu.Unlock()

	log := r.logger(ctx).WithName("zonesync").WithValues("ownerID", set.ownership.OwnerID, "dryRun", r.DryRun)
	ctx = logr.NewContext(ctx, log)
	obs.CycleStarted(ctx, start)

	cycle := Cycle{Start: start, DryRun: r.DryRun, Owned: -1}
	err = r.cycle(ctx, log, clk, set, &cycle)
	end := clk.Now()
	cycle.Duration = end.Sub(start)
	cycle.Err = err
	if cycle.Plan != nil {
		cycle.Changes = cycle.Plan.Changes
	}

	r.mu.Lock()
	r.lastRunEnd = end
	r.mu.Unlock()

	logCycle(log, &cycle)
	obs.CycleFinished(ctx, cycle)
	return cycle, err
}

// notStarted returns the Cycle and error of a RunOnce call that started no
// cycle.
func notStarted(err error) (Cycle, error) {
	return Cycle{Owned: -1, Err: err}, err
}

// cycle runs the steps of a cycle, filling in c, and returns its error.
func (r *Reconciler) cycle(ctx context.Context, log logr.Logger, clk clock.Clock, set settings, c *Cycle) error {
	calc, err := r.calculate(ctx, clk, set, c)
	if err != nil {
		return err
	}
	p, t, srcErr := calc.plan, calc.end, calc.srcErr
	changes := p.Changes
	if v := log.V(1); v.Enabled() {
		logChanges(v, changes)
		for _, sk := range p.Skipped {
			v.Info("skipped", "action", string(sk.Action), "record", skipRecord(sk), "reason", string(sk.Reason), "detail", sk.Detail)
		}
	}
	if c.Unownable > 0 {
		logUnownable(log, p.Skipped, c.Unownable)
	}
	for _, w := range calc.warnings {
		log.Info("the registry's settings leave records without their owner", "warning", w)
	}
	if unsafe := calc.checkSafety(r.Safety); unsafe != nil {
		return joinErrs(fmt.Errorf("zonesync: %w", unsafe), srcErr)
	}
	if r.DryRun {
		return srcErr
	}
	if !changes.HasChanges() {
		if calc.repairs == 0 {
			return srcErr
		}
		// Nothing to change, but ownership records to repair: the
		// registry makes the repairs its read found when it is handed a
		// plan, even an empty one (registry.Repairer).
		log.V(1).Info("applying an empty plan for the registry's repairs", "repairs", calc.repairs)
	}
	if err := r.Registry.ApplyChanges(ctx, changes); err != nil {
		c.Rejected = provider.Rejected(err)
		return joinErrs(fmt.Errorf("zonesync: applying %d creates, %d updates and %d deletes: %w",
			c.Creates, c.Updates, c.Deletes, err), srcErr)
	}
	c.Applied = true
	c.ApplyDuration = clk.Now().Sub(t)
	if r.Verifier != nil {
		verifyApplied(ctx, r.Verifier, clk.Now, changes, c)
	}
	return srcErr
}

// calculation is what calculate found besides the plan.
type calculation struct {
	plan *plan.Plan
	end  time.Time // when the plan was calculated
	// srcErr is the cycle's partial error: the source's, merged with the
	// endpoints that failed validation; nil when every object was built.
	// It is not a failure of the calculation, which returns its own error.
	srcErr error
	// tally counts the owned records, in total and per zone.
	tally plan.Owned
	// warnings are the registry's settings warnings ([registry.SettingsWarner]).
	warnings []string
	// repairs is the registry's pending repairs ([registry.Repairer]).
	repairs int
	// shared are the registry's shared record sets
	// ([registry.SharedReporter]), and expired, one per contribution of
	// another owner that has expired, the deletes the registry makes of
	// its own, which the safety threshold counts.
	shared  []registry.SharedRecord
	expired []*endpoint.Endpoint
}

// checkSafety returns the safety threshold's verdict on the plan's
// changes with the expired contributions the registry removes counted as
// deletes of records it may change.
func (calc *calculation) checkSafety(s plan.SafetyThreshold) *plan.UnsafePlanError {
	changes, tally := calc.plan.Changes, calc.tally
	if len(calc.expired) > 0 {
		c := *changes
		c.Delete = append(slices.Clone(changes.Delete), calc.expired...)
		changes = &c
		tally.Total += len(calc.expired)
		if tally.Zone != nil {
			perZone := maps.Clone(tally.PerZone)
			for _, ep := range calc.expired {
				if z, ok := tally.Zone(ep.DNSName); ok {
					perZone[z]++
				}
			}
			tally.PerZone = perZone
		}
	}
	return s.Check(changes, tally)
}

// expiredContributions returns one endpoint per expired contribution of
// shared, named by its record set, for the safety threshold.
func expiredContributions(shared []registry.SharedRecord) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	for _, sr := range shared {
		for _, c := range sr.Contributions {
			if c.Expired {
				ep := endpoint.NewEndpointWithTTL(sr.Key.DNSName, sr.Key.RecordType, c.TTL, c.Targets...)
				ep.SetIdentifier = sr.Key.SetIdentifier
				ep.Labels.Set(endpoint.OwnerLabelKey, c.Owner)
				out = append(out, ep)
			}
		}
	}
	return out
}

// calculate reads the registry and the source and calculates the plan,
// filling in the counts and phase durations of c. Its error is that of a
// step that failed; a source's partial error is not one: it is in the
// result (srcErr).
func (r *Reconciler) calculate(ctx context.Context, clk clock.Clock, set settings, c *Cycle) (calculation, error) {
	in, err := r.read(ctx, clk, c)
	if err != nil {
		return calculation{}, err
	}
	t := clk.Now()
	filter := endpoint.MatchAllDomainFilters{r.DomainFilter, r.Registry.GetDomainFilter()}
	p := r.newPlan(set.ownership, filter, in).Calculate()
	if p.Changes == nil {
		p.Changes = &plan.Changes{}
	}
	out := calculation{plan: p, srcErr: in.srcErr}
	if sr, ok := registry.As[registry.SharedReporter](r.Registry); ok {
		out.shared = sr.SharedRecords()
		out.expired = expiredContributions(out.shared)
		c.Shared, c.shares = out.shared, sr.Shares
	}
	// The planner counted the records it may change; the zones are
	// listed, for the counts per zone, only when the threshold may refuse.
	if out.tally, err = r.tally(ctx, p, len(out.expired)); err != nil {
		return calculation{}, err
	}
	c.Owned = out.tally.Total
	if w, ok := registry.As[registry.SettingsWarner](r.Registry); ok {
		out.warnings = w.SettingsWarnings()
		c.Warnings = out.warnings
	}
	if rp, ok := registry.As[registry.Repairer](r.Registry); ok {
		out.repairs = rp.PendingRepairs()
	}
	c.Plan = p
	c.Creates, c.Updates, c.Deletes = len(p.Changes.Create), len(p.Changes.UpdateNew), len(p.Changes.Delete)
	c.Skipped = len(p.Skipped)
	for _, sk := range p.Skipped {
		if sk.Reason == plan.SkipUnownable {
			c.Unownable++
		}
	}
	out.end = clk.Now()
	c.PlanDuration = out.end.Sub(t)
	return out, nil
}

// inputs is what a cycle read: the current records and the desired
// endpoints, with the validation verdict and the source's partial error.
type inputs struct {
	current, desired []*endpoint.Endpoint
	invalid          invalidEndpoints
	partial          *source.PartialError // nil: every object was built
	srcErr           error                // the cycle's partial error (see calculation)
}

// read reads the registry's records and the source's endpoints, has the
// registry adjust the endpoints and validates them, filling in the counts
// and durations of c.
//
// Every desired endpoint is validated ([endpoint.Endpoint.Validate]) after
// the source and again after the registry adjusted them. Invalid endpoints
// never reach AdjustEndpoints, the policies or the registry: they are given
// to the planner only so that it reports them ([plan.SkipInvalid]) and holds
// the records at their names, and they are reported as per-object failures
// in the cycle's [*source.PartialError] (see [invalidEndpoints]). After
// AdjustEndpoints only the endpoints it replaced are validated again (it
// must not modify those it is given). The planner gets the verdict
// ([plan.Plan.Validated]) instead of validating every endpoint once more, so
// each desired endpoint is validated once per cycle.
func (r *Reconciler) read(ctx context.Context, clk clock.Clock, c *Cycle) (inputs, error) {
	var in inputs
	t := clk.Now()
	if !source.HasSynced(r.Source) {
		return in, provider.NewSoftError(fmt.Errorf("%w: it reports that it has not synced yet; nothing is planned until it has", ErrSourceNotReady))
	}
	current, err := r.Registry.Records(ctx)
	if err != nil {
		return in, fmt.Errorf("zonesync: reading records from the registry: %w", err)
	}
	in.current, c.Records = current, len(current)
	now := clk.Now()
	c.RecordsDuration, t = now.Sub(t), now

	desired, srcErr := r.Source.Endpoints(ctx)
	if srcErr != nil {
		if !errors.As(srcErr, &in.partial) || in.partial == nil || len(in.partial.Failed) == 0 {
			return in, fmt.Errorf("zonesync: reading endpoints from the source: %w", srcErr)
		}
	}
	canonicalNames(desired, nil)
	if dc, ok := registry.As[registry.DesiredChecker](r.Registry); ok {
		in.invalid.registry = dc.CheckDesired
	}
	desired = in.invalid.split(desired, nil)
	// AdjustEndpoints copies the endpoints it changes: those it returns
	// unchanged, at their place, were validated already.
	checked := slices.Clone(desired)
	desired, err = r.Registry.AdjustEndpoints(ctx, desired)
	if err != nil {
		return in, fmt.Errorf("zonesync: adjusting endpoints: %w", err)
	}
	canonicalNames(desired, checked)
	desired = in.invalid.split(desired, checked)
	c.Desired = len(desired) + len(in.invalid.eps)
	c.Invalid = len(in.invalid.eps)
	if len(in.invalid.eps) > 0 {
		// The planner reports them and holds the records at their names.
		desired = append(desired, in.invalid.eps...)
		fromSource := in.partial
		in.partial = in.invalid.merge(in.partial, current)
		in.srcErr = in.invalid.cycleError(fromSource, in.partial, current)
	} else if in.partial != nil {
		in.srcErr = &partialError{err: fmt.Errorf("zonesync: planned without the objects the source could not read: %w", srcErr)}
	}
	in.desired = desired
	c.SourceDuration = clk.Now().Sub(t)
	return in, nil
}

// newPlan returns the plan of a cycle's inputs, to be calculated.
func (r *Reconciler) newPlan(own registry.Ownership, filter endpoint.DomainFilterInterface, in inputs) *plan.Plan {
	pol := r.Policy
	if pol == nil {
		pol = policy.Sync
	}
	pl := &plan.Plan{
		Current:        in.current,
		Desired:        in.desired,
		Policies:       []plan.Policy{pol},
		DomainFilter:   filter,
		ManagedRecords: own.ManagedRecordTypes,
		OwnerID:        own.OwnerID,
		OldOwnerID:     own.OldOwnerID,
		Resolver:       r.Resolver,
		Validated:      in.invalid.verdict(),
	}
	if in.partial != nil {
		pl.Protected = in.partial.Failed
	}
	if oc, ok := registry.As[registry.OwnabilityChecker](r.Registry); ok {
		pl.Ownable = oc.CheckOwnable
	}
	// What the provider cannot store as asked (a set identifier it would
	// drop, say) is never sent: the one rule is its guarantees' Check.
	pl.Supported = provider.GuaranteesByName(r.Registry).Check
	return pl
}

// mayRefuse reports whether the safety threshold is on and changes hold
// deletes or updates it might refuse.
func (r *Reconciler) mayRefuse(changes *plan.Changes, expired int) bool {
	return !r.Safety.Disabled && len(changes.Delete)+len(changes.UpdateNew)+expired > 0
}

// tally returns the planner's count of the records it may change
// ([plan.Plan.Owned]), per zone too ([plan.Plan.OwnedIn]) when the
// threshold may refuse the changes and the registry lists its zones, which
// only then are listed.
func (r *Reconciler) tally(ctx context.Context, p *plan.Plan, expired int) (plan.Owned, error) {
	if !r.mayRefuse(p.Changes, expired) {
		return p.Owned, nil
	}
	zones, ok, err := provider.ZonesOf(ctx, r.Registry)
	if err != nil {
		return plan.Owned{}, fmt.Errorf("zonesync: listing zones for the safety threshold: %w", err)
	}
	if !ok {
		return p.Owned, nil
	}
	return p.OwnedIn(provider.NewZoneMatcher(zones...).Zone), nil
}
