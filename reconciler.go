package zonesync

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// Reconciler keeps the records of a [registry.Registry] in step with the
// endpoints of a [source.Source]. Set its fields, then call [Reconciler.RunOnce]
// from your own loop or [Reconciler.Run] to let it schedule itself. Zero
// values of optional fields mean the documented defaults.
//
// A Reconciler must not be copied after first use. Its fields must not be
// changed while RunOnce or Run is running.
type Reconciler struct {
	// Source yields the desired endpoints. Required.
	Source source.Source
	// Registry reads and writes records with ownership. Required.
	Registry registry.Registry
	// Policy filters the calculated changes; nil means [policy.Sync].
	Policy plan.Policy
	// Resolver picks between resources asking for the same name; nil
	// means [plan.PerResource].
	Resolver plan.ConflictResolver
	// DomainFilter restricts the names the Reconciler manages, on top of
	// the registry's own filter; nil matches every name.
	DomainFilter endpoint.DomainFilterInterface
	// ManagedRecordTypes lists the record types the Reconciler manages;
	// ExcludeRecordTypes removes types from that list. Types are compared
	// case-insensitively.
	//
	// Leave both empty when the Registry reports its own managed types
	// ([registry.OwnershipReporter], as the TXT registry does): the
	// registry is the one place for ownership settings, and the Reconciler
	// plans with its types. When both are set they must agree: a
	// Reconciler whose types differ from its registry's refuses to run
	// ([ErrInvalidConfig]) instead of planning updates that the registry
	// would never complete. With a registry that reports no types, empty
	// means A, AAAA and CNAME.
	//
	// The owner id and the old owner id of a migration are never set
	// here: they are read from the Registry.
	ManagedRecordTypes, ExcludeRecordTypes []string

	// Interval is the time between two regular cycles of Run; zero
	// means [DefaultInterval].
	Interval time.Duration
	// MinEventSyncInterval is the shortest time between the end of a
	// cycle and a cycle requested by [Reconciler.ScheduleRunOnce]; zero
	// means [DefaultMinEventSyncInterval].
	MinEventSyncInterval time.Duration
	// BackoffInitial and BackoffMax bound the retry delay after failed
	// cycles: after the k-th consecutive failure Run waits
	// min(BackoffInitial·2^(k-1), BackoffMax). Zero values mean
	// [DefaultBackoffInitial] and Interval.
	BackoffInitial, BackoffMax time.Duration

	// Safety is the safety threshold, on by default; see [SafetyThreshold].
	Safety SafetyThreshold
	// DryRun makes RunOnce compute and return the changes without
	// applying them. The safety threshold is still checked, so a dry run
	// also shows whether a real cycle would be refused.
	DryRun bool

	// Logger receives one V(0) line per successful cycle with its counts,
	// and at V(1) one line per change, per skipped change and per failed
	// cycle (RunOnce returns its error rather than logging it; Run logs
	// the errors it retries). The zero value discards. Every cycle puts it
	// in the context it passes to the source, the registry and the
	// provider ([logr.NewContext]); they log through
	// [logr.FromContextOrDiscard], so one logger covers every component.
	Logger logr.Logger
	// Observer receives cycle metrics; nil means [NopObserver].
	Observer Observer
	// Verifier, when set, checks the records a cycle created or updated
	// against DNS right after applying them, and the Observer gets the
	// results in [Cycle.Verified]; nil verifies nothing. It does not run
	// in dry run or when nothing was applied.
	Verifier Verifier
	// Clock drives Run's schedule and times the cycles; nil means
	// [clock.Real].
	Clock clock.Clock

	initOnce sync.Once
	sem      chan struct{} // holds one token: the right to run a cycle
	wake     chan struct{} // nudges Run after ScheduleRunOnce
	running  atomic.Bool   // Run is active

	mu           sync.Mutex // guards the fields below
	lastRunEnd   time.Time  // end of the last cycle (zero: none yet)
	eventPending bool       // ScheduleRunOnce called since the last cycle started
	eventAt      time.Time  // earliest time given to ScheduleRunOnce while pending
	backoffUntil time.Time  // no cycle before this time (backoff after a failure)
}

