package endpoint_test

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

func TestToUnicode(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{".", ""},
		{"example.com", "example.com"},
		{"example.com.", "example.com"},
		{"example.com..", "example.com"},
		{"Example.COM.", "example.com"},
		{"WWW.Example.Com", "www.example.com"},
		{"*.example.com", "*.example.com"},
		{"_sip._tcp.Example.com", "_sip._tcp.example.com"},
		{"xn--bcher-kva.example", "bücher.example"},
		{"XN--BCHER-KVA.example.", "bücher.example"},
		{"Bücher.Example", "bücher.example"},
		{"xn--r28h.org", "😍.org"},
		{"API.xn--StonkS-u354e.ORG", "api.stonks📈.org"},
		{"FoOoo.Api.Stonks📈.Org", "foooo.api.stonks📈.org"},
		{"ÄÖÜ.example", "äöü.example"},
		// UTS #46 mapping.
		{"ＡＰＰ", "app"},
		{"ＡＰＰ．Ｅｘａｍｐｌｅ", "app.example"},
		{"ＢÜＣＨＥＲ.example", "bücher.example"},
		{"bücher。example", "bücher.example"},
		{"a。b．c｡d", "a.b.c.d"},
		{"a。", "a"},
		{"İ.example", "i\u0307.example"},
		{"ǅ.example", "dž.example"},
		{"Ǆ.example", "dž.example"},
		{"\u212a.example", "k.example"},
		{"ℌ.example", "h.example"},
		{"ΣΑΣ.example", "σασ.example"},
		{"a\u00adb.example", "ab.example"},
		// Transitional processing: deviation characters are mapped...
		{"straße.de", "strasse.de"},
		{"STRAẞE.de", "strasse.de"},
		{"strasse.de", "strasse.de"},
		{"ς.example", "σ.example"},
		{"a\u200db.example", "ab.example"},
		// ... and a punycode label holding one is another name: it stays.
		{"xn--strae-oqa.de", "xn--strae-oqa.de"},
		{"XN--STRAE-OQA.de.", "xn--strae-oqa.de"},
		// White space is kept (and mapped to a space), never trimmed.
		{" a.example", " a.example"},
		{"a.example ", "a.example "},
		{"a b.example", "a b.example"},
		{"a\u00a0b.example", "a b.example"},
		// Names IDNA rejects: the partly processed result, as external-dns.
		{"AB--CD.München.de", "ab--cd.münchen.de"},
		{"-A.example", "-a.example"},
		{"Ü--x.example", "ü--x.example"},
		{"xn--.example", ".example"},
		{"xn--abc-.example", "abc.example"},
		{"ｘｎ--abc-.example", "abc.example"},
		{"xn--ab_c.example", "xn--ab_c.example"},
		{"XN--!!!.example", "xn--!!!.example"},
		{"xn--99999999999.example", "xn--99999999999.example"},
		{"xn---r28h.example", "xn---r28h.example"},
		{"not-xn--bcher-kva.example", "not-xn--bcher-kva.example"},
		// Invalid UTF-8 is read as U+FFFD.
		{"a\xffb.example", "a\uFFFDb.example"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := endpoint.ToUnicode(tt.in)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, got, endpoint.ToUnicode(got), "idempotent")
		})
	}
}

