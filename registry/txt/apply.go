package txt

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
)

// ApplyChanges applies changes together with the ownership TXT records
// they need, in one provider ApplyChanges call, or in one call per zone
// when the provider lists its zones ([provider.ZoneLister]); see the
// package documentation for the rules. changes and its endpoints are not
// modified.
//
// Per zone, a record and its ownership TXT are always in the same call,
// the record's zone ([provider.SplitByZone]); a zone that fails does not
// stop the others, and the error joins one [*provider.ZoneError] per failed
// zone. After any failure the registry forgets what it read of the
// ownership TXT records, in every zone, and reads them again: it never
// writes a TXT on the belief that a failed call (or a rejected change,
// [provider.RejectedError]) wrote or removed another.
//
// UpdateOld and UpdateNew are paired by position and must have the same
// length; otherwise nothing is applied and the error says so. external-dns's
// TXT registry applies an UpdateNew list without its old side; this one
// refuses it, since the old side is the record whose ownership is checked
// and whose ownership TXT, as read, the update replaces (no planner, of
// either project, makes such a change set).
//
// Changes are checked first: when an update (its UpdateOld record) or a
// delete concerns a record not owned by OwnerID or OldOwnerID (its owner
// label), nothing is applied and the error, which matches
// [registry.ErrNotOwned], names every such record and its owner.
//
// Creates whose ownership TXT cannot be written (its name has a label over
// 63 octets, or falls outside the provider's domain filter while the record
// is inside it, like "a-example.com" for an apex record, or the last read
// found an ordinary TXT or a CNAME record there) are left out rather
// than created without an owner; the other changes are applied and the
// returned error, marked soft ([provider.SoftError]) so that a Reconciler
// keeps running, wraps [ErrTXTName] and names each record.
//
// ApplyChanges also makes the repairs the last Records call found (see
// [Registry.PendingRepairs]) that changes leave standing: it deletes the
// ownership TXT records of ours whose record is missing and not created by
// changes, and those next to a record that came from elsewhere. changes
// may be empty, or nil, to make the repairs alone.
func (r *Registry) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if changes == nil {
		changes = &plan.Changes{} // repairs only
	}
	if len(changes.UpdateOld) != len(changes.UpdateNew) {
		return fmt.Errorf("txt registry: %d UpdateOld and %d UpdateNew records: updates must come in pairs",
			len(changes.UpdateOld), len(changes.UpdateNew))
	}
	r.applyMu.Lock()
	defer r.applyMu.Unlock()
	var sb *sharedBuild
	if r.shared != nil {
		// Shared record sets take a path of their own (shared_apply.go).
		changes, sb = r.splitShared(changes)
	}
	if err := r.checkOwned(changes); err != nil {
		return err
	}

	r.mu.Lock()
	st := r.state
	r.mu.Unlock()

	b := &changeBuilder{r: r, log: logr.FromContextOrDiscard(ctx), st: st, filter: r.provider.GetDomainFilter(), touched: map[string]bool{}}
	out := b.build(changes)
	if sb != nil {
		sb.emit(out)
		b.skipped = append(b.skipped, sb.refused...)
		if sb.touched {
			// What the last read saw of the shared record sets is
			// outdated from here on, whatever the outcome.
			r.mu.Lock()
			r.sharedSt = nil
			r.mu.Unlock()
		}
	}
	if !hasAny(out) {
		return b.skippedError(nil) // nothing reached the provider: state unchanged
	}
	out, recheck, err := b.recheckCreates(ctx, out)
	if err != nil {
		r.invalidate(b, false)
		return b.skippedError(fmt.Errorf("txt registry: %w", err))
	}
	if !hasAny(out) {
		r.forget()
		return b.skippedError(nil)
	}
	err = r.applyByZone(ctx, out)
	if err != nil {
		r.invalidate(b, false)
		return b.skippedError(fmt.Errorf("txt registry: applying changes: %w", err))
	}
	r.invalidate(b, true)
	if recheck {
		// Some creates were left out: what the call wrote is not what
		// it planned, so the next call reads again.
		r.forget()
	}
	b.log.V(1).Info("applied changes", "create", len(out.Create), "updateOld", len(out.UpdateOld),
		"updateNew", len(out.UpdateNew), "delete", len(out.Delete), "repairs", len(b.repaired))
	return b.skippedError(nil)
}

