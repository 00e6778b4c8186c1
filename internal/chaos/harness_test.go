package chaos_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

const (
	zone       = "example.org"
	ourOwner   = "chaos"
	otherOwner = "other"
	// seedEnv sets the seed of a run; defaultSeed is used without it.
	seedEnv     = "ZONESYNC_CHAOS_SEED"
	defaultSeed = 20260521
	foreignTTL  = 600
	// poolSize names (n00...) may be desired by zonesync and written by
	// the second writer; foreignOnly names (f0...) only by the writer.
	poolSize    = 24
	foreignOnly = 6
)

// chaosSeed returns the seed of this run and logs it.
func chaosSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(defaultSeed)
	if v := os.Getenv(seedEnv); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		require.NoError(t, err, "%s=%q is not a decimal uint64", seedEnv, v)
		seed = s
	}
	t.Logf("chaos seed %d (set %s to replay another)", seed, seedEnv)
	return seed
}

// rkey identifies an RRset: canonical name and type.
type rkey struct{ name, typ string }

func (k rkey) String() string { return k.name + "/" + k.typ }

func keyOf(ep *endpoint.Endpoint) rkey {
	return rkey{endpoint.ToALabel(ep.DNSName), ep.RecordType}
}

func sortedKeys[V any](m map[rkey]V) []rkey {
	out := make([]rkey, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b rkey) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return strings.Compare(a.typ, b.typ)
	})
	return out
}

// zoneState is the zone as read directly (without faults), by RRset.
type zoneState map[rkey]*endpoint.Endpoint

// targetsKey is a canonical form of a target list.
func targetsKey(ts endpoint.Targets) string {
	s := slices.Clone([]string(ts))
	slices.Sort(s)
	return strings.Join(s, ",")
}

// typedTXTName is the default ownership TXT name of the TXT registry.
func typedTXTName(k rkey) string {
	return strings.ToLower(k.typ) + "-" + k.name
}

// ownership is an ownership TXT record as read from the zone, parsed here
// independently of the registry's parser.
type ownership struct {
	record rkey // zero typ when the name carries no known type prefix
	owners []string
	value  string
}

// parseOwnership parses ep as an ownership TXT record (heritage
// external-dns, in the typed naming of the default configuration).
func parseOwnership(ep *endpoint.Endpoint) (ownership, bool) {
	if ep.RecordType != endpoint.RecordTypeTXT {
		return ownership{}, false
	}
	for _, t := range ep.Targets {
		v := strings.Trim(t, `"`)
		parts := strings.Split(v, ",")
		if parts[0] != "heritage=external-dns" {
			continue
		}
		o := ownership{value: v}
		for _, p := range parts[1:] {
			if owner, ok := strings.CutPrefix(p, "external-dns/owner="); ok {
				o.owners = append(o.owners, owner)
			}
		}
		name := endpoint.ToALabel(ep.DNSName)
		first, rest, _ := strings.Cut(name, ".")
		for _, typ := range []string{endpoint.RecordTypeCNAME, endpoint.RecordTypeAAAA, endpoint.RecordTypeA} {
			if label, ok := strings.CutPrefix(first, strings.ToLower(typ)+"-"); ok && label != "" {
				o.record = rkey{label + "." + rest, typ}
				break
			}
		}
		return o, true
	}
	return ownership{}, false
}

func (o ownership) ours() bool { return slices.Contains(o.owners, ourOwner) }

// foreignRec is a record of the second writer, as it last left it.
type foreignRec struct {
	ep     *endpoint.Endpoint
	static bool // infrastructure or filler: never changed
	// lure: created while an ownership TXT of ours stood for its key
	// (an orphan TXT left by zonesync).
	lure bool
	// pair is the other half of a record owned by another owner (the
	// record for its TXT, the TXT for its record), zero when none.
	pair rkey
	born int // cycle
}

// harnessConfig is what differs between the named and the in-memory runs.
type harnessConfig struct {
	// direct reads and writes the zone without faults (the second
	// writer and the checks use it).
	direct provider.Provider
	// raceRate is the chance that the second writer acts between the
	// Reconciler's read and its apply, during the faulty phase.
	raceRate float64
	// nonAtomic is set for a provider that applies a call change by
	// change. The TXT registry then sends an ownership TXT before its
	// record, so a racing writer that creates the record first leaves, for
	// a while, our TXT beside its record: not a takeover as long as
	// zonesync never touches the record (invariant 1, checked every cycle)
	// and removes the TXT (invariant 2). Such a TXT is tolerated until the
	// faults stop.
	nonAtomic bool
}