func TestToALabel(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{".", ""},
		{"example.com", "example.com"},
		{"example.com.", "example.com"},
		{"example.com..", "example.com."},
		{"Example.COM.", "example.com"},
		{"*.Example.com", "*.example.com"},
		{"_sip._TCP.example.com", "_sip._tcp.example.com"},
		{"München.Example.COM.", "xn--mnchen-3ya.example.com"},
		{"xn--mnchen-3ya.example.com", "xn--mnchen-3ya.example.com"},
		{"XN--MNCHEN-3YA.example.com.", "xn--mnchen-3ya.example.com"},
		{"FoOoo.Api.Stonks📈.Org", "foooo.api.xn--stonks-u354e.org"},
		{"ＡＰＰ．Ｅｘａｍｐｌｅ", "app.example"},
		{"ＢÜＣＨＥＲ.example", "xn--bcher-kva.example"},
		{"bücher。example", "xn--bcher-kva.example"},
		{"a。b．c｡d。", "a.b.c.d"},
		{"İ.example", "xn--i-9bb.example"},
		{"ǅ.example", "xn--d-toa.example"},
		{"straße.de", "strasse.de"},
		{"xn--strae-oqa.de", "xn--strae-oqa.de"},
		{"a b.Example", "a b.example"},
		// Labels IDNA rejects are kept as given, ASCII lower-cased;
		// the others are still converted.
		{"AB--CD.example", "ab--cd.example"},
		{"AB--CD.München.de", "ab--cd.xn--mnchen-3ya.de"},
		{"-A.example", "-a.example"},
		{"xn--abc-.example", "xn--abc-.example"},
		{"XN--ABC-.Example", "xn--abc-.example"},
		{"xn--.example", ".example"},
		{"xn--99999999999.example", "xn--99999999999.example"},
		{"Ü--X.example", "Ü--x.example"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := endpoint.ToALabel(tt.in)
			assert.Equal(t, tt.want, got)
			if !strings.HasSuffix(got, ".") { // exactly one trailing dot is removed per call
				assert.Equal(t, got, endpoint.ToALabel(got), "idempotent")
			}
			assert.Equal(t, endpoint.ToUnicode(tt.in), endpoint.ToUnicode(got),
				"ToUnicode(ToALabel(x)) == ToUnicode(x)")
		})
	}
}

func TestRegression_ToALabelStripsTrailingDot(t *testing.T) {
	assert.Equal(t, "a-b.example.com", endpoint.ToALabel("a-b.example.com."))
	assert.Equal(t, "a-b.example.com", endpoint.ToUnicode("a-b.example.com."))
	require.NoError(t, endpoint.ValidateDNSName("a-b.example.com."), "Validate keeps accepting one trailing dot")
}

func TestRegression_IdeographicFullStop(t *testing.T) {
	for _, in := range []string{"www。example。com", "www．example．com", "www｡example｡com", "www.example.com。"} {
		assert.Equal(t, "www.example.com", endpoint.ToUnicode(in), in)
		assert.Equal(t, "www.example.com", endpoint.ToALabel(in), in)
	}
}

func TestRegression_SharpSAndSSNormaliseTheSame(t *testing.T) {
	assert.Equal(t, endpoint.ToUnicode("strasse.example"), endpoint.ToUnicode("straße.example"))
	assert.Equal(t, endpoint.ToALabel("strasse.example"), endpoint.ToALabel("straße.example"))
	// The IDNA2008 A-label of "straße" is a different DNS name.
	assert.NotEqual(t, endpoint.ToUnicode("strasse.example"), endpoint.ToUnicode("xn--strae-oqa.example"))
}

func TestRegression_DottedCapitalIAndDigraph(t *testing.T) {
	assert.Equal(t, "i\u0307", endpoint.ToUnicode("İ"))
	assert.Equal(t, "i\u0307", endpoint.ToUnicode("xn--i-9bb"))
	assert.Equal(t, "xn--i-9bb", endpoint.ToALabel("İ"))
	assert.Equal(t, "dž", endpoint.ToUnicode("ǅ"))
	assert.Equal(t, "dž", endpoint.ToUnicode("Ǆ"))
	assert.Equal(t, "xn--d-toa", endpoint.ToALabel("ǅ"))
}

// TestRegression_ASCIIOnlyPunycodeLabel pins the external-dns fallback: IDNA
// rejects a punycode label that decodes to plain ASCII, and the partly
// processed name (the decoded text) is what names are compared in, while the
// canonical form never rewrites the label.
func TestRegression_ASCIIOnlyPunycodeLabel(t *testing.T) {
	assert.Equal(t, "abc.example", endpoint.ToUnicode("xn--abc-.example"))
	assert.Equal(t, "xn--abc-.example", endpoint.ToALabel("xn--abc-.example"))
}

