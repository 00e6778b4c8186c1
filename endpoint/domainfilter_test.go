package endpoint_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

func mustRegexp(t testing.TB, pattern string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile(pattern)
	require.NoError(t, err)
	return re
}

func decodeFilter(t testing.TB, in string) *endpoint.DomainFilter {
	t.Helper()
	var df endpoint.DomainFilter
	require.NoError(t, json.Unmarshal([]byte(in), &df), in)
	return &df
}

// TestDomainFilterCompatExamples runs the worked examples of external-dns domain filter matching.
func TestDomainFilterCompatExamples(t *testing.T) {
	type check struct {
		name string
		want bool
	}
	tests := []struct {
		num      int
		filter   func(t *testing.T) *endpoint.DomainFilter
		wantJSON string // serialised form of the filter
		checks   []check
	}{
		{1, func(t *testing.T) *endpoint.DomainFilter { return decodeFilter(t, `{"include":["example.com"]}`) },
			`{"include":["example.com"]}`, []check{{"example.com", true}}},
		{2, func(t *testing.T) *endpoint.DomainFilter { return decodeFilter(t, `{"include":["example.com"]}`) },
			`{"include":["example.com"]}`, []check{{"www.app.example.com.", true}}},
		{3, func(t *testing.T) *endpoint.DomainFilter { return decodeFilter(t, `{"include":["example.com"]}`) },
			`{"include":["example.com"]}`, []check{{"myexample.com", false}}},
		{4, func(t *testing.T) *endpoint.DomainFilter { return decodeFilter(t, `{"include":[".example.com"]}`) },
			`{"include":[".example.com"]}`, []check{{"example.com", false}}},
		{5, func(t *testing.T) *endpoint.DomainFilter { return decodeFilter(t, `{"include":[".example.com"]}`) },
			`{"include":[".example.com"]}`, []check{{"a.b.example.com", true}}},
		{6, func(*testing.T) *endpoint.DomainFilter { return endpoint.NewDomainFilter([]string{"Example.COM."}) },
			`{"include":["example.com"]}`, []check{{"WWW.Example.Com", true}}},
		{7, func(t *testing.T) *endpoint.DomainFilter {
			return decodeFilter(t, `{"include":["example.com"],"exclude":["api.example.com"]}`)
		}, `{"include":["example.com"],"exclude":["api.example.com"]}`, []check{{"v1.api.example.com", false}}},
		{8, func(t *testing.T) *endpoint.DomainFilter {
			return decodeFilter(t, `{"include":["example.com"],"exclude":["api.example.com"]}`)
		}, `{"include":["example.com"],"exclude":["api.example.com"]}`, []check{{"dev-api.example.com", true}}},
		{9, func(t *testing.T) *endpoint.DomainFilter {
			return decodeFilter(t, `{"exclude":[".internal.example.com"]}`)
		},
			`{"exclude":[".internal.example.com"]}`, []check{{"internal.example.com", true}, {"db.internal.example.com", false}}},
		{10, func(t *testing.T) *endpoint.DomainFilter {
			return decodeFilter(t, `{"regexInclude":"\\.prod\\.example\\.com$","regexExclude":"^temp-"}`)
		}, `{"regexInclude":"\\.prod\\.example\\.com$","regexExclude":"^temp-"}`,
			[]check{{"api.prod.example.com", true}, {"temp-api.prod.example.com", false}, {"api.dev.example.com", false}}},
		{11, func(t *testing.T) *endpoint.DomainFilter { return decodeFilter(t, `{"regexExclude":"^internal\\."}`) },
			`{"regexExclude":"^internal\\."}`, []check{{"www.example.org", true}, {"internal.example.org", false}}},
		{12, func(t *testing.T) *endpoint.DomainFilter { return decodeFilter(t, `{"regexInclude":"^API\\."}`) },
			`{"regexInclude":"^API\\."}`, []check{{"API.example.com", false}}},
		{13, func(t *testing.T) *endpoint.DomainFilter { return decodeFilter(t, `{"regexInclude":"😍\\.org$"}`) },
			`{"regexInclude":"😍\\.org$"}`, []check{{"xn--r28h.org", true}}},
		{14, func(*testing.T) *endpoint.DomainFilter {
			return endpoint.NewDomainFilter([]string{"API.xn--StonkS-u354e.ORG"})
		}, `{"include":["api.stonks📈.org"]}`, []check{{"FoOoo.Api.Stonks📈.Org", true}}},
		{15, func(t *testing.T) *endpoint.DomainFilter { return decodeFilter(t, `{"include":["baz.foo.org"]}`) },
			`{"include":["baz.foo.org"]}`, []check{{"foo.org", false}}},
		{16, func(t *testing.T) *endpoint.DomainFilter { return decodeFilter(t, `{"include":[".org"]}`) },
			`{"include":[".org"]}`, []check{{"foo.test.example.org", true}}},
		{17, func(t *testing.T) *endpoint.DomainFilter { return decodeFilter(t, `{}`) },
			`{}`, []check{{"anything.example.com", true}, {"", true}, {"com", true}}},
	}
	require.Len(t, tests, 17)
	for _, tt := range tests {
		for _, c := range tt.checks {
			t.Run(tt.wantJSON+" "+c.name, func(t *testing.T) {
				df := tt.filter(t)
				got, err := json.Marshal(df)
				require.NoError(t, err)
				assert.Equal(t, tt.wantJSON, string(got), "example %d: serialised form", tt.num)
				assert.Equal(t, c.want, df.Match(c.name), "example %d: Match(%q)", tt.num, c.name)
				assert.Equal(t, c.want, endpoint.MatchAllDomainFilters{df}.Match(c.name), "example %d: as MatchAll", tt.num)
			})
		}
	}
}

