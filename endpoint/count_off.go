//go:build !zonesync_count

package endpoint

// countConversion does nothing outside the counting build (see
// count_on.go).
func countConversion() {}
