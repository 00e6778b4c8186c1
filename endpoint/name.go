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

// ToUnicode returns name for a person to read: mapped with UTS #46 as
// external-dns maps names, without trailing dots, with labels in Unicode
// ("bücher.example"). zonesync holds names as A-labels ([ToALabel]) and
// compares them in that form; ToUnicode is for the edges where a person reads
// a name (logs, messages, the regular expressions of a [DomainFilter], which
// a person writes against Unicode names). Spellings of the same DNS name
// ("Bücher.Example.", "xn--bcher-kva.example", "ＢÜＣＨＥＲ.example" in full
// width, "bücher。example" with an ideographic full stop) give the same
// string. A name that is already plain lower-case ASCII without a trailing
// dot or punycode label is returned as it is, without allocating.
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
// For a name IDNA accepts, ToUnicode(a) equals ToUnicode(b) exactly when
// ToALabel(a) equals ToALabel(b), so comparing either form gives the same
// answer.
//
// external-dns's domain filter converts with ToUnicode, which x/net/idna
// always runs non-transitionally, so there a filter entry "straße.de" does
// not match "strasse.de"; its planner converts with ToASCII, which maps both
// to "strasse.de". zonesync follows the planner in both places.
//
// Names that IDNA rejects (a label such as "ab--cd" or "-a" breaks the hyphen
// rules, a punycode label does not decode or decodes to plain ASCII, a rune is
// disallowed) are converted the way external-dns converts them: with the
// partly processed result of the conversion. The rest of the name is mapped
// and decoded all the same, a punycode label that does not decode is kept,
// and one that decodes to plain ASCII is replaced by that text ("xn--abc-"
// becomes "abc"; "xn--xn--abc--" becomes "abc" too, as the conversion is
// repeated until it is stable). Invalid UTF-8 is read as U+FFFD.
//
// The result is a fixed point: ToUnicode(ToUnicode(x)) equals ToUnicode(x).
// For that reason every trailing dot is removed, not just one ("a.b.." gives
// "a.b"); external-dns removes one, which differs only for names that end in
// an empty label and are invalid anyway. White space is never trimmed:
// " a.example" is not "a.example".
func ToUnicode(name string) string {
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

// ToALabel returns the one form in which zonesync holds a DNS name in
// memory, compares it, writes it to providers and builds ownership TXT names
// from it: lower-case A-labels (punycode "xn--…" for labels that are not
// ASCII), with exactly one trailing dot removed, what DNS stores. The
// conversion is IDNA ToASCII with the mapping of [ToUnicode], so
// ToALabel("München.Example.COM.") is "xn--mnchen-3ya.example.com" and an
// A-label is returned unchanged. A name that is already plain lower-case
// ASCII without a trailing dot or punycode label is returned as it is,
// without allocating.
//
// When IDNA rejects the name, each label is converted on its own and a label
// that IDNA rejects is kept as given with only its ASCII letters lower-cased:
// "AB--CD.München.de" gives "ab--cd.xn--mnchen-3ya.de", and an invalid
// punycode label such as "xn--abc-" is never rewritten into another name.
// Invalid UTF-8 is read as U+FFFD.
//
// For every name IDNA accepts, ToUnicode(ToALabel(x)) equals ToUnicode(x).
func ToALabel(name string) string {
	countConversion()
	trimmed := strings.TrimSuffix(name, ".")
	switch asciiClass(trimmed) {
	case asciiCanonical:
		return trimmed
	case asciiFoldable:
		// Mapping plain ASCII only lower-cases letters; hyphen rule
		// errors would fall back to lower-casing, too.
		return strings.ToLower(trimmed)
	}
	name = replaceInvalidUTF8(name)
	a, err := idnaProfile.ToASCII(name)
	if err != nil {
		a = canonicalLabelByLabel(name)
	}
	return strings.TrimSuffix(a, ".")
}

// CanonicalName returns name in the form of [ToALabel]: name itself,
// without converting it, when its bytes show that it is in that form
// already — lower-case ASCII, no trailing dot, no label starting with
// "xn--" — and ToALabel(name) otherwise. It is the key function of the code
// between the two places where names are put in canonical form (desired
// endpoints when a cycle takes them, records when a provider returns
// them): the planner's rows, domain filters, zone matching, the TXT
// registry's names and the in-memory provider's keys call it, so that a
// name that passed those places is never converted again, and a name from
// a caller that did not canonicalise still lands where it belongs. A name
// with an A-label is converted every time: only ToALabel can tell whether
// it is canonical. It does not allocate for a canonical name.
func CanonicalName(name string) string {
	if name != "" && name[len(name)-1] != '.' && asciiClass(name) == asciiCanonical {
		return name
	}
	return ToALabel(name)
}

// replaceInvalidUTF8 reads every byte of name that is not part of valid
// UTF-8 as U+FFFD, as [ToUnicode] and encoding/json do, so that a name and
// its JSON form convert to the same string.
func replaceInvalidUTF8(name string) string {
	if utf8.ValidString(name) {
		return name
	}
	var b strings.Builder
	b.Grow(len(name) + 8)
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(name[i : i+size])
		}
		i += size
	}
	return b.String()
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
// ToUnicode.
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