func (r *Reconciler) init() {
	r.initOnce.Do(func() {
		r.sem = make(chan struct{}, 1)
		r.wake = make(chan struct{}, 1)
	})
}

func (r *Reconciler) clock() clock.Clock { return clock.OrReal(r.Clock) }

func (r *Reconciler) observer() Observer {
	if r.Observer == nil {
		return NopObserver{}
	}
	return r.Observer
}

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

// ErrInvalidConfig is matched (errors.Is) by the error of RunOnce, Run and
// Preview when the Reconciler's fields are unusable: a missing Source or
// Registry, a bad safety threshold, or ownership settings that contradict
// the Registry's.
var ErrInvalidConfig = errors.New("invalid Reconciler configuration")

// settings is what a cycle needs from the configuration.
type settings struct {
	ownership registry.Ownership // ManagedRecordTypes: the effective list
}

// validate checks the configuration and derives the cycle settings.
func (r *Reconciler) validate() (settings, error) {
	if r.Source == nil {
		return settings{}, fmt.Errorf("zonesync: %w: Source is nil", ErrInvalidConfig)
	}
	if r.Registry == nil {
		return settings{}, fmt.Errorf("zonesync: %w: Registry is nil", ErrInvalidConfig)
	}
	if err := r.Safety.validate(); err != nil {
		return settings{}, fmt.Errorf("zonesync: %w: %w", ErrInvalidConfig, err)
	}
	own, err := r.ownership()
	if err != nil {
		return settings{}, fmt.Errorf("zonesync: %w: %w", ErrInvalidConfig, err)
	}
	return settings{ownership: own}, nil
}

// ownership returns the ownership settings of a cycle: the registry's, with
// the managed record types the registry reports, or else the Reconciler's
// (default A, AAAA, CNAME), upper-cased.
func (r *Reconciler) ownership() (registry.Ownership, error) {
	own := registry.Ownership{OwnerID: r.Registry.OwnerID()}
	if rep, ok := r.Registry.(registry.OwnershipReporter); ok {
		reported := rep.Ownership()
		if reported.OwnerID != own.OwnerID {
			return own, fmt.Errorf("the registry reports owner id %q in Ownership and %q in OwnerID", reported.OwnerID, own.OwnerID)
		}
		own = reported
		own.ManagedRecordTypes = upperTypes(own.ManagedRecordTypes, nil)
	}
	mine := len(r.ManagedRecordTypes) > 0 || len(r.ExcludeRecordTypes) > 0
	var types []string
	if mine {
		base := r.ManagedRecordTypes
		if len(base) == 0 {
			base = endpoint.DefaultManagedRecordTypes()
		}
		types = upperTypes(base, r.ExcludeRecordTypes)
		if len(types) == 0 {
			return own, fmt.Errorf("ManagedRecordTypes %v minus ExcludeRecordTypes %v leaves no type to manage", r.ManagedRecordTypes, r.ExcludeRecordTypes)
		}
	}
	switch {
	case len(own.ManagedRecordTypes) == 0 && mine:
		own.ManagedRecordTypes = types
	case len(own.ManagedRecordTypes) == 0:
		own.ManagedRecordTypes = endpoint.DefaultManagedRecordTypes()
	case mine && !sameTypes(types, own.ManagedRecordTypes):
		return own, fmt.Errorf("the Reconciler manages record types %v but its registry manages %v: configure them in one place, the registry (leave ManagedRecordTypes and ExcludeRecordTypes empty)",
			types, own.ManagedRecordTypes)
	}
	return own, nil
}

