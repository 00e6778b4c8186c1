package txt

import (
	"strings"
	"sync"

	"github.com/zonesync/zonesync/endpoint"
)

// zoneState is what the last read saw of the ownership TXT records. It is
// immutable once published, except for the lazily built index.
type zoneState struct {
	txts []txtInfo
	// setIDs holds, by txts index, the set identifier of the TXT records
	// that have one (nearly none do: a set identifier is a routing policy
	// of some providers), so that txtInfo stays small. Nil when none has
	// one. Never modified once published.
	setIDs map[int32]string
	// inTheWay holds, by txtKey, the record type of the TXT records that
	// are not ownership records and of the CNAME records the read found: an
	// ownership TXT cannot be created at their record set (see
	// Registry.txtInTheWay). Nil when there is none. Never modified once
	// published.
	inTheWay map[string]string
	// repairs are the ownership TXT records to delete that the read found,
	// in txts order.
	repairs []repair

	// unclaimed holds, by txtKey, the labels parsed from the TXT records
	// whose labels no record took at read time (the others belong to that
	// record's caller), for ApplyChanges to tell whether a create may
	// reuse the TXT without parsing its value again. Never modified once
	// published.
	unclaimed map[string]endpoint.Labels

	// kept holds, by txts index, the labels a provider returned with an
	// ownership TXT record, for the changes that replace or delete it (see
	// keptLabels). Nil for providers that return none, as most do. Never
	// modified once published.
	kept map[int32]endpoint.Labels

	once sync.Once
	idx  map[string]int32 // txtKey(lowerName, setID) -> txts index; see index
}

// keptLabels adds to ep, which replaces or deletes the TXT at index i, the
// labels the provider returned with that TXT, except the registry's own
// keys. Some providers find a record by its labels: external-dns's coredns
// provider keeps each record's etcd key there, and without them it writes
// a new key instead of replacing the old one, and deletes nothing.
func (st *zoneState) keptLabels(i int32, ep *endpoint.Endpoint) {
	if st == nil {
		return
	}
	for k, v := range st.kept[i].All() {
		if !endpoint.IsReservedLabelKey(k) {
			ep.Labels.Set(k, v)
		}
	}
}

// txtInfo is what the registry keeps of an ownership TXT record between a
// read and the next ApplyChanges: one per TXT record, so only what
// ApplyChanges needs.
type txtInfo struct {
	name  string // TXT name as read (lower-case A-labels from a provider that keeps the contract)
	value string // first target, exactly as read (the set identifier is in zoneState.setIDs)
	// users counts the records whose ownership lookup consults this TXT
	// under a typed key: records of its type, and A ALIAS
	// records for both the "a-" and the "cname-" naming — whether or not
	// their labels came from it. A typed TXT is deleted when the last of
	// them is.
	users int32
	// mine: the value names OwnerID or OldOwnerID as the owner. The value
	// is parsed once, when it is read; ApplyChanges decides from this
	// whether a TXT left without record may be deleted.
	mine bool
}

// index returns the map from txtKey to txts, building it on first use: a
// steady-state read never needs it.
func (st *zoneState) index() map[string]int32 {
	st.once.Do(func() {
		st.idx = make(map[string]int32, len(st.txts))
		for i, t := range st.txts {
			st.idx[txtKey(t.lowerName(), st.setID(int32(i)))] = int32(i)
		}
	})
	return st.idx
}

// lowerName returns the TXT name in lower case; it allocates only when the
// name read has upper-case letters.
func (t *txtInfo) lowerName() string { return lowerASCII(t.name) }

// setID returns the set identifier of the TXT record at index i.
func (st *zoneState) setID(i int32) string {
	if st.setIDs == nil {
		return ""
	}
	return st.setIDs[i]
}

// key returns the txtKey of the TXT record at index i.
func (st *zoneState) key(i int32) string { return txtKey(st.txts[i].lowerName(), st.setID(i)) }

// repairing reports whether the TXT record set key is among the repairs
// of the read.
func (st *zoneState) repairing(key string) bool {
	for _, rp := range st.repairs {
		if rp.key == key {
			return true
		}
	}
	return false
}

func (st *zoneState) lookup(key string) (txtInfo, bool) {
	if st == nil {
		return txtInfo{}, false
	}
	i, ok := st.index()[key]
	if !ok {
		return txtInfo{}, false
	}
	return st.txts[i], true
}

// txtKey identifies a TXT record set: its lower-case name and set
// identifier.
func txtKey(lowerName, setID string) string {
	if setID == "" {
		return lowerName
	}
	return lowerName + "\x00" + setID
}

// lowerASCII lower-cases ASCII letters; it does not allocate when s has
// none.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
