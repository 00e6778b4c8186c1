package inmemory

import (
	"hash/maphash"
	"slices"
	"strings"

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

// store keeps the records of a Provider. It is not safe for concurrent use;
// the Provider's mutex guards it. The Provider needs five methods: has,
// put and remove a record by key, trim after a write, and read the sorted
// snapshot of every record (which copyOut turns into endpoints). The rest
// of this file is how those are made cheap at scale, and can be skipped by
// a reader learning the provider contract: a map from key to endpoint and
// a sort in read would do the same, several times slower at 100,000
// records (see docs/benchmarks.md).
//
// Records live in a sorted, immutable snapshot. A snapshot holds no
// per-record pointer: each record is a small pointer-free struct whose
// strings (name, set identifier, targets) are spans of a few large arena
// strings, so the garbage collector has almost nothing to scan however many
// records there are, and merging copies plain memory. Records materialises
// endpoints from a snapshot in a few bulk allocations.
//
// Writes do not touch the snapshot: a removed or replaced record is flagged
// dead, a new one goes to an unsorted pending list, and compact merges both
// into a new snapshot, lazily, before the next read.
//
// The index maps the hash of a key to a stable slot, and slots map to the
// record's position (in the snapshot, or in pending). Both are pointer-free,
// and compaction renumbers positions without touching the index. Keys whose
// hash collides with another key's go to a small overflow map.
type store struct {
	hash     func(key) uint64
	index    map[uint64]int32 // hash(key) -> slot
	overflow map[key]int32    // keys whose hash is taken by another key
	slots    []int32          // slot -> position: >= 0 in snap, < 0 -(i+1) in pending
	free     []int32          // unused slots

	types     []string          // record types by number; only appended to
	typeIndex map[string]uint32 // record type -> number

	snap     *snapshot
	snapDead []bool  // parallel to snap.recs
	snapSlot []int32 // parallel to snap.recs
	nDead    int     // dead records in snap and pending
	removed  int     // records dropped from snapshots since the last full rebuild

	pending     []*endpoint.Endpoint
	pendingSlot []int32
	pendingDead []bool
}

// span locates a string in an arena, or a run of target spans.
type span struct{ off, n uint32 }

// rec is a record in a snapshot. It holds no pointer, and is kept at 40
// bytes: the set identifier follows the name in the arena, so only its
// length is stored.
type rec struct {
	ttl      endpoint.TTL
	name     span
	setIDLen uint32 // the set identifier is the arena's next setIDLen bytes after the name
	targets  span   // run in snapshot.spans
	typ      uint32 // index in snapshot.types
	props    int32  // index in snapshot.props, or -1
	arena    uint16 // arena of name, setID and the targets (at most maxArenas+1)
}

// setIDSpan locates the set identifier of r in its arena.
func (r *rec) setIDSpan() span { return span{off: r.name.off + r.name.n, n: r.setIDLen} }

// addKey stores the name and set identifier of r, one after the other.
func (a *arenaBuilder) addKey(r *rec, name, setID string) {
	r.name = a.add(name)
	r.setIDLen = a.add(setID).n
}

// snapshot is an immutable, sorted list of records.
type snapshot struct {
	recs   []rec    // sorted by (DNSName, SetIdentifier, RecordType)
	spans  []span   // the targets of every record, in record order
	arenas []string // string storage
	types  []string // record types by number
	props  []endpoint.ProviderSpecific
}

func (sn *snapshot) name(r *rec) string {
	return sn.arenas[r.arena][r.name.off : r.name.off+r.name.n]
}

func (sn *snapshot) setID(r *rec) string {
	sp := r.setIDSpan()
	return sn.arenas[r.arena][sp.off : sp.off+sp.n]
}

// maxArenas bounds the arenas of a snapshot before a full rebuild.
const maxArenas = 64

func newStore(capacity int) store {
	seed := maphash.MakeSeed()
	s := store{
		hash:      func(k key) uint64 { return maphash.Comparable(seed, k) },
		index:     make(map[uint64]int32, capacity),
		typeIndex: make(map[string]uint32),
		snap:      &snapshot{},
	}
	for _, t := range endpoint.KnownRecordTypes() {
		s.typeNumber(t)
	}
	return s
}

// typeNumber returns the number of record type t, adding it if needed.
func (s *store) typeNumber(t string) uint32 {
	if n, ok := s.typeIndex[t]; ok {
		return n
	}
	n := uint32(len(s.types))
	s.types = append(s.types, strings.Clone(t))
	s.typeIndex[t] = n
	return n
}

// holds reports whether slot holds the record k.
func (s *store) holds(slot int32, k key) bool {
	pos := s.slots[slot]
	if pos < 0 {
		e := s.pending[-pos-1]
		return e.DNSName == k.name && e.RecordType == k.recordType && e.SetIdentifier == k.setID
	}
	r := &s.snap.recs[pos]
	return s.snap.types[r.typ] == k.recordType && s.snap.name(r) == k.name && s.snap.setID(r) == k.setID
}

// lookup returns the slot of k.
func (s *store) lookup(k key) (int32, bool) {
	if slot, ok := s.index[s.hash(k)]; ok && s.holds(slot, k) {
		return slot, true
	}
	if len(s.overflow) == 0 {
		return 0, false
	}
	slot, ok := s.overflow[k]
	return slot, ok
}

func (s *store) has(k key) bool {
	_, ok := s.lookup(k)
	return ok
}

// put stores e, which the store owns from now on, under its key, which
// must not be stored.
func (s *store) put(e *endpoint.Endpoint) { s.add(keyOf(e), e) }

// read returns the snapshot of every record, up to date. It is immutable:
// the caller may copy it without holding the Provider's lock.
func (s *store) read() *snapshot {
	s.compact()
	return s.snap
}

// remove deletes the record k, if it exists.
func (s *store) remove(k key) {
	h := s.hash(k)
	slot, ok := s.index[h]
	if ok && s.holds(slot, k) {
		delete(s.index, h)
	} else if slot, ok = s.overflow[k]; ok {
		delete(s.overflow, k)
	} else {
		return
	}
	if pos := s.slots[slot]; pos >= 0 {
		s.snapDead[pos] = true
	} else {
		s.pendingDead[-pos-1] = true
	}
	s.nDead++
	s.free = append(s.free, slot)
}

// add stores e (owned by the store from now on) under k, which must not
// exist and must be e's key.
func (s *store) add(k key, e *endpoint.Endpoint) {
	var slot int32
	if n := len(s.free); n > 0 {
		slot, s.free = s.free[n-1], s.free[:n-1]
	} else {
		slot = int32(len(s.slots))
		s.slots = append(s.slots, 0)
	}
	s.pending = append(s.pending, e)
	s.pendingSlot = append(s.pendingSlot, slot)
	s.pendingDead = append(s.pendingDead, false)
	s.slots[slot] = -int32(len(s.pending))
	h := s.hash(k)
	if _, taken := s.index[h]; taken {
		if s.overflow == nil {
			s.overflow = make(map[key]int32)
		}
		s.overflow[k] = slot
		return
	}
	s.index[h] = slot
}

// trim bounds the garbage when records are written but never read: once
// pending and dead records outnumber the snapshot, merge them.
func (s *store) trim() {
	if len(s.pending)+s.nDead > len(s.snap.recs)+1024 {
		s.compact()
	}
}

// arenaBuilder collects strings into one arena. Offsets are 32-bit: one
// arena holds up to 4 GiB of names and targets.
type arenaBuilder struct {
	b   strings.Builder
	off uint32
}

func (a *arenaBuilder) add(str string) span {
	a.b.WriteString(str)
	sp := span{off: a.off, n: uint32(len(str))}
	a.off += uint32(len(str))
	return sp
}

// compact builds a new snapshot from the live records of the current one
// and the live pending records. The pending records get their strings in a
// new arena, the others keep theirs: O(n) copying of plain memory plus
// O(k log k) for k pending records. Once the records removed since the
// last full rebuild reach half the live ones, or the snapshot spans too
// many arenas, every string is moved into one new arena, so that storage
// held by removed records is released.
func (s *store) compact() {
	if len(s.pending) == 0 && s.nDead == 0 {
		return
	}
	order := s.livePending()
	pend := s.pendingRecs(order, uint16(len(s.snap.arenas)))
	next := &snapshot{arenas: s.snap.arenas, types: s.types}
	if len(order) > 0 {
		next.arenas = append(slices.Clip(s.snap.arenas), pend.arena)
	}
	from := s.merge(next, order, pend.recs)
	slots := s.relink(next, from, order, pend.spans)
	if s.removed > len(next.recs)/2 || len(next.arenas) > maxArenas {
		next.rebuildArena()
		s.removed = 0
	}
	s.snap, s.snapSlot, s.snapDead = next, slots, make([]bool, len(next.recs))
	clear(s.pending)
	s.pending, s.pendingSlot, s.pendingDead = s.pending[:0], s.pendingSlot[:0], s.pendingDead[:0]
	s.nDead = 0
}

// livePending returns the positions of the live pending records, in
// Records order.
func (s *store) livePending() []int {
	var order []int
	for i, dead := range s.pendingDead {
		if !dead {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return endpoint.Compare(s.pending[a], s.pending[b]) })
	return order
}

// pendingRun is the pending records as snapshot records: recs[i] is
// pending[order[i]]; their strings are in arena, which will be arena
// number n of the new snapshot, and their targets are runs of spans.
type pendingRun struct {
	recs  []rec
	spans []span
	arena string
}

// pendingRecs converts the pending records at order into snapshot records
// whose strings are in a new arena, number n.
func (s *store) pendingRecs(order []int, n uint16) pendingRun {
	var ab arenaBuilder
	ab.b.Grow(pendingSize(s.pending, order))
	run := pendingRun{recs: make([]rec, len(order))}
	for i, j := range order {
		e := s.pending[j]
		r := &run.recs[i]
		r.ttl = e.RecordTTL
		r.arena = n
		ab.addKey(r, e.DNSName, e.SetIdentifier)
		r.typ = s.typeNumber(e.RecordType)
		r.targets = span{off: uint32(len(run.spans)), n: uint32(len(e.Targets))}
		for _, t := range e.Targets {
			run.spans = append(run.spans, ab.add(t))
		}
		r.props = -1
	}
	run.arena = ab.b.String()
	return run
}

// pendingSize returns the bytes of the strings the pending records at order
// put in an arena, so that the arena is allocated once at its size rather
// than grown by doubling (which would leave up to half of it unused for as
// long as the snapshot lives).
func pendingSize(pending []*endpoint.Endpoint, order []int) int {
	size := 0
	for _, j := range order {
		e := pending[j]
		size += len(e.DNSName) + len(e.SetIdentifier)
		for _, t := range e.Targets {
			size += len(t)
		}
	}
	return size
}

// merge fills next.recs with the live records of the current snapshot and
// pend (the pending records at order, sorted), in Records order. It
// returns where each merged record comes from: >= 0 its position in the
// current snapshot, < 0 -(i+1) for pend[i].
func (s *store) merge(next *snapshot, order []int, pend []rec) []int32 {
	old := s.snap
	dead := 0
	for _, d := range s.snapDead {
		if d {
			dead++
		}
	}
	s.removed += dead
	n := len(old.recs) - dead + len(pend)
	next.recs = make([]rec, n)
	from := make([]int32, n)
	pos := 0
	// copyLive copies the live records of old.recs[i:j].
	copyLive := func(i, j int) {
		for i < j {
			if s.snapDead[i] {
				i++
				continue
			}
			k := i
			for k < j && !s.snapDead[k] {
				k++
			}
			copy(next.recs[pos:], old.recs[i:k])
			for x := i; x < k; x++ {
				from[pos+x-i] = int32(x)
			}
			pos += k - i
			i = k
		}
	}
	i := 0
	for pi, j := range order {
		k, _ := slices.BinarySearchFunc(old.recs[i:], s.pending[j], func(r rec, e *endpoint.Endpoint) int {
			return old.compareTo(&r, e)
		})
		copyLive(i, i+k)
		i += k
		next.recs[pos] = pend[pi]
		from[pos] = -int32(pi) - 1
		pos++
	}
	copyLive(i, len(old.recs))
	return from
}

// relink gives the merged records of next their target spans and
// provider-specific properties, taken from where each came from (see
// merge), points their slots at their new positions, and returns the slot
// of each position.
func (s *store) relink(next *snapshot, from []int32, order []int, pendSpans []span) []int32 {
	old := s.snap
	nSpans := len(pendSpans)
	for p := range next.recs {
		if from[p] >= 0 {
			nSpans += int(next.recs[p].targets.n)
		}
	}
	next.spans = make([]span, 0, nSpans)
	slots := make([]int32, len(next.recs))
	for p := range next.recs {
		r := &next.recs[p]
		var src []span
		var props endpoint.ProviderSpecific
		if f := from[p]; f >= 0 {
			src = old.spans[r.targets.off : r.targets.off+r.targets.n]
			if r.props >= 0 {
				props = old.props[r.props]
			}
			slots[p] = s.snapSlot[f]
		} else {
			j := order[-f-1]
			src = pendSpans[r.targets.off : r.targets.off+r.targets.n]
			props = s.pending[j].ProviderSpecific
			slots[p] = s.pendingSlot[j]
		}
		r.targets.off = uint32(len(next.spans))
		next.spans = append(next.spans, src...)
		r.props = -1
		if len(props) > 0 {
			r.props = int32(len(next.props))
			next.props = append(next.props, props)
		}
		s.slots[slots[p]] = int32(p)
	}
	return slots
}

// rebuildArena moves every string of the snapshot (which is not yet
// shared) into one new arena.
func (sn *snapshot) rebuildArena() {
	var ab arenaBuilder
	size := 0
	for p := range sn.recs {
		r := &sn.recs[p]
		size += int(r.name.n + r.setIDLen)
		for _, sp := range sn.spans[r.targets.off : r.targets.off+r.targets.n] {
			size += int(sp.n)
		}
	}
	ab.b.Grow(size)
	for p := range sn.recs {
		r := &sn.recs[p]
		a := sn.arenas[r.arena]
		sp := r.setIDSpan()
		ab.addKey(r, a[r.name.off:r.name.off+r.name.n], a[sp.off:sp.off+sp.n])
		r.arena = 0
		ts := sn.spans[r.targets.off : r.targets.off+r.targets.n]
		for k, sp := range ts {
			ts[k] = ab.add(a[sp.off : sp.off+sp.n])
		}
	}
	sn.arenas = []string{ab.b.String()}
}

// compareTo orders the record r of sn against e by (DNSName,
// SetIdentifier, RecordType).
func (sn *snapshot) compareTo(r *rec, e *endpoint.Endpoint) int {
	if c := strings.Compare(sn.name(r), e.DNSName); c != 0 {
		return c
	}
	if c := strings.Compare(sn.setID(r), e.SetIdentifier); c != 0 {
		return c
	}
	return strings.Compare(sn.types[r.typ], e.RecordType)
}

// copyOut materialises the snapshot as new endpoints: one slab of
// endpoints, one of targets, one of provider-specific properties (when
// there are any) and the slice of pointers. Targets and properties are
// sliced with a capacity equal to their length, so appending to one
// endpoint's slice reallocates instead of overwriting its neighbour.
// Strings are immutable and shared with the snapshot.
func (sn *snapshot) copyOut() []*endpoint.Endpoint {
	eps := make([]endpoint.Endpoint, len(sn.recs))
	targets := make([]string, len(sn.spans))
	nProps := 0
	for _, ps := range sn.props {
		nProps += len(ps)
	}
	var props []endpoint.ProviderSpecificProperty
	if nProps > 0 {
		props = make([]endpoint.ProviderSpecificProperty, nProps)
	}
	out := make([]*endpoint.Endpoint, len(eps))
	t, pp := 0, 0
	for i := range sn.recs {
		r := &sn.recs[i]
		e := &eps[i]
		m := int(r.targets.n)
		sn.fill(e, r, targets[t:t+m:t+m])
		t += m
		if r.props >= 0 {
			k := copy(props[pp:], sn.props[r.props])
			e.ProviderSpecific = props[pp : pp+k : pp+k]
			pp += k
		}
		out[i] = e
	}
	return out
}

// visit calls visit for every record of the snapshot, in order, with one
// scratch endpoint refilled for each: its Targets and ProviderSpecific are
// scratch slices too (copies, so that a visitor breaking the rules cannot
// change the snapshot), and its strings are the snapshot's.
func (sn *snapshot) visit(visit func(ep *endpoint.Endpoint) error) error {
	// The scratch endpoint, with room for a few targets in the same
	// allocation.
	scratch := &struct {
		ep   endpoint.Endpoint
		room [4]string
	}{}
	e, targets := &scratch.ep, scratch.room[:]
	var props []endpoint.ProviderSpecificProperty
	for i := range sn.recs {
		r := &sn.recs[i]
		m := int(r.targets.n)
		if cap(targets) < m {
			targets = make([]string, m)
		}
		*e = endpoint.Endpoint{}
		sn.fill(e, r, targets[:m:m])
		if r.props >= 0 {
			props = append(props[:0], sn.props[r.props]...)
			e.ProviderSpecific = props[:len(props):len(props)]
		}
		if err := visit(e); err != nil {
			return err
		}
	}
	return nil
}

// fill sets the name, set identifier, type and TTL of e to those of r, and
// its Targets to targets (of length r.targets.n) filled with r's targets.
func (sn *snapshot) fill(e *endpoint.Endpoint, r *rec, targets []string) {
	a := sn.arenas[r.arena]
	e.DNSName = a[r.name.off : r.name.off+r.name.n]
	if r.setIDLen > 0 {
		sp := r.setIDSpan()
		e.SetIdentifier = a[sp.off : sp.off+sp.n]
	}
	e.RecordType = sn.types[r.typ]
	e.RecordTTL = r.ttl
	for k, sp := range sn.spans[r.targets.off : r.targets.off+r.targets.n] {
		targets[k] = a[sp.off : sp.off+sp.n]
	}
	e.Targets = targets
}
