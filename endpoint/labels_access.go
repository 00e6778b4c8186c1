package endpoint

import (
	"bytes"
	"encoding/json"
	"iter"
	"maps"
	"slices"
	"strings"
)

// labelPair is one label of a [Labels].
type labelPair struct{ key, value string }

// Labels is the registry metadata of an endpoint: a small set of string
// keys with string values, kept as a slice of pairs sorted by key. Its text
// form, the payload of an ownership TXT record, is
//
//	heritage=external-dns,external-dns/<key>=<value>,...
//
// with keys in byte order. The text has no escaping, so keys and values must
// not hold its separators: [ValidateLabels] is the rule, and everything that
// takes labels from outside input (sources, [Endpoint.Validate]) applies it
// before labels reach a TXT record.
//
// The zero value holds no labels, and empty labels are always the zero
// value: with the pairs kept sorted, two Labels holding the same labels are
// equal field for field, so reflect.DeepEqual (and testify's assert.Equal)
// compares them as [Labels.Equal] does. Labels is a value: assigning it
// gives a copy, and [Labels.Set] or [Labels.Delete] on one copy never
// changes another (they build a new slice rather than write into the shared
// one, so copies may share memory the way strings do). Its JSON form is the
// object a map[string]string gives.
type Labels struct {
	// pairs is sorted by key, keys are unique, nil when empty. A slice,
	// once stored here, is never written to again.
	pairs []labelPair
}

// LabelsFromMap returns labels holding the entries of m (none for a nil or
// empty m).
func LabelsFromMap(m map[string]string) Labels {
	if len(m) == 0 {
		return Labels{}
	}
	pairs := make([]labelPair, 0, len(m))
	for k, v := range m {
		pairs = append(pairs, labelPair{k, v})
	}
	slices.SortFunc(pairs, func(a, b labelPair) int { return strings.Compare(a.key, b.key) })
	return Labels{pairs: pairs}
}

// find returns the index of key in l.pairs, or where it would be inserted,
// and whether it is there.
func (l Labels) find(key string) (int, bool) {
	lo, hi := 0, len(l.pairs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.pairs[m].key < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(l.pairs) && l.pairs[lo].key == key
}

// Get returns the value of key and whether it is set.
func (l Labels) Get(key string) (string, bool) {
	if i, ok := l.find(key); ok {
		return l.pairs[i].value, true
	}
	return "", false
}

// Set sets key to value. It allocates a new slice of pairs unless key
// already has that value, so copies of l are not affected.
func (l *Labels) Set(key, value string) {
	i, ok := l.find(key)
	if ok {
		if l.pairs[i].value == value {
			return
		}
		pairs := slices.Clone(l.pairs)
		pairs[i].value = value
		l.pairs = pairs
		return
	}
	pairs := make([]labelPair, len(l.pairs)+1)
	copy(pairs, l.pairs[:i])
	pairs[i] = labelPair{key, value}
	copy(pairs[i+1:], l.pairs[i:])
	l.pairs = pairs
}

// Delete removes key; it does nothing when key is not set. Removing the last
// label leaves the zero value.
func (l *Labels) Delete(key string) {
	i, ok := l.find(key)
	if !ok {
		return
	}
	if len(l.pairs) == 1 {
		l.pairs = nil
		return
	}
	pairs := make([]labelPair, 0, len(l.pairs)-1)
	pairs = append(pairs, l.pairs[:i]...)
	l.pairs = append(pairs, l.pairs[i+1:]...)
}

// Len returns the number of labels.
func (l Labels) Len() int { return len(l.pairs) }

// All yields every label in key (byte) order.
func (l Labels) All() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for _, p := range l.pairs {
			if !yield(p.key, p.value) {
				return
			}
		}
	}
}

// Equal reports whether l and o hold the same labels.
func (l Labels) Equal(o Labels) bool { return slices.Equal(l.pairs, o.pairs) }

// clone returns labels with the same entries in a slice of their own.
func (l Labels) clone() Labels {
	if l.pairs == nil {
		return Labels{}
	}
	return Labels{pairs: slices.Clone(l.pairs)}
}

// MarshalJSON returns the labels as a JSON object, keys in byte order: the
// bytes encoding/json writes for the same map[string]string with HTML
// escaping off. json.Marshal escapes "<", ">" and "&" in them as it does for
// the map; an Encoder with SetEscapeHTML(false) leaves them. Empty labels
// give {}.
func (l Labels) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(maps.Collect(l.All())); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// UnmarshalJSON decodes a JSON object whose values are all strings (or
// null, read as "") into l as encoding/json decodes one into a
// map[string]string: the labels of the object are added to those l holds,
// a key given twice keeps its last value, and null empties l. So an
// endpoint object naming "labels" twice decodes as it does into
// external-dns's map.
func (l *Labels) UnmarshalJSON(data []byte) error {
	m := maps.Collect(l.All())
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*l = LabelsFromMap(m)
	return nil
}

// String renders the labels as fmt renders a map[string]string, keys in
// order: "map[owner:default resource:service/default/web]". It is meant for
// people (logs, test output); the TXT text is [Labels.Serialize].
func (l Labels) String() string {
	var b strings.Builder
	b.WriteString("map[")
	for i, p := range l.pairs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.key)
		b.WriteByte(':')
		b.WriteString(p.value)
	}
	b.WriteByte(']')
	return b.String()
}
