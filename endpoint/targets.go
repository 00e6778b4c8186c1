package endpoint

import (
	"net/netip"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Targets is the record data of an endpoint, one string per resource record.
type Targets []string

// smallTargets is the size up to which targets are compared in place, without
// copying or sorting.
const smallTargets = 8

// String joins the targets with ";".
//
// A target holding control characters, other unprintable characters or
// invalid UTF-8 is quoted ([Printable]), so that the text is safe in errors
// and log lines.
func (t Targets) String() string {
	for _, v := range t {
		if Printable(v) != v {
			quoted := make([]string, len(t))
			for i, w := range t {
				quoted[i] = Printable(w)
			}
			return strings.Join(quoted, ";")
		}
	}
	return strings.Join(t, ";")
}

// Same reports whether t and o hold the same targets, ignoring order and case
// (Unicode simple case folding, as [strings.EqualFold]). IPv6 addresses are
// compared in canonical form, so "2001:DB8::2" and "2001:db8:0::2" are the
// same. Duplicates count: {a, a, b} is not {a, b, b}. It is true exactly
// when the sorted [CanonicalTarget] forms of both lists are equal.
// Short lists are compared in place without allocating.
func (t Targets) Same(o Targets) bool {
	if len(t) != len(o) {
		return false
	}
	switch len(t) {
	case 0:
		return true
	case 1:
		return sameTarget(t[0], o[0])
	}
	// Fast path: same order.
	inOrder := true
	for i := range t {
		if !sameTarget(t[i], o[i]) {
			inOrder = false
			break
		}
	}
	if inOrder {
		return true
	}
	if len(t) <= smallTargets {
		for _, x := range t {
			if countTarget(t, x) != countTarget(o, x) {
				return false
			}
		}
		return true
	}
	a, b := canonicalSorted(t), canonicalSorted(o)
	return slices.Equal(a, b)
}

func countTarget(ts Targets, x string) int {
	n := 0
	for _, y := range ts {
		if sameTarget(x, y) {
			n++
		}
	}
	return n
}

// sameTarget compares two targets case-insensitively (Unicode simple case
// folding), and as addresses when both are IP addresses with a colon, so
// that "2001:DB8::2" equals "2001:db8:0::2". It agrees with CanonicalTarget:
// sameTarget(a, b) == (CanonicalTarget(a) == CanonicalTarget(b)), which makes
// it an equivalence relation.
func sameTarget(a, b string) bool {
	if a == b || strings.EqualFold(a, b) {
		return true
	}
	if strings.IndexByte(a, ':') < 0 || strings.IndexByte(b, ':') < 0 {
		return false
	}
	x, err1 := netip.ParseAddr(a)
	y, err2 := netip.ParseAddr(b)
	// Same address, and zones equal up to case (as CanonicalTarget folds
	// the zone of the canonical text).
	return err1 == nil && err2 == nil && x.WithZone("") == y.WithZone("") && strings.EqualFold(x.Zone(), y.Zone())
}

// CanonicalTarget returns the form in which targets are compared, the one
// definition of target equality: [Targets.Same] reports two lists the same
// exactly when their CanonicalTarget forms, sorted, are equal, and
// [Targets.IsLess] orders lists by those forms.
//
// An IP address with a colon (IPv6, optionally with a zone) is written in
// its canonical text form ("2001:DB8:0::1" becomes "2001:db8::1"); IPv4
// addresses have only one valid text form already. Every character is then
// replaced by one fixed member of its Unicode simple case-folding orbit, the
// one with the smallest code point, lower-cased when that is an ASCII letter.
// So CanonicalTarget(a) == CanonicalTarget(b) exactly when
// [strings.EqualFold] holds for the texts (after the address step): "\u212a"
// (KELVIN SIGN), "K" and "k" all become "k", and "σ", "ς" and "Σ" all become
// "Σ". The result is a comparison key, not a display form. Lower-case ASCII
// text comes back unchanged without allocating.
func CanonicalTarget(s string) string {
	if strings.IndexByte(s, ':') >= 0 {
		if a, err := netip.ParseAddr(s); err == nil {
			s = a.String()
		}
	}
	return foldKey(s)
}

// foldKey maps s so that foldKey(a) == foldKey(b) exactly when
// strings.EqualFold(a, b). Lower-case ASCII without invalid UTF-8 comes back
// unchanged.
func foldKey(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

// foldRune returns the representative of r's simple case-folding orbit: its
// smallest member, lower-cased when that is an ASCII letter.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		return unicode.ToLower(r)
	}
	lowest := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		lowest = min(lowest, f)
	}
	if lowest < utf8.RuneSelf {
		return unicode.ToLower(lowest)
	}
	return lowest
}

func canonicalSorted(t Targets) []string {
	out := make([]string, len(t))
	for i, s := range t {
		out[i] = CanonicalTarget(s)
	}
	slices.Sort(out)
	return out
}

// IsLess orders target lists: fewer targets first; lists of equal length
// compare as their sorted [CanonicalTarget] forms, element by element. It is a strict weak order consistent
// with [Targets.Same]: when t.Same(o), neither is less than the other.
// It gives the deterministic choice between two resources that ask for one
// name.
func (t Targets) IsLess(o Targets) bool {
	if len(t) != len(o) {
		return len(t) < len(o)
	}
	if len(t) == 1 {
		return canonicalCompare(t[0], o[0]) < 0
	}
	return slices.Compare(canonicalSorted(t), canonicalSorted(o)) < 0
}

func canonicalCompare(a, b string) int {
	if !hasUpper(a) && !hasUpper(b) && strings.IndexByte(a, ':') < 0 && strings.IndexByte(b, ':') < 0 {
		return strings.Compare(a, b)
	}
	return strings.Compare(CanonicalTarget(a), CanonicalTarget(b))
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 0x80 {
			return true
		}
	}
	return false
}
