package inventory

import (
	"context"
	"slices"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
)

// Run checks the inventory's records against DNS with [Options.Verifier]
// after every cycle, until ctx ends; it returns nil then. Without a
// Verifier it only waits for ctx. Run it once, on a goroutine of its own
// (a controller-runtime manager runs it as a Runnable: it is a
// manager.RunnableFunc).
//
// After each cycle it verifies, in one call of the Verifier, every record
// of the inventory except invalid ones and those checked less than
// [Options.ReverifyAfter] ago, and publishes the results as a new snapshot
// (records whose data changed in the meantime keep what the newer cycle
// says). Cycles that end while it verifies are coalesced into one more
// run. The Verifier bounds the lookups at once and the time of each
// (package verify: 10 workers, 5 s by default); ctx bounds the whole. A
// failed verification is logged through [logr.FromContextOrDiscard] and
// retried after the next cycle.
func (inv *Inventory) Run(ctx context.Context) error {
	if inv.opts.Verifier == nil {
		<-ctx.Done()
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-inv.wake:
		}
		if err := inv.verifyOnce(ctx); err != nil && ctx.Err() == nil {
			logr.FromContextOrDiscard(ctx).Error(err, "inventory: verifying records")
		}
	}
}

// recordRef names a view across snapshots.
type recordRef struct {
	resource, name, setID, typ string
}

func refOf(v *View) recordRef {
	return recordRef{v.Resource, v.Name, v.SetIdentifier, v.RecordType}
}

// verifyOnce verifies the records of the current snapshot that need it and
// publishes the results.
func (inv *Inventory) verifyOnce(ctx context.Context) error {
	snap := inv.snap.Load()
	now := inv.clock.Now()
	var eps []*endpoint.Endpoint
	refs := map[*endpoint.Endpoint]recordRef{}
	for _, v := range snap.views {
		if v.Outcome.State == zonesync.RecordInvalid || len(v.Targets) == 0 {
			continue
		}
		if v.Verification != nil && inv.opts.ReverifyAfter > 0 && now.Sub(v.Verification.CheckedAt) < inv.opts.ReverifyAfter {
			continue
		}
		e := endpoint.NewEndpointWithTTL(v.Name, v.RecordType, endpoint.TTL(v.TTL), v.Targets...).WithSetIdentifier(v.SetIdentifier)
		eps = append(eps, e)
		refs[e] = refOf(v)
	}
	if len(eps) == 0 {
		return nil
	}
	results, err := inv.opts.Verifier.Verify(ctx, eps)
	if err != nil {
		return err
	}
	checked := inv.clock.Now()
	found := map[recordRef]*Verification{}
	targets := map[recordRef][]string{}
	for _, r := range results {
		ref, ok := refs[r.Endpoint]
		if !ok {
			continue
		}
		ver := &Verification{Status: r.Status, Seen: slices.Clone(r.Seen), CheckedAt: checked}
		if r.Err != nil {
			ver.Error = r.Err.Error()
		}
		found[ref] = ver
		targets[ref] = r.Endpoint.Targets
	}

	inv.mu.Lock()
	defer inv.mu.Unlock()
	cur := inv.snap.Load()
	replaced := map[*View]*View{}
	for _, v := range cur.byObject {
		ref := refOf(v)
		ver, ok := found[ref]
		if !ok || !endpoint.Targets(v.Targets).Same(endpoint.Targets(targets[ref])) {
			continue // not checked, or its data changed since
		}
		if v.Verification != nil && v.Verification.CheckedAt.After(checked) {
			continue // a newer cycle verified it
		}
		nv := *v
		nv.Verification = ver
		replaced[v] = &nv
	}
	if len(replaced) == 0 {
		return nil
	}
	next := *cur
	next.gen++
	next.views = swap(cur.views, replaced)
	next.byObject = swap(cur.byObject, replaced)
	next.stats = computeStats(next.views)
	inv.snap.Store(&next)
	return nil
}

// swap returns a copy of views with the views of replaced replaced.
func swap(views []*View, replaced map[*View]*View) []*View {
	out := slices.Clone(views)
	for i, v := range out {
		if nv, ok := replaced[v]; ok {
			out[i] = nv
		}
	}
	return out
}
