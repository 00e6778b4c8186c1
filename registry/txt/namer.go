package txt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// RecordTypeTemplate is the placeholder that a prefix or suffix may contain;
// it is replaced by the lower-case record type of the owned record.
const RecordTypeTemplate = "%{record_type}"

// txtNamer maps record names to ownership TXT names and back, the way the
// external-dns TXT registry does. Its zero value has
// no prefix, suffix or wildcard replacement: app.example.com/A maps to
// a-app.example.com. Build other configurations with newTXTNamer.
//
// The record types recognised in TXT names are those of
// [endpoint.KnownRecordTypes], tried in its order (A, AAAA,
// CNAME, NS, MX, PTR, SRV, NAPTR, TXT, DNAME, TLSA). The order matters:
// with a bare "%{record_type}" prefix, "aaaafoo" is read as type A.
//
// A txtNamer is an immutable value, safe for concurrent use.
type txtNamer struct {
	prefix, suffix, wildcard string
	templated                bool
	// plainPrefix and plainSuffix are the affixes with the template removed
	// (the legacy untyped format).
	plainPrefix, plainSuffix string
	// types is endpoint.KnownRecordTypes(), set by newTXTNamer; the zero
	// txtNamer asks the endpoint package on every parse.
	types []string
	// expanded holds the affix (prefix in prefix mode, suffix in suffix
	// mode) expanded for every type of types, when templated.
	expanded []string
	// ambiguous: one expansion is a prefix (prefix mode) or a suffix
	// (suffix mode) of another, so that one TXT name can read as owning
	// two records (a bare "%{record_type}" prefix reads "aaaafoo" as
	// "aaafoo"/A and as "foo"/AAAA; see readings).
	ambiguous bool
}

// txtReading is one way to read a TXT name: the record name and type it
// owns.
type txtReading struct {
	name, recordType string
}

// newTXTNamer returns a txtNamer for the given prefix, suffix and wildcard
// replacement, all lower-cased. Prefix and suffix are mutually exclusive;
// either may contain [RecordTypeTemplate]. The error wraps
// [ErrInvalidConfig].
func newTXTNamer(prefix, suffix, wildcardReplacement string) (txtNamer, error) {
	if prefix != "" && suffix != "" {
		return txtNamer{}, fmt.Errorf("%w: Prefix %q and Suffix %q are mutually exclusive", ErrInvalidConfig, prefix, suffix)
	}
	n := txtNamer{
		prefix:   strings.ToLower(prefix),
		suffix:   strings.ToLower(suffix),
		wildcard: strings.ToLower(wildcardReplacement),
		types:    endpoint.KnownRecordTypes(),
	}
	n.templated = strings.Contains(n.prefix, RecordTypeTemplate) || strings.Contains(n.suffix, RecordTypeTemplate)
	n.plainPrefix = strings.ReplaceAll(n.prefix, RecordTypeTemplate, "")
	n.plainSuffix = strings.ReplaceAll(n.suffix, RecordTypeTemplate, "")
	if n.templated {
		affix := n.prefix
		if n.suffix != "" {
			affix = n.suffix
		}
		n.expanded = make([]string, len(n.types))
		for i, t := range n.types {
			n.expanded[i] = strings.ReplaceAll(affix, RecordTypeTemplate, strings.ToLower(t))
		}
		for i, a := range n.expanded {
			for j, b := range n.expanded {
				if i != j && (n.suffix == "" && strings.HasPrefix(b, a) || n.suffix != "" && strings.HasSuffix(b, a)) {
					n.ambiguous = true
				}
			}
		}
	}
	return n, nil
}