func TestDomainFilterMatch(t *testing.T) {
	tests := []struct {
		name    string
		filter  *endpoint.DomainFilter
		domain  string
		matches bool
	}{
		{"nil filter", nil, "example.com", true},
		{"nil filter, empty name", nil, "", true},
		{"zero filter", &endpoint.DomainFilter{}, "example.com", true},
		{"white space around name is not trimmed", endpoint.NewDomainFilter([]string{"example.com"}), "  www.example.com. ", false},
		{"white space in entry is trimmed", endpoint.NewDomainFilter([]string{"  example.com. "}), "www.example.com.", true},
		{"entry with trailing dot", endpoint.NewDomainFilter([]string{"example.com."}), "example.com", true},
		{"several includes", endpoint.NewDomainFilter([]string{"a.example", "b.example"}), "x.b.example", true},
		{"several includes, none", endpoint.NewDomainFilter([]string{"a.example", "b.example"}), "c.example", false},
		{"exclude equal", endpoint.NewDomainFilterWithExclusions([]string{"example.com"}, []string{"example.com"}), "example.com", false},
		{"exclude unrelated", endpoint.NewDomainFilterWithExclusions([]string{"example.com"}, []string{"example.org"}), "example.com", true},
		{"punycode entry, Unicode name", endpoint.NewDomainFilter([]string{"xn--bcher-kva.example"}), "www.BÜCHER.example", true},
		{"Unicode entry, punycode name", endpoint.NewDomainFilter([]string{"bücher.example"}), "www.xn--bcher-kva.example.", true},
		{"blank entries ignored", endpoint.NewDomainFilter([]string{"", " "}), "anything", true},
		{"regex wins over lists", endpoint.NewRegexDomainFilter(mustRegexp(t, `^a\.`), nil), "a.example", true},
		{"regex sees normalised name", endpoint.NewRegexDomainFilter(mustRegexp(t, `^www\.example\.com$`), nil), "WWW.Example.com.", true},
		{"empty regexes match all", endpoint.NewRegexDomainFilter(mustRegexp(t, ""), mustRegexp(t, "")), "x", true},
		{"nil regexes match all", endpoint.NewRegexDomainFilter(nil, nil), "x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.matches, tt.filter.Match(tt.domain))
		})
	}
}

