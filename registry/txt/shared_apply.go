package txt

import (
	"fmt"
	"slices"
	"time"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/registry"
)

// sharedBuild is the part of an ApplyChanges call that concerns shared
// record sets: the planner's changes of our contributions, and the repairs
// the last read found.
type sharedBuild struct {
	r   *Registry
	st  *sharedState
	now time.Time
	// changed holds, by key, the new contribution of ours a change asks
	// for (nil: leave the record set).
	changed map[endpoint.Key]*endpoint.Endpoint
	// refused are the changes not made, each naming its record.
	refused []error
	// touched: the call sends changes of shared record sets.
	touched bool
}

// splitShared takes the changes of shared record sets out of changes: the
// creates of a record set in shared mode, and the updates and deletes of
// our contributions (the views the last read returned). It returns the
// rest, for the usual path, and the shared part; changes is not modified.
func (r *Registry) splitShared(changes *plan.Changes) (*plan.Changes, *sharedBuild) {
	r.mu.Lock()
	st := r.sharedSt
	r.mu.Unlock()
	sb := &sharedBuild{r: r, st: st, now: r.shared.clock.Now().Truncate(time.Second), changed: map[endpoint.Key]*endpoint.Endpoint{}}
	ours := func(ep *endpoint.Endpoint) bool {
		if st == nil || ep == nil {
			return false
		}
		k := st.keys[sharedKeyOf(ep)]
		return k != nil && k.shared && k.ours >= 0
	}
	rest := &plan.Changes{}
	for _, ep := range changes.Create {
		if ep == nil {
			continue
		}
		key := sharedKeyOf(ep)
		if !r.shared.covers(key.DNSName, key.RecordType) {
			rest.Create = append(rest.Create, ep)
			continue
		}
		_, plain := st.plainAt(key)
		switch k := sb.key(key); {
		case st == nil:
			sb.refused = append(sb.refused, fmt.Errorf("create %s skipped: a shared record set is written from a read of the zone, and none is known (call Records first)", ep.Key()))
		case plain || k != nil && !k.shared:
			sb.refused = append(sb.refused, fmt.Errorf("create %s skipped: %w: the record set there is not shared (owned the usual way, or by nobody) and is left alone", ep.Key(), ErrSharedConflict))
		default:
			sb.changed[key] = ep
		}
	}
	for i, oldEp := range changes.UpdateOld {
		newEp := changes.UpdateNew[i]
		if ours(oldEp) && newEp != nil && sharedKeyOf(newEp) == sharedKeyOf(oldEp) {
			sb.changed[sharedKeyOf(oldEp)] = newEp
			continue
		}
		rest.UpdateOld = append(rest.UpdateOld, oldEp)
		rest.UpdateNew = append(rest.UpdateNew, newEp)
	}
	for _, ep := range changes.Delete {
		if ours(ep) {
			sb.changed[sharedKeyOf(ep)] = nil
			continue
		}
		rest.Delete = append(rest.Delete, ep)
	}
	return rest, sb
}

// plainAt reports whether the read found a record set at key that is not
// shared.
func (st *sharedState) plainAt(key endpoint.Key) (struct{}, bool) {
	if st == nil {
		return struct{}{}, false
	}
	v, ok := st.plain[key]
	return v, ok
}

// key returns what the last read saw of key; nil when nothing.
func (sb *sharedBuild) key(key endpoint.Key) *sharedKey {
	if sb.st == nil {
		return nil
	}
	return sb.st.keys[key]
}

// emit adds to out the provider's changes for the shared record sets: for
// every record set that a change of ours or a repair concerns, in key
// order, our contribution written, rewritten or deleted, expired
// contributions deleted, and the record set and its ownership TXT brought
// to the merge of the contributions left. Creates go contribution first,
// ownership TXT, then the record; deletes record first, then the
// contributions, then the ownership TXT: a provider that applies a call in
// list order and stops half-way leaves a state the next read repairs.
func (sb *sharedBuild) emit(out *plan.Changes) {
	keys := make([]endpoint.Key, 0, len(sb.changed))
	for k := range sb.changed {
		keys = append(keys, k)
	}
	if sb.st != nil {
		for _, k := range sb.st.order {
			if _, ok := sb.changed[k]; !ok && sb.st.keys[k].repair {
				keys = append(keys, k)
			}
		}
	}
	slices.SortFunc(keys, compareKeys)
	for _, key := range keys {
		desired, changed := sb.changed[key]
		k := sb.key(key)
		if k == nil {
			k = &sharedKey{key: key, ours: -1, shared: true}
		}
		sb.emitKey(out, k, desired, changed)
	}
}