// Classes of names for the fast paths of ToUnicode and ToALabel.
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

// ValidateDNSName checks that name is usable as a record name, and that it
// is written to DNS as the name zonesync compares and records ownership of.
//
// A name may hold only ASCII letters, digits, "-" and "_" in its labels,
// dots between labels, a "*" only as the whole leftmost label (a
// wildcard), and one optional trailing dot. Anything else is refused:
// white space (Unicode white space as [unicode.IsSpace] defines it) and
// every other ASCII character such as "\", NUL, '"', "/", "@", "(" or ";".
// Those characters have a meaning of their own in zone-file notation or to
// providers ("\102oo" is "foo" to a zone-file parser), so a name holding
// them could reach DNS as a different name than the one planned.
//
// A label starting with "xn--" must be a valid A-label (punycode that IDNA
// accepts): an invalid one such as "xn--abc-" reads as "abc" to a person and to
// external-dns ([ToUnicode]) but would be written as given. A name with non-ASCII
// characters (an IDN, "bücher.example") is valid when its ASCII bytes are
// allowed characters and its A-label form ([ToALabel]) is valid
// under the same rules; an ASCII character that is not allowed is refused
// even where IDNA mapping would remove or replace it.
//
// The name as given is at most 253 octets long without its trailing dot,
// has no empty labels and no label longer than 63 octets; its A-label form
// must meet the same limits.
//
// The error names the name, the offending character (quoted, with its code
// point and byte offset in the name) and its label.
func ValidateDNSName(name string) error {
	return validateDNSName(name, false)
}

// ValidateOwnershipTXTName checks the name of an ownership TXT record that
// a registry builds from a valid record name by adding a prefix or suffix to
// its first label. The rules are those of [ValidateDNSName], except that a
// "*" may also appear inside a label, where DNS reads it as an ordinary
// character: external-dns names the ownership TXT of the wildcard record
// "*.example.com" "a-*.example.com" (and, with a prefix ending in a dot,
// "a-own.*.example.com"); and a label that starts with "xn--" need not be
// a valid A-label: external-dns appends a suffix to the A-label of an IDN
// ("xn--caf-dma-cname.example.com"). Neither relaxation lets an escape or
// zone-file syntax through. [Endpoint.Validate] applies it to every TXT
// endpoint, since TXT records written by external-dns (or by zonesync for
// external-dns) carry such names.
func ValidateOwnershipTXTName(name string) error {
	return validateDNSName(name, true)
}

// ValidateRecordName checks the name of a record of recordType: TXT names
// follow [ValidateOwnershipTXTName] (a TXT record may be an ownership
// record), all others [ValidateDNSName]. It is the one place that picks
// the rule, for [Endpoint.Validate] and for providers checking the records
// they are asked to change.
func ValidateRecordName(recordType, name string) error {
	return validateDNSName(name, recordType == RecordTypeTXT)
}

