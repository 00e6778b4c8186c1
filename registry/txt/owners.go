package txt

import "strings"

// ownerIndex maps what ownership TXT records own — a record name, a type
// ("": legacy untyped) and a set identifier — to the TXT record.
//
// The provider lists records sorted by name, so the TXT records of one type
// usually come sorted by the name they own (a-app < a-web ⇔ app < web), and
// the owned records come sorted too. The index then joins the two like a
// merge, with one cursor per type, without hashing: that is the fast path.
// When a type's entries are not sorted (suffix mode, mixed legacy and typed
// names) or a record's lookup name differs from its name (upper case,
// wildcard replacement), lookups use a map built on first need.
type ownerIndex struct {
	entries []ownerEntry // in provider order
	st      *zoneState   // the TXT records the entries point at; set by finish

	// Merge join.
	sorted bool       // every run is sorted by (name, setID)
	runs   []ownerRun // one per record type
	perm   []int32    // entries indices, grouped by run, provider order within

	// Map fallback, built on first use.
	byName map[string]int32 // name -> newest entry
	older  []int32          // entry -> older entry of the same name, or -1
}

// ownerEntry is what one TXT record owns. It is kept small, as there is one
// per ownership TXT record: the set identifier is the TXT record's, and the
// record type is the one of its run.
type ownerEntry struct {
	name string // the owned name
	txt  int32  // index of the TXT record
	run  int32  // index in ownerIndex.runs
}

type ownerRun struct {
	recordType      string
	start, end, cur int // perm[start:end]; cur: merge cursor
}

func newOwnerIndex(n int) *ownerIndex {
	return &ownerIndex{entries: make([]ownerEntry, 0, n)}
}

// add records that txt owns (name, recordType, setID). A later add of the
// same key shadows the earlier one.
// The set identifier is the one of the TXT record txt (see finish).
func (o *ownerIndex) add(name, recordType string, txt int32) {
	run := -1
	for i := range o.runs {
		if o.runs[i].recordType == recordType {
			run = i
			break
		}
	}
	if run < 0 {
		run = len(o.runs)
		o.runs = append(o.runs, ownerRun{recordType: recordType})
	}
	o.runs[run].end++ // count for now
	o.entries = append(o.entries, ownerEntry{name: name, txt: txt, run: int32(run)})
}

// setID returns the set identifier of entry e.
func (o *ownerIndex) setID(e *ownerEntry) string { return o.st.setID(e.txt) }

// finish groups the entries by type and checks whether every group is
// sorted; call it once, after the last add, with the TXT records the
// entries point at.
func (o *ownerIndex) finish(st *zoneState) {
	o.st = st
	if len(o.entries) == 0 {
		return
	}
	at := 0
	for i := range o.runs {
		n := o.runs[i].end
		o.runs[i].start, o.runs[i].end, o.runs[i].cur = at, at, at
		at += n
	}
	o.perm = make([]int32, len(o.entries))
	for i := range o.entries {
		r := &o.runs[o.entries[i].run]
		o.perm[r.end] = int32(i)
		r.end++
	}
	o.sorted = true
	for _, r := range o.runs {
		for k := r.start + 1; k < r.end; k++ {
			e := &o.entries[o.perm[k]]
			if o.compareKey(&o.entries[o.perm[k-1]], e.name, o.setID(e)) > 0 {
				o.sorted = false
				return
			}
		}
	}
}

func (o *ownerIndex) run(recordType string) *ownerRun {
	for i := range o.runs {
		if o.runs[i].recordType == recordType {
			return &o.runs[i]
		}
	}
	return nil
}

// compareKey orders an entry against (name, setID).
func (o *ownerIndex) compareKey(e *ownerEntry, name, setID string) int {
	if c := strings.Compare(e.name, name); c != 0 {
		return c
	}
	return strings.Compare(o.setID(e), setID)
}

// ownerQuery looks up the types of one (name, setID).
type ownerQuery struct {
	o           *ownerIndex
	name, setID string
	merge       bool
	head        int32 // map mode: newest entry of name, or -1
}

// query prepares lookups for (name, setID). With inOrder the caller
// promises that name is the record's own name and that it queries records
// in (name, setID) order, which allows the merge join.
func (o *ownerIndex) query(name, setID string, inOrder bool) ownerQuery {
	q := ownerQuery{o: o, name: name, setID: setID, head: -1}
	if o.sorted && inOrder {
		q.merge = true
		return q
	}
	o.buildMap()
	if h, ok := o.byName[name]; ok {
		q.head = h
	}
	return q
}

func (q ownerQuery) empty() bool { return !q.merge && q.head < 0 }

// find returns the TXT owning (name, recordType, setID).
func (q ownerQuery) find(recordType string) (int32, bool) {
	o := q.o
	if !q.merge {
		for i := q.head; i >= 0; i = o.older[i] {
			if e := &o.entries[i]; o.runs[e.run].recordType == recordType && o.setID(e) == q.setID {
				return e.txt, true
			}
		}
		return 0, false
	}
	r := o.run(recordType)
	if r == nil {
		return 0, false
	}
	for r.cur < r.end && o.compareKey(&o.entries[o.perm[r.cur]], q.name, q.setID) < 0 {
		r.cur++
	}
	found, ok := int32(0), false
	for k := r.cur; k < r.end && o.compareKey(&o.entries[o.perm[k]], q.name, q.setID) == 0; k++ {
		found, ok = o.entries[o.perm[k]].txt, true // the newest equal entry wins
	}
	return found, ok
}

func (o *ownerIndex) buildMap() {
	if o.byName != nil {
		return
	}
	o.byName = make(map[string]int32, len(o.entries))
	o.older = make([]int32, len(o.entries))
	for i := range o.entries {
		prev, ok := o.byName[o.entries[i].name]
		if !ok {
			prev = -1
		}
		o.older[i] = prev
		o.byName[o.entries[i].name] = int32(i)
	}
}
