package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

func (pl *planner) skip(action Action, e *endpoint.Endpoint, reason SkipReason, detail string) {
	pl.skipped = append(pl.skipped, Skip{Action: action, Endpoint: e, Reason: reason, Detail: detail})
}

// planRows decides the changes of every row.
func (pl *planner) planRows() {
	nt := len(pl.types)
	for r := range pl.rows {
		rw := &pl.rows[r]
		protected := rw.invalid != 0 && pl.rowHasCurrent(r)
		// A CNAME cannot coexist with any other type at one name (RFC 1034
		// §3.6.2): when other types are asked for too, the CNAME goes.
		other := -1
		if pl.cname >= 0 && pl.slot(r, pl.cname).cand != 0 {
			other = pl.otherCandidateType(r)
		}
		for t := range nt {
			s := *pl.slot(r, t)
			if s.cur == 0 && s.cand == 0 {
				continue
			}
			if s.cur != 0 && s.cand != 0 {
				pl.countExisting(t, s.cand)
			}
			cur := pl.pickCurrent(s.cur)
			if t == pl.cname && other >= 0 {
				pl.dropCNAMEs(pl.types[other], s.cand, cur != 0)
				s.cand = 0
			}
			var win *endpoint.Endpoint
			if s.cand != 0 {
				win = pl.resolve(cur, s.cand)
			}
			pl.planSlot(rw, t, protected, cur, win)
		}
	}
}

// pickCurrent returns the one-based index of the current record of a slot.
// Providers should hold one record per name, type and set identifier; if one
// holds several, the one owned by us (then the smallest) is used, so the
// choice does not depend on input order.
func (pl *planner) pickCurrent(head int32) int32 {
	if head == 0 || pl.curInfo[head-1].next == 0 {
		return head
	}
	best := head
	for i := pl.curInfo[head-1].next; i != 0; i = pl.curInfo[i-1].next {
		eo, bo := pl.isOwned(i), pl.isOwned(best)
		if eo && !bo || eo == bo && compareEndpointData(pl.p.Current[i-1], pl.p.Current[best-1]) < 0 {
			best = i
		}
	}
	return best
}

func actionFor(hasCur bool) Action {
	if hasCur {
		return ActionUpdate
	}
	return ActionCreate
}

// otherCandidateType returns the index of the first type other than CNAME
// with candidates at row r, or -1.
func (pl *planner) otherCandidateType(r int) int {
	for t := range pl.types {
		if t != pl.cname && pl.slot(r, t).cand != 0 {
			return t
		}
	}
	return -1
}

func (pl *planner) dropCNAMEs(other string, head int32, hasCur bool) {
	detail := "the name also gets " + other + " records, which cannot coexist with a CNAME"
	for i := head; i != 0; i = pl.desInfo[i-1].next {
		pl.skip(actionFor(hasCur), pl.p.Desired[i-1], SkipCNAMEConflict, detail)
	}
}

// resolve runs the conflict resolver on the candidates of a slot, records
// the losers and returns the winner.
func (pl *planner) resolve(cur, head int32) *endpoint.Endpoint {
	if pl.builtin && pl.desInfo[head-1].next == 0 {
		return pl.p.Desired[head-1]
	}
	var current *endpoint.Endpoint
	if cur != 0 {
		current = pl.p.Current[cur-1]
	}
	cands := pl.scratch[:0]
	for i := head; i != 0; i = pl.desInfo[i-1].next {
		cands = append(cands, pl.p.Desired[i-1])
	}
	pl.scratch = cands
	win, losers := pl.resolver.Resolve(current, cands)
	clear(cands)
	if len(losers) > 0 {
		detail := lostDetail(win)
		for _, l := range losers {
			pl.skip(actionFor(cur != 0), l, SkipLostConflict, detail)
		}
	}
	return win
}

func lostDetail(win *endpoint.Endpoint) string {
	if win == nil {
		return "the conflict resolver chose no endpoint"
	}
	if res, _ := win.Labels.Get(endpoint.ResourceLabelKey); res != "" {
		return fmt.Sprintf("%s wins with targets %s", endpoint.Printable(res), win.Targets)
	}
	return fmt.Sprintf("an endpoint with targets %s wins", win.Targets)
}

