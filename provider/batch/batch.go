package batch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/clock"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// Defaults of [Options], fitting the Route 53 limits of one change batch.
const (
	// DefaultMaxRecords is the default bound on the record values of one
	// call (Route 53: 1,000 ResourceRecord elements per change batch).
	DefaultMaxRecords = 1000
	// DefaultMaxValueBytes is the default bound on the bytes of record
	// values of one call (Route 53: 32,000 characters per change batch).
	DefaultMaxValueBytes = 32000
)

// ErrInvalidOptions is wrapped by every error [New] returns: a nil
// provider or an [Options] field out of range, named in the message.
var ErrInvalidOptions = errors.New("invalid batch options")

// ErrTooLarge is matched by the reason of a change that cannot be sent in
// any batch: its group alone exceeds [Options.MaxRecords] or
// [Options.MaxValueBytes].
var ErrTooLarge = errors.New("change group exceeds the batch limits")

// Options configures [New]. Zero values mean the defaults; negative values
// are errors.
type Options struct {
	// MaxRecords bounds the number of record values of one call; zero
	// means [DefaultMaxRecords]. Each target of each endpoint counts one
	// (an endpoint without targets counts one), and an update counts its
	// old and its new record, as Route 53 counts an UPSERT twice.
	MaxRecords int
	// MaxValueBytes bounds the total length in bytes of the targets of
	// one call, counted like MaxRecords; zero means
	// [DefaultMaxValueBytes].
	MaxValueBytes int
	// Pause is the wait between two calls of one ApplyChanges (rate
	// limits are better served by the ratelimit wrapper); zero means none.
	// The wait honours the context.
	Pause time.Duration
	// Clock times Pause; nil means [clock.Real].
	Clock clock.Clock
}

// Provider is a [provider.Provider] that applies change sets through the
// provider it wraps in batches. Create one with [New].
type Provider struct {
	next provider.Provider
	opts Options
}

var _ provider.Provider = (*Provider)(nil)

// New returns a batching wrapper of p. It fails, with an error wrapping
// [ErrInvalidOptions], when p is nil or a field of opts is negative. The
// wrapper has the optional capabilities of p ([provider.ZoneLister], ...;
// see [provider.As]), answered by p.
func New(p provider.Provider, opts Options) (*Provider, error) {
	if p == nil {
		return nil, fmt.Errorf("batch: %w: the provider is nil", ErrInvalidOptions)
	}
	switch {
	case opts.MaxRecords < 0:
		return nil, fmt.Errorf("batch: %w: Options.MaxRecords is negative (%d): zero means %d", ErrInvalidOptions, opts.MaxRecords, DefaultMaxRecords)
	case opts.MaxValueBytes < 0:
		return nil, fmt.Errorf("batch: %w: Options.MaxValueBytes is negative (%d): zero means %d", ErrInvalidOptions, opts.MaxValueBytes, DefaultMaxValueBytes)
	case opts.Pause < 0:
		return nil, fmt.Errorf("batch: %w: Options.Pause is negative (%v): zero means no pause", ErrInvalidOptions, opts.Pause)
	}
	if opts.MaxRecords == 0 {
		opts.MaxRecords = DefaultMaxRecords
	}
	if opts.MaxValueBytes == 0 {
		opts.MaxValueBytes = DefaultMaxValueBytes
	}
	opts.Clock = clock.OrReal(opts.Clock)
	return &Provider{next: p, opts: opts}, nil
}

// Unwrap returns the wrapped provider, through which [provider.As] finds
// the optional capabilities of the wrapper.
func (p *Provider) Unwrap() provider.Provider { return p.next }

// Records returns the wrapped provider's records.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return p.next.Records(ctx)
}

// AdjustEndpoints calls the wrapped provider.
func (p *Provider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return p.next.AdjustEndpoints(ctx, eps)
}

// GetDomainFilter returns the wrapped provider's filter.
func (p *Provider) GetDomainFilter() endpoint.DomainFilterInterface {
	return p.next.GetDomainFilter()
}

// action of a change.
const (
	actCreate = iota
	actUpdate
	actDelete
)

var actionNames = [...]string{actCreate: "create", actUpdate: "update", actDelete: "delete"}