// harness drives the desired set and the second writer, and checks the
// invariants of issue 21.
type harness struct {
	t    *testing.T
	seed uint64
	cfg  harnessConfig

	src *source.Static
	rec *zonesync.Reconciler

	desired     map[rkey]endpoint.Targets
	everDesired map[rkey]map[string]bool
	ledger      map[rkey]*foreignRec

	rngDesired, rngWriter, rngRace *rand.Rand
	faults                         bool // the faulty phase is on
	cycle                          int
	serial                         int // makes writer values unique

	evMu    sync.Mutex // guards events: the proxy logs its cuts from its goroutines
	events  []string   // this cycle's events
	history [][]string
}

func newHarness(t *testing.T, seed uint64, cfg harnessConfig) *harness {
	h := &harness{
		t:           t,
		seed:        seed,
		cfg:         cfg,
		src:         source.NewStatic(),
		desired:     map[rkey]endpoint.Targets{},
		everDesired: map[rkey]map[string]bool{},
		ledger:      map[rkey]*foreignRec{},
		rngDesired:  rand.New(rand.NewPCG(seed, 1)),
		rngWriter:   rand.New(rand.NewPCG(seed, 2)),
		rngRace:     rand.New(rand.NewPCG(seed, 3)),
	}
	// Whatever the zone holds at the start is someone else's.
	for k, ep := range h.read(t.Context()) {
		h.ledger[k] = &foreignRec{ep: ep, static: true}
	}
	return h
}

// reconciler builds the Reconciler under test over p: the TXT registry
// and the in-memory source. The safety threshold is off, since the
// desired set changes by large fractions on purpose.
func (h *harness) reconciler(p provider.Provider) {
	reg, err := txt.New(p, txt.Config{OwnerID: ourOwner})
	require.NoError(h.t, err)
	h.rec = &zonesync.Reconciler{Source: h.src, Registry: reg, Safety: plan.SafetyThreshold{Disabled: true}}
}

// racingApply is an ApplyChanges interceptor: during the faulty phase the
// second writer sometimes acts right before the changes are applied, after
// the Reconciler has read the zone.
func (h *harness) racingApply(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
	if h.faults && h.rngRace.Float64() < h.cfg.raceRate {
		h.race(ctx, changes)
	}
	return next.ApplyChanges(ctx, changes)
}

func (h *harness) logf(format string, args ...any) {
	h.evMu.Lock()
	h.events = append(h.events, fmt.Sprintf(format, args...))
	h.evMu.Unlock()
}

// fillers writes n long foreign TXT records, so that a zone transfer
// takes more than one message.
func (h *harness) fillers(n int) {
	if n == 0 {
		return
	}
	var ch plan.Changes
	for i := range n {
		ep := endpoint.NewEndpointWithTTL(fmt.Sprintf("fill%03d.%s", i, zone), endpoint.RecordTypeTXT, foreignTTL,
			fmt.Sprintf("filler %03d %s", i, strings.Repeat("x", 240)))
		ch.Create = append(ch.Create, ep)
	}
	require.NoError(h.t, h.cfg.direct.ApplyChanges(h.t.Context(), &ch))
	st := h.read(h.t.Context())
	for _, ep := range ch.Create {
		k := keyOf(ep)
		require.Contains(h.t, st, k)
		h.ledger[k] = &foreignRec{ep: st[k], static: true}
	}
}

func (h *harness) read(ctx context.Context) zoneState {
	h.t.Helper()
	eps, err := h.cfg.direct.Records(ctx)
	require.NoError(h.t, err, "reading the zone directly (seed %d, cycle %d)", h.seed, h.cycle)
	st := zoneState{}
	for _, ep := range eps {
		k := keyOf(ep)
		if st[k] != nil {
			h.t.Fatalf("the zone holds two RRsets %s (seed %d, cycle %d)", k, h.seed, h.cycle)
		}
		st[k] = ep
	}
	return st
}

