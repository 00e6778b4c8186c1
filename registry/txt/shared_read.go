package txt

import (
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/registry"
)

// rawContribution is a TXT record read whose value is a contribution.
type rawContribution struct {
	txt    *endpoint.Endpoint // as read: name, first value, set identifier, the provider's labels
	labels endpoint.Labels
}

// sharedState is what the last read saw of the shared record sets in scope.
// Immutable once published.
type sharedState struct {
	keys map[endpoint.Key]*sharedKey
	// plain holds the record sets in scope that are not shared and have no
	// contribution: somebody else's, or nobody's; a create there is
	// refused.
	plain   map[endpoint.Key]struct{}
	order   []endpoint.Key // sorted as endpoint.Compare sorts records
	now     time.Time      // of the read
	repairs int            // keys this registry repairs at the next ApplyChanges
}

// sharedKey is what the last read saw of one shared record set.
type sharedKey struct {
	key      endpoint.Key
	record   *endpoint.Endpoint // as read; nil: missing
	marker   *endpoint.Endpoint // its ownership TXT as read; nil: missing
	contribs []contribRead      // sorted by owner
	ours     int                // index of this registry's contribution in contribs; -1: none
	// shared: the record set is missing or marked shared. False: a record
	// set that is not shared sits there (owned the usual way, or by
	// nobody); it is never touched, and a contribution of ours to it is
	// stale.
	shared bool
	// repair: this registry has work at this record set even without a
	// change of its own (see Registry.sharedRepair).
	repair bool
	// heartbeat: this registry's contribution is due to be rewritten.
	heartbeat bool
	// foreign: a record appeared at a record set the last read found
	// missing that no contribution vouches for (see Registry.shareView);
	// marker, when set, is the ownership TXT beside it to delete.
	foreign bool
}

// vouch reports whether every target of the record is one that a
// contribution asks for, or asked for when the record was found missing
// (seen, by canonical target).
func (k *sharedKey) vouch(seen map[string]bool) bool {
	asked := map[string]bool{}
	for t := range seen {
		asked[t] = true
	}
	for _, c := range k.contribs {
		for _, t := range c.Targets {
			asked[endpoint.CanonicalTarget(t)] = true
		}
	}
	for _, t := range k.record.Targets {
		if !asked[endpoint.CanonicalTarget(t)] {
			return false
		}
	}
	return true
}

// covers reports whether live contributions to k ask for every target of
// rec (and there is at least one).
func (k *sharedKey) covers(rec *endpoint.Endpoint) bool {
	asked := map[string]bool{}
	for _, c := range k.contribs {
		if c.Expired {
			continue
		}
		for _, t := range c.Targets {
			asked[endpoint.CanonicalTarget(t)] = true
		}
	}
	if len(asked) == 0 || len(rec.Targets) == 0 {
		return false
	}
	for _, t := range rec.Targets {
		if !asked[endpoint.CanonicalTarget(t)] {
			return false
		}
	}
	return true
}

// suspects returns the shared record sets of the read that hold ownership
// data but no record, with the targets their contributions ask for.
func (sst *sharedState) suspects() map[endpoint.Key]map[string]bool {
	var out map[endpoint.Key]map[string]bool
	for key, k := range sst.keys {
		if !k.shared || k.record != nil || (k.marker == nil && len(k.contribs) == 0) {
			continue
		}
		seen := map[string]bool{}
		for _, c := range k.contribs {
			for _, t := range c.Targets {
				seen[endpoint.CanonicalTarget(t)] = true
			}
		}
		if out == nil {
			out = map[endpoint.Key]map[string]bool{}
		}
		out[key] = seen
	}
	return out
}

// contribRead is a contribution as read, with its TXT record.
type contribRead struct {
	registry.Contribution
	txt *endpoint.Endpoint
}

// live returns the contributions that have not expired, except the one
// at index skip (-1: none).
func (k *sharedKey) live(skip int) []registry.Contribution {
	var out []registry.Contribution
	for i, c := range k.contribs {
		if i != skip && !c.Expired {
			out = append(out, c.Contribution)
		}
	}
	return out
}