// readings returns every typed reading of the lower-case TXT name txtName
// under a templated affix: one per expansion the name carries, each a
// (name, type) whose TXT name is txtName, in the order of
// [endpoint.KnownRecordTypes] — so the first is [txtNamer.parseTXTName]'s
// (external-dns's). It returns nil when the namer is not ambiguous or the
// name has fewer than two readings, which is nearly always: only then does
// a TXT name read as owning two records, and the registry then decides by
// the records that exist (see Registry.resolveAmbiguous).
func (n txtNamer) readings(txtName string) []txtReading {
	if !n.ambiguous {
		return nil
	}
	head, tail := txtName, ""
	if n.suffix != "" {
		// The suffix sits at the end of the first d+1 labels.
		d := strings.Count(n.suffix, ".")
		end, dots := -1, 0
		for i := 0; i < len(txtName); i++ {
			if txtName[i] == '.' {
				if dots == d {
					end = i
					break
				}
				dots++
			}
		}
		if end >= 0 {
			head, tail = txtName[:end], txtName[end:]
		}
	}
	var out []txtReading
	for i, exp := range n.expanded {
		var rest string
		var ok bool
		if n.suffix != "" {
			rest, ok = strings.CutSuffix(head, exp)
		} else {
			rest, ok = strings.CutPrefix(head, exp)
		}
		if !ok || rest == "" {
			continue
		}
		r := txtReading{name: rest + tail, recordType: n.types[i]}
		if n.txtName(r.name, r.recordType) != txtName {
			continue
		}
		out = append(out, r)
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// readsAs reports whether the lower-case TXT name txtName reads as the TXT
// of (owned, recordType): its reading by [txtNamer.parseTXTName], or, for
// an ambiguous name, any of its [txtNamer.readings].
func (n txtNamer) readsAs(txtName, owned, recordType string) bool {
	if name, t, ok := n.parseTXTName(txtName); ok && name == owned && t == recordType {
		return true
	}
	for _, r := range n.readings(txtName) {
		if r.name == owned && r.recordType == recordType {
			return true
		}
	}
	return false
}

// txtName returns the name of the ownership TXT record of a record called
// dnsName of the given type, in the typed format that external-dns writes
// since v0.18: the first label of dnsName, with a leading
// "*" replaced by the wildcard replacement when one is configured, becomes
// prefix + "<type>-" + label + suffix, where "<type>-" is left out when the
// prefix or suffix contains [RecordTypeTemplate] (which is expanded
// instead). dnsName keeps its case; the type is lower-cased.
//
// txtName does not check the result: see [ValidateTXTName].
func (n txtNamer) txtName(dnsName, recordType string) string {
	return string(n.appendTXTName(make([]byte, 0, len(dnsName)+len(recordType)+len(n.prefix)+len(n.suffix)+1), dnsName, recordType, true))
}

// legacyTXTName returns the name of the untyped ("old" format) ownership
// TXT record of dnsName that external-dns v0.17 and earlier wrote:
// txtNamer.txtName without the type and with the template
// removed from the affixes. Without affixes it is dnsName itself. zonesync
// never writes this format; the function exists to build and test zones
// written by old releases.
func (n txtNamer) legacyTXTName(dnsName string) string {
	return string(n.appendTXTName(make([]byte, 0, len(dnsName)+len(n.prefix)+len(n.suffix)), dnsName, "", false))
}

// appendTXTName appends the TXT name of (dnsName, recordType) to dst. With
// typed false the legacy untyped name is produced and recordType is ignored.
func (n txtNamer) appendTXTName(dst []byte, dnsName, recordType string, typed bool) []byte {
	head, rest, hasRest := strings.Cut(dnsName, ".")
	if n.wildcard != "" && head == "*" {
		head = n.wildcard
	}
	if !typed {
		recordType = ""
	}
	dst = appendAffix(dst, n.prefix, recordType)
	if typed && !n.templated {
		dst = appendLower(dst, recordType)
		dst = append(dst, '-')
	}
	dst = append(dst, head...)
	dst = appendAffix(dst, n.suffix, recordType)
	if hasRest {
		dst = append(dst, '.')
		dst = append(dst, rest...)
	}
	return dst
}

// appendAffix appends affix with every template replaced by the lower-case
// record type.
func appendAffix(dst []byte, affix, recordType string) []byte {
	for {
		i := strings.Index(affix, RecordTypeTemplate)
		if i < 0 {
			return append(dst, affix...)
		}
		dst = append(dst, affix[:i]...)
		dst = appendLower(dst, recordType)
		affix = affix[i+len(RecordTypeTemplate):]
	}
}

func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// parseTXTName reads a TXT record name back into the name and type of the
// record it owns. The TXT name is lower-cased first.
// recordType is upper case ("A", "CNAME", ...), or "" for a legacy untyped
// TXT name; ok is false when the name does not carry the configured prefix
// or suffix.
//
// The rules, in external-dns's order:
//
//   - With a templated affix, the template is expanded with each type of
//     A, AAAA, CNAME, NS, MX, PTR, SRV, NAPTR, TXT, DNAME, TLSA
//     ([endpoint.KnownRecordTypes]) in turn and the first expansion found
//     wins; if none is found the template is removed
//     and parsing goes on as for an untemplated affix (legacy names).
//   - Otherwise the affix is removed and the text before the first "-" of
//     what is left is compared with the lower-case types: a match gives that
//     type and strips "<type>-"; no match gives the whole text, untyped.
//   - In suffix mode the suffix is matched at the end of the first d+1
//     labels, d being the number of dots in the suffix; the remaining
//     labels are re-attached.
//
// Ambiguities are resolved as external-dns resolves them: a legacy untyped
// TXT for cname-shop.example.com reads as the typed TXT of shop.example.com
// (CNAME); a bare "%{record_type}" prefix reads "aaaafoo" as "aaafoo"/A; a
// remainder that is exactly a type name and has no "-" ("a") reads as that
// type with the remainder as the name.
//
// A name with A-labels ("xn--…") is read in its Unicode form, as
// external-dns reads the names it wrote: external-dns joins its affix to
// the Unicode first label of a name ("a-bücher.example.com"), which a
// provider storing A-labels holds as "xn--a-bcher-p2a.example.com". Read
// in Unicode that is the A record of bücher.example.com, returned in
// A-label form ("xn--bcher-kva.example.com"); names zonesync writes
// ("a-xn--bcher-kva.example.com") read the same either way.
func (n txtNamer) parseTXTName(txtName string) (dnsName, recordType string, ok bool) {
	name := strings.ToLower(txtName)
	dnsName, recordType, ok = n.parseLower(name)
	if !strings.Contains(name, "xn--") {
		return dnsName, recordType, ok
	}
	if ok && recordType != "" && strings.ToLower(n.txtName(dnsName, recordType)) == name {
		return dnsName, recordType, ok // the name zonesync writes
	}
	// The name external-dns writes, read in Unicode; it counts only if
	// the record found names its TXT exactly so.
	if u, decoded := unicodeForm(name); decoded {
		if d, t, uok := n.parseLower(u); uok && t != "" {
			if a, aok := encodeUnicodeLabels(d); aok {
				if alt, altOK := n.unicodeTXTName(a, t); altOK && alt == name {
					return a, t, true
				}
			}
		}
	}
	return dnsName, recordType, ok
}

// parseLower is parseTXTName of a lower-case name.
func (n txtNamer) parseLower(name string) (dnsName, recordType string, ok bool) {
	if n.suffix == "" {
		return n.dropAffix(name)
	}
	if n.prefix != "" {
		return "", "", false
	}
	d := strings.Count(n.suffix, ".")
	// Find the end of the first d+1 labels.
	end, dots := -1, 0
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			if dots == d {
				end = i
				break
			}
			dots++
		}
	}
	if end < 0 {
		if dots < d {
			return "", "", false
		}
		return n.dropAffix(name)
	}
	head, rtype, ok := n.dropAffix(name[:end])
	if !ok {
		return "", "", false
	}
	return head + name[end:], rtype, true
}