// recheckCreates narrows the window in which a create could overwrite a
// record written since the last read, on a provider whose creates may
// overwrite ([provider.Guarantees].CreateFailsIfExists false): it reads the
// records again ([provider.RecheckCreates]) and leaves out each record
// whose record set, or whose ownership TXT's, appeared meanwhile, together
// with its ownership TXT — a TXT of ours must never be written next to a
// record it did not create. Each record left out is reported as skipped
// (wrapping [provider.ErrCreateWouldOverwrite]). recheck reports whether
// anything was left out.
func (b *changeBuilder) recheckCreates(ctx context.Context, out *plan.Changes) (kept *plan.Changes, recheck bool, err error) {
	if len(out.Create) == 0 || provider.GuaranteesOf(b.r.provider).CreateFailsIfExists {
		return out, false, nil
	}
	kept, dropped, err := provider.RecheckCreates(ctx, b.r.provider, out)
	if err != nil {
		return nil, false, err
	}
	for _, ep := range dropped {
		if _, ok := ep.Labels.Get(endpoint.OwnedRecordLabelKey); ok && ep.RecordType == endpoint.RecordTypeTXT {
			continue // reported with its record
		}
		err := fmt.Errorf("create %s skipped: %w (the provider's creates replace existing records); the next cycle plans it from what it reads then",
			ep.Key(), provider.ErrCreateWouldOverwrite)
		b.skipped = append(b.skipped, err)
		b.log.Info("not creating a record that appeared after the zone was read", "record", ep.Key().String())
	}
	return kept, len(dropped) > 0, nil
}

// forget drops what the registry remembers of the last read: the next
// ApplyChanges works from a new one.
func (r *Registry) forget() {
	r.mu.Lock()
	r.gen++
	r.state = nil
	r.sharedSt = nil
	r.mu.Unlock()
}

// applyByZone hands out to the provider: in one call, or, when the provider
// lists its zones ([provider.ZoneLister]), in one call per zone, in zone
// order. Each record travels with its ownership TXT, in the record's zone
// ([provider.SplitByZone]). A zone that fails does not stop the others; the
// errors are joined, each a [*provider.ZoneError] naming its zone.
func (r *Registry) applyByZone(ctx context.Context, out *plan.Changes) error {
	zones, ok, err := provider.ZonesOf(ctx, r.provider)
	if err != nil {
		return err
	}
	if !ok {
		return r.provider.ApplyChanges(ctx, out)
	}
	names, parts := provider.SplitByZone(out, provider.NewZoneMatcher(zones...))
	var errs []error
	for _, zone := range names {
		if err := ctx.Err(); err != nil {
			errs = append(errs, &provider.ZoneError{Zone: zone, Err: err})
			continue
		}
		if err := r.provider.ApplyChanges(ctx, parts[zone]); err != nil {
			errs = append(errs, &provider.ZoneError{Zone: zone, Err: err})
		}
	}
	return errors.Join(errs...)
}

// owns reports whether ep is ours to update or delete: its ownership
// verdict ([endpoint.Owners.Of]) is ours, or ours under the old owner id.
func (r *Registry) owns(ep *endpoint.Endpoint) bool {
	return r.owners().Of(ep).Mine()
}

// owners returns the registry's ownership rule.
func (r *Registry) owners() endpoint.Owners {
	return endpoint.Owners{OwnerID: r.ownerID, OldOwnerID: r.oldOwnerID}
}

