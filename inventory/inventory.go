package inventory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/clock"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// ErrInvalidOptions is wrapped by every error [New] and [NewHandler] return:
// an option out of range, named in the message.
var ErrInvalidOptions = errors.New("invalid inventory options")

// Options configures an [Inventory]. The zero value is useful: no groups, no
// verification of its own (the results of the Reconciler's Verifier are
// still shown).
type Options struct {
	// Groups maps each record to the groups it is listed under.
	Groups GroupMapping
	// ObjectLabels returns the labels of the object behind a record, for
	// Groups.LabelKeys; nil means that only the endpoints' own labels are
	// read. It is called once per object per cycle, on the goroutine of
	// the cycle, and must be quick and safe for concurrent use: read an
	// informer's cache (a lister), never the API server. It returns nil
	// for an object it does not know (a deleted one).
	ObjectLabels func(Object) map[string]string
	// Verifier, when set, lets [Inventory.Run] check the records of the
	// inventory against DNS in the background after each cycle (package
	// verify's Verifier bounds the lookups at once and the time of each).
	// Without it the inventory shows only what the Reconciler's own
	// Verifier found for the records a cycle applied.
	Verifier zonesync.Verifier
	// ReverifyAfter is how old a record's verification must be for
	// [Inventory.Run] to check the record again; zero checks every record
	// after every cycle, as the DNSRecord controller design does.
	// Negative is an error.
	ReverifyAfter time.Duration
	// Clock stamps the checks Run makes; nil means [clock.Real].
	Clock clock.Clock
}

// GroupMapping places records in groups, as the DNSRecord controller
// design's group mapping does. A record gets every group its rules give,
// so several may apply at once:
//
//   - ByNamespace[ns], when the record's object is in namespace ns (the
//     namespace comes from the resource label);
//   - for each key of LabelKeys, the value of that label of the object
//     ([Options.ObjectLabels]) or, when the object has no such label or
//     ObjectLabels is nil, of the endpoint itself ([endpoint.Labels]);
//     an empty value gives no group;
//   - Default, when none of the above gave a group ("" means none).
type GroupMapping struct {
	ByNamespace map[string]string
	LabelKeys   []string
	Default     string
}

// Object is the object behind a record, parsed from its resource label
// ("kind/namespace/name" or "kind/name"; see [endpoint.ResourceLabelKey]).
type Object struct {
	// Resource is the label's value, the object's key in the inventory.
	Resource string
	// Kind is the label's first part, in the lower case sources write
	// ("service", "ingress", "crd"): the record's source type.
	Kind string
	// Namespace is "" for a cluster-scoped object.
	Namespace string
	Name      string
}

// ParseResource splits a resource label into its parts. A label of one
// part is taken as a kind alone; "" gives the zero Object.
func ParseResource(resource string) Object {
	o := Object{Resource: resource}
	kind, rest, ok := strings.Cut(resource, "/")
	o.Kind = kind
	if !ok {
		return o
	}
	if ns, name, ok := strings.Cut(rest, "/"); ok {
		o.Namespace, o.Name = ns, name
	} else {
		o.Name = rest
	}
	return o
}

// Inventory keeps the views of every record the Reconciler manages, per
// object: a read model for people, built from each cycle, never consulted
// by the planner. It is the Reconciler's [zonesync.Observer] (or one of
// them, with [zonesync.Observers]); give each Reconciler its own.
//
// Reads ([Inventory.List], [Inventory.Stats], [Inventory.LastCycle], the
// handler) are safe while cycles run and never wait for one: every cycle
// publishes a new immutable snapshot.
type Inventory struct {
	opts  Options
	clock clock.Clock
	nonce string // tells snapshots of two Inventories apart in ETags

	mu      sync.Mutex // serialises the writers: cycles and verification
	snap    atomic.Pointer[snapshot]
	running atomic.Pointer[time.Time] // start of the cycle in progress
	wake    chan struct{}             // a cycle ended: verify (Run)
}

var _ zonesync.Observer = (*Inventory)(nil)