// want is the record set the live contributions merge into.
func (k *sharedKey) want() *endpoint.Endpoint { return mergeShared(k.key, k.live(-1)) }

// expired reports whether a contribution of another owner expired.
func (k *sharedKey) expired() bool {
	for _, c := range k.contribs {
		if c.Expired {
			return true
		}
	}
	return false
}

// sharedKeyOf is the key of a record set in the form keys of the shared
// state have.
func sharedKeyOf(ep *endpoint.Endpoint) endpoint.Key {
	return endpoint.Key{DNSName: lowerASCII(endpoint.CanonicalName(ep.DNSName)), RecordType: strings.ToUpper(ep.RecordType), SetIdentifier: ep.SetIdentifier}
}

// shareView turns the records of a read into this registry's view of the
// shared record sets: a shared record set (missing, or marked by its
// ownership TXT) is replaced by this registry's contribution to it, owned
// by us — so the planner plans the contribution like any record of ours —
// or left out when we contribute nothing (a create of ours then joins it).
// Record sets in scope that are not shared are returned as read: owned by
// somebody else, or by nobody, they are never touched. It returns the
// records and the shared state of the read.
//
// sus are the suspects of the previous read: shared record sets it found
// missing, with the targets their contributions held then. A record that
// has appeared at one since is shared only when every target it holds is
// one a contribution asks (or asked) for; otherwise somebody else wrote it
// next to the ownership data left behind, and it is treated as not shared
// — never joined, never changed — and that ownership TXT, which would
// lend it to the owners, is deleted as a repair. The read's suspects are
// in the state returned.
func (r *Registry) shareView(log logr.Logger, rd *reading, out []*endpoint.Endpoint, sus map[endpoint.Key]map[string]bool) ([]*endpoint.Endpoint, *sharedState) {
	m := r.shared
	now := m.clock.Now()
	sst := &sharedState{keys: map[endpoint.Key]*sharedKey{}, now: now}
	get := func(key endpoint.Key) *sharedKey {
		k := sst.keys[key]
		if k == nil {
			k = &sharedKey{key: key, ours: -1, shared: true}
			sst.keys[key] = k
		}
		return k
	}
	for _, raw := range rd.contribs {
		key, c, err := parseContribution(raw.labels, raw.txt.DNSName, raw.txt.SetIdentifier)
		if err != nil {
			log.V(1).Info("ignoring a malformed contribution to a shared record set", "record", raw.txt.Key().String(), "error", err.Error())
			continue
		}
		key.DNSName = lowerASCII(key.DNSName)
		if !m.covers(key.DNSName, key.RecordType) {
			continue
		}
		k := get(key)
		if slices.ContainsFunc(k.contribs, func(o contribRead) bool { return o.Owner == c.Owner }) {
			continue // one per owner: its name is its own
		}
		if c.Owner != r.ownerID && m.expire > 0 && now.Sub(c.Seen) > max(m.expire, 3*c.Refresh) {
			c.Expired = true
		}
		// The contribution travels with its record (provider.GroupKey):
		// deleted in the same call, in the record's zone.
		raw.txt.Labels.Set(endpoint.OwnedRecordLabelKey, key.DNSName)
		k.contribs = append(k.contribs, contribRead{Contribution: c, txt: raw.txt})
	}
	for _, k := range sst.keys {
		slices.SortFunc(k.contribs, func(a, b contribRead) int { return strings.Compare(a.Owner, b.Owner) })
		for i, c := range k.contribs {
			if c.Owner == r.ownerID {
				k.ours = i
			}
		}
	}
	// The records: shared ones become our view (or nothing), in place, so
	// that the order holds.
	kept := out[:0]
	for _, rec := range out {
		key := sharedKeyOf(rec)
		if !m.covers(key.DNSName, key.RecordType) {
			kept = append(kept, rec)
			continue
		}
		owner, owned := rec.Labels.Get(endpoint.OwnerLabelKey)
		marked := owner == SharedOwnerID
		if !marked && !owned && sst.keys[key] != nil && sst.keys[key].covers(rec) {
			// A record of nobody's whose every target a live contribution
			// asks for is the shared record that lost its ownership TXT
			// (the last owner left, on a read that did not see another
			// join, and a provider deleting record by record kept the
			// joiner's targets): shared, and the ownership TXT is written
			// again as a repair.
			marked = true
		}
		if !marked {
			// Somebody else's, or nobody's: as read, and never joined.
			kept = append(kept, rec)
			if k := sst.keys[key]; k != nil {
				k.shared = false // our contribution there is stale
			} else {
				if sst.plain == nil {
					sst.plain = make(map[endpoint.Key]struct{}, len(out))
				}
				sst.plain[key] = struct{}{}
			}
			continue
		}
		k := get(key)
		k.record = rec.DeepCopy()
		if marked && sus[key] != nil && !k.vouch(sus[key]) {
			log.Info("a record appeared at a shared record set found without it, holding targets no owner asked for: leaving it alone and removing the ownership record beside it",
				"record", rec.Key().String(), "targets", rec.Targets.String())
			k.shared, k.foreign = false, true
			k.marker = r.readMarker(rd, rec)
		}
		if !k.shared {
			kept = append(kept, rec)
			continue
		}
		k.marker = r.readMarker(rd, rec)
		if k.ours >= 0 {
			kept = append(kept, r.contributionView(k))
		}
	}
	out = kept
	// Markers whose record is missing.
	for i := range rd.parsed {
		p := &rd.parsed[i]
		if p.taken || !isMarker(p.labels) {
			continue
		}
		name, rtype, ok := r.namer.parseTXTName(lowerASCII(rd.st.txts[i].name))
		if !ok || rtype == "" {
			continue
		}
		if w := r.namer.wildcard; w != "" && (name == w || strings.HasPrefix(name, w+".")) {
			name = "*" + name[len(w):]
		}
		key := endpoint.Key{DNSName: name, RecordType: strings.ToUpper(rtype), SetIdentifier: rd.st.setID(int32(i))}
		if !m.covers(key.DNSName, key.RecordType) {
			continue
		}
		k := get(key)
		if k.record == nil && k.marker == nil {
			k.marker = r.markerAt(rd, int32(i), key.DNSName)
		}
	}
	missing := 0 // views of ours whose record is missing
	for key, k := range sst.keys {
		sst.order = append(sst.order, key)
		if k.repair = r.needsSharedRepair(k, now); k.repair {
			sst.repairs++
		}
		if k.shared && k.ours >= 0 && k.record == nil {
			out = append(out, r.contributionView(k))
			missing++
		}
	}
	slices.SortFunc(sst.order, compareKeys)
	if missing > 0 {
		slices.SortStableFunc(out, endpoint.Compare)
	}
	if log := log.V(1); log.Enabled() && len(sst.keys) > 0 {
		log.Info("read shared record sets", "shared", len(sst.keys), "repairs", sst.repairs)
	}
	return out, sst
}

