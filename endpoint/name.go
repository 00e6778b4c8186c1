package endpoint

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// maxLabelLength is the longest a single DNS label may be, in octets.
const maxLabelLength = 63

// maxNameLength is the longest a DNS name may be in text form without the
// trailing dot: 255 octets in wire form less the length octets.
const maxNameLength = 253

// acePrefix starts every label in punycode (an A-label).
const acePrefix = "xn--"

// deviations are the four characters that UTS #46 transitional and
// non-transitional processing treat differently: ß, final sigma ς, zero
// width non-joiner and zero width joiner.
const deviations = "\u00df\u03c2\u200c\u200d"

// idnaProfile is the UTS #46 profile of every name conversion in this
// package, the one external-dns defines in internal/idna and uses for its
// domain filter and planner: the IDNA lookup mapping (case folding, width and
// compatibility mapping, NFC, "。" and other full stops mapped to "."),
// transitional processing ("ß" becomes "ss") and non-strict STD3 rules, so
// that "_" and "*" are allowed.
//
// An *idna.Profile is immutable and safe for concurrent use; this variable is
// set once at package initialisation and never reassigned, so it is shared
// configuration, not state.
var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(true),
	idna.StrictDomainName(false),
)

// NormalizeDNSName returns the form in which DNS names are compared: mapped
// with UTS #46 as external-dns maps names, without trailing dots, with labels
// in Unicode. Spellings of the same DNS name ("Bücher.Example.",
// "xn--bcher-kva.example", "ＢÜＣＨＥＲ.example" in full width, "bücher。example"
// with an ideographic full stop) normalise to the same string. A name that is
// already plain lower-case ASCII without a trailing dot or punycode label is
// returned as it is, without allocating.
//
// The mapping is the IDNA lookup mapping with transitional processing and
// non-strict STD3 rules: letters are lower-cased, full-width and
// compatibility forms are mapped ("ǅ" becomes "dž", "İ" becomes "i̇"), "ß"
// becomes "ss", and "_", "*" and white space are kept. The name is converted
// to its ASCII form with IDNA ToASCII, and each punycode label ("xn--…") is
// then decoded to Unicode if the Unicode form converts back to the same
// label. A label whose Unicode form holds one of the UTS #46 deviation
// characters (ß, ς, zero width joiner or non-joiner) therefore stays in
// punycode: "xn--strae-oqa" is "straße", a different DNS name from
// "strasse", which is what "straße" means under transitional processing.
// For a name IDNA accepts, NormalizeDNSName(a) equals NormalizeDNSName(b)
// exactly when CanonicalDNSName(a) equals CanonicalDNSName(b).
//
// external-dns's domain filter converts with ToUnicode, which x/net/idna
// always runs non-transitionally, so there a filter entry "straße.de" does
// not match "strasse.de"; its planner converts with ToASCII, which maps both
// to "strasse.de". zonesync follows the planner in both places.
//
// Names that IDNA rejects (a label such as "ab--cd" or "-a" breaks the hyphen
// rules, a punycode label does not decode or decodes to plain ASCII, a rune is
// disallowed) are normalised the way external-dns normalises them: with the
// partly processed result of the conversion. The rest of the name is mapped
// and decoded all the same, a punycode label that does not decode is kept,
// and one that decodes to plain ASCII is replaced by that text ("xn--abc-"
// becomes "abc"; "xn--xn--abc--" becomes "abc" too, as the conversion is
// repeated until it is stable). Invalid UTF-8 is read as U+FFFD.
//
// The result is a fixed point: NormalizeDNSName(NormalizeDNSName(x)) equals
// NormalizeDNSName(x). For that reason every trailing dot is removed, not just
// one ("a.b.." gives "a.b"); external-dns removes one, which differs only for
// names that end in an empty label and are invalid anyway. White space is
// never trimmed: " a.example" is not "a.example".
func NormalizeDNSName(name string) string {
	trimmed := strings.TrimRight(name, ".")
	switch asciiClass(trimmed) {
	case asciiCanonical:
		return trimmed
	case asciiFoldable:
		return strings.ToLower(trimmed)
	}
	return decodeALabels(strings.TrimRight(asciiForm(name), "."))
}

