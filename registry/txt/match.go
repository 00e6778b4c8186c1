package txt

import (
	"slices"
	"strings"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/endpoint"
)

// parsedTXT is an ownership TXT record found by attach.
type parsedTXT struct {
	// labels parsed from the value, given to every record owned through
	// the TXT (Labels is a value: a Set on one record changes no other).
	labels endpoint.Labels
	// canonical: the TXT name is exactly the typed name the registry
	// writes for the record it owns (or the one external-dns writes for a
	// name whose first label is Unicode, see txtNamer.parseTXTName), so
	// finding a record through it proves that the record's typed TXT
	// exists.
	canonical bool
	// mine: the owner is OwnerID or OldOwnerID.
	mine bool
	// taken: a record took the labels (is owned through the TXT).
	taken bool
}

// addTXT records the ownership TXT rec, whose value gave labels, in the
// zone state and, when its name reads under the configured naming, in the
// owner index.
func (r *Registry) addTXT(log logr.Logger, rd *reading, rec *endpoint.Endpoint, labels endpoint.Labels) {
	lower := lowerASCII(rec.DNSName)
	i := int32(len(rd.st.txts))
	// The one rule, applied to the labels the TXT would give a record.
	mine := r.owners().Verdict(&endpoint.Endpoint{Labels: labels}).Mine()
	rd.st.txts = append(rd.st.txts, txtInfo{name: rec.DNSName, value: rec.Targets[0], mine: mine})
	if rec.SetIdentifier != "" {
		if rd.st.setIDs == nil {
			rd.st.setIDs = map[int32]string{}
		}
		rd.st.setIDs[i] = rec.SetIdentifier
	}
	if rec.Labels.Len() > 0 {
		if rd.st.kept == nil {
			rd.st.kept = make(map[int32]endpoint.Labels)
		}
		rd.st.kept[i] = rec.Labels
	}
	rd.parsed = append(rd.parsed, parsedTXT{labels: labels, mine: mine})
	name, rtype, ok := r.namer.parseTXTName(lower)
	if !ok {
		log.V(1).Info("ownership TXT record does not match the configured prefix/suffix", "record", rec.Key().String())
		if mine {
			rd.check.unparsedTXT(rec.DNSName)
		}
		return
	}
	if rtype != "" {
		rd.buf = r.namer.appendTXTName(rd.buf[:0], name, rtype, true)
		canonical := string(rd.buf) == lower
		if !canonical {
			// external-dns's name for a record with a Unicode first
			// label counts as written: it reads it back itself.
			alt, ok := r.namer.unicodeTXTName(name, rtype)
			canonical = ok && alt == lower
		}
		rd.parsed[i].canonical = canonical
		if alts := r.namer.readings(lower); alts != nil {
			// Read as owning two records: which one is decided once every
			// record is read (resolveAmbiguous).
			if rd.alts == nil {
				rd.alts = map[int32][]txtReading{}
			}
			rd.alts[i] = alts
			rd.ambiguous = append(rd.ambiguous, i)
			return
		}
	}
	rd.owners.add(name, rtype, i)
}

// resolveAmbiguous indexes the ownership TXT records whose names read as
// owning more than one record (see txtNamer.readings). A bare
// "%{record_type}" prefix names the TXT of "foo"/AAAA and that of
// "aaafoo"/A alike, "aaaafoo"; external-dns reads it as the latter. Such a
// TXT owns the record of the one reading whose record exists — keeping it
// under that reading is what stops the orphan repair from deleting the TXT
// of a record this registry created — or, when none exists, stands under
// external-dns's reading (and is an orphan). When the records of several
// readings exist, nothing in the zone tells which one the TXT was written
// for: it owns none of them (each stays as it is, never updated or
// deleted), is not repaired, and SettingsWarnings says why.
func (r *Registry) resolveAmbiguous(rd *reading) {
	if len(rd.ambiguous) == 0 {
		return
	}
	set := r.newRecordSet(rd.out)
	for _, i := range rd.ambiguous {
		p := &rd.parsed[i]
		setID := rd.st.setID(i)
		found := -1
		n := 0
		alts := rd.alts[i]
		for k, alt := range alts {
			if set.keys[r.lookupName(alt.name)+"\x00"+alt.recordType+"\x00"+setID] {
				found = k
				n++
			}
		}
		switch {
		case n == 0:
			rd.owners.add(alts[0].name, alts[0].recordType, i)
		case n == 1:
			rd.owners.add(alts[found].name, alts[found].recordType, i)
		default:
			if p.mine {
				rd.check.ambiguousTXT(rd.st.txts[i].name)
			}
		}
	}
}

// vouch decides whether rec, found through TXT i of ours, is ours when that
// TXT is a suspect: only when rec holds targets this registry tried to
// write. Otherwise rec came from elsewhere: it stays unowned, and the TXT
// is remembered as lending ownership to a foreign record (a repair).
func (rd *reading) vouch(log logr.Logger, sus map[string]*suspect, i int32, rec *endpoint.Endpoint) bool {
	t := &rd.st.txts[i]
	key := rd.st.key(i)
	s := sus[key]
	if s == nil {
		return true
	}
	if s.holds(rec.Targets) {
		// Our create (or update) went through after all.
		rd.confirmed = append(rd.confirmed, key)
		return true
	}
	if !slices.Contains(rd.foreign, i) {
		rd.foreign = append(rd.foreign, i)
	}
	log.Info("record at the name of an ownership TXT of ours was not created by this registry: left alone, the TXT will be deleted",
		"record", rec.Key().String(), "txt", t.name, "targets", rec.Targets.String())
	return false
}