// planSlot decides the change of one record type of one row. protected
// tells that the row holds current records and an invalid desired endpoint;
// curIdx is the one-based index of the current record (0 for none), win the
// chosen desired endpoint (nil for none).
func (pl *planner) planSlot(rw *row, t int, protected bool, curIdx int32, win *endpoint.Endpoint) {
	if curIdx == 0 {
		if win == nil {
			return
		}
		switch {
		case protected:
			reason, detail := pl.held(rw)
			pl.skip(ActionCreate, win, reason, detail)
		case rw.foreign != 0:
			pl.skipForeign(ActionCreate, win, pl.p.Current[rw.foreign-1], "the name holds ")
		case pl.blockedAt(rw.name, t) != nil:
			u := pl.blockedAt(rw.name, t)
			pl.skip(ActionCreate, win, SkipCNAMEConflict, fmt.Sprintf("the name holds a %s record of a type the plan does not manage, and a CNAME cannot share a name with another record",
				endpoint.Printable(u.RecordType)))
		default:
			pl.creates = append(pl.creates, win)
		}
		return
	}
	cur, owned := pl.p.Current[curIdx-1], pl.isOwned(curIdx)
	if win == nil {
		switch {
		case !owned:
		case protected:
			reason, detail := pl.held(rw)
			pl.skip(ActionDelete, cur, reason, detail)
		case pl.sourceFailed(cur):
			pl.skip(ActionDelete, cur, SkipSourceError, pl.sourceErrorDetail(cur))
		case pl.holdDeletes != "":
			pl.skip(ActionDelete, cur, SkipSourceError, pl.holdDeletes)
		default:
			pl.deletes = append(pl.deletes, cur)
		}
		return
	}
	// An owned record of OldOwnerID needs an update even when its data is
	// right, to be relabelled with OwnerID.
	if !needsUpdate(cur, win) && !(owned && pl.owners.Of(cur) == endpoint.OwnedByOldOwner) {
		return
	}
	switch {
	case !owned:
		pl.skipForeign(ActionUpdate, win, cur, "")
	case protected:
		reason, detail := pl.held(rw)
		pl.skip(ActionUpdate, win, reason, detail)
	case pl.sourceFailed(cur):
		pl.skip(ActionUpdate, win, SkipSourceError, pl.sourceErrorDetail(cur))
	default:
		pl.updates = append(pl.updates, updatePair{old: cur, new: pl.updateNew(cur, win)})
	}
}

// held returns the reason and detail of a change held back because the
// desired endpoint rw.invalid is refused (see refusal).
func (pl *planner) held(rw *row) (SkipReason, string) {
	bad := pl.p.Desired[rw.invalid-1]
	reason, err := pl.refusal(bad)
	if reason == SkipUnsupported {
		return reason, "held back: a desired endpoint at this name that the provider cannot store protects its records: " + err.Error()
	}
	return SkipInvalid, "held back: an invalid desired endpoint at this name protects its records: " + err.Error()
}

// skipForeign records that the change of e was not made because of cur, a
// current record that is not ours; the skip names cur's owner (Skip.Owner)
// when it has one.
func (pl *planner) skipForeign(action Action, e, cur *endpoint.Endpoint, prefix string) {
	what := prefix + cur.RecordType + " record "
	if prefix == "" {
		what = "the record is "
	}
	if pl.owners.Of(cur) == endpoint.OwnedByOther {
		owner, _ := cur.Labels.Get(endpoint.OwnerLabelKey)
		pl.skipped = append(pl.skipped, Skip{Action: action, Endpoint: e, Reason: SkipForeignOwner,
			Detail: fmt.Sprintf("%sowned by %q, not %q", what, owner, pl.p.OwnerID), Owner: owner})
		return
	}
	if prefix == "" {
		pl.skip(action, e, SkipUnowned, "the record has no owner")
		return
	}
	pl.skip(action, e, SkipUnowned, what+"with no owner")
}

// needsUpdate reports whether cur must be updated to match win: its record
// data differ (see [Why]), or the registry asked for an update to rewrite
// its ownership record.
func needsUpdate(cur, win *endpoint.Endpoint) bool {
	if dataReasons(cur, win) != 0 {
		return true
	}
	_, force := cur.ProviderSpecific.Get(endpoint.ProviderSpecificForceUpdate)
	return force
}

// sourceFailed reports whether cur belongs to a resource in Plan.Protected.
func (pl *planner) sourceFailed(cur *endpoint.Endpoint) bool {
	if len(pl.p.Protected) == 0 {
		return false
	}
	res, ok := cur.Labels.Get(endpoint.ResourceLabelKey)
	if !ok {
		return false
	}
	_, failed := pl.p.Protected[res]
	return failed
}

// maxNamedKeys is the number of failed keys a hold-back detail names.
const maxNamedKeys = 3

