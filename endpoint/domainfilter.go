package endpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// DomainFilterInterface is anything that decides whether a DNS name is in
// scope.
type DomainFilterInterface interface {
	Match(domain string) bool
}

// DomainFilter selects DNS names either by lists of domains (include and
// exclude) or by regular expressions; when a regular expression is set the
// lists are ignored.
//
// List entries match a name when the name equals the entry or lies below it
// ("example.com" matches "example.com" and "a.b.example.com" but not
// "myexample.com"); an entry with a leading dot (".example.com") matches only
// names below it. A name matches the filter when the include list is empty or
// one of its entries matches, and no exclude entry matches. Entries are
// converted to A-labels ([ToALabel]) once, when the filter is made, whatever
// form the user wrote them in ("bücher.example" or "xn--bcher-kva.example");
// names are matched in the A-label form in which zonesync holds them.
//
// The zero value and a nil *DomainFilter match everything. A DomainFilter is
// immutable and safe for concurrent use. Its JSON form is the one external-dns
// negotiates with webhook providers.
type DomainFilter struct {
	include      []string
	exclude      []string
	regexInclude *regexp.Regexp
	regexExclude *regexp.Regexp
}

var _ DomainFilterInterface = (*DomainFilter)(nil)

// NewDomainFilter returns a filter that matches names under any of include
// (or everything when include has no non-blank entry).
func NewDomainFilter(include []string) *DomainFilter {
	return NewDomainFilterWithExclusions(include, nil)
}

// NewDomainFilterWithExclusions returns a filter that matches names under any
// of include (or everything when include is empty) and under none of exclude.
// Entries are trimmed of white space and converted with [ToALabel] (which
// also drops the trailing dot); blank entries are dropped and both lists are
// sorted. A filter decoded from its own JSON form has the same
// entries.
func NewDomainFilterWithExclusions(include, exclude []string) *DomainFilter {
	return &DomainFilter{include: prepareFilters(include), exclude: prepareFilters(exclude)}
}

// NewRegexDomainFilter returns a filter that matches names that match include
// (when it is non-nil and non-empty) and do not match exclude. The regular
// expressions are unanchored and, as in external-dns, see the name a person
// reads: the Unicode form of [ToUnicode] (lower case, labels decoded from
// punycode), since a person writes them.
func NewRegexDomainFilter(include, exclude *regexp.Regexp) *DomainFilter {
	return &DomainFilter{regexInclude: include, regexExclude: exclude}
}

// filterEntry converts one entry as a user wrote it to the A-label form of
// filter entries: trimmed of white space, A-labels, no trailing dot (every
// trailing dot, as ".example.com." and "example.com.." name the same
// domain). A leading dot, which marks an entry that matches only names below
// it, is kept.
func filterEntry(e string) string {
	e = strings.TrimRight(strings.TrimSpace(e), ".")
	if rest, ok := strings.CutPrefix(e, "."); ok {
		if rest = ToALabel(rest); rest == "" {
			return ""
		}
		return "." + rest
	}
	return ToALabel(e)
}