// giveLabels attaches the labels of the TXT to rec. The registry's own keys
// (owner, resource: endpoint.IsReservedLabelKey) come from the TXT; any
// other label rec already has is the provider's and is kept: the TXT's copy
// of it dates from the record's last write and may be stale (external-dns's
// coredns provider keeps each target's etcd key in a label, and its TXT
// registry serialises every label). Every record owned through the TXT
// shares its labels: Labels is a value whose Set and Delete never write into
// an array another value holds, so relabelling one record changes no other.
func (p *parsedTXT) giveLabels(rec *endpoint.Endpoint) {
	p.taken = true
	if rec.Labels.Len() == 0 {
		rec.Labels = p.labels
		return
	}
	own := rec.Labels
	rec.Labels = p.labels
	for k, v := range own.All() {
		if !endpoint.IsReservedLabelKey(k) {
			rec.Labels.Set(k, v)
		}
	}
}

// forceRewrite handles the format upgrade of rec, a record of a managed
// type that is ours: when its typed TXT is missing (hasTyped false and no
// TXT under its typed key), it gets txt/force-update, so that the planner
// emits an update and ApplyChanges writes the typed TXT — unless that TXT
// cannot be written, which would be asked for at every cycle in vain and
// is logged instead. (A record of the old owner id of a migration needs
// nothing here: its verdict, endpoint.OwnedByOldOwner, makes the planner
// relabel it, which rewrites its TXT.)
func (r *Registry) forceRewrite(log logr.Logger, rd *reading, rec *endpoint.Endpoint, hasTyped bool) {
	if hasTyped {
		return
	}
	rd.buf = r.appendTXTKey(rd.buf[:0], rec)
	if _, seen := rd.st.index()[string(rd.buf)]; seen {
		return
	}
	if err := r.usableTXTName(rd.filter, rec, r.txtName(rec)); err != nil {
		log.Info("cannot write the typed ownership TXT of a record", "record", rec.Key().String(), "reason", err.Error())
		return
	}
	rec.ProviderSpecific = append(slices.Clip(rec.ProviderSpecific),
		endpoint.ProviderSpecificProperty{Name: endpoint.ProviderSpecificForceUpdate, Value: "true"})
	log.V(1).Info("forcing an update to write the typed ownership TXT", "record", rec.Key().String())
}

// unclaimedLabels returns, by txtKey, the labels of the TXT records no
// record took (nobody else holds them), or nil when there are none.
func unclaimedLabels(st *zoneState, parsed []parsedTXT) map[string]endpoint.Labels {
	var out map[string]endpoint.Labels
	for i := range parsed {
		if parsed[i].taken {
			continue
		}
		if out == nil {
			out = map[string]endpoint.Labels{}
		}
		out[st.key(int32(i))] = parsed[i].labels
	}
	return out
}

// appendTXTKey appends the txtKey of rec's typed ownership TXT to dst.
func (r *Registry) appendTXTKey(dst []byte, rec *endpoint.Endpoint) []byte {
	start := len(dst)
	dst = r.namer.appendTXTName(dst, rec.DNSName, r.txtType(rec), true)
	for i := start; i < len(dst); i++ {
		if c := dst[i]; c >= 'A' && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	if rec.SetIdentifier != "" {
		dst = append(dst, 0)
		dst = append(dst, rec.SetIdentifier...)
	}
	return dst
}

// findOwner looks up the ownership TXT of rec: typed key; for A ALIAS
// records the other alias naming; then (not for AAAA) the legacy untyped
// key. typed reports that the TXT was found under the type the registry
// writes for rec. It counts rec as a user of every TXT found under a typed
// key (see txtInfo.users).
func (r *Registry) findOwner(log logr.Logger, owners *ownerIndex, txts []txtInfo, rec *endpoint.Endpoint) (i int32, typed, ok bool) {
	if len(owners.entries) == 0 {
		return 0, false, false
	}
	name := lowerASCII(rec.DNSName)
	if r.namer.wildcard != "" && (name == "*" || strings.HasPrefix(name, "*.")) {
		name = r.namer.wildcard + name[1:]
	}
	q := owners.query(name, rec.SetIdentifier, name == rec.DNSName)
	if q.empty() {
		return 0, false, false
	}
	if isAliasA(rec) {
		first, second := endpoint.RecordTypeA, endpoint.RecordTypeCNAME
		if r.aliasCNAME {
			first, second = second, first
		}
		i, ok := q.find(first)
		j, okOther := q.find(second)
		if ok {
			txts[i].users++
		}
		if okOther {
			txts[j].users++
			if !r.aliasCNAME {
				r.warnObsoleteAlias(log, rec)
			}
		}
		if ok {
			return i, true, true
		}
		if okOther {
			return j, false, true
		}
	} else if i, ok := q.find(rec.RecordType); ok {
		txts[i].users++
		return i, true, true
	}
	if rec.RecordType == endpoint.RecordTypeAAAA {
		return 0, false, false
	}
	i, ok = q.find("")
	return i, false, ok
}

func (r *Registry) warnObsoleteAlias(log logr.Logger, rec *endpoint.Endpoint) {
	legacy := r.namer.txtName(rec.DNSName, endpoint.RecordTypeCNAME)
	r.mu.Lock()
	done := r.warned[legacy]
	r.warned[legacy] = true
	r.mu.Unlock()
	if !done {
		log.Info("obsolete ownership TXT record of an A ALIAS record can be removed",
			"txt", legacy, "record", rec.Key().String(), "current", r.namer.txtName(rec.DNSName, endpoint.RecordTypeA))
	}
}