// unicodeForm returns name with its A-labels decoded to Unicode
// ([endpoint.ToUnicode], the one set of IDNA rules of zonesync) and whether
// any label changed; a name whose Unicode form does not convert back to it
// ([endpoint.ToALabel]) is left as it is. Names without "xn--" cost one
// substring search.
func unicodeForm(name string) (string, bool) {
	if !strings.Contains(name, "xn--") {
		return name, false
	}
	u := endpoint.ToUnicode(name)
	if u == name || endpoint.ToALabel(u) != name {
		return name, false
	}
	return u, true
}

// encodeUnicodeLabels returns name in A-label form ([endpoint.ToALabel]);
// ok is false when that form is not ASCII (a label that cannot be
// encoded).
func encodeUnicodeLabels(name string) (string, bool) {
	a := endpoint.ToALabel(name)
	return a, isASCII(a)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// unicodeTXTName returns the lower-case A-label form of the typed TXT name
// that external-dns derives from the Unicode form of dnsName (see
// txtNamer.parseTXTName), and true when it differs from txtNamer.txtName:
// the TXT name under which external-dns may have written the ownership of
// dnsName. It returns false for names without A-labels.
func (n txtNamer) unicodeTXTName(dnsName, recordType string) (string, bool) {
	lower := strings.ToLower(dnsName)
	u, decoded := unicodeForm(lower)
	if !decoded {
		return "", false
	}
	alt, ok := encodeUnicodeLabels(string(n.appendTXTName(nil, u, recordType, true)))
	if !ok {
		return "", false
	}
	alt = strings.ToLower(alt)
	if alt == strings.ToLower(n.txtName(lower, recordType)) {
		return "", false
	}
	return alt, true
}

// dropAffix removes the prefix (prefix mode) or suffix (suffix mode) from
// name and extracts the record type.
func (n txtNamer) dropAffix(name string) (string, string, bool) {
	suffixMode := n.suffix != ""
	if n.templated {
		for i, exp := range n.expanded {
			if suffixMode {
				if rest, ok := strings.CutSuffix(name, exp); ok {
					return rest, n.types[i], true
				}
			} else if rest, ok := strings.CutPrefix(name, exp); ok {
				return rest, n.types[i], true
			}
		}
	}
	var rest string
	var ok bool
	if suffixMode {
		rest, ok = strings.CutSuffix(name, n.plainSuffix)
	} else {
		rest, ok = strings.CutPrefix(name, n.plainPrefix)
	}
	if !ok {
		return "", "", false
	}
	name, rtype := n.extractType(rest)
	return name, rtype, true
}

// extractType reads "<type>-<name>" (legacy default position of the type).
func (n txtNamer) extractType(s string) (string, string) {
	before, _, hasDash := strings.Cut(s, "-")
	t, ok := n.typeFromLower(before)
	if !ok {
		return s, ""
	}
	if hasDash {
		return s[len(before)+1:], t
	}
	return s, t
}

// typeFromLower returns the known record type whose lower-case form is s
// (a part of a lower-cased TXT name).
func (n txtNamer) typeFromLower(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	types := n.types
	if types == nil {
		types = endpoint.KnownRecordTypes()
	}
	for _, t := range types {
		if len(t) == len(s) && strings.EqualFold(t, s) {
			return t, true
		}
	}
	return "", false
}

// affixSample is the first label and the rest of the record name whose
// ownership TXT names [txtNamer.checkAffix] builds: a one-character first
// label, the shortest an affix can be joined to, below a zone.
const affixSample = "x.example.com"

// checkAffix returns an error when the prefix or suffix of n cannot form a
// usable ownership TXT name for any record: when the TXT name of
// affixSample, built by [txtNamer.txtName], fails [ValidateTXTName] for
// every type of [endpoint.KnownRecordTypes] (with "edns!" or "ed ns-", a
// label over 63 octets, an empty label). It is the check that makes
// [Registry.CheckOwnable] refuse a record, applied to the shortest record
// name, so an affix passes whenever some record could be owned with it.
// The error is that of the first type (A) and wraps [ErrTXTName].
func (n txtNamer) checkAffix() error {
	if n.prefix == "" && n.suffix == "" {
		return nil
	}
	types := n.types
	if types == nil {
		types = endpoint.KnownRecordTypes()
	}
	var first error
	for _, t := range types {
		err := ValidateTXTName(n.txtName(affixSample, t))
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// ErrTXTName is wrapped by the errors about ownership TXT names that cannot
// be used (see [ValidateTXTName]).
var ErrTXTName = errors.New("no usable ownership TXT name")

// ValidateTXTName checks a generated TXT name: it must be a valid DNS name
// (no empty label, no label longer than 63 octets — affixes count toward
// that limit; a "*" may sit inside a label, as in "a-*.example.com", see
// [endpoint.ValidateOwnershipTXTName]). The error wraps [ErrTXTName] and
// names the TXT name.
func ValidateTXTName(txtName string) error {
	if err := endpoint.ValidateOwnershipTXTName(txtName); err != nil {
		return fmt.Errorf("%w: %q: %w", ErrTXTName, txtName, err)
	}
	return nil
}
