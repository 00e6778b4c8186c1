package txt

import (
	"slices"
	"strings"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/registry"
)

var _ registry.Repairer = (*Registry)(nil)

// suspect is what a Registry remembers of an ownership TXT of its own
// whose record it cannot vouch for: a read saw the TXT without its record,
// or a call that failed tried to create (or delete) the record. A record
// that later shows up at the TXT's name is ours only when it holds targets
// this registry tried to write there; otherwise it came from elsewhere and
// the TXT must not lend it our ownership. Published suspects are never
// modified: a change replaces the entry.
type suspect struct {
	// orphan: a read saw the TXT without its record.
	orphan bool
	// targets are those of the records at the TXT's name that this
	// registry tried to create, update or delete in calls that failed.
	targets []endpoint.Targets
}

// holds reports whether t is one of the target lists this registry tried
// to write.
func (s *suspect) holds(t endpoint.Targets) bool {
	for _, w := range s.targets {
		if w.Same(t) {
			return true
		}
	}
	return false
}

// with returns a copy of s (nil: empty) with t added.
func (s *suspect) with(t endpoint.Targets) *suspect {
	out := &suspect{}
	if s != nil {
		if s.holds(t) {
			return s
		}
		out.orphan = s.orphan
		out.targets = slices.Clip(s.targets)
	}
	out.targets = append(out.targets, slices.Clone(t))
	return out
}

// repair is an ownership TXT of ours that the last read found to delete:
// its record is missing (an orphan), or the record at its name came from
// elsewhere (foreign).
type repair struct {
	key     string // txtKey of the TXT
	owned   string // the record name it owns
	foreign bool
}

// attempt is a record that an ApplyChanges call creates, updates or
// deletes, under the key of its ownership TXT: remembered (see suspect)
// when the call fails.
type attempt struct {
	key     string
	targets endpoint.Targets
	// create: a failure starts a suspect for key (a create or delete);
	// otherwise (an update) it only adds to an existing one.
	create bool
}

// PendingRepairs implements [registry.Repairer]: the number of ownership
// TXT records of ours that the last Records call found to delete and that
// no ApplyChanges has removed since — TXT records whose record is missing,
// and TXT records next to a record this registry knows it did not create.
// A failed ApplyChanges resets it to 0 until the next Records call.
func (r *Registry) PendingRepairs() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	if r.sharedSt != nil {
		n = r.sharedSt.repairs
	}
	if r.state == nil {
		return n
	}
	return n + len(r.state.repairs)
}

// lookupName is the name under which the ownership of a record named name
// is looked up: lower case, a leading "*" label replaced by the wildcard
// replacement.
func (r *Registry) lookupName(name string) string {
	name = lowerASCII(name)
	if w := r.namer.wildcard; w != "" && (name == "*" || strings.HasPrefix(name, "*.")) {
		name = w + name[1:]
	}
	return name
}

// recordSet is the set of records of a read, for the orphan checks.
type recordSet struct {
	keys      map[string]bool // lookupName, type, set identifier
	names     map[string]bool // lower-case name, set identifier
	wildcards map[string]bool // parents of "*" records without an owner
}

func (r *Registry) newRecordSet(recs []*endpoint.Endpoint) *recordSet {
	s := &recordSet{keys: make(map[string]bool, len(recs)), names: make(map[string]bool, len(recs)), wildcards: map[string]bool{}}
	for _, rec := range recs {
		s.keys[r.lookupName(rec.DNSName)+"\x00"+rec.RecordType+"\x00"+rec.SetIdentifier] = true
		lower := lowerASCII(rec.DNSName)
		s.names[txtKey(lower, rec.SetIdentifier)] = true
		if parent, ok := strings.CutPrefix(lower, "*."); ok {
			if owner, _ := rec.Labels.Get(endpoint.OwnerLabelKey); owner == "" {
				s.wildcards[parent] = true
			}
		}
	}
	return s
}

// orphan reports whether an ownership TXT owning (owned, recordType, setID)
// and named txtName (lower case) has no record: neither the record it owns,
// nor a record at its own name (which it may own as a legacy untyped TXT,
// see txtNamer.parseTXTName), nor an unowned wildcard record that it may own
// under another wildcard replacement.
func (s *recordSet) orphan(owned, recordType, setID, txtName string) bool {
	if s.keys[owned+"\x00"+recordType+"\x00"+setID] || s.names[txtKey(txtName, setID)] {
		return false
	}
	if _, parent, ok := strings.Cut(owned, "."); ok && s.wildcards[parent] {
		return false
	}
	return true
}

// findRepairs lists the ownership TXT records of ours to delete — those
// lending ownership to a foreign record, and orphans: typed TXT records of
// a managed type, named exactly as written, owning a name inside the
// domain filter, whose record is missing — and returns the registry's
// suspects after this read: those whose TXT is still there and whose record
// did not prove ours, and the orphans.
func (r *Registry) findRepairs(log logr.Logger, out []*endpoint.Endpoint, st *zoneState, parsed []parsedTXT,
	alts map[int32][]txtReading, filter endpoint.DomainFilterInterface, sus map[string]*suspect, foreign []int32, confirmed []string,
) ([]repair, map[string]*suspect) {
	var repairs []repair
	var next map[string]*suspect
	if len(sus) > 0 {
		idx := st.index()
		for key, s := range sus {
			if _, present := idx[key]; present && !slices.Contains(confirmed, key) {
				if next == nil {
					next = map[string]*suspect{}
				}
				next[key] = s
			}
		}
	}
	var set *recordSet
	for i := range st.txts {
		t := &st.txts[i]
		p := &parsed[i]
		if !p.mine {
			continue
		}
		lends := len(foreign) > 0 && slices.Contains(foreign, int32(i))
		if !lends && (t.users != 0 || !p.canonical) {
			continue // the common case, decided without parsing the name
		}
		lower := t.lowerName()
		owned, rtype, _ := r.namer.parseTXTName(lower)
		setID := st.setID(int32(i))
		key := txtKey(lower, setID)
		if lends {
			repairs = append(repairs, repair{key: key, owned: owned, foreign: true})
			continue
		}
		if rtype == "" || !r.manages(rtype) {
			continue
		}
		if filter != nil && !filter.Match(owned) {
			continue
		}
		if set == nil {
			set = r.newRecordSet(out)
		}
		if !set.orphan(owned, rtype, setID, lower) {
			continue
		}
		if slices.ContainsFunc(alts[int32(i)], func(alt txtReading) bool {
			return r.manages(alt.recordType) && !set.orphan(alt.name, alt.recordType, setID, lower)
		}) {
			continue // another reading's record exists: the TXT is its
		}
		repairs = append(repairs, repair{key: key, owned: owned})
		log.V(1).Info("ownership TXT of ours without its record", "txt", t.name, "record", owned, "type", rtype)
		if next == nil {
			next = map[string]*suspect{}
		}
		if s := next[key]; s == nil {
			next[key] = &suspect{orphan: true}
		} else if !s.orphan {
			next[key] = &suspect{orphan: true, targets: s.targets}
		}
	}
	return repairs, next
}