// TestRegression_NestedASCIIOnlyPunycodeLabel: the partly processed result
// of an ASCII-only punycode label can be another one ("xn--xn--0--" gives
// "xn--0-", which gives "0"); normalising must still be idempotent (found by
// FuzzToUnicode).
func TestRegression_NestedASCIIOnlyPunycodeLabel(t *testing.T) {
	for in, want := range map[string]string{
		"Xn--Xn--0--":                "0",
		"xn--xn--xn--abc---.example": "abc.example",
		"xn--xn--\u212a-.example":    "xn--k.example",
	} {
		got := endpoint.ToUnicode(in)
		assert.Equal(t, want, got, in)
		assert.Equal(t, got, endpoint.ToUnicode(got), in)
	}
}

// TestASCIIFastPath: plain lower-case ASCII names come back as the same
// string, and ASCII names with at most a trailing dot do not allocate.
func TestASCIIFastPath(t *testing.T) {
	for _, fn := range []struct {
		name string
		f    func(string) string
	}{
		{"ToUnicode", endpoint.ToUnicode},
		{"ToALabel", endpoint.ToALabel},
	} {
		t.Run(fn.name, func(t *testing.T) {
			name := "www.app.example.com"
			got := fn.f(name)
			require.Equal(t, name, got)
			assert.Equal(t, unsafeStringData(name), unsafeStringData(got), "returns the same string")
			for _, in := range []string{"www.app.example.com", "www.app.example.com.", "*.example.com", "_acme-challenge.example.com", "ab--cd.example", ""} {
				allocs := testing.AllocsPerRun(100, func() { _ = fn.f(in) })
				assert.Zero(t, allocs, "%s(%q) allocates", fn.name, in)
			}
		})
	}
}