// ---- desired set ----

func poolName(i int) string    { return fmt.Sprintf("n%02d.%s", i, zone) }
func foreignName(i int) string { return fmt.Sprintf("f%d.%s", i, zone) }

func (h *harness) desiredType(name string) string {
	for _, typ := range []string{endpoint.RecordTypeA, endpoint.RecordTypeCNAME} {
		if _, ok := h.desired[rkey{name, typ}]; ok {
			return typ
		}
	}
	return ""
}

func (h *harness) desiredTargets(typ string) endpoint.Targets {
	r := h.rngDesired
	if typ == endpoint.RecordTypeCNAME {
		return endpoint.Targets{fmt.Sprintf("app%d.zonesync.test", r.IntN(40))}
	}
	a := fmt.Sprintf("192.0.2.%d", 1+r.IntN(60))
	if r.IntN(3) == 0 {
		if b := fmt.Sprintf("192.0.2.%d", 1+r.IntN(60)); b != a {
			return endpoint.Targets{a, b}
		}
	}
	return endpoint.Targets{a}
}

// mutateDesired changes the desired set: names created, retargeted,
// removed, and moved between A and CNAME.
func (h *harness) mutateDesired() {
	r := h.rngDesired
	for range 1 + r.IntN(3) {
		name := poolName(r.IntN(poolSize))
		typ := h.desiredType(name)
		switch {
		case typ == "" && len(h.desired) < 16:
			typ = endpoint.RecordTypeA
			if r.IntN(3) == 0 {
				typ = endpoint.RecordTypeCNAME
			}
			h.desired[rkey{name, typ}] = h.desiredTargets(typ)
			h.logf("desired: create %s %s %v", name, typ, h.desired[rkey{name, typ}])
		case typ == "":
		case r.IntN(10) < 4:
			h.desired[rkey{name, typ}] = h.desiredTargets(typ)
			h.logf("desired: retarget %s %s %v", name, typ, h.desired[rkey{name, typ}])
		case r.IntN(10) < 5 || len(h.desired) > 12:
			delete(h.desired, rkey{name, typ})
			h.logf("desired: remove %s %s", name, typ)
		default:
			delete(h.desired, rkey{name, typ})
			typ = map[string]string{endpoint.RecordTypeA: endpoint.RecordTypeCNAME, endpoint.RecordTypeCNAME: endpoint.RecordTypeA}[typ]
			h.desired[rkey{name, typ}] = h.desiredTargets(typ)
			h.logf("desired: move %s to %s %v", name, typ, h.desired[rkey{name, typ}])
		}
	}
	eps := make([]*endpoint.Endpoint, 0, len(h.desired))
	for _, k := range sortedKeys(h.desired) {
		ts := h.desired[k]
		eps = append(eps, endpoint.NewEndpoint(k.name, k.typ, ts...))
		if h.everDesired[k] == nil {
			h.everDesired[k] = map[string]bool{}
		}
		h.everDesired[k][targetsKey(ts)] = true
	}
	h.src.Set(eps...)
}

// ---- the second writer ----

func (h *harness) foreignTargets(typ string) endpoint.Targets {
	h.serial++
	n := h.serial
	switch typ {
	case endpoint.RecordTypeA:
		return endpoint.Targets{fmt.Sprintf("198.51.100.%d", 1+n%250)}
	case endpoint.RecordTypeAAAA:
		return endpoint.Targets{fmt.Sprintf("2001:db8::%x", n)}
	case endpoint.RecordTypeCNAME:
		return endpoint.Targets{fmt.Sprintf("ext%d.foreign.test", n)}
	default:
		return endpoint.Targets{fmt.Sprintf("foreign-%d", n)}
	}
}

// ourTXTFor reports whether the zone holds an ownership TXT of ours for k.
func ourTXTFor(st zoneState, k rkey) bool {
	ep := st[rkey{typedTXTName(k), endpoint.RecordTypeTXT}]
	if ep == nil {
		return false
	}
	o, ok := parseOwnership(ep)
	return ok && o.ours()
}

