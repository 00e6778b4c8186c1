package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

const (
	// Zone is the zone every chaos run works in.
	Zone = "example.org"
	// OwnerID is the owner id of the Reconciler under test.
	OwnerID = "chaos"
	// OtherOwner is the owner id the second writer puts in the ownership
	// TXT records of the records it writes as another owner.
	OtherOwner = "other"
	// SeedEnv is the environment variable that sets the seed of a run (a
	// decimal uint64); DefaultSeed is used without it.
	SeedEnv     = "ZONESYNC_CHAOS_SEED"
	DefaultSeed = 20260521

	// foreignTTL is the TTL of every record of the second writer.
	foreignTTL = 600
	// poolSize names (n00...) may be desired by zonesync and written by
	// the second writer; foreignOnly names (f0...) only by the writer.
	poolSize    = 24
	foreignOnly = 6
)

// The streams of the harness's random generators (rand.NewPCG(seed,
// stream)). Tests draw their own faults from other streams (4 to 7, and
// from 16 up).
const (
	streamDesired = 1 + iota
	streamWriter
	streamApplyRace
	streamPlanRace  = 8
	streamReread    = 9
	streamSetIDs    = 10
	streamOwnerName = 11
)

// Seed returns the seed of this run, ZONESYNC_CHAOS_SEED or DefaultSeed,
// and logs it.
func Seed(t testing.TB) uint64 {
	t.Helper()
	seed := uint64(DefaultSeed)
	if v := os.Getenv(SeedEnv); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q is not a decimal uint64: %v", SeedEnv, v, err)
		}
		seed = s
	}
	t.Logf("chaos seed %d (set %s to replay another)", seed, SeedEnv)
	return seed
}

// Config is what differs between the runs of the harness.
type Config struct {
	// Direct reads and writes the zone without faults: the second writer
	// and the checks use it. It must hold Zone.
	Direct provider.Provider

	// The second writer races with the Reconciler during the faulty phase
	// at three points of a cycle, each with its own chance per cycle.
	//
	// PlanRaceRate: after the registry read the zone (Records) and the
	// Reconciler planned, just before it hands the plan to the registry's
	// ApplyChanges. On a provider whose creates may overwrite
	// (provider.Guarantees.CreateFailsIfExists false) the registry reads
	// the zone again before applying creates (provider.RecheckCreates), so
	// this race falls between the read and that re-read.
	PlanRaceRate float64
	// RereadRaceRate: inside the registry's ApplyChanges, at the start of
	// its re-read (the Records call it makes while applying), before the
	// re-read reaches the provider: the last moment the re-read can see.
	RereadRaceRate float64
	// ApplyRaceRate: in the provider's ApplyChanges, where the test puts
	// [Harness.RacingApply], after any re-read. A provider whose creates
	// fail when the record exists refuses zonesync's create there; on one
	// whose creates overwrite this is the window the re-read leaves, and a
	// record the writer creates there for a key the call creates is
	// expected to be overwritten: it is then handed over to zonesync and
	// counted (RaceStats.Overwritten), never reported as a violation.
	ApplyRaceRate float64

	// NonAtomic is set for a provider that applies a call change by
	// change. The TXT registry then sends an ownership TXT before its
	// record, so a racing writer that creates the record first leaves, for
	// a while, our TXT beside its record: not a takeover as long as
	// zonesync never touches the record (invariant 1, checked every cycle)
	// and removes the TXT (invariant 2). Such a TXT is tolerated until the
	// faults stop.
	NonAtomic bool
	// QuoteTXT makes the TXT values of the second writer zone-file quoted
	// strings ("foreign-1" with its quotes), the form a provider that
	// passes TXT data through unchanged needs (external-dns's pdns).
	QuoteTXT bool
	// SetIdentifiers adds desired endpoints with a set identifier, at
	// names zonesync desires and at names the writer uses, for a provider
	// that does not keep set identifiers: they must never reach the
	// provider (the plan skips them with plan.SkipUnsupported).
	SetIdentifiers bool
	// OwnershipNames lets the second writer create ordinary TXT records at
	// the names of ownership TXT records zonesync would write (its typed
	// naming, "a-n01..."), between cycles and in races. A record whose
	// ownership TXT name is taken by a foreign record found at the read is
	// then not created (the TXT registry reports it unownable); one taken
	// in a race is caught by the registry's re-read on a provider whose
	// creates overwrite, and refused by the provider otherwise.
	OwnershipNames bool
}