// asciiForm converts name with IDNA ToASCII and uses the partly processed
// result on error, as external-dns does. That result can hold a label which
// converts again to something shorter: "xn--xn--abc--" gives "xn--abc-",
// which gives "abc". The conversion is repeated until the name stops
// shrinking, so that the result converts to itself.
func asciiForm(name string) string {
	a, _ := idnaProfile.ToASCII(name)
	for hasASCIIOnlyACELabel(a) {
		again, _ := idnaProfile.ToASCII(a)
		if len(again) >= len(a) {
			break
		}
		a = again
	}
	return a
}

// hasASCIIOnlyACELabel reports whether a has a punycode label whose encoded
// part is empty or ends with the delimiter: the labels that decode to plain
// ASCII (or to nothing), the only ones ToASCII changes in a name it produced.
func hasASCIIOnlyACELabel(a string) bool {
	for i := 0; i < len(a); i++ {
		if (i == 0 || a[i-1] == '.') && hasPrefixFold(a[i:], acePrefix) {
			end := strings.IndexByte(a[i:], '.')
			if end < 0 {
				end = len(a) - i
			}
			if label := a[i : i+end]; len(label) == len(acePrefix) || label[len(label)-1] == '-' {
				return true
			}
		}
	}
	return false
}

// CanonicalDNSName returns the form of a name that DNS stores and that is
// written to providers and used to build ownership TXT names: lower-case
// A-labels (punycode "xn--…" for labels that are not ASCII), with exactly one
// trailing dot removed. The conversion is IDNA ToASCII with the mapping of
// [NormalizeDNSName], so CanonicalDNSName("München.Example.COM.") is
// "xn--mnchen-3ya.example.com" and an A-label is returned unchanged.
// A name that is already plain lower-case ASCII without a trailing dot or
// punycode label is returned as it is, without allocating.
//
// When IDNA rejects the name, each label is converted on its own and a label
// that IDNA rejects is kept as given with only its ASCII letters lower-cased:
// "AB--CD.München.de" gives "ab--cd.xn--mnchen-3ya.de", and an invalid
// punycode label such as "xn--abc-" is never rewritten into another name.
//
// For every name IDNA accepts, NormalizeDNSName(CanonicalDNSName(x)) equals
// NormalizeDNSName(x).
func CanonicalDNSName(name string) string {
	trimmed := strings.TrimSuffix(name, ".")
	switch asciiClass(trimmed) {
	case asciiCanonical:
		return trimmed
	case asciiFoldable:
		// Mapping plain ASCII only lower-cases letters; hyphen rule
		// errors would fall back to lower-casing, too.
		return strings.ToLower(trimmed)
	}
	a, err := idnaProfile.ToASCII(name)
	if err != nil {
		a = canonicalLabelByLabel(name)
	}
	return strings.TrimSuffix(a, ".")
}

// canonicalLabelByLabel converts each label of name with IDNA ToASCII and
// keeps a label IDNA rejects as given, with ASCII letters lower-cased.
func canonicalLabelByLabel(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 16)
	first := true
	for label := range strings.SplitSeq(name, ".") {
		if !first {
			b.WriteByte('.')
		}
		first = false
		a, err := idnaProfile.ToASCII(label)
		if err != nil {
			a = lowerASCII(label)
		}
		b.WriteString(a)
	}
	return b.String()
}

