//go:build zonesync_count

package endpoint

import "sync/atomic"

// conversions counts the calls of ToALabel in the counting build (build tag
// zonesync_count), which only tests use, to measure how often a name is put
// in A-label form on its way through a cycle (count_test.go of the root
// package). Normal builds have no such state: countConversion is a no-op
// there (count_off.go).
var conversions atomic.Int64

func countConversion() { conversions.Add(1) }

// Conversions returns the number of ToALabel calls so far. It exists only
// in the counting build.
func Conversions() int64 { return conversions.Load() }