// RaceStats counts what the races of a run did.
type RaceStats struct {
	// Races counts the races by point: "plan", "reread", "apply".
	Races map[string]int
	// Caught counts the races before the re-read that wrote a record
	// set zonesync was about to create, after which the cycle's error
	// wrapped provider.ErrCreateWouldOverwrite.
	Caught int
	// Overwritten counts the records the writer created in the provider's
	// ApplyChanges (the window left after the re-read) that zonesync's
	// create then replaced.
	Overwritten int
	// Skipped counts the cycles that planned while endpoints with a set
	// identifier were desired: each of those plans skipped every one as
	// plan.SkipUnsupported (checked).
	Skipped int
}

// String describes s for a log line.
func (s RaceStats) String() string {
	return fmt.Sprintf("races: %d after the plan, %d at the re-read, %d in the provider's apply; %d caught by the re-read, %d overwritten after it; %d plans skipped set identifiers as unsupported",
		s.Races["plan"], s.Races["reread"], s.Races["apply"], s.Caught, s.Overwritten, s.Skipped)
}

// Harness drives the desired set of a Reconciler with the TXT registry and
// a second writer that adds, changes and deletes foreign records, runs the
// cycles and checks the integrity invariants of issue 21 after each: no
// record zonesync did not create is ever modified or deleted (1); once the
// faults stop, at most two clean cycles leave exactly the desired records,
// each with its ownership TXT, and no ownership TXT without its record (2);
// every ownership TXT of ours names one owner and a record zonesync
// desired, with data it desired (3). It also checks that no endpoint with
// a set identifier reaches a provider that does not keep them (with
// Config.SetIdentifiers the desired set holds some, and every plan must
// skip them as plan.SkipUnsupported), and that the registry's re-read
// catches every race before it that wrote a record set the plan creates
// (the cycle's error wraps provider.ErrCreateWouldOverwrite).
//
// A Harness is used by one test goroutine; the provider hooks it hands
// out may be called from the Reconciler's calls in that goroutine.
type Harness struct {
	t    testing.TB
	seed uint64
	cfg  Config

	src *source.Static
	rec *zonesync.Reconciler
	// guarantees are those of the provider under the Reconciler.
	guarantees provider.Guarantees

	desired     map[rkey]endpoint.Targets
	setIDs      map[skey]endpoint.Targets
	everDesired map[rkey]map[string]bool
	ledger      map[rkey]*foreignRec

	rngDesired, rngWriter, rngRace *rand.Rand
	rngPlan, rngReread, rngSetIDs  *rand.Rand
	rngOwnerName                   *rand.Rand
	faults                         bool // the faulty phase is on
	cycle                          int
	serial                         int // makes writer values unique

	// The cycle in progress.
	planned  *plan.Changes // what the Reconciler handed to the registry
	applying bool          // inside the registry's ApplyChanges
	reread   bool          // the registry re-read the zone successfully
	raced    []rkey        // records the writer created before the re-read for planned creates
	window   map[rkey]bool // keys the provider call in progress creates (ApplyRaceRate)
	stats    RaceStats     // counts of the run
	found    []string      // violations seen by the hooks

	evMu    sync.Mutex // guards events: a proxy may log from its goroutines
	events  []string   // this cycle's events
	history [][]string
}