// decodeALabels decodes each punycode label of a, the ASCII form of a name,
// to Unicode when the Unicode form converts back to the same label, and
// keeps the label otherwise. That keeps labels that do not decode, and
// labels with a deviation character, which converts to something else under
// transitional processing; it makes the result a fixed point of
// NormalizeDNSName.
func decodeALabels(a string) string {
	if !hasACELabel(a) {
		return a
	}
	var b strings.Builder
	b.Grow(2 * len(a))
	first := true
	for label := range strings.SplitSeq(a, ".") {
		if !first {
			b.WriteByte('.')
		}
		first = false
		if hasPrefixFold(label, acePrefix) {
			u, err := idnaProfile.ToUnicode(label)
			// A label that decodes without error and holds no
			// deviation character converts back to itself; anything
			// else is checked.
			if err == nil && !strings.ContainsAny(u, deviations) {
				label = u
			} else if back, _ := idnaProfile.ToASCII(u); back == label {
				label = u
			}
		}
		b.WriteString(label)
	}
	return b.String()
}

// Classes of names for the fast paths of NormalizeDNSName and
// CanonicalDNSName.
const (
	// asciiCanonical: lower-case ASCII, no label starts with "xn--"; both
	// functions return such a name unchanged.
	asciiCanonical = iota
	// asciiFoldable: ASCII with upper-case letters, no label starts with
	// "xn--" in any case; both functions lower-case it.
	asciiFoldable
	// needsIDNA: anything else.
	needsIDNA
)

func asciiClass(name string) int {
	class := asciiCanonical
	labelStart := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= utf8.RuneSelf {
			return needsIDNA
		}
		if c >= 'A' && c <= 'Z' {
			class = asciiFoldable
		}
		if labelStart && (c == 'x' || c == 'X') && hasPrefixFold(name[i:], acePrefix) {
			return needsIDNA
		}
		labelStart = c == '.'
	}
	return class
}

func hasACELabel(name string) bool {
	for i := 0; i < len(name); i++ {
		if (i == 0 || name[i-1] == '.') && hasPrefixFold(name[i:], acePrefix) {
			return true
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with the lower-case ASCII prefix,
// ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// lowerASCII lower-cases the ASCII letters of s and leaves every other byte
// alone.
func lowerASCII(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for j := i; j < len(b); j++ {
		if c := b[j]; c >= 'A' && c <= 'Z' {
			b[j] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// indexSpace returns the offset of the first white space rune of s
// ([unicode.IsSpace]), or -1. ASCII bytes are checked directly; only a
// name with non-ASCII bytes takes the Unicode path.
func indexSpace(s string) int {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			return strings.IndexFunc(s, unicode.IsSpace)
		case c == ' ' || c >= '\t' && c <= '\r':
			return i
		}
	}
	return -1
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// ValidateDNSName checks that name is usable as a record name: not empty, no
// white space anywhere (Unicode white space as [unicode.IsSpace] defines it),
// at most 253 octets, no empty labels (other than one trailing dot, which is
// accepted) and no label longer than 63 octets. The error names the
// offending name and label.
//
// It checks the name as given, not its IDNA form; see [CanonicalDNSName] for
// the form written to providers.
func ValidateDNSName(name string) error {
	if i := indexSpace(name); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		return fmt.Errorf("DNS name %q contains white space (%U at offset %d)", name, r, i)
	}
	trimmed := strings.TrimSuffix(name, ".")
	if trimmed == "" {
		return fmt.Errorf("DNS name %q is empty", name)
	}
	if len(trimmed) > maxNameLength {
		return fmt.Errorf("DNS name %q is %d octets long (at most %d allowed)", name, len(trimmed), maxNameLength)
	}
	start := 0
	for i := 0; i <= len(trimmed); i++ {
		if i < len(trimmed) && trimmed[i] != '.' {
			continue
		}
		label := trimmed[start:i]
		if label == "" {
			return fmt.Errorf("DNS name %q has an empty label", name)
		}
		if len(label) > maxLabelLength {
			return fmt.Errorf("DNS name %q has label %q of %d octets (at most %d allowed)",
				name, label, len(label), maxLabelLength)
		}
		start = i + 1
	}
	return nil
}
