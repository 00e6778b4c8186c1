package txt

import (
	"slices"
	"strings"

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
	if r.state == nil {
		return 0
	}
	return len(r.state.repairs)
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