// New returns a harness over cfg.Direct. Whatever the zone holds at the
// start is someone else's and must never change.
func New(t testing.TB, seed uint64, cfg Config) *Harness {
	t.Helper()
	if cfg.Direct == nil {
		t.Fatalf("chaos: Config.Direct is nil")
	}
	h := &Harness{
		t:            t,
		seed:         seed,
		cfg:          cfg,
		src:          source.NewStatic(),
		desired:      map[rkey]endpoint.Targets{},
		setIDs:       map[skey]endpoint.Targets{},
		everDesired:  map[rkey]map[string]bool{},
		ledger:       map[rkey]*foreignRec{},
		rngDesired:   rand.New(rand.NewPCG(seed, streamDesired)),
		rngWriter:    rand.New(rand.NewPCG(seed, streamWriter)),
		rngRace:      rand.New(rand.NewPCG(seed, streamApplyRace)),
		rngPlan:      rand.New(rand.NewPCG(seed, streamPlanRace)),
		rngReread:    rand.New(rand.NewPCG(seed, streamReread)),
		rngSetIDs:    rand.New(rand.NewPCG(seed, streamSetIDs)),
		rngOwnerName: rand.New(rand.NewPCG(seed, streamOwnerName)),
		stats:        RaceStats{Races: map[string]int{}},
	}
	for k, ep := range h.read(t.Context()) {
		h.ledger[k] = &foreignRec{ep: ep, static: true}
	}
	return h
}

// Reconciler builds the Reconciler under test over p: the TXT registry with
// owner OwnerID and the harness's source, with the safety threshold off
// (the desired set changes by large fractions on purpose). The registry
// gets p behind a layer that races at the re-read (Config.RereadRaceRate)
// and checks what reaches p; the Reconciler gets the registry behind a
// layer that races after the plan (Config.PlanRaceRate). Put the faults in
// p.
func (h *Harness) Reconciler(p provider.Provider) *zonesync.Reconciler {
	h.t.Helper()
	h.guarantees = provider.GuaranteesOf(p)
	if h.cfg.SetIdentifiers && h.guarantees.KeepsSetIdentifiers {
		h.t.Fatalf("chaos: Config.SetIdentifiers is for a provider that does not keep set identifiers")
	}
	hooked := providertest.Intercept(p, providertest.Funcs{
		Records:      h.rereadHook,
		ApplyChanges: h.checkSent,
	})
	reg, err := txt.New(hooked, txt.Config{OwnerID: OwnerID})
	if err != nil {
		h.t.Fatalf("chaos: txt.New: %v", err)
	}
	h.rec = &zonesync.Reconciler{
		Source:   h.src,
		Registry: &racingRegistry{Registry: reg, h: h},
		Safety:   plan.SafetyThreshold{Disabled: true},
		Observer: cycleObserver{h},
	}
	return h.rec
}

// cycleObserver checks the plan of every cycle that planned: each desired
// endpoint with a set identifier is skipped as unsupported.
type cycleObserver struct{ h *Harness }

func (cycleObserver) CycleStarted(context.Context, time.Time) {}

func (o cycleObserver) CycleFinished(_ context.Context, c zonesync.Cycle) {
	h := o.h
	if c.Plan == nil || !h.cfg.SetIdentifiers || len(h.setIDs) == 0 {
		return
	}
	h.stats.Skipped++
	h.found = append(h.found, h.unsupportedSkipped(c.Plan)...)
}

// racingRegistry is the registry of the Reconciler under test: it notes
// the plan, checks it and lets the writer race before the registry's
// ApplyChanges. Its capabilities are those of the registry it wraps
// (Unwrap).
type racingRegistry struct {
	registry.Registry
	h *Harness
}

// Unwrap returns the wrapped registry, for registry.As and provider.As.
func (r *racingRegistry) Unwrap() provider.Provider { return r.Registry }

// ApplyChanges races (Config.PlanRaceRate) and applies changes through the
// wrapped registry.
func (r *racingRegistry) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	h := r.h
	h.planned = changes
	if !h.guarantees.KeepsSetIdentifiers {
		h.noSetIDs("the plan", changes)
	}
	if h.faults && h.cfg.PlanRaceRate > 0 && h.rngPlan.Float64() < h.cfg.PlanRaceRate {
		h.stats.Races["plan"]++
		h.racePlanned(ctx, h.rngPlan, "race after the plan")
	}
	h.applying = true
	defer func() { h.applying = false }()
	return r.Registry.ApplyChanges(ctx, changes)
}