// TestDomainFilterIDNA checks the UTS #46 cases in which the filter must
// agree with external-dns: entries and names are mapped (full width, other
// full stops, compatibility forms) and compared as A-labels; the JSON form
// is the Unicode one external-dns writes.
func TestDomainFilterIDNA(t *testing.T) {
	tests := []struct {
		name     string
		include  []string
		wantJSON string
		domain   string
		matches  bool
	}{
		{"fullwidth entry", []string{"ＡＰＰ"}, `{"include":["app"]}`, "app", true},
		{"fullwidth name", []string{"app.example"}, `{"include":["app.example"]}`, "ＡＰＰ.example", true},
		{"ideographic full stop in entry", []string{"example。com"}, `{"include":["example.com"]}`, "www.example.com", true},
		{"ideographic full stop in name", []string{"example.com"}, `{"include":["example.com"]}`, "www。example．com｡", true},
		{"dotted capital I", []string{"İ.example"}, `{"include":["i̇.example"]}`, "xn--i-9bb.example", true},
		{"title case digraph", []string{"ǅ.example"}, `{"include":["dž.example"]}`, "Ǆ.example", true},
		{"sharp s is ss", []string{"straße.de"}, `{"include":["strasse.de"]}`, "www.strasse.de", true},
		{"ss is sharp s", []string{"strasse.de"}, `{"include":["strasse.de"]}`, "STRASSE.de", true},
		{"capital sharp s", []string{"strasse.de"}, `{"include":["strasse.de"]}`, "STRAẞE.de", true},
		{"punycode sharp s is another name", []string{"strasse.de"}, `{"include":["strasse.de"]}`, "xn--strae-oqa.de", false},
		{"punycode sharp s entry stays punycode", []string{"xn--strae-oqa.de"}, `{"include":["xn--strae-oqa.de"]}`, "a.xn--strae-oqa.de", true},
		{"underscore and wildcard", []string{"_acme.example"}, `{"include":["_acme.example"]}`, "*._ACME.example", true},
		{"invalid punycode entry kept as written", []string{"xn--abc-.example"}, `{"include":["xn--abc-.example"]}`, "www.xn--abc-.example", true},
		{"invalid punycode is not its decoded text", []string{"xn--abc-.example"}, `{"include":["xn--abc-.example"]}`, "abc.example", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			df := endpoint.NewDomainFilterWithExclusions(tt.include, nil)
			got, err := json.Marshal(df)
			require.NoError(t, err)
			assert.Equal(t, tt.wantJSON, string(got))
			assert.Equal(t, tt.matches, df.Match(tt.domain), "Match(%q)", tt.domain)
			assert.Equal(t, tt.matches, decodeFilter(t, string(got)).Match(tt.domain), "decoded filter, Match(%q)", tt.domain)
		})
	}
}

// TestDomainFilterEntriesAreALabels checks that entries a user writes in
// any form are converted to A-labels once, when the filter is made.
func TestDomainFilterEntriesAreALabels(t *testing.T) {
	tests := []struct {
		name             string
		include, exclude []string
		wantIn, wantEx   []string
	}{
		{"Unicode", []string{"Bücher.Example."}, []string{"intern.bücher.example"},
			[]string{"xn--bcher-kva.example"}, []string{"intern.xn--bcher-kva.example"}},
		{"A-label", []string{"XN--BCHER-KVA.example"}, nil, []string{"xn--bcher-kva.example"}, nil},
		{"leading dot kept", []string{" .bücher.example.. "}, nil, []string{".xn--bcher-kva.example"}, nil},
		{"blank dropped", []string{" ", ".", ""}, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			df := endpoint.NewDomainFilterWithExclusions(tt.include, tt.exclude)
			assert.Equal(t, tt.wantIn, df.Include())
			assert.Equal(t, tt.wantEx, df.Exclude())
		})
	}
}

func TestRegression_FullwidthFilterEntry(t *testing.T) {
	df := endpoint.NewDomainFilterWithExclusions([]string{"ＡＰＰ"}, nil)
	assert.True(t, df.Match("app"))
	got, err := json.Marshal(df)
	require.NoError(t, err)
	assert.JSONEq(t, `{"include":["app"]}`, string(got))
	assert.Equal(t, `{"include":["app"]}`, string(got))
}

func TestRegression_MatchDoesNotTrimName(t *testing.T) {
	df := endpoint.NewDomainFilter([]string{"example.com"})
	for _, name := range []string{" example.com", "example.com ", "www.example.com\t", "example.com\n."} {
		assert.False(t, df.Match(name), "Match(%q)", name)
		assert.False(t, df.MatchParent(name), "MatchParent(%q)", name)
	}
	// White space inside the first label leaves the name below the entry,
	// as in external-dns; Endpoint.Validate rejects such names.
	assert.True(t, df.Match("\twww.example.com"))
	assert.True(t, df.Match("www .example.com"))
	assert.True(t, df.Match("www.example.com"))
}

