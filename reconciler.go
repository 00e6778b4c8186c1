package zonesync

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	// DefaultBackoffInitial is the wait after the first soft error.
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
	// empty means A, AAAA and CNAME. ExcludeRecordTypes removes types
	// from that list.
	ManagedRecordTypes, ExcludeRecordTypes []string
	// OldOwnerID, when set, lets this Reconciler take over the records
	// owned by that id (owner migration; see [plan.Plan]).
	OldOwnerID string

	// Interval is the time between two regular cycles of Run; zero
	// means [DefaultInterval].
	Interval time.Duration
	// MinEventSyncInterval is the shortest time between the end of a
	// cycle and a cycle requested by [Reconciler.ScheduleRunOnce]; zero
	// means [DefaultMinEventSyncInterval].
	MinEventSyncInterval time.Duration
	// BackoffInitial and BackoffMax bound the retry delay after soft
	// errors: after the k-th consecutive soft error Run waits
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
	// the errors it retries). The zero value discards. It is passed down
	// to the source, registry and provider with [logr.NewContext].
	Logger logr.Logger
	// Observer receives cycle metrics; nil means [NopObserver].
	Observer Observer
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
	backoffUntil time.Time  // no cycle before this time (soft-error backoff)
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

// backoff returns the delay after the n-th consecutive soft error (n >= 1).
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

func (r *Reconciler) validate() error {
	if r.Source == nil {
		return errors.New("zonesync: Reconciler.Source is nil")
	}
	if r.Registry == nil {
		return errors.New("zonesync: Reconciler.Registry is nil")
	}
	return r.Safety.validate()
}

// managedTypes returns the record types the plan manages.
func (r *Reconciler) managedTypes() []string {
	types := r.ManagedRecordTypes
	if len(types) == 0 {
		types = endpoint.DefaultManagedRecordTypes()
	}
	if len(r.ExcludeRecordTypes) == 0 {
		return types
	}
	return slices.DeleteFunc(slices.Clone(types), func(t string) bool {
		return slices.Contains(r.ExcludeRecordTypes, t)
	})
}