// canCreate reports whether a create of k by the writer could succeed in st
// (no RRset there, no CNAME conflict).
func canCreate(st zoneState, k rkey) bool {
	if st[k] != nil {
		return false
	}
	if k.typ == endpoint.RecordTypeCNAME {
		for o := range st {
			if o.name == k.name {
				return false
			}
		}
		return true
	}
	return st[rkey{k.name, endpoint.RecordTypeCNAME}] == nil
}

// writerCreate creates k with foreign data, as a record of another owner
// (with that owner's ownership TXT, in the same call) when otherOwned.
func (h *harness) writerCreate(ctx context.Context, st zoneState, k rkey, otherOwned bool, why string) {
	if !canCreate(st, k) {
		return
	}
	ep := endpoint.NewEndpointWithTTL(k.name, k.typ, foreignTTL, h.foreignTargets(k.typ)...)
	ch := &plan.Changes{Create: []*endpoint.Endpoint{ep}}
	var txtKey rkey
	if otherOwned {
		txtKey = rkey{typedTXTName(k), endpoint.RecordTypeTXT}
		if st[txtKey] != nil {
			return
		}
		value := fmt.Sprintf(`"heritage=external-dns,external-dns/owner=%s,external-dns/resource=service/foreign/%s"`, otherOwner, strings.SplitN(k.name, ".", 2)[0])
		ch.Create = append(ch.Create, endpoint.NewEndpointWithTTL(txtKey.name, endpoint.RecordTypeTXT, foreignTTL, value))
	}
	lure := ourTXTFor(st, k)
	if err := h.cfg.direct.ApplyChanges(ctx, ch); err != nil {
		h.logf("writer (%s): create %s %v rejected: %v", why, k, ep.Targets, err)
		return
	}
	h.ledger[k] = &foreignRec{ep: ep, lure: lure, pair: txtKey, born: h.cycle}
	what := "create"
	if otherOwned {
		h.ledger[txtKey] = &foreignRec{ep: ch.Create[1], pair: k, born: h.cycle}
		what = "create (owner " + otherOwner + ")"
	}
	if lure {
		what += " under an ownership TXT of ours (lure)"
	}
	h.logf("writer (%s): %s %s %v", why, what, k, ep.Targets)
}