func TestValidateDNSName(t *testing.T) {
	long := strings.Repeat("a", 63)
	tests := []struct {
		name    string
		in      string
		wantErr string
	}{
		{"simple", "example.com", ""},
		{"trailing dot", "example.com.", ""},
		{"single label", "localhost", ""},
		{"wildcard", "*.example.com", ""},
		{"underscore", "_sip._tcp.example.com", ""},
		{"63 octet label", long + ".example.com", ""},
		{"253 octets", strings.Repeat(strings.Repeat("a", 49)+".", 5) + "abc", ""},
		{"empty", "", `DNS name "" is empty`},
		{"root only", ".", `DNS name "." is empty`},
		{"empty label", "a..example.com", `DNS name "a..example.com" has an empty label`},
		{"leading dot", ".example.com", `has an empty label`},
		{"two trailing dots", "example.com..", `has an empty label`},
		{"leading space", " example.com", `DNS name " example.com" contains white space (U+0020 at offset 0)`},
		{"trailing space", "example.com ", `DNS name "example.com " contains white space (U+0020 at offset 11)`},
		{"space inside", "www .example.com", `contains white space (U+0020 at offset 3)`},
		{"tab", "www.example.com\t", `contains white space (U+0009`},
		{"newline before dot", "example.com\n.", `contains white space (U+000A`},
		{"no-break space", "a\u00a0b.example", `contains white space (U+00A0`},
		{"ideographic space", "a\u3000b.example", `contains white space (U+3000`},
		{"64 octet label", long + "a.example.com", `has label "` + long + `a" of 64 octets (at most 63 allowed)`},
		{"254 octets", strings.Repeat(strings.Repeat("a", 49)+".", 5) + "abcd", `is 254 octets long (at most 253 allowed)`},
		{"upper case", "WWW.Example.COM", ""},
		{"digits and hyphens", "0-9.a-b--c.example", ""},
		{"single wildcard label", "*", ""},
		{"wildcard with trailing dot", "*.example.com.", ""},
		{"valid A-label", "xn--bcher-kva.example", ""},
		{"valid A-label, upper case", "XN--BCHER-KVA.example", ""},
		{"IDN", "bücher.example", ""},
		{"IDN wildcard", "*.Bücher.example", ""},
		{"IDN with ideographic full stops", "www。bücher。example", ""},
		{"full-width letters", "ａｐｐ.example", ""},
		// Issue 21, finding 2: characters with a meaning in zone-file
		// notation or to providers.
		{"zone-file escape", `\102oo.example.org`, `DNS name "\\102oo.example.org" contains '\\' (U+005C at offset 0) in label "\\102oo"`},
		{"escaped dot", `a\.b.example.org`, `contains '\\' (U+005C at offset 1) in label "a\\"`},
		{"NUL", "foo\x00.example.org", `DNS name "foo\x00.example.org" contains '\x00' (U+0000 at offset 3) in label "foo\x00"`},
		{"double quote", `"foo".example.org`, `contains '"' (U+0022 at offset 0) in label "\"foo\""`},
		{"slash", "a/b.example.org", `contains '/' (U+002F at offset 1) in label "a/b"`},
		{"at sign", "@.example.org", `contains '@' (U+0040 at offset 0)`},
		{"semicolon", "a;comment.example.org", `contains ';' (U+003B at offset 1)`},
		{"parenthesis", "a(.example.org", `contains '(' (U+0028 at offset 1)`},
		{"dollar", "$ORIGIN.example.org", `contains '$' (U+0024 at offset 0)`},
		{"colon", "a:b.example.org", `contains ':' (U+003A at offset 1)`},
		{"DEL", "a\x7f.example.org", `contains '\x7f' (U+007F at offset 1)`},
		{"control character", "a\x01.example.org", `contains '\x01' (U+0001 at offset 1)`},
		{"space in label", "f oo.example.org", `contains white space (U+0020 at offset 1) in label "f oo"`},
		{"asterisk inside a label", "a*.example.org", `contains '*' (U+002A at offset 1) in label "a*": "*" is allowed only as the whole leftmost label`},
		{"asterisk label not leftmost", "a.*.example.org", `contains '*' (U+002A at offset 2) in label "*"`},
		{"two asterisks", "**.example.org", `contains '*' (U+002A at offset 0) in label "**"`},
		{"invalid A-label", "xn--abc-.example.org", `has label "xn--abc-" that is not a valid A-label`},
		{"A-label that does not decode", "xn--99999999999.example", `not a valid A-label`},
		{"IDN with a backslash", `bü\cher.example`, `contains '\\' (U+005C at offset 3) in label "bü\\cher"`},
		{"IDN with a slash", "bü/cher.example", `contains '/' (U+002F at offset 3)`},
		{"full-width backslash maps to a backslash", "a\uff3cb.example", `DNS name "a＼b.example": A-label form: DNS name "a\\b.example" contains '\\' (U+005C at offset 1)`},
		{"full-width solidus maps to a slash", "a\uff0fb.example", `A-label form: DNS name "a/b.example" contains '/'`},
		{"rune IDNA refuses", "a\u2028b.example", `contains white space (U+2028 at offset 1)`},
		{"unassigned rune", "a\U000e0000.example", `A-label form: DNS name "a\U000e0000.example" contains '\U000e0000'`},
		{"zero width space, which IDNA removes", "a\u200bb.example", ""},
		{"invalid UTF-8", "a\xffb.example", `DNS name "a\xffb.example" is not valid UTF-8 (byte 0xff at offset 1) in label "a\xffb"`},
		{"A-label form too long", "aü" + strings.Repeat("a", 59) + ".example", `A-label form: DNS name "xn--a`},
		{"A-label form too long names the label", "aü" + strings.Repeat("a", 59) + ".example", `-fgg" of 68 octets (at most 63 allowed)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := endpoint.ValidateDNSName(tt.in)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func unsafeStringData(s string) *byte { return unsafe.StringData(s) }