// rereadHook is the Records hook under the registry: a Records call while
// the registry applies is its re-read, at whose start the writer races
// (Config.RereadRaceRate).
func (h *Harness) rereadHook(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
	if !h.applying {
		return next.Records(ctx)
	}
	if h.faults && h.cfg.RereadRaceRate > 0 && h.rngReread.Float64() < h.cfg.RereadRaceRate {
		h.stats.Races["reread"]++
		h.racePlanned(ctx, h.rngReread, "race at the re-read")
	}
	recs, err := next.Records(ctx)
	h.reread = err == nil
	return recs, err
}

// checkSent is the ApplyChanges hook under the registry: it checks that no
// endpoint with a set identifier reaches a provider that drops them.
func (h *Harness) checkSent(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
	if !h.guarantees.KeepsSetIdentifiers {
		h.noSetIDs("the provider", changes)
	}
	return next.ApplyChanges(ctx, changes)
}

// noSetIDs records a violation for every endpoint of changes with a set
// identifier.
func (h *Harness) noSetIDs(where string, changes *plan.Changes) {
	if changes == nil {
		return
	}
	for _, list := range [][]*endpoint.Endpoint{changes.Create, changes.UpdateOld, changes.UpdateNew, changes.Delete} {
		for _, ep := range list {
			if ep != nil && ep.SetIdentifier != "" {
				h.found = append(h.found, fmt.Sprintf("set identifier: %s %s/%s set %q reached %s, which does not keep set identifiers",
					ep.DNSName, ep.RecordType, ep.Targets, ep.SetIdentifier, where))
			}
		}
	}
}

// Switchable returns the provider a run's Reconciler works on: normal
// while on reports false (the clean cycles), faulty while it reports true
// (the faulty phase, [Harness.Run]'s switch), with the second writer racing
// the applies of the faulty phase ([Harness.RacingApply]).
func (h *Harness) Switchable(normal, faulty provider.Provider, on interface{ Load() bool }) provider.Provider {
	return providertest.Intercept(normal, providertest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			if on.Load() {
				return faulty.Records(ctx)
			}
			return next.Records(ctx)
		},
		ApplyChanges: func(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
			if on.Load() {
				return h.RacingApply(ctx, faulty, changes)
			}
			return next.ApplyChanges(ctx, changes)
		},
	})
}

// RacingApply is an ApplyChanges interceptor (providertest.Funcs) for the
// provider under the Reconciler: during the faulty phase the second writer
// sometimes (Config.ApplyRaceRate) acts right before the changes are
// applied, after the Reconciler read the zone and after any re-read of the
// registry.
func (h *Harness) RacingApply(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
	if h.faults && h.rngRace.Float64() < h.cfg.ApplyRaceRate {
		h.stats.Races["apply"]++
		if !h.guarantees.CreateFailsIfExists {
			h.window = map[rkey]bool{}
			for _, ep := range changes.Create {
				if ep != nil {
					h.window[keyOf(ep)] = true
				}
			}
		}
		h.race(ctx, h.rngRace, changes)
		h.window = nil
	}
	return next.ApplyChanges(ctx, changes)
}

// Logf adds an event to the cycle's log, shown when a check fails. It is
// safe for concurrent use.
func (h *Harness) Logf(format string, args ...any) {
	h.evMu.Lock()
	h.events = append(h.events, fmt.Sprintf(format, args...))
	h.evMu.Unlock()
}

// Races returns the counts of the races of the run so far.
func (h *Harness) Races() RaceStats {
	s := h.stats
	s.Races = map[string]int{}
	for k, v := range h.stats.Races {
		s.Races[k] = v
	}
	return s
}