// mutable returns the writer's records it may change, sorted: not static,
// and for a pair the record, not its TXT.
func (h *harness) mutable() []rkey {
	var out []rkey
	for _, k := range sortedKeys(h.ledger) {
		f := h.ledger[k]
		if f.static || (f.pair != rkey{} && k.typ == endpoint.RecordTypeTXT) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// writerOp does one random operation of the second writer.
func (h *harness) writerOp(ctx context.Context, why string) {
	r := h.rngWriter
	st := h.read(ctx)
	mine := h.mutable()
	switch x := r.Float64(); {
	case len(mine) < 4 || x < 0.45:
		var name string
		switch y := r.IntN(10); {
		case y < 4 && len(h.desired) > 0: // a name zonesync desires now
			ks := sortedKeys(h.desired)
			name = ks[r.IntN(len(ks))].name
		case y < 8:
			name = poolName(r.IntN(poolSize))
		default:
			name = foreignName(r.IntN(foreignOnly))
		}
		if r.IntN(5) == 0 {
			h.writerCreate(ctx, st, rkey{name, endpoint.RecordTypeA}, true, why)
			return
		}
		types := []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT}
		h.writerCreate(ctx, st, rkey{name, types[r.IntN(len(types))]}, false, why)
	case x < 0.75:
		k := mine[r.IntN(len(mine))]
		f := h.ledger[k]
		upd := f.ep.DeepCopy()
		upd.Targets = h.foreignTargets(k.typ)
		ch := &plan.Changes{UpdateOld: []*endpoint.Endpoint{f.ep}, UpdateNew: []*endpoint.Endpoint{upd}}
		if err := h.cfg.direct.ApplyChanges(ctx, ch); err != nil {
			h.logf("writer (%s): update %s rejected: %v", why, k, err)
			return
		}
		f.ep = upd
		h.logf("writer (%s): update %s to %v", why, k, upd.Targets)
	default:
		k := mine[r.IntN(len(mine))]
		f := h.ledger[k]
		ch := &plan.Changes{Delete: []*endpoint.Endpoint{f.ep}}
		if f.pair != (rkey{}) {
			ch.Delete = append(ch.Delete, h.ledger[f.pair].ep)
		}
		if err := h.cfg.direct.ApplyChanges(ctx, ch); err != nil {
			h.logf("writer (%s): delete %s rejected: %v", why, k, err)
			return
		}
		delete(h.ledger, k)
		if f.pair != (rkey{}) {
			delete(h.ledger, f.pair)
		}
		h.logf("writer (%s): delete %s", why, k)
	}
}

// race is the writer acting between the Reconciler's read and its apply:
// mostly it creates, with its own data, a record zonesync is about to
// create; otherwise it does a random operation.
func (h *harness) race(ctx context.Context, changes *plan.Changes) {
	var creates []rkey
	for _, ep := range changes.Create {
		if ep != nil && ep.RecordType != endpoint.RecordTypeTXT {
			creates = append(creates, keyOf(ep))
		}
	}
	if len(creates) > 0 && h.rngRace.IntN(10) < 7 {
		k := creates[h.rngRace.IntN(len(creates))]
		h.writerCreate(ctx, h.read(ctx), k, h.rngRace.IntN(4) == 0, "race")
		return
	}
	h.writerOp(ctx, "race")
}

// ---- invariants ----

// blocked reports whether a foreign record keeps zonesync from holding
// the desired RRset k: one at k itself; one of a managed type (A, AAAA,
// CNAME) at its name, since the planner creates nothing at a name holding
// a record that is not ours; any at the name of a desired CNAME, or a CNAME
// at the name of another type, since a DNS server refuses a CNAME next to
// other data.
func (h *harness) blocked(k rkey) bool {
	for o := range h.ledger {
		if o.name != k.name {
			continue
		}
		switch o.typ {
		case k.typ, endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME:
			return true
		}
		if k.typ == endpoint.RecordTypeCNAME {
			return true
		}
	}
	return false
}

// safety checks invariants 1 and 3 on st.
func (h *harness) safety(st zoneState) []string {
	var v []string
	for _, k := range sortedKeys(h.ledger) {
		f := h.ledger[k]
		got := st[k]
		switch {
		case got == nil:
			v = append(v, fmt.Sprintf("invariant 1: foreign %s %v (written at cycle %d%s) was deleted", k, f.ep.Targets, f.born, lureNote(f)))
		case targetsKey(got.Targets) != targetsKey(f.ep.Targets) || got.RecordTTL != f.ep.RecordTTL:
			v = append(v, fmt.Sprintf("invariant 1: foreign %s (written at cycle %d%s) was changed from %v TTL %d to %v TTL %d",
				k, f.born, lureNote(f), f.ep.Targets, f.ep.RecordTTL, got.Targets, got.RecordTTL))
		}
	}
	for _, k := range sortedKeys(st) {
		o, ok := parseOwnership(st[k])
		if !ok || !o.ours() {
			continue
		}
		if len(o.owners) != 1 {
			v = append(v, fmt.Sprintf("invariant 3: ownership TXT %s names owners %v: %s", k, o.owners, o.value))
		}
		if o.record.typ == "" {
			v = append(v, fmt.Sprintf("invariant 3: ownership TXT of ours %s names no record type", k))
			continue
		}
		if h.everDesired[o.record] == nil {
			v = append(v, fmt.Sprintf("invariant 3: ownership TXT of ours %s for %s, which was never desired", k, o.record))
			continue
		}
		rec := st[o.record]
		if rec == nil {
			continue // an orphan: invariant 2's business once the faults stop
		}
		if f := h.ledger[o.record]; f != nil {
			if !f.lure && !(h.cfg.nonAtomic && h.faults) {
				v = append(v, fmt.Sprintf("invariant 3: foreign %s %v (written at cycle %d, when no ownership TXT of ours stood for it) now carries our ownership TXT %s: taken over",
					o.record, f.ep.Targets, f.born, k))
			}
			continue
		}
		if !h.everDesired[o.record][targetsKey(rec.Targets)] {
			v = append(v, fmt.Sprintf("invariant 3: owned %s holds %v, never desired", o.record, rec.Targets))
		}
	}
	return v
}

func lureNote(f *foreignRec) string {
	if f.lure {
		return ", under an orphan ownership TXT of ours"
	}
	return ""
}

// converged checks invariant 2 on st: exactly the desired records, each
// with its ownership TXT, but where a foreign record blocks them; nothing
// else besides the foreign records.
func (h *harness) converged(st zoneState) []string {
	var v []string
	expected := map[rkey]bool{}
	for _, k := range sortedKeys(h.desired) {
		want := h.desired[k]
		tk := rkey{typedTXTName(k), endpoint.RecordTypeTXT}
		if h.blocked(k) {
			// A CNAME next to other data that provider/inmemory let
			// zonesync create before the foreign record came is fine.
			if h.ledger[k] == nil && st[k] != nil && targetsKey(st[k].Targets) == targetsKey(want) && ourTXTFor(st, k) {
				expected[k], expected[tk] = true, true
			}
			continue
		}
		expected[k] = true
		rec := st[k]
		switch {
		case rec == nil:
			v = append(v, fmt.Sprintf("invariant 2: desired %s %v is missing", k, want))
		case targetsKey(rec.Targets) != targetsKey(want):
			v = append(v, fmt.Sprintf("invariant 2: desired %s holds %v, want %v", k, rec.Targets, want))
		}
		expected[tk] = true
		if st[tk] == nil {
			v = append(v, fmt.Sprintf("invariant 2: desired %s has no ownership TXT (%s)", k, tk.name))
		} else if o, ok := parseOwnership(st[tk]); !ok || !o.ours() || o.record != k {
			v = append(v, fmt.Sprintf("invariant 2: ownership TXT %s of desired %s is not ours: %v", tk.name, k, st[tk].Targets))
		}
	}
	for _, k := range sortedKeys(st) {
		if expected[k] || h.ledger[k] != nil {
			continue
		}
		what := "record"
		if o, ok := parseOwnership(st[k]); ok && o.ours() {
			switch {
			case st[o.record] == nil:
				what = "ownership TXT of ours without its record"
			case h.ledger[o.record] != nil:
				what = "ownership TXT of ours over a foreign record"
			default:
				what = "ownership TXT of ours for an undesired record"
			}
		} else if ourTXTFor(st, k) {
			what = "undesired owned record"
		} else if h.everDesired[k] != nil {
			what = "record zonesync wrote, without ownership TXT"
		}
		v = append(v, fmt.Sprintf("invariant 2: %s %s %v", what, k, st[k].Targets))
	}
	return v
}

// fail reports violations with the seed, the cycle and the recent events,
// and stops the test.
func (h *harness) fail(phase string, violations []string) {
	h.t.Helper()
	h.failWith(phase, violations, h.context(h.t.Context()))
}

func (h *harness) failWith(phase string, violations, context []string) {
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
	fmt.Fprintf(&b, "replay with %s=%d", seedEnv, h.seed)
	h.t.Fatal(b.String())
}

// endCycle files the cycle's events (the last few cycles are kept).
func (h *harness) endCycle() {
	h.evMu.Lock()
	defer h.evMu.Unlock()
	h.history = append(h.history, h.events)
	if len(h.history) > 4 {
		h.history = h.history[1:]
	}
	h.events = nil
}

// runCycle runs one cycle of the Reconciler and checks invariants 1 and 3.
func (h *harness) runCycle(ctx context.Context, phase string) (zoneState, error) {
	h.t.Helper()
	changes, err := h.rec.RunOnce(ctx)
	if changes != nil {
		h.logf("zonesync: %d creates, %d updates, %d deletes", len(changes.Create), len(changes.UpdateNew), len(changes.Delete))
	}
	if err != nil {
		h.logf("zonesync: RunOnce: %v", err)
	}
	st := h.read(ctx)
	if v := h.safety(st); len(v) > 0 {
		h.endCycle()
		h.fail(phase, v)
	}
	return st, err
}

// run is the whole scenario: cycles with faults, the second writer and a
// changing desired set, then up to two clean cycles that must converge.
func (h *harness) run(cycles int, setFaults func(on bool), stats func() string) {
	h.t.Helper()
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

// context describes the state for a failure message: the desired set, the
// plan of a next cycle and the zone (without the static foreign records).
func (h *harness) context(ctx context.Context) []string {
	var out []string
	for _, k := range sortedKeys(h.desired) {
		out = append(out, fmt.Sprintf("desired: %s %v", k, h.desired[k]))
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