// New checks opts and returns an empty Inventory. It fails, with an error
// wrapping [ErrInvalidOptions], when ReverifyAfter is negative or a group
// rule is blank.
func New(opts Options) (*Inventory, error) {
	switch {
	case opts.ReverifyAfter < 0:
		return nil, fmt.Errorf("inventory: %w: Options.ReverifyAfter is negative (%v)", ErrInvalidOptions, opts.ReverifyAfter)
	case opts.ReverifyAfter > 0 && opts.Verifier == nil:
		return nil, fmt.Errorf("inventory: %w: Options.ReverifyAfter is set without Options.Verifier", ErrInvalidOptions)
	}
	for i, k := range opts.Groups.LabelKeys {
		if strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("inventory: %w: Options.Groups.LabelKeys[%d] is blank", ErrInvalidOptions, i)
		}
	}
	for ns, g := range opts.Groups.ByNamespace {
		if strings.TrimSpace(g) == "" {
			return nil, fmt.Errorf("inventory: %w: Options.Groups.ByNamespace[%q] is blank", ErrInvalidOptions, ns)
		}
	}
	opts.Groups.LabelKeys = slices.Clone(opts.Groups.LabelKeys)
	inv := &Inventory{opts: opts, clock: clock.OrReal(opts.Clock), wake: make(chan struct{}, 1)}
	inv.nonce = fmt.Sprintf("%x", inv.clock.Now().UnixNano())
	inv.snap.Store(&snapshot{objects: map[string]span{}})
	return inv, nil
}

// CycleStarted notes that a cycle runs (the page says so).
func (inv *Inventory) CycleStarted(_ context.Context, start time.Time) {
	inv.running.Store(&start)
}

// CycleFinished projects the cycle into the inventory: see the package
// documentation ("Projection"). It is quick for a cycle's size (it reads
// the cycle's statuses once and calls Options.ObjectLabels once per
// object), never calls the Reconciler, and wakes [Inventory.Run].
func (inv *Inventory) CycleFinished(_ context.Context, c zonesync.Cycle) {
	inv.mu.Lock()
	next := inv.project(inv.snap.Load(), c)
	inv.snap.Store(next)
	inv.mu.Unlock()
	inv.running.Store(nil)
	select {
	case inv.wake <- struct{}{}:
	default: // a verification is already pending
	}
}

// project returns the snapshot after cycle c.
func (inv *Inventory) project(prev *snapshot, c zonesync.Cycle) *snapshot {
	sum := summarize(c)
	if c.Plan == nil {
		// Nothing is known about any record: keep them.
		next := *prev
		next.gen++
		next.last = &sum
		return &next
	}
	p := c.Plan
	gone := map[*endpoint.Endpoint]bool{}
	if p.Changes != nil {
		for _, e := range p.Changes.Delete {
			gone[e] = true
		}
	}
	foreign := map[*endpoint.Endpoint]string{}
	for _, s := range p.Skipped {
		switch {
		case s.Action == plan.ActionDelete:
			gone[s.Endpoint] = true
		case s.Reason == plan.SkipForeignOwner:
			foreign[s.Endpoint] = s.Owner
		}
	}

	pc := projection{inv: inv, prev: prev, at: sum.End, owner: p.OwnerID, gone: gone, foreign: foreign,
		carry: hasVerification(prev.stats)}
	views := make([]*View, 0, max(len(prev.views), len(p.Desired))+8)
	objects := make(map[string]span, len(prev.objects)+8)
	for _, rs := range c.ResourceStatuses() {
		start := len(views)
		views = pc.object(views, rs)
		if len(views) > start {
			objects[rs.Resource] = span{start, len(views)}
		}
	}
	return newSnapshot(prev.gen+1, views, objects, &sum)
}

// projection is what projecting one cycle needs besides each object.
type projection struct {
	inv     *Inventory
	prev    *snapshot
	at      time.Time
	owner   string
	gone    map[*endpoint.Endpoint]bool // deletes and deletes skipped
	foreign map[*endpoint.Endpoint]string
	carry   bool // prev holds verifications to carry over
}

// hasVerification reports whether any record of st was verified.
func hasVerification(st Stats) bool {
	for _, c := range st.ByVerification {
		if c.Status != Unverified && c.Names > 0 {
			return true
		}
	}
	return false
}