// emitKey adds the changes of one record set (see emit).
func (sb *sharedBuild) emitKey(out *plan.Changes, k *sharedKey, desired *endpoint.Endpoint, changed bool) {
	r := sb.r
	var old *contribRead
	if k.ours >= 0 {
		old = &k.contribs[k.ours]
	}
	if !k.shared {
		// Our contribution to a record set that is not shared is stale:
		// remove it, and the ownership TXT that would lend a record that
		// came from elsewhere to the owners (see Registry.shareView); the
		// record is left alone.
		if old != nil {
			out.Delete = append(out.Delete, old.txt)
			sb.touched = true
		}
		if k.foreign && k.marker != nil {
			out.Delete = append(out.Delete, k.marker)
			sb.touched = true
		}
		return
	}
	others := k.live(k.ours)
	// Our contribution after this call.
	var mine *registry.Contribution
	switch {
	case changed && desired != nil:
		c := registry.Contribution{Owner: r.ownerID, Targets: slices.Clone(desired.Targets), TTL: desired.RecordTTL,
			Resource: resourceOf(desired), Seen: sb.now, Refresh: r.shared.heartbeat}
		for _, p := range desired.ProviderSpecific {
			if p.Name != endpoint.ProviderSpecificForceUpdate {
				c.ProviderSpecific = append(c.ProviderSpecific, p)
			}
		}
		if err := conflicts(k.key, c, others); err != nil {
			sb.refused = append(sb.refused, fmt.Errorf("%s skipped: %w", changeVerb(old), err))
			if old == nil {
				return
			}
			mine = &old.Contribution
			break
		}
		mine = &c
	case changed:
		// Leaving: mine stays nil.
	case old != nil:
		c := old.Contribution
		if k.heartbeat {
			c.Seen, c.Refresh = sb.now, r.shared.heartbeat
		}
		mine = &c
	}
	live := others
	if mine != nil {
		live = append(slices.Clone(others), *mine)
		slices.SortFunc(live, func(a, b registry.Contribution) int { return compareStrings(a.Owner, b.Owner) })
	}
	want := mergeShared(k.key, live)

	var create, del []*endpoint.Endpoint
	var updOld, updNew []*endpoint.Endpoint
	// Our contribution.
	switch {
	case mine != nil && (old == nil || !sameContribution(old.Contribution, *mine)):
		txt, err := r.contributionTXT(k.key, *mine)
		if err != nil {
			sb.refused = append(sb.refused, err)
			return
		}
		if old == nil {
			create = append(create, txt)
		} else {
			updOld, updNew = append(updOld, old.txt), append(updNew, txt)
		}
	case mine == nil && old != nil:
		del = append(del, old.txt)
	}
	// Expired contributions of others.
	for _, c := range k.contribs {
		if c.Expired {
			del = append(del, c.txt)
		}
	}
	// The record set and its ownership TXT.
	var recCreate, recDelete, markerCreate, markerDelete *endpoint.Endpoint
	switch {
	case want == nil:
		recDelete, markerDelete = k.record, k.marker
	case k.record == nil:
		recCreate = want
	case !sameShared(k.record, want):
		for key, v := range k.record.Labels.All() {
			if !endpoint.IsReservedLabelKey(key) {
				want.Labels.Set(key, v) // the provider's own (an etcd key, say)
			}
		}
		updOld, updNew = append(updOld, k.record), append(updNew, want)
	}
	if want != nil && k.marker == nil {
		m, err := r.markerTXT(want)
		if err != nil {
			sb.refused = append(sb.refused, err)
			return
		}
		markerCreate = m
	}
	if markerCreate != nil {
		create = append(create, markerCreate)
	}
	if recCreate != nil {
		create = append(create, recCreate)
	}
	if recDelete != nil {
		del = append([]*endpoint.Endpoint{recDelete}, del...)
	}
	if markerDelete != nil {
		del = append(del, markerDelete)
	}
	if len(create)+len(updOld)+len(del) > 0 {
		sb.touched = true
	}
	out.Create = append(out.Create, create...)
	out.UpdateOld = append(out.UpdateOld, updOld...)
	out.UpdateNew = append(out.UpdateNew, updNew...)
	out.Delete = append(out.Delete, del...)
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func changeVerb(old *contribRead) string {
	if old == nil {
		return "joining"
	}
	return "changing the contribution"
}

func resourceOf(ep *endpoint.Endpoint) string {
	res, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
	return res
}

// sameContribution reports whether a and b hold the same data, the time
// of writing included.
func sameContribution(a, b registry.Contribution) bool {
	return a.Owner == b.Owner && slices.Equal(a.Targets, b.Targets) && a.TTL == b.TTL &&
		slices.Equal(a.ProviderSpecific, b.ProviderSpecific) && a.Resource == b.Resource &&
		a.Seen.Equal(b.Seen) && a.Refresh == b.Refresh
}

// contributionTXT is the TXT record holding c, our contribution to key.
func (r *Registry) contributionTXT(key endpoint.Key, c registry.Contribution) (*endpoint.Endpoint, error) {
	carrier := &endpoint.Endpoint{DNSName: key.DNSName, RecordType: key.RecordType, SetIdentifier: key.SetIdentifier,
		Labels: contributionLabels(key, c), ProviderSpecific: c.ProviderSpecific}
	return r.labelsTXT("contribution", contributionName(c.Owner, key), carrier)
}

// markerTXT is the ownership TXT that marks rec shared: named as the
// ownership TXT of any record, owned by [SharedOwnerID].
func (r *Registry) markerTXT(rec *endpoint.Endpoint) (*endpoint.Endpoint, error) {
	carrier := rec.DeepCopy()
	carrier.Labels = markerLabels()
	return r.ownershipTXT(carrier)
}

// sharedOwnable is CheckOwnable for a create in shared mode: the names of
// our contribution and of the ownership TXT must be valid, and a CNAME or
// alias record must ask for the target the other contributors ask for.
func (r *Registry) sharedOwnable(rec *endpoint.Endpoint) error {
	key := sharedKeyOf(rec)
	if err := ValidateTXTName(contributionName(r.ownerID, key)); err != nil {
		return fmt.Errorf("the contribution cannot be named: %w", err)
	}
	r.mu.Lock()
	st := r.sharedSt
	r.mu.Unlock()
	if st == nil {
		return nil
	}
	k := st.keys[key]
	if _, plain := st.plainAt(key); plain {
		return fmt.Errorf("%w: the record set there is not shared", ErrSharedConflict)
	}
	if k == nil {
		return nil
	}
	if !k.shared {
		return fmt.Errorf("%w: the record set there is not shared", ErrSharedConflict)
	}
	c := registry.Contribution{Owner: r.ownerID, Targets: rec.Targets, ProviderSpecific: rec.ProviderSpecific}
	return conflicts(key, c, k.live(k.ours))
}
