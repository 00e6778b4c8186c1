package plan

import (
	"hash/maphash"
	"math/bits"
)

// inlineSlots is the number of record types whose slots live inside a row;
// further types (when more than three are managed) live in planner.extra.
const inlineSlots = 3

// row holds one (normalised name, set identifier) row; its set identifier
// is in planner.sets. Indexes are one-based so that the zero value means
// "none". Rows are kept small: with 100,000 names their size decides how
// much memory a plan touches.
type row struct {
	name    string // normalised DNS name
	foreign int32  // a current record at the row that is not ours
	invalid int32  // an invalid desired endpoint at the row
	slots   [inlineSlots]slot
}

// slot is one record type of one row: one-based heads of linked lists
// through Current (curInfo) and Desired (desInfo).
type slot struct {
	cur  int32
	cand int32
}

// slot returns slot t of row r.
func (pl *planner) slot(r, t int) *slot {
	if t < inlineSlots {
		return &pl.rows[r].slots[t]
	}
	return &pl.extra[r*(len(pl.types)-inlineSlots)+t-inlineSlots]
}

// rowSet returns the set identifier of row r.
func (pl *planner) rowSet(r int) string {
	if pl.sets == nil {
		return ""
	}
	return pl.sets[r]
}

// rowHasCurrent reports whether row r holds a current record.
func (pl *planner) rowHasCurrent(r int) bool {
	for t := range pl.types {
		if pl.slot(r, t).cur != 0 {
			return true
		}
	}
	return false
}

// hashKey returns the hash of a row key.
func (pl *planner) hashKey(name, set string) uint64 {
	h := maphash.String(pl.seed, name)
	if set != "" {
		h ^= bits.RotateLeft64(maphash.String(pl.seed, set), 31) * 0x9e3779b97f4a7c15
	}
	return h
}

// rowFor returns the index of the row (name, set), creating it when it does
// not exist. Providers and sources tend to return records in the same
// sorted order, so the rows of consecutive lookups are usually the same row
// or the next one: those two are tried before the hash table, which keeps
// the lookups of sorted inputs sequential in memory.
func (pl *planner) rowFor(name, set string) int {
	for _, r := range [2]int{pl.last, pl.last + 1} {
		if r < len(pl.rows) && pl.rows[r].name == name && pl.rowSet(r) == set {
			pl.last = r
			return r
		}
	}
	r := pl.findRow(name, set, pl.hashKey(name, set))
	pl.last = r
	return r
}

// findRow returns the index of the row (name, set) whose key hashes to h,
// creating it when it does not exist.
func (pl *planner) findRow(name, set string, h uint64) int {
	tag := h >> 32 << 32
	for i := h & pl.mask; ; i = (i + 1) & pl.mask {
		entry := pl.table[i]
		if entry == 0 {
			r := len(pl.rows)
			if 4*(r+1) > 3*len(pl.table) {
				pl.grow()
				return pl.findRow(name, set, h)
			}
			pl.table[i] = tag | uint64(r+1)
			pl.rows = append(pl.rows, row{name: name})
			if pl.sets != nil {
				pl.sets = append(pl.sets, set)
			} else if set != "" {
				pl.sets = make([]string, r, cap(pl.rows))
				pl.sets = append(pl.sets, set)
			}
			if extra := len(pl.types) - inlineSlots; extra > 0 {
				pl.extra = append(pl.extra, make([]slot, extra)...)
			}
			return r
		}
		if entry&^0xffffffff == tag {
			r := int(uint32(entry)) - 1
			if pl.rows[r].name == name && pl.rowSet(r) == set {
				return r
			}
		}
	}
}

// grow doubles the hash table and re-inserts every row.
func (pl *planner) grow() {
	pl.table = make([]uint64, 2*len(pl.table))
	pl.mask = uint64(len(pl.table) - 1)
	for r := range pl.rows {
		h := pl.hashKey(pl.rows[r].name, pl.rowSet(r))
		i := h & pl.mask
		for pl.table[i] != 0 {
			i = (i + 1) & pl.mask
		}
		pl.table[i] = h>>32<<32 | uint64(r+1)
	}
}
