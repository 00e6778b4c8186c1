package zonesync

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/clock"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/source"
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
	// IgnoreSourceEvents makes Run cycle every Interval only, as
	// external-dns does by default (its --events flag is off unless
	// given): Run does not even call the Source's AddEventHandler, so a
	// source starts no event plumbing for nothing.
	//
	// The zero value reacts to source events, because that is what a
	// program embedding the Reconciler expects: when its own objects
	// change, DNS follows within MinEventSyncInterval, not at the next
	// Interval (a minute by default). Run registers a handler with
	// AddEventHandler that calls [Reconciler.ScheduleRunOnce].
	//
	// Either way, ScheduleRunOnce called by the program itself still
	// brings a cycle forward, and RunOnce and Preview ignore this field.
	// It has nothing to do with Kubernetes Events: recording Events about
	// records on the objects behind them (external-dns's --emit-events) is
	// the Observer of package source/kubernetes/events.
	IgnoreSourceEvents bool
	// BackoffInitial and BackoffMax bound the retry delay after failed
	// cycles: after the k-th consecutive failure Run waits
	// min(BackoffInitial·2^(k-1), BackoffMax). Zero values mean
	// [DefaultBackoffInitial] and Interval.
	BackoffInitial, BackoffMax time.Duration

	// Safety is the safety threshold, on by default; see
	// [plan.SafetyThreshold]. The Reconciler counts the owned records in
	// total and, when the registry lists its zones ([provider.ZoneLister],
	// as the TXT registry forwards it), per zone, assigning each record to
	// the most specific zone holding its name ([provider.ZoneMatcher]).
	Safety plan.SafetyThreshold
	// DryRun makes RunOnce compute and return the changes without
	// applying them. The safety threshold is still checked, so a dry run
	// also shows whether a real cycle would be refused.
	DryRun bool

	// Logger receives one V(0) line per successful cycle with its counts,
	// an error line (logr's Error) per failed cycle, and at V(1) one line
	// per change and per skipped change; at V(0) also one line per warning
	// of the registry about its settings (see [Cycle.Warnings]) and the
	// creates it could not own. RunOnce logs a failed cycle and
	// also returns its error; Run adds a line when it schedules a retry.
	// The zero value uses the logger of the context given to RunOnce, Run
	// or Preview ([logr.FromContextOrDiscard]; a controller-runtime
	// reconciler's request logger, for instance), and discards when there
	// is none. Every cycle puts the logger in the context it passes to the
	// source, the registry and the provider ([logr.NewContext]); they log
	// through [logr.FromContextOrDiscard], so one logger covers every
	// component.
	//
	// A program that sets no Logger and runs with no logger in its context
	// sees nothing of what zonesync does: no line for a failed cycle, a
	// retry, a skipped record or a setting that leaves records without
	// their owner. RunOnce still returns every cycle with its error, and
	// Run returns the last cycle's error when its context ends before any
	// cycle succeeded; but a Run that keeps failing (a wrong TSIG secret,
	// an unreachable provider) is silent until then. Set a Logger, or give
	// Run a context holding one, in every program that uses Run.
	Logger logr.Logger
	// Observer receives cycle metrics; nil means none.
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

// logger returns the logger of a cycle: Logger, or, when it is unset (no
// sink, as the zero value and [logr.Discard]), the logger already in ctx
// ([logr.FromContextOrDiscard]), such as a controller-runtime request
// logger.
func (r *Reconciler) logger(ctx context.Context) logr.Logger {
	if r.Logger.GetSink() != nil {
		return r.Logger
	}
	return logr.FromContextOrDiscard(ctx)
}

func (r *Reconciler) clock() clock.Clock { return clock.OrReal(r.Clock) }

func (r *Reconciler) observer() Observer {
	if r.Observer == nil {
		return noObserver{}
	}
	return r.Observer
}