// Fillers writes n long foreign TXT records, so that a zone transfer
// takes more than one message.
func (h *Harness) Fillers(n int) {
	h.t.Helper()
	if n == 0 {
		return
	}
	var ch plan.Changes
	for i := range n {
		ep := endpoint.NewEndpointWithTTL(fmt.Sprintf("fill%03d.%s", i, Zone), endpoint.RecordTypeTXT, foreignTTL,
			h.txtValue(fmt.Sprintf("filler %03d %s", i, strings.Repeat("x", 240))))
		ch.Create = append(ch.Create, ep)
	}
	if err := h.cfg.Direct.ApplyChanges(h.t.Context(), &ch); err != nil {
		h.t.Fatalf("chaos: writing %d filler records: %v", n, err)
	}
	st := h.read(h.t.Context())
	for _, ep := range ch.Create {
		k := keyOf(ep)
		if st[k] == nil {
			h.t.Fatalf("chaos: filler %s is not in the zone after writing it", k)
		}
		h.ledger[k] = &foreignRec{ep: st[k], static: true}
	}
}

// txtValue returns v in the form the writer writes TXT data.
func (h *Harness) txtValue(v string) string {
	if h.cfg.QuoteTXT {
		return strconv.Quote(v)
	}
	return v
}

// read reads the zone directly, by RRset. The SOA record is left out: the
// server changes its serial with every change.
func (h *Harness) read(ctx context.Context) zoneState {
	h.t.Helper()
	eps, err := h.cfg.Direct.Records(ctx)
	if err != nil {
		h.t.Fatalf("reading the zone directly (seed %d, cycle %d): %v", h.seed, h.cycle, err)
	}
	st := zoneState{}
	for _, ep := range eps {
		if ep.RecordType == "SOA" {
			continue
		}
		k := keyOf(ep)
		if st[k] != nil {
			h.t.Fatalf("the zone holds two RRsets %s (seed %d, cycle %d)", k, h.seed, h.cycle)
		}
		st[k] = ep
	}
	return st
}

// runCycle runs one cycle of the Reconciler and checks invariants 1 and 3,
// the set identifiers and the races caught by the re-read.
func (h *Harness) runCycle(ctx context.Context, phase string) (zoneState, error) {
	h.t.Helper()
	h.planned, h.reread, h.raced, h.found = nil, false, nil, nil
	cyc, err := h.rec.RunOnce(ctx)
	changes := cyc.Changes
	if changes != nil {
		h.Logf("zonesync: %d creates, %d updates, %d deletes", len(changes.Create), len(changes.UpdateNew), len(changes.Delete))
		if !h.guarantees.KeepsSetIdentifiers {
			h.noSetIDs("the cycle's changes", changes)
		}
	}
	if err != nil {
		h.Logf("zonesync: RunOnce: %v", err)
	}
	if len(h.raced) > 0 && h.reread {
		if errors.Is(err, provider.ErrCreateWouldOverwrite) {
			h.stats.Caught++
		} else {
			h.found = append(h.found, fmt.Sprintf("re-read: the writer created %v, which the plan was about to create, before the registry's re-read, "+
				"and the cycle's error does not wrap provider.ErrCreateWouldOverwrite: %v", h.raced, err))
		}
	}
	st := h.read(ctx)
	v := append(h.found, h.safety(st)...)
	for _, f := range h.ledger {
		f.window = false // only the cycle of the race may overwrite it
	}
	if len(v) > 0 {
		h.endCycle()
		h.fail(phase, v)
	}
	return st, err
}