func TestDomainFilterAccessors(t *testing.T) {
	df := endpoint.NewDomainFilterWithExclusions([]string{"b.example", "A.example"}, []string{"x.a.example"})
	assert.True(t, df.IsConfigured())
	inc := df.Include()
	assert.Equal(t, []string{"a.example", "b.example"}, inc)
	inc[0] = "changed"
	assert.Equal(t, []string{"a.example", "b.example"}, df.Include(), "Include returns a copy")
	exc := df.Exclude()
	assert.Equal(t, []string{"x.a.example"}, exc)
	exc[0] = "changed"
	assert.Equal(t, []string{"x.a.example"}, df.Exclude(), "Exclude returns a copy")
	assert.Nil(t, df.RegexInclude())
	assert.Nil(t, df.RegexExclude())

	var nilFilter *endpoint.DomainFilter
	assert.False(t, nilFilter.IsConfigured())
	assert.Nil(t, nilFilter.Include())
	assert.Nil(t, nilFilter.Exclude())
	assert.Nil(t, nilFilter.RegexInclude())
	assert.Nil(t, nilFilter.RegexExclude())
	assert.Equal(t, "{}", nilFilter.String())

	assert.False(t, endpoint.NewDomainFilter(nil).IsConfigured())
	assert.False(t, endpoint.NewDomainFilter([]string{" "}).IsConfigured())
	assert.True(t, endpoint.NewDomainFilterWithExclusions(nil, []string{"a"}).IsConfigured())
	assert.True(t, endpoint.NewRegexDomainFilter(nil, mustRegexp(t, "x")).IsConfigured())
	assert.False(t, endpoint.NewRegexDomainFilter(mustRegexp(t, ""), nil).IsConfigured())

	in := []string{"B.example", "a.example"}
	endpoint.NewDomainFilter(in)
	assert.Equal(t, []string{"B.example", "a.example"}, in, "the caller's slice is not modified")
}

func TestDomainFilterByValueInStruct(t *testing.T) {
	v := struct {
		Filter endpoint.DomainFilter `json:"filter"`
	}{*endpoint.NewDomainFilter([]string{"example.com"})}
	got, err := json.Marshal(&v)
	require.NoError(t, err)
	assert.Equal(t, `{"filter":{"include":["example.com"]}}`, string(got), "an addressable field encodes through MarshalJSON")
	got, err = json.Marshal(v)
	require.NoError(t, err)
	assert.Equal(t, `{"filter":{}}`, string(got), "a copy cannot call the pointer method (as in external-dns): hold filters by pointer")
}

func TestParseRegexDomainFilter(t *testing.T) {
	df, err := endpoint.ParseRegexDomainFilter(`\.example\.com$`, `^skip\.`)
	require.NoError(t, err)
	assert.True(t, df.Match("a.example.com"))
	assert.False(t, df.Match("skip.example.com"))
	assert.False(t, df.Match("a.example.org"))

	df, err = endpoint.ParseRegexDomainFilter("", "")
	require.NoError(t, err)
	assert.False(t, df.IsConfigured())
	assert.True(t, df.Match("anything"))

	_, err = endpoint.ParseRegexDomainFilter("(", "")
	assert.ErrorContains(t, err, `domain filter include regex "("`)
	_, err = endpoint.ParseRegexDomainFilter("", "a**")
	assert.ErrorContains(t, err, `domain filter exclude regex "a**"`)
}

func TestDomainFilterMatchParent(t *testing.T) {
	tests := []struct {
		name   string
		filter *endpoint.DomainFilter
		domain string
		want   bool
	}{
		{"parent of include", endpoint.NewDomainFilter([]string{"a.b.example.com"}), "example.com", true},
		{"direct parent", endpoint.NewDomainFilter([]string{"a.b.example.com"}), "b.example.com", true},
		{"equal is not a parent", endpoint.NewDomainFilter([]string{"a.b.example.com"}), "a.b.example.com", false},
		{"case and trailing dot", endpoint.NewDomainFilter([]string{"a.b.example.com"}), "Example.COM.", true},
		{"child is not a parent", endpoint.NewDomainFilter([]string{"example.com"}), "a.example.com", false},
		{"not on a label boundary", endpoint.NewDomainFilter([]string{"a.myexample.com"}), "example.com", false},
		{"unrelated", endpoint.NewDomainFilter([]string{"a.example.com"}), "example.org", false},
		{"leading-dot entries are skipped", endpoint.NewDomainFilter([]string{".a.example.com"}), "example.com", false},
		{"empty include matches all", endpoint.NewDomainFilter(nil), "example.com", true},
		{"exclusions apply", endpoint.NewDomainFilterWithExclusions([]string{"a.b.example.com"}, []string{"example.com"}), "example.com", false},
		{"exclusions apply with empty include", endpoint.NewDomainFilterWithExclusions(nil, []string{"example.com"}), "x.example.com", false},
		{"nil filter", nil, "example.com", true},
		{"regex not consulted", endpoint.NewRegexDomainFilter(mustRegexp(t, "^nothing$"), nil), "example.com", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.filter.MatchParent(tt.domain))
		})
	}
}

