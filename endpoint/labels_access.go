package endpoint

import (
	"iter"
	"sort"
)

// Get returns the value of key and whether it is set.
func (l Labels) Get(key string) (string, bool) {
	v, ok := l[key]
	return v, ok
}

// Set sets key to value.
func (l *Labels) Set(key, value string) {
	if *l == nil {
		*l = Labels{}
	}
	(*l)[key] = value
}

// Delete removes key; it does nothing when key is not set.
func (l *Labels) Delete(key string) { delete(*l, key) }

// Len returns the number of labels.
func (l Labels) Len() int { return len(l) }

// All yields every label in key order.
func (l Labels) All() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		keys := make([]string, 0, len(l))
		for k := range l {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !yield(k, l[k]) {
				return
			}
		}
	}
}