// checkOwned refuses changes that update or delete records the registry
// does not own: the error names every such record with its owner label and
// matches [registry.ErrNotOwned].
func (r *Registry) checkOwned(changes *plan.Changes) error {
	var errs []error
	check := func(action string, ep *endpoint.Endpoint) {
		if ep != nil && !r.owns(ep) {
			owner, _ := ep.Labels.Get(endpoint.OwnerLabelKey)
			errs = append(errs, fmt.Errorf("%s %s (owner %q): %w", action, ep.Key(), owner, registry.ErrNotOwned))
		}
	}
	for i, ep := range changes.UpdateOld {
		if changes.UpdateNew[i] != nil {
			check("update", ep)
		}
	}
	for _, ep := range changes.Delete {
		check("delete", ep)
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("txt registry: nothing applied: %d change(s) of records not owned by %q: %w", len(errs), r.ownerID, errors.Join(errs...))
}

func hasAny(c *plan.Changes) bool {
	return len(c.Create)+len(c.UpdateOld)+len(c.UpdateNew)+len(c.Delete) > 0
}

// invalidate updates what the registry remembers after an ApplyChanges.
// After a success the TXT index of the last read is brought up to date
// with what was written, and the suspects of every TXT the call wrote or
// deleted are dropped; after a failure the zone state is unknown until the
// next read, and the records the call tried to create, update or delete
// are remembered as suspects (see suspect).
func (r *Registry) invalidate(b *changeBuilder, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gen++
	r.suspects = b.suspects(r.suspects, ok)
	if !ok || r.state == nil || b.st != r.state {
		// Failed, no read before, or a read raced with this call: the
		// next ApplyChanges must not trust what it remembers.
		r.state = nil
		return
	}
	// Copy on write: the published state stays immutable.
	idx := r.state.index()
	st := &zoneState{txts: slices.Clone(r.state.txts), setIDs: r.state.setIDs}
	for _, w := range b.written {
		if w.setID != "" {
			st.setIDs = maps.Clone(st.setIDs)
			if st.setIDs == nil {
				st.setIDs = map[int32]string{}
			}
			break
		}
	}
	for i, d := range b.delta {
		st.txts[i].users = max(st.txts[i].users+d, 0)
	}
	for key, w := range b.written {
		if i, ok := idx[key]; ok {
			// Written by this registry: ours, with labels of records
			// that hold them.
			st.txts[i].value, st.txts[i].mine = w.value, true
			continue
		}
		st.txts = append(st.txts, txtInfo{name: w.name, value: w.value, users: w.users, mine: true})
		if w.setID != "" {
			st.setIDs[int32(len(st.txts)-1)] = w.setID
		}
	}
	st.unclaimed = r.state.unclaimed
	st.kept = r.state.kept
	st.inTheWay = r.state.inTheWay
	cloned := false
	for key := range b.written {
		if _, ok := st.unclaimed[key]; ok {
			// Rewritten with the labels of a record: no longer unclaimed.
			if !cloned {
				st.unclaimed, cloned = maps.Clone(st.unclaimed), true
			}
			delete(st.unclaimed, key)
		}
	}
	if len(b.removed) > 0 {
		// The records left move down: the maps by index follow them.
		kept := st.txts[:0]
		var setIDs map[int32]string
		var labels map[int32]endpoint.Labels
		for i, t := range st.txts {
			if b.removed[int32(i)] {
				continue
			}
			at := int32(len(kept))
			if id := st.setID(int32(i)); id != "" {
				if setIDs == nil {
					setIDs = map[int32]string{}
				}
				setIDs[at] = id
			}
			if l, ok := st.kept[int32(i)]; ok {
				if labels == nil {
					labels = map[int32]endpoint.Labels{}
				}
				labels[at] = l
			}
			kept = append(kept, t)
		}
		st.txts, st.setIDs, st.kept = kept, setIDs, labels
	}
	for _, rp := range r.state.repairs {
		if !b.touched[rp.key] {
			st.repairs = append(st.repairs, rp)
		}
	}
	r.state = st
}

// suspects returns the registry's suspects sus after the call: on success
// without those of the TXT records the call wrote, reused or deleted and of
// the records it changed; on failure with the targets of the records it
// tried to create or delete (and, for suspects already held, to update).
func (b *changeBuilder) suspects(sus map[string]*suspect, ok bool) map[string]*suspect {
	if len(b.attempts) == 0 && (len(sus) == 0 || len(b.touched) == 0) {
		return sus
	}
	next := maps.Clone(sus)
	if next == nil {
		next = map[string]*suspect{}
	}
	for _, at := range b.attempts {
		switch {
		case ok:
			delete(next, at.key)
		case at.create || next[at.key] != nil:
			next[at.key] = next[at.key].with(at.targets)
		}
	}
	if ok {
		for key := range b.touched {
			delete(next, key)
		}
	}
	if len(next) == 0 {
		return nil
	}
	return next
}

// changeBuilder turns the planner's changes into the provider's changes.
//
// With a zone state (a Records call came first), ownership TXT records are
// written and deleted by what that read saw: a typed TXT is deleted, with
// the value read, once no record that consults it remains (see
// txtInfo.users) — whichever record it gave its labels to. Without one it
// behaves like external-dns: TXT records are rebuilt from the labels.
type changeBuilder struct {
	r      *Registry
	log    logr.Logger
	st     *zoneState // nil: unknown
	filter endpoint.DomainFilterInterface

	touched map[string]bool     // TXT keys written, reused or deleted by this call
	written map[string]*written // TXT key -> TXT created or rewritten
	skipped []error

	attempts []attempt // records changed, under the key of their TXT
	repaired []string  // names of the TXT records deleted as repairs

	// Users of the TXT records read (st.txts indices): the change of
	// their count, the TXT records that lost a user (in order, with the
	// first record that left), and those deleted.
	delta   map[int32]int32
	left    []leftTXT
	removed map[int32]bool

	txtCreate, txtOld, txtNew, txtDelete []*endpoint.Endpoint
	reuseOld, reuseNew                   []*endpoint.Endpoint
}

// leftTXT is a TXT record read that a deleted or updated record stopped
// using.
type leftTXT struct {
	txt int32
	rec *endpoint.Endpoint
}

func (b *changeBuilder) build(changes *plan.Changes) *plan.Changes {
	r := b.r
	out := &plan.Changes{}
	for _, ep := range changes.Create {
		if ep == nil {
			continue
		}
		rec := ep.DeepCopy()
		// One spelling on the wire: the record and the TXT named after it
		// use the canonical form (a trailing dot or upper case from a caller
		// that did not canonicalise would otherwise give a second TXT); a
		// name from the planner is in that form already.
		rec.DNSName = endpoint.CanonicalName(rec.DNSName)
		rec.Labels.Set(endpoint.OwnerLabelKey, r.ownerID)
		r.withNonce(rec)
		txt, err := r.ownershipTXT(rec)
		if err == nil {
			err = b.checkFilter(rec, txt)
		}
		if err != nil {
			b.skipped = append(b.skipped, fmt.Errorf("create %s skipped: %w", rec.Key(), err))
			b.log.Error(err, "not creating a record whose ownership cannot be recorded", "record", rec.Key().String())
			continue
		}
		// The TXT goes first: a provider that stops half-way then leaves a
		// TXT without its record, which the next read repairs, never a
		// record without its TXT, which nobody could tell from a foreign one.
		b.use(rec, nil)
		before := len(b.txtCreate)
		b.createTXT(rec, txt)
		out.Create = append(out.Create, b.txtCreate[before:]...)
		b.txtCreate = b.txtCreate[:before]
		if old := b.replacesRepair(rec); old != nil {
			// A TXT record is created where an ownership TXT of ours
			// waits to be deleted as a repair: the repair and the create
			// become one update, so that the change set never both
			// creates and deletes one record set.
			out.UpdateOld = append(out.UpdateOld, old)
			out.UpdateNew = append(out.UpdateNew, rec)
		} else {
			out.Create = append(out.Create, rec)
		}
		b.attempts = append(b.attempts, attempt{key: keyOf(txt), targets: rec.Targets, create: true})
	}
	for i, oldEp := range changes.UpdateOld {
		newEp := changes.UpdateNew[i]
		if oldEp == nil || newEp == nil {
			continue
		}
		oldRec, newRec := oldEp.DeepCopy(), newEp.DeepCopy()
		newRec.Labels.Set(endpoint.OwnerLabelKey, r.ownerID)
		if !r.encrypt {
			// The nonce of a TXT read encrypted, carried over by the
			// planner from the current record: the TXT written now is
			// plain, so no nonce stands behind the new record.
			newRec.Labels.Delete(endpoint.TxtEncryptionNonceLabelKey)
		}
		out.UpdateOld = append(out.UpdateOld, oldRec)
		out.UpdateNew = append(out.UpdateNew, newRec)
		r.withNonce(newRec)
		b.updateTXT(oldRec, newRec)
		r.withNonce(oldRec)
		key := b.recordKey(newRec)
		b.attempts = append(b.attempts, attempt{key: key, targets: oldRec.Targets}, attempt{key: key, targets: newRec.Targets})
	}
	for _, ep := range changes.Delete {
		if ep == nil {
			continue
		}
		rec := ep.DeepCopy()
		out.Delete = append(out.Delete, rec)
		b.deleteTXT(rec)
		r.withNonce(rec)
		b.attempts = append(b.attempts, attempt{key: b.recordKey(rec), targets: rec.Targets, create: true})
	}
	b.deleteUnused()
	b.repair()
	// Records are deleted before their TXT records (the TXT deletes come
	// last), so that a cut leaves a TXT without record, which heals.
	out.Create = append(out.Create, b.txtCreate...)
	out.UpdateOld = append(append(out.UpdateOld, b.txtOld...), b.reuseOld...)
	out.UpdateNew = append(append(out.UpdateNew, b.txtNew...), b.reuseNew...)
	out.Delete = append(out.Delete, b.txtDelete...)
	return out
}

// checkFilter refuses a TXT name outside the provider's domain filter when
// the owned record is inside it (an apex record without a prefix ending in
// a dot gets "a-example.com", outside the zone).
func (b *changeBuilder) checkFilter(rec, txt *endpoint.Endpoint) error {
	if err := b.r.usableTXTName(b.filter, rec, txt.DNSName); err != nil {
		return err
	}
	return txtInTheWay(b.st, txt)
}

// txtInTheWay returns an error wrapping [ErrTXTName] when the last read
// found a record at the record set of txt, an ownership TXT to create, that
// is not an ownership record: an ordinary TXT record (the create would fail,
// or replace it on a provider whose creates overwrite) or a CNAME record
// (which shares its name with nothing). st nil (no read) finds nothing.
func txtInTheWay(st *zoneState, txt *endpoint.Endpoint) error {
	if st == nil || len(st.inTheWay) == 0 {
		return nil
	}
	name := lowerASCII(txt.DNSName)
	for _, key := range [2]string{txtKey(name, txt.SetIdentifier), txtKey(name, "")} {
		if t, ok := st.inTheWay[key]; ok && (t == endpoint.RecordTypeCNAME || key == txtKey(name, txt.SetIdentifier)) {
			return fmt.Errorf("%w: %q holds a %s record that is not an ownership record, "+
				"so the ownership TXT cannot be written there", ErrTXTName, txt.DNSName, t)
		}
	}
	return nil
}

// apexPrefix is the prefix that the error about an apex record's TXT name
// suggests.
const apexPrefix = "txt-" + RecordTypeTemplate + "."

// usableTXTName checks that txtName, the ownership TXT name of rec, is a
// valid name and, when filter matches rec's name, that it matches txtName
// too. The error says which setting to change and what the change does to
// the records owned today.
func (r *Registry) usableTXTName(filter endpoint.DomainFilterInterface, rec *endpoint.Endpoint, txtName string) error {
	if err := ValidateTXTName(txtName); err != nil {
		return err
	}
	if filter == nil || !filter.Match(rec.DNSName) || filter.Match(txtName) {
		return nil
	}
	fix := "set Config.Prefix"
	if r.namer.suffix != "" {
		fix = "a Suffix never names the TXT of a zone's apex inside the zone: use Config.Prefix instead of Config.Suffix"
	}
	suggested, _ := newTXTNamer(apexPrefix, "", r.namer.wildcard) // cannot fail: no suffix
	return fmt.Errorf("%w: %q is outside the provider's domain filter while %s is inside it (a zone apex?): "+
		"%s to a prefix that contains %q and ends with \".\", such as %q (which names this TXT %q); "+
		"until then its ownership cannot be recorded. A new prefix renames every ownership TXT: the records owned today "+
		"under the current naming become unowned (left as they are, never updated or deleted; Registry.SettingsWarnings, "+
		"shown by a Reconciler's Preview, lists them) until their TXT records are renamed by hand",
		ErrTXTName, txtName, rec.DNSName, fix, RecordTypeTemplate, apexPrefix,
		suggested.txtName(endpoint.CanonicalName(rec.DNSName), r.txtType(rec)))
}

func keyOf(txt *endpoint.Endpoint) string {
	return txtKey(lowerASCII(txt.DNSName), txt.SetIdentifier)
}

// written is a TXT record that an ApplyChanges call creates or updates.
type written struct {
	name, setID, value string
	nonce              string // of an encrypted value: the nonce label of the record it was built from
	users              int32  // records of this call writing it
}

// markWritten records txt, built from the labels of rec, as written by
// this call.
func (b *changeBuilder) markWritten(key string, txt, rec *endpoint.Endpoint) {
	if b.written == nil {
		b.written = map[string]*written{}
	}
	w := &written{name: txt.DNSName, setID: txt.SetIdentifier, value: txt.Targets[0], users: 1}
	if b.r.encrypt {
		w.nonce, _ = rec.Labels.Get(endpoint.TxtEncryptionNonceLabelKey)
	}
	b.written[key] = w
}

// shareWritten makes rec, another record of this call owned through the
// TXT w writes, carry the nonce w is encrypted with.
func shareWritten(w *written, rec *endpoint.Endpoint) {
	w.users++
	if w.nonce != "" {
		rec.Labels.Set(endpoint.TxtEncryptionNonceLabelKey, w.nonce)
	}
}

// createTXT writes the ownership TXT of a created record: reused when the
// last read saw it with the same labels, updated when it holds others,
// created otherwise. The labels compared are those parsed at read time
// (zoneState.unclaimed); a TXT whose labels a record took then, which a
// create meets only in an odd plan, counts as holding others and is
// rewritten, which is always correct.
func (b *changeBuilder) createTXT(rec, txt *endpoint.Endpoint) {
	key := keyOf(txt)
	if w, ok := b.written[key]; ok {
		shareWritten(w, rec) // another record of this call owned through it
		return
	}
	if b.touched[key] {
		return
	}
	b.touched[key] = true
	if info, ok := b.st.lookup(key); ok {
		if stored, ok := b.st.unclaimed[key]; ok && sameLabels(stored, rec.Labels) {
			b.log.V(1).Info("reusing existing ownership TXT", "record", rec.Key().String(), "txt", txt.DNSName)
			if nonce, ok := stored.Get(endpoint.TxtEncryptionNonceLabelKey); ok && b.r.encrypt {
				// The TXT that stays was read encrypted: the record
				// carries its nonce (a plain one leaves the fresh nonce,
				// as external-dns does).
				rec.Labels.Set(endpoint.TxtEncryptionNonceLabelKey, nonce)
			}
			return
		}
		old := txt.DeepCopy()
		old.Targets = endpoint.Targets{info.value}
		b.st.keptLabels(b.st.index()[key], old)
		b.reuseOld = append(b.reuseOld, old)
		b.reuseNew = append(b.reuseNew, txt)
		b.markWritten(key, txt, rec)
		return
	}
	b.txtCreate = append(b.txtCreate, txt)
	b.markWritten(key, txt, rec)
}

// sameLabels reports whether stored, the labels parsed from a TXT when it
// was read, are labels (the nonce aside).
func sameLabels(stored, labels endpoint.Labels) bool {
	n, m := 0, 0
	for k, v := range labels.All() {
		if k == endpoint.TxtEncryptionNonceLabelKey {
			continue
		}
		n++
		if w, ok := stored.Get(k); !ok || w != v {
			return false
		}
	}
	for k := range stored.All() {
		if k != endpoint.TxtEncryptionNonceLabelKey {
			m++
		}
	}
	return n == m
}

// updateTXT rewrites the ownership TXT of an updated record.
func (b *changeBuilder) updateTXT(oldRec, newRec *endpoint.Endpoint) {
	r := b.r
	newTXT, err := r.ownershipTXT(newRec)
	if err == nil {
		err = b.checkFilter(newRec, newTXT)
	}
	if err != nil {
		b.skipped = append(b.skipped, fmt.Errorf("update %s: ownership TXT not written: %w", newRec.Key(), err))
		b.log.Error(err, "cannot write the ownership TXT of an updated record", "record", newRec.Key().String())
		newTXT = nil
	}
	oldTXT, oldErr := r.oldOwnershipTXT(oldRec)
	if oldErr != nil {
		oldTXT = nil // no valid name: it cannot exist
	}
	// The TXT records the old record consulted and the new one does not
	// lose a user (a renamed record, a new alias naming).
	b.use(newRec, oldRec)
	if oldTXT != nil && newTXT != nil && keyOf(oldTXT) == keyOf(newTXT) {
		key := keyOf(newTXT)
		if w, ok := b.written[key]; ok {
			shareWritten(w, newRec)
			return
		}
		if b.touched[key] {
			return
		}
		b.touched[key] = true
		info, seen := b.st.lookup(key)
		switch {
		case seen:
			oldTXT.Targets = endpoint.Targets{info.value}
			b.st.keptLabels(b.st.index()[key], oldTXT)
		case b.st != nil:
			// The last read did not see it (the record was owned through a
			// legacy or alias TXT, or its TXT went missing): create it.
			b.txtCreate = append(b.txtCreate, newTXT)
			b.markWritten(key, newTXT, newRec)
			return
		}
		b.txtOld = append(b.txtOld, oldTXT)
		b.txtNew = append(b.txtNew, newTXT)
		b.markWritten(key, newTXT, newRec)
		return
	}
	if oldTXT != nil && b.st == nil {
		b.deleteRebuilt(oldTXT)
	}
	if newTXT != nil {
		b.createTXT(newRec, newTXT)
	}
}

// deleteTXT removes the ownership TXT of a deleted record: with a zone
// state, every typed TXT it consulted loses a user (deleteUnused deletes
// those left without); without one, its TXT rebuilt from the labels is
// deleted.
func (b *changeBuilder) deleteTXT(rec *endpoint.Endpoint) {
	if b.st != nil {
		b.use(nil, rec)
		return
	}
	txt, err := b.r.oldOwnershipTXT(rec)
	if err != nil {
		return // no valid name: it cannot exist
	}
	b.deleteRebuilt(txt)
}

// deleteRebuilt deletes a TXT rebuilt from labels (no zone state), unless
// this call writes it.
func (b *changeBuilder) deleteRebuilt(txt *endpoint.Endpoint) {
	key := keyOf(txt)
	if b.touched[key] {
		return
	}
	b.touched[key] = true
	b.txtDelete = append(b.txtDelete, txt)
}

// consulted returns the typed ownership TXT records of the zone state that
// the ownership lookup of rec consults: the TXT named for its own type and, for an A ALIAS record, the one of the other alias
// naming — each only if the last read saw it and its name reads back as
// owning rec. Legacy untyped TXT records are not among them: they are
// never deleted.
func (b *changeBuilder) consulted(rec *endpoint.Endpoint) (txts [4]int32, n int) {
	if b.st == nil || rec == nil {
		return txts, 0
	}
	r := b.r
	owned := lowerASCII(rec.DNSName)
	if w := r.namer.wildcard; w != "" && (owned == "*" || strings.HasPrefix(owned, "*.")) {
		owned = w + owned[1:]
	}
	types := [2]string{r.txtType(rec)}
	if isAliasA(rec) {
		types[1] = endpoint.RecordTypeA
		if types[0] == endpoint.RecordTypeA {
			types[1] = endpoint.RecordTypeCNAME
		}
	}
	for _, t := range types {
		if t == "" {
			continue
		}
		names := [2]string{lowerASCII(r.namer.txtName(rec.DNSName, t))}
		// external-dns's name for a record with a Unicode first label.
		names[1], _ = r.namer.unicodeTXTName(rec.DNSName, t)
		for _, name := range names {
			if name == "" {
				continue
			}
			i, ok := b.st.index()[txtKey(name, rec.SetIdentifier)]
			if !ok {
				continue
			}
			// A name can read back as owning another record (a bare
			// "%{record_type}" prefix reads "aaaafoo" as A "aaafoo" as
			// well as AAAA "foo"): the TXT belongs to rec only when one of
			// its readings is rec's.
			if r.namer.readsAs(name, owned, t) {
				txts[n] = i
				n++
			}
		}
	}
	return txts, n
}

// use moves users between TXT records of the zone state: added (a created
// record, or the new side of an update) becomes a user of the TXT records
// it consults, left (a deleted record, or the old side of an update) stops
// using those it consulted. A TXT consulted by both sides is unchanged.
func (b *changeBuilder) use(added, left *endpoint.Endpoint) {
	if b.st == nil {
		return
	}
	in, nIn := b.consulted(added)
	out, nOut := b.consulted(left)
	if b.delta == nil && nIn+nOut > 0 {
		b.delta = map[int32]int32{}
	}
	for _, i := range in[:nIn] {
		if !slices.Contains(out[:nOut], i) {
			b.delta[i]++
		}
	}
	for _, i := range out[:nOut] {
		if !slices.Contains(in[:nIn], i) {
			b.delta[i]--
			b.left = append(b.left, leftTXT{txt: i, rec: left})
		}
	}
}

// deleteUnused deletes, with the value read, the TXT records that lost a
// user and have none left, unless this call writes them or they belong to
// another owner.
func (b *changeBuilder) deleteUnused() {
	for _, l := range b.left {
		info := b.st.txts[l.txt]
		key := b.st.key(l.txt)
		if b.touched[key] {
			continue
		}
		if n := info.users + b.delta[l.txt]; n > 0 {
			b.log.V(1).Info("keeping an ownership TXT used by another record", "record", l.rec.Key().String(), "txt", info.name, "users", n)
			continue
		}
		b.touched[key] = true
		if !info.mine {
			b.log.Info("not deleting an ownership TXT of another owner", "record", l.rec.Key().String(), "txt", info.name)
			continue
		}
		if b.removed == nil {
			b.removed = map[int32]bool{}
		}
		b.removed[l.txt] = true
		del := &endpoint.Endpoint{
			DNSName:          info.name,
			Targets:          endpoint.Targets{info.value},
			RecordType:       endpoint.RecordTypeTXT,
			SetIdentifier:    b.st.setID(l.txt),
			Labels:           endpoint.LabelsFromMap(map[string]string{endpoint.OwnedRecordLabelKey: l.rec.DNSName}),
			ProviderSpecific: txtProviderSpecific(l.rec.ProviderSpecific),
		}
		b.st.keptLabels(l.txt, del)
		b.txtDelete = append(b.txtDelete, del)
	}
}

// recordKey is the txtKey of the typed ownership TXT of rec.
func (b *changeBuilder) recordKey(rec *endpoint.Endpoint) string {
	return txtKey(lowerASCII(b.r.txtName(rec)), rec.SetIdentifier)
}

// replacesRepair returns, when rec (a record to create) is a TXT record
// whose record set is an ownership TXT of ours that the last read found to
// delete as a repair (see repair), that ownership TXT as read, and takes
// the repair over: the caller replaces it by rec in one update. It returns
// nil for every other record.
func (b *changeBuilder) replacesRepair(rec *endpoint.Endpoint) *endpoint.Endpoint {
	if b.st == nil || rec.RecordType != endpoint.RecordTypeTXT || len(b.st.repairs) == 0 {
		return nil
	}
	key := txtKey(lowerASCII(rec.DNSName), rec.SetIdentifier)
	if b.touched[key] {
		return nil
	}
	for _, rp := range b.st.repairs {
		if rp.key != key {
			continue
		}
		i, ok := b.st.index()[key]
		if !ok {
			return nil
		}
		b.touched[key] = true
		if b.removed == nil {
			b.removed = map[int32]bool{}
		}
		b.removed[i] = true
		b.repaired = append(b.repaired, b.st.txts[i].name)
		b.log.V(1).Info("replacing an ownership TXT of ours that was to be deleted as a repair by the TXT record created at its name",
			"txt", b.st.txts[i].name, "record", rec.Key().String())
		return b.readTXT(i, rp.owned)
	}
	return nil
}

// readTXT returns the ownership TXT at index i of the zone state as read,
// owning the record named owned, for a change that replaces or deletes it.
func (b *changeBuilder) readTXT(i int32, owned string) *endpoint.Endpoint {
	info := b.st.txts[i]
	return &endpoint.Endpoint{
		DNSName:       info.name,
		Targets:       endpoint.Targets{info.value},
		RecordType:    endpoint.RecordTypeTXT,
		SetIdentifier: b.st.setID(i),
		Labels:        endpoint.LabelsFromMap(map[string]string{endpoint.OwnedRecordLabelKey: owned}),
	}
}

// repair deletes, with the value read, the ownership TXT records that the
// last read found to repair (see Registry.PendingRepairs) and that this
// call does not write: orphans whose record it does not create, and TXT
// records next to a record that came from elsewhere.
func (b *changeBuilder) repair() {
	if b.st == nil {
		return
	}
	for _, rp := range b.st.repairs {
		if b.touched[rp.key] {
			continue // written or reused: its record is created
		}
		i, ok := b.st.index()[rp.key]
		if !ok {
			continue
		}
		b.touched[rp.key] = true
		info := b.st.txts[i]
		if b.removed == nil {
			b.removed = map[int32]bool{}
		}
		b.removed[i] = true
		b.repaired = append(b.repaired, info.name)
		b.txtDelete = append(b.txtDelete, b.readTXT(i, rp.owned))
		reason := "its record is missing"
		if rp.foreign {
			reason = "the record at its name was not created by this registry"
		}
		b.log.V(1).Info("deleting an ownership TXT of ours as a repair", "txt", info.name, "record", rp.owned, "reason", reason)
	}
}

// skippedError combines err (from the provider) with the records left out.
func (b *changeBuilder) skippedError(err error) error {
	if len(b.skipped) == 0 {
		return err
	}
	skipped := fmt.Errorf("txt registry: %w", errors.Join(b.skipped...))
	if err != nil {
		return errors.Join(err, skipped)
	}
	return provider.NewSoftError(skipped)
}