// upperTypes returns the upper-cased types minus the excluded ones (compared
// case-insensitively), without duplicates or empty strings, in order.
func upperTypes(types, exclude []string) []string {
	out := make([]string, 0, len(types))
	for _, t := range types {
		t = strings.ToUpper(strings.TrimSpace(t))
		if t == "" || slices.Contains(out, t) || slices.ContainsFunc(exclude, func(x string) bool { return strings.EqualFold(strings.TrimSpace(x), t) }) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// sameTypes reports whether two upper-case type lists hold the same set.
func sameTypes(a, b []string) bool {
	for _, t := range a {
		if !slices.Contains(b, t) {
			return false
		}
	}
	for _, t := range b {
		if !slices.Contains(a, t) {
			return false
		}
	}
	return true
}

// ErrSourceNotReady is matched (errors.Is) by the error of a cycle whose
// Source reported that it is not ready ([source.Syncer], e.g. informer
// caches not synced yet): nothing was read or planned, since an incomplete
// source would turn into a plan that deletes records still wanted. The
// error is soft (errors.Is(err, provider.SoftError)): Run retries.
var ErrSourceNotReady = errors.New("zonesync: source not ready")

// RunOnce runs one reconcile cycle: it reads the registry's records and the
// source's endpoints, lets the registry adjust the endpoints, calculates the
// plan (domain filter = [Reconciler.DomainFilter] AND the registry's filter,
// the configured policy, the registry's ownership settings), checks the
// safety threshold and, unless DryRun is set, applies the changes through
// the registry. It returns the changes applied, or that would have been
// applied in dry run; a plan without changes is not sent to the registry.
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
// ([Cycle.Unownable]). When the registry has repairs to make
// ([registry.Repairer]) and the plan has no changes, RunOnce still calls its
// ApplyChanges, with the empty changes, unless DryRun is set.
//
// The safety threshold applies in total and, when the registry lists its
// zones, in each zone (see [SafetyThreshold]).
//
// Cycles never overlap: a call made while another cycle runs waits for it
// (or for ctx). Errors name the step that failed and wrap the cause, so
// errors.Is(err, provider.SoftError) classifies transient failures. When the
// safety threshold refuses a plan, RunOnce applies nothing and returns the
// refused changes together with an error matching [ErrUnsafePlan]; when the
// registry fails to apply them, the attempted changes are returned with the
// error. Errors before the plan is calculated return nil changes.
func (r *Reconciler) RunOnce(ctx context.Context) (*plan.Changes, error) {
	set, err := r.validate()
	if err != nil {
		return nil, err
	}
	r.init()
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-r.sem }()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	clk := r.clock()
	obs := r.observer()
	start := clk.Now()
	r.mu.Lock()
	r.eventPending = false // this cycle reads the source as it is now
	r.mu.Unlock()

	log := r.Logger.WithName("zonesync").WithValues("ownerID", set.ownership.OwnerID, "dryRun", r.DryRun)
	ctx = logr.NewContext(ctx, log)
	obs.CycleStarted(ctx, start)

	cycle := Cycle{Start: start, DryRun: r.DryRun, Owned: -1}
	changes, err := r.cycle(ctx, log, clk, set, &cycle)
	end := clk.Now()
	cycle.Duration = end.Sub(start)
	cycle.Err = err

	r.mu.Lock()
	r.lastRunEnd = end
	r.mu.Unlock()

	if err != nil {
		// The error is returned: whoever handles it logs it (Run does).
		log.V(1).Info("reconcile cycle failed", "error", err.Error(), "records", cycle.Records, "desired", cycle.Desired,
			"create", cycle.Creates, "update", cycle.Updates, "delete", cycle.Deletes, "rejected", len(cycle.Rejected), "duration", cycle.Duration)
	}
	if cycle.Plan != nil && (err == nil || cycle.Applied || isPartial(err)) {
		kv := make([]any, 0, 20)
		kv = append(kv, "records", cycle.Records, "desired", cycle.Desired)
		if cycle.Owned >= 0 {
			kv = append(kv, "owned", cycle.Owned)
		}
		kv = append(kv, "create", cycle.Creates, "update", cycle.Updates, "delete", cycle.Deletes,
			"skipped", cycle.Skipped)
		if cycle.Unownable > 0 {
			kv = append(kv, "unownable", cycle.Unownable)
		}
		if cycle.Invalid > 0 {
			kv = append(kv, "invalid", cycle.Invalid)
		}
		kv = append(kv, "applied", cycle.Applied, "duration", cycle.Duration)
		log.Info("reconcile cycle finished", kv...)
	}
	obs.CycleFinished(ctx, cycle)
	return changes, err
}

// Preview is what a cycle would do, computed without writing anything: see
// [Reconciler.Preview].
type Preview struct {
	// Plan is the calculated plan: its Changes (after the policy) and
	// every change it skipped with the reason ([plan.Plan.Skipped]).
	Plan *plan.Plan
	// Owned is the number of current records the plan may change (see
	// [SafetyThreshold]).
	Owned int
	// Unsafe is non-nil when the safety threshold would refuse the plan;
	// a real cycle would then apply nothing and return it.
	Unsafe *UnsafePlanError
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
	log := r.Logger.WithName("zonesync").WithValues("ownerID", set.ownership.OwnerID, "preview", true)
	ctx = logr.NewContext(ctx, log)
	c := Cycle{Owned: -1}
	calc, err := r.calculate(ctx, r.clock(), set, &c, true)
	if err != nil {
		return nil, err
	}
	out := &Preview{Plan: calc.plan, Owned: c.Owned, SourceErr: calc.srcErr, Warnings: calc.warnings, Repairs: calc.repairs}
	out.Unsafe = r.Safety.check(calc.tally, calc.plan.Changes)
	return out, nil
}

// calculation is what calculate found besides the plan.
type calculation struct {
	plan *plan.Plan
	end  time.Time // when the plan was calculated
	// srcErr is the cycle's partial error: the source's, merged with the
	// endpoints that failed validation; nil when every object was built.
	srcErr error
	// tally counts the owned records, in total and per zone.
	tally ownedTally
	// warnings are the registry's settings warnings ([registry.SettingsWarner]).
	warnings []string
	// repairs is the registry's pending repairs ([registry.Repairer]).
	repairs int
}

// calculate reads the registry and the source and calculates the plan,
// filling in the counts and phase durations of c. countOwned forces the
// count of owned records.
//
// Every desired endpoint is validated ([endpoint.Endpoint.Validate]) after
// the source and again after the registry adjusted them. Invalid endpoints
// never reach AdjustEndpoints, the policies or the registry: they are given
// to the planner only so that it reports them ([plan.SkipInvalid]) and holds
// the records at their names, and they are reported as per-object failures
// in the cycle's [*source.PartialError] (see [invalidEndpoints]). After
// AdjustEndpoints only the endpoints it replaced are validated again (it
// must not modify those it is given); the planner validates every endpoint
// once more, so one modified in place is still never planned.
func (r *Reconciler) calculate(ctx context.Context, clk clock.Clock, set settings, c *Cycle, countOwned bool) (calculation, error) {
	t := clk.Now()
	if !source.HasSynced(r.Source) {
		return calculation{end: t}, provider.NewSoftError(fmt.Errorf("%w: it reports that it has not synced yet; nothing is planned until it has", ErrSourceNotReady))
	}
	current, err := r.Registry.Records(ctx)
	if err != nil {
		return calculation{end: t}, fmt.Errorf("zonesync: reading records from the registry: %w", err)
	}
	c.Records = len(current)
	now := clk.Now()
	c.RecordsDuration, t = now.Sub(t), now

	desired, srcErr := r.Source.Endpoints(ctx)
	var partial *source.PartialError
	if srcErr != nil {
		if !errors.As(srcErr, &partial) || partial == nil || len(partial.Failed) == 0 {
			return calculation{end: t}, fmt.Errorf("zonesync: reading endpoints from the source: %w", srcErr)
		}
	}
	var invalid invalidEndpoints
	canonicalNames(desired)
	desired = invalid.split(desired, nil)
	// AdjustEndpoints copies the endpoints it changes: those it returns
	// unchanged, at their place, were validated already.
	checked := slices.Clone(desired)
	desired, err = r.Registry.AdjustEndpoints(ctx, desired)
	if err != nil {
		return calculation{end: t}, fmt.Errorf("zonesync: adjusting endpoints: %w", err)
	}
	canonicalNames(desired)
	desired = invalid.split(desired, checked)
	c.Desired = len(desired) + len(invalid.eps)
	c.Invalid = len(invalid.eps)
	if len(invalid.eps) > 0 {
		// The planner reports them and holds the records at their names.
		desired = append(desired, invalid.eps...)
		partial = invalid.merge(partial, current)
	}
	now = clk.Now()
	c.SourceDuration, t = now.Sub(t), now

	pol := r.Policy
	if pol == nil {
		pol = policy.Sync
	}
	own := set.ownership
	filter := endpoint.MatchAllDomainFilters{r.DomainFilter, r.Registry.GetDomainFilter()}
	pl := &plan.Plan{
		Current:        current,
		Desired:        desired,
		Policies:       []plan.Policy{pol},
		DomainFilter:   filter,
		ManagedRecords: own.ManagedRecordTypes,
		OwnerID:        own.OwnerID,
		OldOwnerID:     own.OldOwnerID,
		Resolver:       r.Resolver,
	}
	if partial != nil {
		pl.Protected = partial.Failed
	}
	if oc, ok := r.Registry.(registry.OwnabilityChecker); ok {
		pl.Ownable = oc.CheckOwnable
	}
	p := pl.Calculate()
	if p.Changes == nil {
		p.Changes = &plan.Changes{}
	}
	out := calculation{plan: p}
	// Counting owned records costs a domain-filter match per record; do it
	// only when the safety threshold or an observer needs the number. Zones
	// are listed only when the threshold may refuse the plan.
	c.Owned = -1
	risky := len(p.Changes.Delete)+len(p.Changes.UpdateNew) > 0
	if countOwned || r.Observer != nil || (!r.Safety.Disabled && risky) {
		var matcher *provider.ZoneMatcher
		if !r.Safety.Disabled && risky {
			zones, ok, err := provider.ZonesOf(ctx, r.Registry)
			if err != nil {
				return calculation{end: t}, fmt.Errorf("zonesync: listing zones for the safety threshold: %w", err)
			}
			if ok {
				matcher = provider.NewZoneMatcher(zones...)
			}
		}
		out.tally = tallyOwned(current, own, filter, matcher)
		c.Owned = out.tally.total
	}
	if w, ok := r.Registry.(registry.SettingsWarner); ok {
		out.warnings = w.SettingsWarnings()
	}
	if rp, ok := r.Registry.(registry.Repairer); ok {
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
	now = clk.Now()
	c.PlanDuration = now.Sub(t)
	out.end = now
	if partial != nil {
		// The source's error as it came, or the merged one when endpoints
		// failed validation.
		cause := srcErr
		if len(invalid.eps) > 0 {
			cause = partial
		}
		out.srcErr = &partialError{err: fmt.Errorf("zonesync: planned without the objects the source could not read: %w", cause)}
	}
	return out, nil
}

// invalidEndpoints collects the desired endpoints of a cycle that fail
// validation, with their errors.
type invalidEndpoints struct {
	eps  []*endpoint.Endpoint
	errs []error // errs[i] is the validation error of eps[i]
}

// split returns the valid endpoints of eps and keeps the others. An
// endpoint that is checked[i] itself (the same pointer at the same index)
// was validated before and is not validated again. eps is not modified;
// without invalid endpoints it is returned as is.
func (v *invalidEndpoints) split(eps, checked []*endpoint.Endpoint) []*endpoint.Endpoint {
	var valid []*endpoint.Endpoint
	for i, ep := range eps {
		var err error
		if i >= len(checked) || checked[i] != ep || ep == nil {
			err = ep.Validate()
		}
		if err == nil {
			if valid != nil {
				valid = append(valid, ep)
			}
			continue
		}
		if valid == nil {
			valid = make([]*endpoint.Endpoint, i, len(eps)-1)
			copy(valid, eps[:i])
		}
		v.eps = append(v.eps, ep)
		v.errs = append(v.errs, err)
	}
	if valid == nil {
		return eps
	}
	return valid
}

// invalidKeyPrefix starts the key under which an invalid endpoint without a
// resource label is reported in the cycle's [*source.PartialError].
const invalidKeyPrefix = "zonesync/invalid-endpoint/"

// merge returns a new PartialError holding the failures of partial (nil:
// none) and one failure per object with invalid endpoints: keyed by the
// endpoints' resource label, so that the records of that object are
// protected, or, for an endpoint without one, by a key of its own that no
// current record carries, so that the planner holds every delete (see
// [plan.Plan.Protected]). Each object's error is flat and bounded
// ([source.PartialError.Add]).
func (v *invalidEndpoints) merge(partial *source.PartialError, current []*endpoint.Endpoint) *source.PartialError {
	out := (&source.PartialError{Failed: map[string]error{}}).Merge(partial)
	var carried map[string]bool // resource labels of the current records
	for i, ep := range v.eps {
		key := ""
		if ep != nil {
			key, _ = ep.Labels.Get(endpoint.ResourceLabelKey)
		}
		if key == "" {
			name := "<nil>"
			if ep != nil {
				name = ep.Key().String()
			}
			if carried == nil {
				carried = map[string]bool{}
				for _, cur := range current {
					if res := resourceOf(cur); res != "" {
						carried[res] = true
					}
				}
			}
			key = invalidKeyPrefix + strconv.QuoteToASCII(name)
			for n := 2; carried[key]; n++ {
				key = invalidKeyPrefix + strconv.QuoteToASCII(name) + "#" + strconv.Itoa(n)
			}
		}
		out = out.Add(key, v.errs[i]) // Validate names the endpoint; causes stay flat and bounded
	}
	return out
}

// canonicalNames puts the DNS names of eps in the form written to DNS
// ([endpoint.CanonicalDNSName]: lower-case A-labels, no trailing dot), so
// that the planner, the registry's ownership records and the provider all
// see one spelling.
func canonicalNames(eps []*endpoint.Endpoint) {
	for _, ep := range eps {
		if ep != nil {
			ep.DNSName = endpoint.CanonicalDNSName(ep.DNSName)
		}
	}
}

// partialError marks the error of a cycle that planned and applied
// everything but the objects a source could not read. Run keeps its regular
// schedule after it.
type partialError struct{ err error }

func (e *partialError) Error() string { return e.err.Error() }
func (e *partialError) Unwrap() error { return e.err }

// isPartial reports whether err is only a source's partial error.
func isPartial(err error) bool {
	_, ok := err.(*partialError)
	return ok
}

func (r *Reconciler) cycle(ctx context.Context, log logr.Logger, clk clock.Clock, set settings, c *Cycle) (*plan.Changes, error) {
	calc, err := r.calculate(ctx, clk, set, c, false)
	if err != nil {
		return nil, err
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
	if unsafe := r.Safety.check(calc.tally, changes); unsafe != nil {
		return changes, joinErrs(unsafe, srcErr)
	}
	if r.DryRun {
		return changes, srcErr
	}
	if !changes.HasChanges() {
		if calc.repairs == 0 {
			return changes, srcErr
		}
		// Nothing to change, but ownership records to repair: the
		// registry makes the repairs its read found when it is handed a
		// plan, even an empty one (registry.Repairer).
		log.V(1).Info("applying an empty plan for the registry's repairs", "repairs", calc.repairs)
	}
	if err := r.Registry.ApplyChanges(ctx, changes); err != nil {
		c.Rejected = provider.Rejected(err)
		return changes, joinErrs(fmt.Errorf("zonesync: applying %d creates, %d updates and %d deletes: %w",
			c.Creates, c.Updates, c.Deletes, err), srcErr)
	}
	c.Applied = true
	c.ApplyDuration = clk.Now().Sub(t)
	if r.Verifier != nil {
		verifyApplied(ctx, r.Verifier, clk.Now, changes, c)
	}
	return changes, srcErr
}

// maxLoggedUnownable bounds the records named by the log line of a cycle
// that skipped creates whose ownership cannot be recorded.
const maxLoggedUnownable = 10

// logUnownable logs, at V(0), the creates skipped because the registry
// could not record their ownership: a configuration problem (a TXT prefix
// that does not fit apex records, ...) that the cycle does not fail for.
func logUnownable(log logr.Logger, skipped []plan.Skip, n int) {
	records := make([]string, 0, min(n, maxLoggedUnownable))
	detail := ""
	for _, sk := range skipped {
		if sk.Reason != plan.SkipUnownable {
			continue
		}
		if detail == "" {
			detail = sk.Detail
		}
		if len(records) < maxLoggedUnownable {
			records = append(records, skipRecord(sk))
		}
	}
	log.Info("not creating records whose ownership the registry cannot record; change the registry settings to manage them",
		"count", n, "records", records, "firstReason", detail)
}

// joinErrs returns err alone, or joined with the source's partial error.
func joinErrs(err, srcErr error) error {
	if srcErr == nil {
		return err
	}
	return errors.Join(err, srcErr)
}

func skipRecord(sk plan.Skip) string {
	if sk.Endpoint == nil {
		return "<nil>"
	}
	return sk.Endpoint.Key().String()
}

func logChanges(log logr.Logger, c *plan.Changes) {
	for _, ep := range c.Create {
		log.Info("create", "record", ep.Key().String(), "targets", ep.Targets.String(), "ttl", int64(ep.RecordTTL))
	}
	for i, ep := range c.UpdateNew {
		kv := []any{"record", ep.Key().String(), "targets", ep.Targets.String(), "ttl", int64(ep.RecordTTL)}
		if i < len(c.UpdateOld) && c.UpdateOld[i] != nil {
			kv = append(kv, "oldTargets", c.UpdateOld[i].Targets.String(), "oldTTL", int64(c.UpdateOld[i].RecordTTL),
				"why", plan.Why(c.UpdateOld[i], ep).String())
		}
		log.Info("update", kv...)
	}
	for _, ep := range c.Delete {
		log.Info("delete", "record", ep.Key().String(), "targets", ep.Targets.String())
	}
}

// ScheduleRunOnce asks [Reconciler.Run] for a cycle soon: at now, but never
// sooner than MinEventSyncInterval after the end of the last cycle nor during
// the backoff after a failed cycle. Requests made while a cycle runs lead to one more
// cycle after it. Source event handlers call it; it never blocks and is safe
// for concurrent use. Without a running Run it only records the request.
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
// sooner when a source event calls [Reconciler.ScheduleRunOnce] (Run
// registers such a handler with the Source's AddEventHandler), but never
// sooner than MinEventSyncInterval after the previous cycle.
//
// Run returns only when ctx is done (nil, without waiting for more than the
// cycle in progress) or on a configuration error ([ErrInvalidConfig]), which
// it returns. Every other failed cycle — a soft error (errors.Is(err,
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
	log := r.Logger.WithName("zonesync")
	r.Source.AddEventHandler(ctx, func() { r.ScheduleRunOnce(clk.Now()) })

	tick := clk.Now() // first cycle at once
	failures := 0     // consecutive failed cycles
	for {
		if ctx.Err() != nil {
			return nil
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
				return nil
			case <-timer.C():
			case <-r.wake:
				timer.Stop()
			}
			continue
		}

		_, err := r.RunOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		end := clk.Now()
		switch {
		case err == nil || isPartial(err):
			if err != nil {
				log.Error(err, "reconcile cycle left out objects the source could not read")
			}
			failures = 0
			r.setBackoff(time.Time{})
			tick = end.Add(r.interval())
		case errors.Is(err, ErrInvalidConfig):
			return err
		default:
			failures++
			delay := r.backoff(failures)
			log.Error(err, "reconcile cycle failed, retrying", "consecutiveErrors", failures, "retryIn", delay,
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