// unattributedDetail returns the detail of the deletes held back because of
// the keys of p.Protected that no owned current record carries in its
// resource label, or "" when every key is carried (or there is none).
func unattributedDetail(p *Plan) string {
	if len(p.Protected) == 0 {
		return ""
	}
	carried := make(map[string]bool, len(p.Protected))
	owners := endpoint.Owners{OwnerID: p.OwnerID, OldOwnerID: p.OldOwnerID}
	for _, cur := range p.Current {
		if cur == nil || cur.Labels.Len() == 0 {
			continue
		}
		res, ok := cur.Labels.Get(endpoint.ResourceLabelKey)
		if !ok {
			continue
		}
		if _, failed := p.Protected[res]; !failed || carried[res] {
			continue
		}
		if !owners.Of(cur).Mine() {
			continue
		}
		carried[res] = true
	}
	var loose []string
	for k := range p.Protected {
		if !carried[k] {
			loose = append(loose, k)
		}
	}
	if len(loose) == 0 {
		return ""
	}
	slices.Sort(loose)
	var b strings.Builder
	b.WriteString("held back: the source could not build the endpoints of ")
	for i, k := range loose[:min(len(loose), maxNamedKeys)] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", k)
	}
	if n := len(loose) - maxNamedKeys; n > 0 {
		fmt.Fprintf(&b, " and %d more", n)
	}
	b.WriteString(", which no record of ours carries as its resource label: any record could be one of theirs, so nothing is deleted this cycle")
	return b.String()
}

// checkOwnable removes from changes the creates Plan.Ownable refuses and
// reports each with SkipUnownable. changes is the planner's own result and
// may be modified.
func (pl *planner) checkOwnable(changes *Changes) *Changes {
	kept := changes.Create[:0:0]
	for _, e := range changes.Create {
		if e == nil {
			kept = append(kept, e)
			continue
		}
		if err := pl.p.Ownable(e); err != nil {
			pl.skip(ActionCreate, e, SkipUnownable, err.Error())
			continue
		}
		kept = append(kept, e)
	}
	if len(kept) == 0 {
		kept = nil
	}
	changes.Create = kept
	return changes
}

func (pl *planner) sourceErrorDetail(cur *endpoint.Endpoint) string {
	res, _ := cur.Labels.Get(endpoint.ResourceLabelKey)
	msg := "the source could not build the endpoints of " + res
	if err := pl.p.Protected[res]; err != nil {
		msg += ": " + err.Error()
	}
	return msg
}

// updateNew builds the new state of cur: the name, type and set identifier
// of cur; targets and provider-specific properties of win; the TTL of win
// when configured, else that of cur; the labels of cur overlaid with those
// of win, and the owner label set to OwnerID when there is one.
func (pl *planner) updateNew(cur, win *endpoint.Endpoint) *endpoint.Endpoint {
	n := &endpoint.Endpoint{
		DNSName:          cur.DNSName,
		RecordType:       cur.RecordType,
		SetIdentifier:    cur.SetIdentifier,
		Targets:          slices.Clone(win.Targets),
		RecordTTL:        cur.RecordTTL,
		ProviderSpecific: slices.Clone(win.ProviderSpecific),
	}
	if win.RecordTTL.IsConfigured() {
		n.RecordTTL = win.RecordTTL
	}
	n.Labels = cur.Labels
	for k, v := range win.Labels.All() {
		n.Labels.Set(k, v)
	}
	if pl.p.OwnerID != "" {
		n.Labels.Set(endpoint.OwnerLabelKey, pl.p.OwnerID)
	}
	return n
}

// blockedAt returns the current record of an unmanaged type that keeps a
// record of managed type t from being created at name: any such record
// keeps a CNAME out, and a CNAME keeps every other type out (RFC 1034
// §3.6.2). Nil when nothing is in the way.
func (pl *planner) blockedAt(name string, t int) *endpoint.Endpoint {
	if pl.unmanaged == nil {
		return nil
	}
	i, ok := pl.unmanaged[name]
	if !ok {
		return nil
	}
	u := pl.p.Current[i-1]
	if t == pl.cname || strings.EqualFold(u.RecordType, endpoint.RecordTypeCNAME) {
		return u
	}
	return nil
}

// countExisting counts the candidates of slot t of a row (the list from
// head) whose record the row holds already ([Plan.Existing]).
func (pl *planner) countExisting(t int, head int32) {
	n := 0
	for i := head; i != 0; i = pl.desInfo[i-1].next {
		n++
	}
	pl.existing.add(t, len(pl.types), n)
}
