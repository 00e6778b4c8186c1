package verify

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// Hash returns a stable SHA-256 (64 hex digits) of a set of endpoints: the
// same for the same endpoints in any order, with their targets in any
// order, spelled in any case, with or without trailing dots on names, and
// with duplicates counted once. It covers what verification looks at: name,
// record type, set identifier, targets and TTL; labels and provider-specific
// properties do not count. nil entries are ignored.
//
// The digest is taken over the entries sorted by (name, set identifier,
// type, TTL, targets), each written as its canonical name, upper-case type
// and set identifier (each preceded by its length as an 8-byte big-endian
// number), the TTL (8 bytes), the number of targets (8 bytes) and the sorted
// canonical targets (length-prefixed, without trailing dots).
//
// Callers keep the hash of the endpoints they last verified (or applied)
// and skip the work when the hash has not changed.
func Hash(eps []*endpoint.Endpoint) string {
	type entry struct {
		name, typ, setID string
		ttl              int64
		targets          []string
	}
	entries := make([]entry, 0, len(eps))
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		ts := make([]string, len(ep.Targets))
		for i, t := range ep.Targets {
			ts[i] = endpoint.CanonicalTarget(strings.TrimSuffix(t, "."))
		}
		slices.Sort(ts)
		entries = append(entries, entry{
			name:    endpoint.ToALabel(ep.DNSName),
			typ:     strings.ToUpper(ep.RecordType),
			setID:   ep.SetIdentifier,
			ttl:     int64(ep.RecordTTL),
			targets: slices.Compact(ts),
		})
	}
	compare := func(a, b entry) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := strings.Compare(a.setID, b.setID); c != 0 {
			return c
		}
		if c := strings.Compare(a.typ, b.typ); c != 0 {
			return c
		}
		if a.ttl != b.ttl {
			if a.ttl < b.ttl {
				return -1
			}
			return 1
		}
		return slices.Compare(a.targets, b.targets)
	}
	slices.SortFunc(entries, compare)
	entries = slices.CompactFunc(entries, func(a, b entry) bool { return compare(a, b) == 0 })

	h := sha256.New()
	for _, e := range entries {
		writeField(h, e.name)
		writeField(h, e.typ)
		writeField(h, e.setID)
		var ttl [8]byte
		binary.BigEndian.PutUint64(ttl[:], uint64(e.ttl))
		h.Write(ttl[:])
		writeCount(h, len(e.targets))
		for _, t := range e.targets {
			writeField(h, t)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeField writes a length-prefixed string, so that no two different
// sequences of fields hash alike.
func writeField(h hash.Hash, s string) {
	writeCount(h, len(s))
	h.Write([]byte(s))
}

func writeCount(h hash.Hash, n int) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	h.Write(b[:])
}