// Run is the whole scenario: cycles with faults, the second writer and a
// changing desired set, then up to two clean cycles that must converge.
// setFaults turns the test's faults on and off; stats describes them for
// the log.
func (h *Harness) Run(cycles int, setFaults func(on bool), stats func() string) {
	h.t.Helper()
	if h.rec == nil {
		h.t.Fatalf("chaos: Run before Reconciler")
	}
	ctx := h.t.Context()
	failed := 0
	h.faults = true
	setFaults(true)
	for c := 1; c <= cycles; c++ {
		h.cycle = c
		for range h.rngWriter.IntN(3) {
			h.writerOp(ctx, "between cycles")
		}
		h.mutateDesired()
		if _, err := h.runCycle(ctx, "faults on"); err != nil {
			failed++
		}
		h.endCycle()
	}
	h.faults = false
	setFaults(false)
	h.t.Logf("%d faulty cycles, %d returned an error; %s; %d foreign records, %d desired", cycles, failed, stats(), len(h.ledger), len(h.desired))
	if h.cfg.SetIdentifiers || h.cfg.PlanRaceRate+h.cfg.RereadRaceRate > 0 || h.stats.Overwritten > 0 {
		h.t.Logf("%s; %d desired with a set identifier", h.stats, len(h.setIDs))
	}
	var last []string
	for i := 1; i <= 2; i++ {
		h.cycle = cycles + i
		st, err := h.runCycle(ctx, fmt.Sprintf("clean cycle %d", i))
		h.endCycle()
		last = h.converged(st)
		if len(last) == 0 {
			h.t.Logf("converged after %d clean cycles (last error: %v)", i, err)
			return
		}
	}
	h.failWith("not converged after 2 clean cycles", last, h.context(ctx))
}

// endCycle files the cycle's events (the last few cycles are kept).
func (h *Harness) endCycle() {
	h.evMu.Lock()
	defer h.evMu.Unlock()
	h.history = append(h.history, h.events)
	if len(h.history) > 4 {
		h.history = h.history[1:]
	}
	h.events = nil
}

// fail reports violations with the seed, the cycle and the recent events,
// and stops the test.
func (h *Harness) fail(phase string, violations []string) {
	h.t.Helper()
	h.failWith(phase, violations, h.context(h.t.Context()))
}

func (h *Harness) failWith(phase string, violations, context []string) {
	h.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, cycle %d (%s): %d violations:\n", h.seed, h.cycle, phase, len(violations))
	for _, s := range violations {
		b.WriteString("  " + s + "\n")
	}
	b.WriteString("state:\n")
	for _, s := range context {
		b.WriteString("  " + s + "\n")
	}
	b.WriteString("recent events:\n")
	for i, evs := range h.history {
		fmt.Fprintf(&b, " cycle %d:\n", h.cycle-len(h.history)+1+i)
		for _, e := range evs {
			b.WriteString("   " + e + "\n")
		}
	}
	fmt.Fprintf(&b, "replay with %s=%d", SeedEnv, h.seed)
	h.t.Fatal(b.String())
}

// context describes the state for a failure message: the desired set, the
// plan of a next cycle and the zone (without the static foreign records).
func (h *Harness) context(ctx context.Context) []string {
	var out []string
	for _, k := range sortedKeys(h.desired) {
		out = append(out, fmt.Sprintf("desired: %s %v", k, h.desired[k]))
	}
	for _, k := range sortedSetKeys(h.setIDs) {
		out = append(out, fmt.Sprintf("desired: %s %v (set identifier)", k, h.setIDs[k]))
	}
	if pv, err := h.rec.Preview(ctx); err == nil {
		out = append(out, strings.Split("next plan:\n"+pv.String(), "\n")...)
	}
	st := h.read(ctx)
	for _, k := range sortedKeys(st) {
		f := h.ledger[k]
		switch {
		case f == nil:
			out = append(out, fmt.Sprintf("zone: %s %v", k, st[k].Targets))
		case !f.static:
			out = append(out, fmt.Sprintf("zone: %s %v (foreign)", k, st[k].Targets))
		}
	}
	return out
}

// sortedKeys returns the keys of m in name, type order.
func sortedKeys[V any](m map[rkey]V) []rkey {
	out := make([]rkey, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, compareKeys)
	return out
}

func compareKeys(a, b rkey) int {
	if c := strings.Compare(a.name, b.name); c != 0 {
		return c
	}
	return strings.Compare(a.typ, b.typ)
}