// change is one create, update pair or delete.
type change struct {
	action  int
	old, ep *endpoint.Endpoint // old: UpdateOld of an update
}

// group is the changes that share a [provider.GroupKey]: applied or
// rejected together.
type group struct {
	name, setID   string
	first         int // order of the group's first change in the input
	count         int // number of changes
	changes       []change
	records, size int
	deletesOnly   bool
}

func cost(ep *endpoint.Endpoint) (records, size int) {
	if ep == nil {
		return 1, 0
	}
	for _, t := range ep.Targets {
		size += len(t)
	}
	return max(len(ep.Targets), 1), size
}

// groups splits changes into groups: those that only delete first (so a
// name freed by a delete is free before a create that needs it), then the
// others, each in the order of its first change. The groups and their
// changes live in two slabs: a few allocations per call, not per group.
func groups(changes *plan.Changes) []*group {
	all := flatten(changes)
	slab, of := assignGroups(all)
	fillGroups(slab, of, all)
	out := make([]*group, len(slab))
	for i := range slab {
		out[i] = &slab[i]
	}
	slices.SortStableFunc(out, func(a, b *group) int {
		if a.deletesOnly != b.deletesOnly {
			if a.deletesOnly {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.first, b.first)
	})
	return out
}

// flatten lists the changes in the order deletes, updates, creates.
func flatten(changes *plan.Changes) []change {
	all := make([]change, 0, len(changes.Create)+len(changes.UpdateNew)+len(changes.Delete))
	for _, ep := range changes.Delete {
		all = append(all, change{action: actDelete, ep: ep})
	}
	for i, ep := range changes.UpdateNew {
		all = append(all, change{action: actUpdate, old: changes.UpdateOld[i], ep: ep})
	}
	for _, ep := range changes.Create {
		all = append(all, change{action: actCreate, ep: ep})
	}
	return all
}

// groupKey is the key of a group with a set identifier.
type groupKey struct{ name, setID string }

// assignGroups finds the group of each change (of[i] indexes slab) and
// sums each group's size. Most changes have no set identifier: their groups
// are found by name in a map with string keys, the fast kind.
func assignGroups(all []change) (slab []group, of []int32) {
	byName := make(map[string]int32, len(all)/2+1)
	var byKey map[groupKey]int32
	slab = make([]group, 0, len(all)/2+1)
	of = make([]int32, len(all))
	for i, ch := range all {
		keyEp := ch.ep
		if keyEp == nil {
			keyEp = ch.old
		}
		var k groupKey
		if keyEp != nil {
			k.name, k.setID = provider.GroupKey(keyEp)
		}
		var gi int32
		var ok bool
		if k.setID == "" {
			gi, ok = byName[k.name]
		} else {
			gi, ok = byKey[k]
		}
		if !ok {
			gi = int32(len(slab))
			if k.setID == "" {
				byName[k.name] = gi
			} else {
				if byKey == nil {
					byKey = map[groupKey]int32{}
				}
				byKey[k] = gi
			}
			slab = append(slab, group{name: k.name, setID: k.setID, first: i, deletesOnly: true})
		}
		of[i] = gi
		slab[gi].add(ch)
	}
	return slab, of
}

// add counts ch in the group's size; its changes are filled in later.
func (g *group) add(ch change) {
	g.count++
	r, sz := cost(ch.ep)
	g.records, g.size = g.records+r, g.size+sz
	if ch.action == actUpdate {
		r, sz = cost(ch.old)
		g.records, g.size = g.records+r, g.size+sz
	}
	if ch.action != actDelete {
		g.deletesOnly = false
	}
}

// fillGroups gives each group its changes, in order, from one slab.
func fillGroups(slab []group, of []int32, all []change) {
	ordered := make([]change, len(all))
	off := 0
	for i := range slab {
		slab[i].changes = ordered[off : off : off+slab[i].count]
		off += slab[i].count
	}
	for i, ch := range all {
		g := &slab[of[i]]
		g.changes = append(g.changes, ch)
	}
}

// toChanges builds the change set of gs.
func toChanges(gs []*group) *plan.Changes {
	c := &plan.Changes{}
	for _, g := range gs {
		for _, ch := range g.changes {
			switch ch.action {
			case actCreate:
				c.Create = append(c.Create, ch.ep)
			case actUpdate:
				c.UpdateOld = append(c.UpdateOld, ch.old)
				c.UpdateNew = append(c.UpdateNew, ch.ep)
			default:
				c.Delete = append(c.Delete, ch.ep)
			}
		}
	}
	return c
}

func (g *group) reject(reason error) []provider.Rejection {
	out := make([]provider.Rejection, 0, len(g.changes))
	for _, ch := range g.changes {
		ep := ch.ep
		if ep == nil {
			ep = ch.old
		}
		out = append(out, provider.Rejection{Action: actionNames[ch.action], Endpoint: ep, Reason: reason})
	}
	return out
}

// ApplyChanges applies changes in batches, each within the limits of
// [Options], in calls to the wrapped provider, with Options.Pause between
// them. Changes with the same [provider.GroupKey] — a record and its
// ownership TXT — always travel in the same batch. Groups that only delete
// go first.
//
// When a call fails with an error that is not soft, the batch is split in
// halves, and those again, down to single groups, so that every valid
// group is applied and the groups the provider refuses are isolated: they
// are returned in a [*provider.RejectedError] (soft: retried next cycle)
// naming each change and the provider's reason. A group that exceeds the
// limits on its own is rejected with [ErrTooLarge] without being sent.
// Splitting assumes that a failed call applied nothing, as the change
// batches of DNS APIs are atomic.
//
// A soft error ([provider.SoftError], such as throttling) or a cancelled
// context stops the call: the batches not yet applied are not sent and the
// error is returned (joined with the rejections so far).
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if changes == nil {
		return nil
	}
	if len(changes.UpdateOld) != len(changes.UpdateNew) {
		return fmt.Errorf("batch: %d UpdateOld and %d UpdateNew records: updates must come in pairs",
			len(changes.UpdateOld), len(changes.UpdateNew))
	}
	log := logr.FromContextOrDiscard(ctx)
	a := applier{p: p}
	var batch []*group
	records, size := 0, 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := a.send(ctx, batch)
		batch, records, size = nil, 0, 0
		return err
	}
	var stop error
	for _, g := range groups(changes) {
		if g.records > p.opts.MaxRecords || g.size > p.opts.MaxValueBytes {
			reason := fmt.Errorf("%w: %d record values and %d bytes of values, limits %d and %d",
				ErrTooLarge, g.records, g.size, p.opts.MaxRecords, p.opts.MaxValueBytes)
			a.rejected = append(a.rejected, g.reject(reason)...)
			continue
		}
		if records+g.records > p.opts.MaxRecords || size+g.size > p.opts.MaxValueBytes {
			if stop = flush(); stop != nil {
				break
			}
		}
		batch = append(batch, g)
		records, size = records+g.records, size+g.size
	}
	if stop == nil {
		stop = flush()
	}
	// The error reports the rejections; the log only traces the calls.
	log.V(1).Info("applied in batches", "calls", a.calls, "rejected", len(a.rejected))
	var rej error
	if len(a.rejected) > 0 {
		rej = &provider.RejectedError{Rejected: a.rejected}
	}
	if stop != nil {
		return errors.Join(fmt.Errorf("batch: %w", stop), rej)
	}
	return rej
}

// applier sends the batches of one ApplyChanges call.
type applier struct {
	p        *Provider
	calls    int
	rejected []provider.Rejection
}

// send applies gs, splitting it when the provider refuses it. It returns
// only errors that stop the call: soft ones and the context's.
func (a *applier) send(ctx context.Context, gs []*group) error {
	if a.calls > 0 && a.p.opts.Pause > 0 {
		t := a.p.opts.Clock.NewTimer(a.p.opts.Pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C():
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	a.calls++
	err := a.p.next.ApplyChanges(ctx, toChanges(gs))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, provider.SoftError) || ctx.Err() != nil:
		return err
	case len(gs) == 1:
		logr.FromContextOrDiscard(ctx).V(1).Info("change group rejected", "record", gs[0].name, "setIdentifier", gs[0].setID, "reason", err.Error())
		a.rejected = append(a.rejected, gs[0].reject(err)...)
		return nil
	}
	mid := len(gs) / 2
	if err := a.send(ctx, gs[:mid]); err != nil {
		return err
	}
	return a.send(ctx, gs[mid:])
}