// TestDomainFilterMatchParentExternalDNS holds the cases of external-dns's
// own TestDomainFilterMatchParent: each domain with and without a trailing
// dot, on the filter and on the filter decoded from the JSON of its lists,
// which must encode as external-dns's does.
func TestDomainFilterMatchParentExternalDNS(t *testing.T) {
	tests := []struct {
		include, exclude []string
		domains          []string
		want             bool
		json             string
	}{
		{[]string{"a.example.com."}, nil, []string{"example.com"}, true, `{"include":["a.example.com"]}`},
		{[]string{" a.example.com "}, nil, []string{"example.com"}, true, `{"include":["a.example.com"]}`},
		{[]string{""}, nil, []string{"example.com"}, true, `{}`},
		{[]string{".a.example.com."}, nil, []string{"example.com"}, false, `{"include":[".a.example.com"]}`},
		{[]string{"a.example.com.", "b.example.com"}, nil, []string{"example.com"}, true, `{"include":["a.example.com","b.example.com"]}`},
		{[]string{"a.xn--c1yn36f.æøå.", "b.點看.xn--5cab8c", "c.點看.æøå"}, nil, []string{"xn--c1yn36f.xn--5cab8c"}, true,
			`{"include":["a.點看.æøå","b.點看.æøå","c.點看.æøå"]}`},
		{[]string{"punycode.xn--c1yn36f.local", "å.點看.local.", "ø.點看.local"}, nil, []string{"點看.local"}, true,
			`{"include":["punycode.點看.local","å.點看.local","ø.點看.local"]}`},
		{[]string{"a.example.com"}, nil, []string{"b.example.com"}, false, `{"include":["a.example.com"]}`},
		{[]string{"example.com"}, nil, []string{"example.com"}, false, `{"include":["example.com"]}`},
		{[]string{"example.com"}, nil, []string{"anexample.com"}, false, `{"include":["example.com"]}`},
		{[]string{""}, nil, []string{""}, true, `{}`},
		{[]string{"example.com"}, []string{"excluded.example.com"}, []string{"excluded.example.com"}, false,
			`{"include":["example.com"],"exclude":["excluded.example.com"]}`},
	}
	for i, tt := range tests {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			df := endpoint.NewDomainFilterWithExclusions(tt.include, tt.exclude)
			got, err := json.Marshal(df)
			require.NoError(t, err)
			assert.JSONEq(t, tt.json, string(got))
			lists, err := json.Marshal(map[string][]string{"include": tt.include, "exclude": tt.exclude})
			require.NoError(t, err)
			var decoded endpoint.DomainFilter
			require.NoError(t, json.Unmarshal(lists, &decoded))
			for _, d := range tt.domains {
				for _, name := range []string{d, d + "."} {
					assert.Equal(t, tt.want, df.MatchParent(name), "%q", name)
					assert.Equal(t, tt.want, decoded.MatchParent(name), "decoded, %q", name)
				}
			}
		})
	}
}

type funcFilter func(string) bool

func (f funcFilter) Match(domain string) bool { return f(domain) }

func TestMatchAllDomainFilters(t *testing.T) {
	var nilFilter *endpoint.DomainFilter
	com := endpoint.NewDomainFilter([]string{"com"})
	noAPI := endpoint.NewDomainFilterWithExclusions(nil, []string{"api.example.com"})
	tests := []struct {
		name    string
		filters endpoint.MatchAllDomainFilters
		domain  string
		want    bool
	}{
		{"nil list", nil, "anything", true},
		{"empty list", endpoint.MatchAllDomainFilters{}, "anything", true},
		{"nil entry", endpoint.MatchAllDomainFilters{nil}, "anything", true},
		{"typed nil entry", endpoint.MatchAllDomainFilters{nilFilter}, "anything", true},
		{"all match", endpoint.MatchAllDomainFilters{com, noAPI}, "www.example.com", true},
		{"second refuses", endpoint.MatchAllDomainFilters{com, noAPI}, "v1.api.example.com", false},
		{"first refuses", endpoint.MatchAllDomainFilters{com, noAPI}, "www.example.org", false},
		{"nil entries among others", endpoint.MatchAllDomainFilters{nil, com, nilFilter}, "www.example.org", false},
		{"custom filter", endpoint.MatchAllDomainFilters{com, funcFilter(func(string) bool { return false })}, "a.com", false},
		{"nested", endpoint.MatchAllDomainFilters{endpoint.MatchAllDomainFilters{com}, noAPI}, "api.example.com", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.filters.Match(tt.domain))
		})
	}

	// Value receiver: a MatchAllDomainFilters value is a DomainFilterInterface.
	var _ endpoint.DomainFilterInterface = endpoint.MatchAllDomainFilters{}
}