func prepareFilters(entries []string) []string {
	var out []string
	for _, e := range entries {
		// Trim and convert until nothing changes, so that an entry such
		// as "a \n." (converted to "a \n") does not become "a" only when
		// the filter is decoded again from its JSON form.
		n := filterEntry(e)
		for {
			next := filterEntry(n)
			if next == n {
				break
			}
			n = next
		}
		if n == "" {
			continue
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// usesRegex reports whether the regular expressions decide matching.
func (df *DomainFilter) usesRegex() bool {
	return df.regexInclude != nil && df.regexInclude.String() != "" ||
		df.regexExclude != nil && df.regexExclude.String() != ""
}

// Match reports whether domain, a name in the form of [ToALabel], is in
// scope. A nil filter matches everything. Another spelling of a name (upper
// case, a trailing dot, Unicode) is converted with [ToALabel] first
// ([CanonicalName]: a name already in that form is used as it is); unlike
// the filter entries,
// domain is not trimmed of white space (as in external-dns): " a.example"
// does not match "a.example".
func (df *DomainFilter) Match(domain string) bool {
	if df == nil {
		return true
	}
	if df.usesRegex() {
		name := ToUnicode(domain)
		if df.regexExclude != nil && df.regexExclude.String() != "" && df.regexExclude.MatchString(name) {
			return false
		}
		if df.regexInclude != nil && df.regexInclude.String() != "" {
			return df.regexInclude.MatchString(name)
		}
		return true
	}
	name := CanonicalName(domain)
	return matchList(df.include, name, true) && !matchList(df.exclude, name, false)
}

// matchList reports whether name is matched by one of entries (A-labels);
// an empty list gives ifEmpty.
func matchList(entries []string, name string, ifEmpty bool) bool {
	if len(entries) == 0 {
		return ifEmpty
	}
	for _, e := range entries {
		if matchEntry(e, name) {
			return true
		}
	}
	return false
}

func matchEntry(entry, name string) bool {
	if strings.HasPrefix(entry, ".") {
		return strings.HasSuffix(name, entry)
	}
	if name == entry {
		return true
	}
	return len(name) > len(entry) && strings.HasSuffix(name, entry) && name[len(name)-len(entry)-1] == '.'
}

// MatchParent reports whether domain is a proper parent of one of the
// include entries without a leading dot, as external-dns's MatchParent does:
// for example to decide whether a zone "example.com" is needed for an
// include entry "a.b.example.com". The entry itself is not its own parent:
// on a filter "example.com", MatchParent("example.com") is false (use
// [DomainFilter.Match] for the names an entry covers). A domain that an
// exclude entry matches gives false, and an empty include list matches
// every domain. Regex filters are not consulted. Like [DomainFilter.Match],
// it does not trim domain.
func (df *DomainFilter) MatchParent(domain string) bool {
	if df == nil {
		return true
	}
	name := CanonicalName(domain)
	if matchList(df.exclude, name, false) {
		return false
	}
	if len(df.include) == 0 {
		return true
	}
	for _, e := range df.include {
		if strings.HasPrefix(e, ".") {
			continue
		}
		if strings.HasSuffix(e, "."+name) {
			return true
		}
	}
	return false
}

// IsConfigured reports whether the filter restricts anything.
func (df *DomainFilter) IsConfigured() bool {
	if df == nil {
		return false
	}
	if df.usesRegex() {
		return true
	}
	return len(df.include) > 0 || len(df.exclude) > 0
}

// Include returns a copy of the include list, in A-label form.
func (df *DomainFilter) Include() []string {
	if df == nil {
		return nil
	}
	return slices.Clone(df.include)
}

// Exclude returns a copy of the exclude list, in A-label form.
func (df *DomainFilter) Exclude() []string {
	if df == nil {
		return nil
	}
	return slices.Clone(df.exclude)
}

// RegexInclude returns the include regular expression, or nil.
func (df *DomainFilter) RegexInclude() *regexp.Regexp {
	if df == nil {
		return nil
	}
	return df.regexInclude
}

// RegexExclude returns the exclude regular expression, or nil.
func (df *DomainFilter) RegexExclude() *regexp.Regexp {
	if df == nil {
		return nil
	}
	return df.regexExclude
}

// String renders the filter for logs: its JSON form ({} for a nil filter).
func (df *DomainFilter) String() string {
	b, _ := df.MarshalJSON()
	return string(b)
}

// domainFilterSerde is the wire shape of a DomainFilter. Its name is
// external-dns's: encoding/json names the type in the errors of a decoding
// ("… into Go struct field domainFilterSerde.include of type []string"),
// which UnmarshalJSON returns as they are.
type domainFilterSerde struct {
	Include      []string `json:"include,omitempty"`
	Exclude      []string `json:"exclude,omitempty"`
	RegexInclude string   `json:"regexInclude,omitempty"`
	RegexExclude string   `json:"regexExclude,omitempty"`
}

// MarshalJSON encodes the filter as external-dns does: the list form with
// sorted entries in the Unicode form of [ToUnicode] (the form external-dns
// writes; decoding converts them back to A-labels), or, when a regular expression is set (even an
// empty one), the regex form with only non-empty patterns. A nil filter
// gives {}, the JSON of the match-everything filter, as in external-dns.
//
// As in external-dns the receiver is a pointer: encoding/json encodes a nil
// *DomainFilter as null without calling MarshalJSON, and calls it for a
// DomainFilter held by value only where it can take its address (a field of
// a struct passed by pointer, json.Marshal(&v)); a by-value copy elsewhere
// encodes as {}. Hold filters by pointer, as the constructors return them.
func (df *DomainFilter) MarshalJSON() ([]byte, error) {
	if df == nil {
		return []byte("{}"), nil
	}
	var w domainFilterSerde
	if df.regexInclude != nil || df.regexExclude != nil {
		if df.regexInclude != nil {
			w.RegexInclude = df.regexInclude.String()
		}
		if df.regexExclude != nil {
			w.RegexExclude = df.regexExclude.String()
		}
	} else {
		w.Include, w.Exclude = unicodeEntries(df.include), unicodeEntries(df.exclude)
	}
	return json.Marshal(w)
}

// unicodeEntries returns entries (A-labels) in Unicode form, sorted. An
// entry whose Unicode form would not convert back to it (a label IDNA
// rejects, such as "xn--abc-", which reads as "abc") is kept as it is, so
// that a filter decoded from the JSON form matches what the original does.
func unicodeEntries(entries []string) []string {
	if len(entries) == 0 {
		return nil
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		rest, dot := strings.CutPrefix(e, ".")
		u := ToUnicode(rest)
		if ToALabel(u) != rest {
			u = rest
		}
		if dot {
			u = "." + u
		}
		out[i] = u
	}
	slices.Sort(out)
	return out
}

// ErrDomainListAndRegex is the error UnmarshalJSON returns, as it is, when
// a JSON filter has both list entries and regular expressions; its text is
// external-dns's.
var ErrDomainListAndRegex = errors.New("cannot have both domain list and regex")

// UnmarshalJSON decodes the external-dns wire form. List entries are
// converted to A-labels. null gives the match-everything filter. The
// errors are external-dns's, word for word, since programs match on them:
// the error of encoding/json as it is (it names domainFilterSerde, the
// wire type); [ErrDomainListAndRegex] for a filter with both lists and
// regular expressions; "invalid regexInclude: " or "invalid regexExclude: "
// followed by the error of regexp.Compile (which quotes the pattern) and
// wrapping it.
func (df *DomainFilter) UnmarshalJSON(data []byte) error {
	var w domainFilterSerde
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if w.RegexInclude == "" && w.RegexExclude == "" {
		*df = *NewDomainFilterWithExclusions(w.Include, w.Exclude)
		return nil
	}
	if len(w.Include) > 0 || len(w.Exclude) > 0 {
		return ErrDomainListAndRegex
	}
	var out DomainFilter
	if w.RegexInclude != "" {
		re, err := regexp.Compile(w.RegexInclude)
		if err != nil {
			return fmt.Errorf("invalid regexInclude: %w", err)
		}
		out.regexInclude = re
	}
	if w.RegexExclude != "" {
		re, err := regexp.Compile(w.RegexExclude)
		if err != nil {
			return fmt.Errorf("invalid regexExclude: %w", err)
		}
		out.regexExclude = re
	}
	*df = out
	return nil
}

// MatchAllDomainFilters combines filters with a logical AND: a name matches
// when every filter matches it. Nil entries (and nil *DomainFilter values)
// match everything, and so does an empty list.
type MatchAllDomainFilters []DomainFilterInterface

var _ DomainFilterInterface = MatchAllDomainFilters(nil)

// Match reports whether every filter matches domain.
func (f MatchAllDomainFilters) Match(domain string) bool {
	for _, filter := range f {
		if filter == nil {
			continue
		}
		if !filter.Match(domain) {
			return false
		}
	}
	return true
}

// ParseRegexDomainFilter compiles the two patterns (either may be empty) and
// returns the regex filter; an invalid pattern gives an error that names it.
func ParseRegexDomainFilter(include, exclude string) (*DomainFilter, error) {
	var out DomainFilter
	if include != "" {
		re, err := regexp.Compile(include)
		if err != nil {
			return nil, fmt.Errorf("domain filter include regex %q: %w", include, err)
		}
		out.regexInclude = re
	}
	if exclude != "" {
		re, err := regexp.Compile(exclude)
		if err != nil {
			return nil, fmt.Errorf("domain filter exclude regex %q: %w", exclude, err)
		}
		out.regexExclude = re
	}
	if out.regexInclude == nil && out.regexExclude == nil {
		return &DomainFilter{}, nil
	}
	return &out, nil
}