// object appends the views of the object rs to views.
func (pc *projection) object(views []*View, rs zonesync.ResourceStatus) []*View {
	if rs.State == zonesync.RecordDeleted {
		return views // every record of the object is gone
	}
	inv := pc.inv
	obj := ParseResource(rs.Resource)
	var objLabels map[string]string
	if inv.opts.ObjectLabels != nil && rs.Resource != "" {
		objLabels = inv.opts.ObjectLabels(obj)
	}
	// Without label keys the groups are the object's: share them.
	var objGroups []string
	if len(inv.opts.Groups.LabelKeys) == 0 {
		objGroups = inv.groups(obj, nil, nil)
	}
	desired := 0
	for _, st := range rs.Records {
		if !pc.gone[st.Endpoint] {
			desired++
		}
	}
	// The source could not read the object: the Reconciler holds its
	// records as they are (their deletes are skipped). Show the views of
	// the cycle before, or else the records held, with the object's error.
	failed := rs.State == zonesync.RecordInvalid && desired == 0
	out := Outcome{State: rs.State, Reason: rs.Reason, Message: rs.Message, At: pc.at}
	var old []*View // the object's views in the snapshot before, when needed
	if failed || pc.carry {
		old = pc.prev.objectViews(rs.Resource)
	}
	if failed && len(old) > 0 {
		for _, v := range old {
			nv := *v
			nv.Outcome = out
			views = append(views, &nv)
		}
		return views
	}
	for _, st := range rs.Records {
		isGone := pc.gone[st.Endpoint] && !failed
		if isGone && st.State == zonesync.RecordDeleted {
			continue
		}
		if failed {
			st.State, st.Reason, st.Message = out.State, out.Reason, out.Message
		}
		e := st.Endpoint
		v := &View{
			Name: e.DNSName, DisplayName: endpoint.ToUnicode(e.DNSName),
			RecordType: e.RecordType, SetIdentifier: e.SetIdentifier,
			Targets: slices.Clone([]string(e.Targets)), TTL: int64(e.RecordTTL),
			Resource: rs.Resource, SourceType: obj.Kind, Namespace: obj.Namespace, Object: obj.Name,
			Owner:   pc.owner,
			Groups:  objGroups,
			Desired: !isGone,
			Outcome: Outcome{State: st.State, Reason: st.Reason, Message: st.Message, At: pc.at},
		}
		if len(inv.opts.Groups.LabelKeys) > 0 {
			v.Groups = inv.groups(obj, objLabels, e)
		}
		if o, ok := e.Labels.Get(endpoint.OwnerLabelKey); ok && o != "" {
			v.Owner = o
		}
		if o, ok := pc.foreign[e]; ok && o != "" {
			v.Owner = o
		}
		switch r := st.Verification; {
		case r != nil:
			v.Verification = &Verification{Status: r.Status, Seen: slices.Clone(r.Seen), CheckedAt: pc.at}
			if r.Err != nil {
				v.Verification.Error = r.Err.Error()
			}
		default:
			v.Verification = carried(old, v)
		}
		views = append(views, v)
	}
	return views
}

// carried returns the verification of the view among old that shows the
// same record with the same targets, nil when there is none: a check stays
// valid while the record's data does not change.
func carried(old []*View, v *View) *Verification {
	for _, o := range old {
		if o.Verification != nil && o.Name == v.Name && o.SetIdentifier == v.SetIdentifier &&
			o.RecordType == v.RecordType && endpoint.Targets(o.Targets).Same(endpoint.Targets(v.Targets)) {
			return o.Verification
		}
	}
	return nil
}

// groups returns the sorted groups of a record of obj (see [GroupMapping]).
func (inv *Inventory) groups(obj Object, objLabels map[string]string, e *endpoint.Endpoint) []string {
	m := &inv.opts.Groups
	var out []string
	if g, ok := m.ByNamespace[obj.Namespace]; ok && obj.Namespace != "" {
		out = append(out, g)
	}
	for _, k := range m.LabelKeys {
		val, ok := objLabels[k]
		if !ok && e != nil {
			val, _ = e.Labels.Get(k)
		}
		if val != "" {
			out = append(out, val)
		}
	}
	if len(out) == 0 {
		if m.Default == "" {
			return nil
		}
		return []string{m.Default}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// LastCycle returns the summary of the last cycle the inventory saw; false
// before the first.
func (inv *Inventory) LastCycle() (CycleSummary, bool) {
	s := inv.snap.Load()
	if s.last == nil {
		return CycleSummary{}, false
	}
	return *s.last, true
}

// Running returns the start of the cycle in progress; false when none runs.
func (inv *Inventory) Running() (time.Time, bool) {
	if t := inv.running.Load(); t != nil {
		return *t, true
	}
	return time.Time{}, false
}