// RunOnce runs one reconcile cycle: it reads the registry's records and the
// source's endpoints, lets the registry adjust the endpoints, calculates the
// plan (domain filter = [Reconciler.DomainFilter] AND the registry's filter,
// the configured policy, managed and excluded types, the registry's owner
// id), checks the safety threshold and, unless DryRun is set, applies the
// changes through the registry. It returns the changes applied, or that
// would have been applied in dry run; a plan without changes is not sent to
// the registry.
//
// Cycles never overlap: a call made while another cycle runs waits for it
// (or for ctx). Errors name the step that failed and wrap the cause, so
// errors.Is(err, provider.SoftError) classifies transient failures. When the
// safety threshold refuses a plan, RunOnce applies nothing and returns the
// refused changes together with an error matching [ErrUnsafePlan]; when the
// registry fails to apply them, the attempted changes are returned with the
// error. Errors before the plan is calculated return nil changes.
func (r *Reconciler) RunOnce(ctx context.Context) (*plan.Changes, error) {
	if err := r.validate(); err != nil {
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

	log := r.Logger.WithName("zonesync").WithValues("ownerID", r.Registry.OwnerID(), "dryRun", r.DryRun)
	ctx = logr.NewContext(ctx, log)
	obs.CycleStarted(ctx, start)

	cycle := Cycle{Start: start, DryRun: r.DryRun, Owned: -1}
	changes, err := r.cycle(ctx, log, clk, &cycle)
	end := clk.Now()
	cycle.Duration = end.Sub(start)
	cycle.Err = err

	r.mu.Lock()
	r.lastRunEnd = end
	r.mu.Unlock()

	if err != nil {
		// The error is returned: whoever handles it logs it (Run does).
		log.V(1).Info("reconcile cycle failed", "error", err.Error(), "records", cycle.Records, "desired", cycle.Desired,
			"create", cycle.Creates, "update", cycle.Updates, "delete", cycle.Deletes, "duration", cycle.Duration)
	} else {
		kv := make([]any, 0, 20)
		kv = append(kv, "records", cycle.Records, "desired", cycle.Desired)
		if cycle.Owned >= 0 {
			kv = append(kv, "owned", cycle.Owned)
		}
		kv = append(kv, "create", cycle.Creates, "update", cycle.Updates, "delete", cycle.Deletes,
			"skipped", cycle.Skipped, "applied", cycle.Applied, "duration", cycle.Duration)
		log.Info("reconcile cycle finished", kv...)
	}
	obs.CycleFinished(ctx, cycle)
	return changes, err
}

// Plan reads the registry and the source, as a cycle does, and returns the
// calculated plan — its changes and the changes it skipped, with reasons —
// without checking the safety threshold or applying anything. It is meant
// for previews ("what would a cycle do, and why not more?"); it does not
// wait for a running cycle and does not count as one for scheduling.
func (r *Reconciler) Plan(ctx context.Context) (*plan.Plan, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	log := r.Logger.WithName("zonesync").WithValues("ownerID", r.Registry.OwnerID())
	ctx = logr.NewContext(ctx, log)
	var c Cycle
	p, _, err := r.calculate(ctx, r.clock(), &c)
	return p, err
}

// calculate reads the registry and the source and calculates the plan,
// filling in the counts and phase durations of c. It returns the plan and
// the time its calculation ended.
func (r *Reconciler) calculate(ctx context.Context, clk clock.Clock, c *Cycle) (*plan.Plan, time.Time, error) {
	t := clk.Now()
	current, err := r.Registry.Records(ctx)
	if err != nil {
		return nil, t, fmt.Errorf("zonesync: reading records from the registry: %w", err)
	}
	c.Records = len(current)
	now := clk.Now()
	c.RecordsDuration, t = now.Sub(t), now

	desired, err := r.Source.Endpoints(ctx)
	if err != nil {
		return nil, t, fmt.Errorf("zonesync: reading endpoints from the source: %w", err)
	}
	desired, err = r.Registry.AdjustEndpoints(desired)
	if err != nil {
		return nil, t, fmt.Errorf("zonesync: adjusting endpoints: %w", err)
	}
	c.Desired = len(desired)
	now = clk.Now()
	c.SourceDuration, t = now.Sub(t), now

	pol := r.Policy
	if pol == nil {
		pol = policy.Sync
	}
	managed := r.managedTypes()
	filter := endpoint.MatchAllDomainFilters{r.DomainFilter, r.Registry.GetDomainFilter()}
	ownerID := r.Registry.OwnerID()
	p := (&plan.Plan{
		Current:        current,
		Desired:        desired,
		Policies:       []plan.Policy{pol},
		DomainFilter:   filter,
		ManagedRecords: managed,
		ExcludeRecords: r.ExcludeRecordTypes,
		OwnerID:        ownerID,
		OldOwnerID:     r.OldOwnerID,
		Resolver:       r.Resolver,
	}).Calculate()
	if p.Changes == nil {
		p.Changes = &plan.Changes{}
	}
	// Counting owned records costs a domain-filter match per record; do it
	// only when the safety threshold or an observer needs the number.
	c.Owned = -1
	if r.Observer != nil || (!r.Safety.Disabled && len(p.Changes.Delete)+len(p.Changes.UpdateNew) > 0) {
		c.Owned = countOwned(current, ownerID, managed, filter)
	}
	c.Creates, c.Updates, c.Deletes = len(p.Changes.Create), len(p.Changes.UpdateNew), len(p.Changes.Delete)
	c.Skipped = len(p.Skipped)
	now = clk.Now()
	c.PlanDuration = now.Sub(t)
	return p, now, nil
}

func (r *Reconciler) cycle(ctx context.Context, log logr.Logger, clk clock.Clock, c *Cycle) (*plan.Changes, error) {
	p, t, err := r.calculate(ctx, clk, c)
	if err != nil {
		return nil, err
	}
	changes := p.Changes
	if v := log.V(1); v.Enabled() {
		logChanges(v, changes)
		for _, sk := range p.Skipped {
			v.Info("skipped", "action", sk.Action, "record", skipRecord(sk), "reason", string(sk.Reason), "detail", sk.Detail)
		}
	}
	if err := r.Safety.check(c.Owned, changes); err != nil {
		return changes, err
	}
	if r.DryRun || !changes.HasChanges() {
		return changes, nil
	}
	if err := r.Registry.ApplyChanges(ctx, changes); err != nil {
		return changes, fmt.Errorf("zonesync: applying %d creates, %d updates and %d deletes: %w",
			c.Creates, c.Updates, c.Deletes, err)
	}
	c.Applied = true
	c.ApplyDuration = clk.Now().Sub(t)
	return changes, nil
}

func skipRecord(sk plan.Skip) string {
	if sk.Endpoint == nil {
		return "<nil>"
	}
	return sk.Endpoint.Key().String()
}

// countOwned counts the current records the plan may change: managed type,
// matched by the filter, and owned by ownerID (any owner when ownerID is "").
func countOwned(current []*endpoint.Endpoint, ownerID string, managed []string, filter endpoint.DomainFilterInterface) int {
	n := 0
	for _, ep := range current {
		if ep == nil || !slices.Contains(managed, ep.RecordType) {
			continue
		}
		if ownerID != "" && !ep.IsOwnedBy(ownerID) {
			continue
		}
		if !filter.Match(ep.DNSName) {
			continue
		}
		n++
	}
	return n
}

func logChanges(log logr.Logger, c *plan.Changes) {
	for _, ep := range c.Create {
		log.Info("create", "record", ep.Key().String(), "targets", ep.Targets.String(), "ttl", int64(ep.RecordTTL))
	}
	for i, ep := range c.UpdateNew {
		kv := []any{"record", ep.Key().String(), "targets", ep.Targets.String(), "ttl", int64(ep.RecordTTL)}
		if i < len(c.UpdateOld) && c.UpdateOld[i] != nil {
			kv = append(kv, "oldTargets", c.UpdateOld[i].Targets.String(), "oldTTL", int64(c.UpdateOld[i].RecordTTL))
		}
		log.Info("update", kv...)
	}
	for _, ep := range c.Delete {
		log.Info("delete", "record", ep.Key().String(), "targets", ep.Targets.String())
	}
}

// ScheduleRunOnce asks [Reconciler.Run] for a cycle soon: at now, but never
// sooner than MinEventSyncInterval after the end of the last cycle nor during
// a soft-error backoff. Requests made while a cycle runs lead to one more
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
// After a soft error (errors.Is(err, provider.SoftError)) or a plan refused
// by the safety threshold ([ErrUnsafePlan]), Run logs the error and retries
// with a capped exponential backoff (see BackoffInitial); events do not
// shorten the backoff. Any other error ends Run and is returned. Run returns
// nil when ctx is done, without waiting for more than the cycle in progress.
// Only one Run may be active per Reconciler.
func (r *Reconciler) Run(ctx context.Context) error {
	if err := r.validate(); err != nil {
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
	softErrors := 0
	for {
		if ctx.Err() != nil {
			return nil
		}
		now := clk.Now()
		due := r.nextDue(tick)
		if now.Before(due) {
			timer := clk.NewTimer(due.Sub(now))
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
		case err == nil:
			softErrors = 0
			r.setBackoff(time.Time{})
			tick = end.Add(r.interval())
		case errors.Is(err, provider.SoftError) || errors.Is(err, ErrUnsafePlan):
			softErrors++
			delay := r.backoff(softErrors)
			log.Error(err, "reconcile cycle failed, retrying", "consecutiveErrors", softErrors, "retryIn", delay)
			r.setBackoff(end.Add(delay))
			tick = end.Add(delay)
		default:
			return err
		}
	}
}

func (r *Reconciler) setBackoff(until time.Time) {
	r.mu.Lock()
	r.backoffUntil = until
	r.mu.Unlock()
}
