package inmemory

import (
	"slices"

	"github.com/zonesync/zonesync/endpoint"
)

// key identifies a stored record set: canonical name, type and set
// identifier.
type key struct {
	name, recordType, setID string
}

// keyOf returns the key of a stored endpoint (whose name is canonical).
func keyOf(e *endpoint.Endpoint) key {
	return key{name: e.DNSName, recordType: e.RecordType, setID: e.SetIdentifier}
}

// store keeps the records of a Provider in a map, and a sorted list of them
// for Records. It is not safe for concurrent use; the Provider's mutex
// guards it.
//
// A stored endpoint is never modified: an update replaces it. So the sorted
// list can be handed to a reader, who copies it outside the lock, and it
// need not be rebuilt from scratch after a write: the records put since
// (added) are sorted and merged into it, and the records removed or
// replaced since (removed) are left out, in one pass, by the next read.
type store struct {
	records map[key]*endpoint.Endpoint
	sorted  []*endpoint.Endpoint        // Records order, as of the last merge; never modified
	added   []*endpoint.Endpoint        // put since the last merge
	removed map[*endpoint.Endpoint]bool // in sorted or added, removed since the last merge
}

func newStore(capacity int) store {
	return store{records: make(map[key]*endpoint.Endpoint, capacity), removed: map[*endpoint.Endpoint]bool{}}
}

func (s *store) has(k key) bool {
	_, ok := s.records[k]
	return ok
}

// put stores e, which the store owns from now on, under its key.
func (s *store) put(e *endpoint.Endpoint) {
	k := keyOf(e)
	if old, ok := s.records[k]; ok {
		s.removed[old] = true
	}
	s.records[k] = e
	s.added = append(s.added, e)
}

// remove deletes the record k, if it exists.
func (s *store) remove(k key) {
	if old, ok := s.records[k]; ok {
		s.removed[old] = true
		delete(s.records, k)
	}
}

// list returns every record, sorted by (DNSName, SetIdentifier,
// RecordType). The caller must not modify the slice or the endpoints.
func (s *store) list() []*endpoint.Endpoint {
	if len(s.added) > 0 || len(s.removed) > 0 {
		s.merge()
	}
	return s.sorted
}

// merge brings sorted up to date, in O(n) plus O(k log k) for k records put
// since the last merge.
func (s *store) merge() {
	gone := func(e *endpoint.Endpoint) bool { return s.removed[e] }
	added := slices.DeleteFunc(s.added, gone)
	slices.SortFunc(added, endpoint.Compare)
	merged := make([]*endpoint.Endpoint, 0, len(s.records))
	i := 0
	for _, a := range added {
		for ; i < len(s.sorted) && endpoint.Compare(s.sorted[i], a) < 0; i++ {
			if !gone(s.sorted[i]) {
				merged = append(merged, s.sorted[i])
			}
		}
		merged = append(merged, a)
	}
	for _, e := range s.sorted[i:] {
		if !gone(e) {
			merged = append(merged, e)
		}
	}
	s.sorted, s.added = merged, s.added[:0]
	clear(s.removed)
}

// trim merges once the records written since the last read outnumber the
// stored ones, so that a provider written to and never read keeps bounded
// garbage.
func (s *store) trim() {
	if len(s.added)+len(s.removed) > len(s.sorted)+1024 {
		s.merge()
	}
}

// copyAll returns deep copies of recs in a few allocations: one for the
// endpoints, one for their targets, one for their provider-specific
// properties. Each endpoint's slices have a capacity equal to their
// length, so that appending to one cannot overwrite its neighbour.
// Strings are immutable and shared.
func copyAll(recs []*endpoint.Endpoint) []*endpoint.Endpoint {
	nTargets, nProps := 0, 0
	for _, e := range recs {
		nTargets += len(e.Targets)
		nProps += len(e.ProviderSpecific)
	}
	eps := make([]endpoint.Endpoint, len(recs))
	targets := make([]string, 0, nTargets)
	props := make([]endpoint.ProviderSpecificProperty, 0, nProps)
	out := make([]*endpoint.Endpoint, len(recs))
	for i, e := range recs {
		c := &eps[i]
		c.DNSName, c.RecordType, c.SetIdentifier, c.RecordTTL = e.DNSName, e.RecordType, e.SetIdentifier, e.RecordTTL
		t := len(targets)
		targets = append(targets, e.Targets...)
		c.Targets = targets[t:len(targets):len(targets)]
		if len(e.ProviderSpecific) > 0 {
			p := len(props)
			props = append(props, e.ProviderSpecific...)
			c.ProviderSpecific = props[p:len(props):len(props)]
		}
		out[i] = c
	}
	return out
}