// validateDNSName implements [ValidateDNSName]; with literalAsterisk a "*"
// is also allowed inside any label.
func validateDNSName(name string, literalAsterisk bool) error {
	if i := indexSpace(name); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		return fmt.Errorf("DNS name %q contains white space (%U at offset %d) in label %q",
			name, r, i, labelAt(name, i))
	}
	trimmed := strings.TrimSuffix(name, ".")
	if trimmed == "" {
		return fmt.Errorf("DNS name %q is empty", name)
	}
	if len(trimmed) > maxNameLength {
		return fmt.Errorf("DNS name %q is %d octets long (at most %d allowed)", name, len(trimmed), maxNameLength)
	}
	ascii, err := checkLabels(name, trimmed, literalAsterisk, true)
	if err != nil {
		return err
	}
	if ascii {
		return nil
	}
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Errorf("DNS name %q is not valid UTF-8 (byte %#02x at offset %d) in label %q",
				name, name[i], i, labelAt(name, i))
		}
		i += size
	}
	// An IDN: what is written is its A-label form, which must be valid on
	// its own (IDNA mapping can turn a character into one that is not
	// allowed, e.g. U+FF3C FULLWIDTH REVERSE SOLIDUS into "\").
	canonical := ToALabel(name)
	if canonical == "" || strings.HasSuffix(canonical, ".") {
		return fmt.Errorf("DNS name %q: A-label form %q is empty or has an empty label", name, canonical)
	}
	if len(canonical) > maxNameLength {
		return fmt.Errorf("DNS name %q: A-label form %q is %d octets long (at most %d allowed)",
			name, canonical, len(canonical), maxNameLength)
	}
	if _, err := checkLabels(canonical, canonical, literalAsterisk, false); err != nil {
		return fmt.Errorf("DNS name %q: A-label form: %w", name, err)
	}
	return nil
}

// labelAt returns the label of name that holds the byte at offset i.
func labelAt(name string, i int) string {
	start := strings.LastIndexByte(name[:i], '.') + 1
	end := strings.IndexByte(name[i:], '.')
	if end < 0 {
		return name[start:]
	}
	return name[start : i+end]
}

// checkLabels checks the labels of trimmed, name without its trailing dot
// (errors quote name): no empty label, none over 63 octets, ASCII bytes
// limited to letters, digits, "-" and "_", a "*" only as the whole first
// label, and labels starting with "xn--" valid A-labels. Non-ASCII bytes
// are left to the caller with allowNonASCII (ascii reports whether there
// were none) and refused otherwise. Offsets in errors are offsets in name.
// With literalAsterisk (ownership TXT names), "*" is allowed anywhere in a
// label and "xn--" labels are not checked.
func checkLabels(name, trimmed string, literalAsterisk, allowNonASCII bool) (ascii bool, err error) {
	ascii = true
	start := 0
	for i := 0; i <= len(trimmed); i++ {
		if i < len(trimmed) && trimmed[i] != '.' {
			c := trimmed[i]
			switch {
			case c >= utf8.RuneSelf && allowNonASCII:
				ascii = false
			case c >= utf8.RuneSelf:
				r, _ := utf8.DecodeRuneInString(trimmed[i:])
				return false, fmt.Errorf("DNS name %q contains %q (%U at offset %d) in label %q: not valid in an A-label",
					name, r, r, i, labelAt(trimmed, i))
			case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
			case c == '*':
				if !literalAsterisk && (i != 0 || len(trimmed) > 1 && trimmed[1] != '.') {
					return false, fmt.Errorf("DNS name %q contains %q (%U at offset %d) in label %q: \"*\" is allowed only as the whole leftmost label",
						name, rune(c), rune(c), i, labelAt(trimmed, i))
				}
			default:
				return false, fmt.Errorf("DNS name %q contains %q (%U at offset %d) in label %q: only letters, digits, \"-\", \"_\" and dots between labels are allowed",
					name, rune(c), rune(c), i, labelAt(trimmed, i))
			}
			continue
		}
		label := trimmed[start:i]
		if label == "" {
			return false, fmt.Errorf("DNS name %q has an empty label", name)
		}
		if len(label) > maxLabelLength {
			return false, fmt.Errorf("DNS name %q has label %q of %d octets (at most %d allowed)",
				name, label, len(label), maxLabelLength)
		}
		if !literalAsterisk && hasPrefixFold(label, acePrefix) && isASCII(label) {
			// A valid A-label converts to itself (up to case); "xn--"
			// alone converts to nothing without an error.
			if a, err := idnaProfile.ToASCII(label); err != nil {
				return false, fmt.Errorf("DNS name %q has label %q that is not a valid A-label: %w", name, label, err)
			} else if a != lowerASCII(label) {
				return false, fmt.Errorf("DNS name %q has label %q that is not a valid A-label: it converts to %q", name, label, a)
			}
		}
		start = i + 1
	}
	return ascii, nil
}