// compareKeys orders keys as endpoint.Compare orders records.
func compareKeys(a, b endpoint.Key) int {
	if c := strings.Compare(a.DNSName, b.DNSName); c != 0 {
		return c
	}
	if c := strings.Compare(a.SetIdentifier, b.SetIdentifier); c != 0 {
		return c
	}
	return strings.Compare(a.RecordType, b.RecordType)
}

// needsSharedRepair reports whether this registry has work at k without a
// change of its own: its own stale contribution to a record set that is
// not shared; at a shared record set it contributes to, a record set that
// differs from the merge of the live contributions (a write lost to a
// concurrent one, a cut connection), a missing ownership TXT, or its
// contribution due for a heartbeat; at any shared record set in scope, an
// expired contribution to remove (with ExpireAfter set), or a record set
// or ownership TXT that no contribution keeps (the last owner left
// half-way).
func (r *Registry) needsSharedRepair(k *sharedKey, now time.Time) bool {
	if !k.shared {
		return k.ours >= 0 || k.marker != nil
	}
	if k.ours >= 0 && now.Sub(k.contribs[k.ours].Seen) >= r.shared.heartbeat {
		k.heartbeat = true
		return true
	}
	want := k.want()
	differs := !sameShared(k.record, want) || (want == nil) != (k.marker == nil)
	switch {
	case k.expired():
		return true
	case !differs:
		return false
	case k.ours >= 0:
		return true
	default:
		return want == nil // nobody contributes: finish the last owner's leaving
	}
}

// contributionView is the record of ours that stands for our contribution
// to k: its targets, TTL and properties, owned by us, with the resource
// label it was written with.
func (r *Registry) contributionView(k *sharedKey) *endpoint.Endpoint {
	c := k.contribs[k.ours]
	view := &endpoint.Endpoint{
		DNSName:          k.key.DNSName,
		RecordType:       k.key.RecordType,
		SetIdentifier:    k.key.SetIdentifier,
		Targets:          slices.Clone(c.Targets),
		RecordTTL:        c.TTL,
		ProviderSpecific: slices.Clone(c.ProviderSpecific),
		Labels:           endpoint.LabelsFromMap(map[string]string{endpoint.OwnerLabelKey: r.ownerID}),
	}
	if k.record != nil {
		view.DNSName = k.record.DNSName
	}
	if c.Resource != "" {
		view.Labels.Set(endpoint.ResourceLabelKey, c.Resource)
	}
	view.SetOwnership(endpoint.OwnedByUs)
	return view
}

// readMarker returns the ownership TXT, as read, that marks rec shared.
func (r *Registry) readMarker(rd *reading, rec *endpoint.Endpoint) *endpoint.Endpoint {
	i, ok := rd.st.index()[txtKey(lowerASCII(r.txtName(rec)), rec.SetIdentifier)]
	if !ok || !isMarker(rd.parsed[i].labels) {
		return nil
	}
	return r.markerAt(rd, i, rec.DNSName)
}

// markerAt returns the ownership TXT at index i of the read, owning the
// record named owned.
func (r *Registry) markerAt(rd *reading, i int32, owned string) *endpoint.Endpoint {
	info := rd.st.txts[i]
	ep := &endpoint.Endpoint{
		DNSName:       info.name,
		Targets:       endpoint.Targets{info.value},
		RecordType:    endpoint.RecordTypeTXT,
		SetIdentifier: rd.st.setID(i),
		Labels:        endpoint.LabelsFromMap(map[string]string{endpoint.OwnedRecordLabelKey: owned}),
	}
	rd.st.keptLabels(i, ep)
	return ep
}

// SharedRecords implements [registry.SharedReporter]: the shared record
// sets in scope that the last Records call found, sorted by (name, set
// identifier, type); nil without shared mode, before the first read and
// after an ApplyChanges call (which makes what was read outdated).
func (r *Registry) SharedRecords() []registry.SharedRecord {
	r.mu.Lock()
	sst := r.sharedSt
	r.mu.Unlock()
	if sst == nil {
		return nil
	}
	var out []registry.SharedRecord
	for _, key := range sst.order {
		k := sst.keys[key]
		if !k.shared {
			continue
		}
		sr := registry.SharedRecord{Key: key, Want: k.want()}
		if k.record != nil {
			sr.Record = k.record.DeepCopy()
		}
		for _, c := range k.contribs {
			c := c.Contribution
			c.Targets, c.ProviderSpecific = slices.Clone(c.Targets), slices.Clone(c.ProviderSpecific)
			sr.Contributions = append(sr.Contributions, c)
		}
		out = append(out, sr)
	}
	return out
}

// providerLabels copies the labels a provider returned with a record,
// without the registry's own keys.
func providerLabels(l endpoint.Labels) endpoint.Labels {
	var out endpoint.Labels
	for k, v := range l.All() {
		if !endpoint.IsReservedLabelKey(k) {
			out.Set(k, v)
		}
	}
	return out
}

// Shares implements [registry.SharedReporter]: whether record sets of this
// name and type are in shared mode ([SharedConfig.Names],
// [SharedConfig.RecordTypes]). Always false without shared mode.
func (r *Registry) Shares(name, recordType string) bool {
	return r.shared.covers(lowerASCII(endpoint.CanonicalName(name)), recordType)
}
