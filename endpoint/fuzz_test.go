package endpoint_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/zonesync/zonesync/endpoint"
)

// FuzzParseLabels checks that ParseLabels never panics and that a text it
// accepts re-serialises to a text that parses to the same labels.
//
// Two documented properties of the format shape the comparison: the nonce
// label is never serialised, and, since every leading and trailing double
// quote of a text is stripped before parsing, a value ending in a double
// quote cannot be written as itself: Serialize leaves it out.
func FuzzParseLabels(f *testing.F) {
	for _, seed := range []string{
		`"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/web"`,
		`heritage=external-dns`,
		`heritage=external-dns,external-dns/ownedRecord=a.example.com,external-dns/owner=o`,
		`""heritage=external-dns,,x,external-dns/a=b=c""`,
		`heritage=other`,
		`heritage=external-dns,external-dnsfoo=1,external-dns/txt-encryption-nonce=abc`,
		`heritage=external-dns,external-dns/b=y"`,
		``,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		labels, err := endpoint.ParseLabels(text)
		if want, ok := referenceParseLabels(text); ok != (err == nil) || ok && !maps.Equal(want, maps.Collect(labels.All())) {
			t.Fatalf("ParseLabels(%q) = %v, %v; the external-dns parsing rules give %q, ours = %v", text, labels, err, want, ok)
		}
		checkSorted(t, labels)
		if err != nil {
			if labels.Len() != 0 {
				t.Fatalf("ParseLabels(%q) returned labels %v with error %v", text, labels, err)
			}
			if !errors.Is(err, endpoint.ErrInvalidHeritage) {
				t.Fatalf("ParseLabels(%q): error %v does not wrap ErrInvalidHeritage", text, err)
			}
			return
		}
		want := labels
		want.Delete(endpoint.TxtEncryptionNonceLabelKey)
		for k, v := range labels.All() {
			if strings.HasSuffix(v, `"`) {
				want.Delete(k)
			}
		}
		for _, quoted := range []bool{false, true} {
			serialised := labels.Serialize(quoted)
			again, err := endpoint.ParseLabels(serialised)
			if err != nil {
				t.Fatalf("ParseLabels(%q) (from %q): %v", serialised, text, err)
			}
			if !want.Equal(again) {
				t.Fatalf("round trip of %q via %q: got %v, want %v", text, serialised, again, want)
			}
			if s := again.Serialize(quoted); s != want.Serialize(quoted) {
				t.Fatalf("serialisation not stable: %q then %q", serialised, s)
			}
		}
	})
}

// referenceParseLabels restates the parsing rules of external-dns TXT values as
// plainly as possible: strip every leading and trailing double quote, split
// at ",", ignore tokens without "=", split the others at the first "=";
// heritage must be external-dns, keys starting with external-dns give labels
// without the "external-dns/" prefix; no heritage means not ours.
func referenceParseLabels(text string) (map[string]string, bool) {
	labels := map[string]string{}
	ours := false
	for _, token := range strings.Split(strings.Trim(text, `"`), ",") {
		i := strings.Index(token, "=")
		if i < 0 {
			continue
		}
		key, value := token[:i], token[i+1:]
		if key == "heritage" {
			if value != "external-dns" {
				return nil, false
			}
			ours = true
		} else if strings.HasPrefix(key, "external-dns") {
			labels[strings.TrimPrefix(key, "external-dns/")] = value
		}
	}
	if !ours {
		return nil, false
	}
	return labels, true
}

// FuzzParseLabelsEncrypted checks that parsing possibly encrypted texts with a
// fixed key never panics, and that a text that decrypts re-encrypts to the
// same plaintext under the recovered nonce.
func FuzzParseLabelsEncrypted(f *testing.F) {
	key := []byte(vectorKey)
	f.Add(vectorEncrypted)
	f.Add(`"` + vectorEncrypted + `"`)
	f.Add(vectorPlain)
	f.Add("")
	f.Add("AAAAAAAAAAAAAAAA")
	f.Add("not base64 at all")
	f.Fuzz(func(t *testing.T, text string) {
		labels, err := endpoint.ParseLabelsWithKey(text, key)
		if err != nil {
			return
		}
		if _, ok := labels.Get(endpoint.TxtEncryptionNonceLabelKey); !ok {
			return // parsed as plain text
		}
		out, err := labels.SerializeEncrypted(key, false)
		if err != nil {
			t.Fatalf("SerializeEncrypted after parsing %q: %v", text, err)
		}
		back, err := endpoint.ParseLabelsWithKey(out, key)
		if err != nil {
			t.Fatalf("ParseLabelsWithKey(%q): %v", out, err)
		}
		before, _ := labels.Get(endpoint.TxtEncryptionNonceLabelKey)
		after, _ := back.Get(endpoint.TxtEncryptionNonceLabelKey)
		if after != before {
			t.Fatalf("nonce changed: %q, then %q", before, after)
		}
	})
}

// FuzzDomainFilterMatch checks that matching never panics and that a filter
// decoded from its own JSON form matches exactly the same names. The pattern
// list is given as one string of entries separated by newlines; the first
// two entries are also tried as regular expressions.
func FuzzDomainFilterMatch(f *testing.F) {
	f.Add("example.com", "www.example.com")
	f.Add("example.com\n\napi.example.com", "v1.api.example.com.")
	f.Add(".example.com", "example.com")
	f.Add("Example.COM.", "WWW.Example.Com")
	f.Add("API.xn--StonkS-u354e.ORG", "FoOoo.Api.Stonks📈.Org")
	f.Add(`\.prod\.example\.com$`+"\n^temp-", "temp-api.prod.example.com")
	f.Add("😍\\.org$", "xn--r28h.org")
	f.Add(" a \t.", "a")
	f.Add("xn--abc-", "xn--abc-")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, patterns, name string) {
		entries := strings.Split(patterns, "\n")
		half := len(entries) / 2
		filters := []*endpoint.DomainFilter{
			endpoint.NewDomainFilter(entries),
			endpoint.NewDomainFilterWithExclusions(entries[:half], entries[half:]),
		}
		if include, err := regexp.Compile(entries[0]); err == nil {
			var exclude *regexp.Regexp
			if len(entries) > 1 {
				exclude, _ = regexp.Compile(entries[1])
			}
			filters = append(filters, endpoint.NewRegexDomainFilter(include, exclude))
		}
		for _, df := range filters {
			want := df.Match(name)
			_ = df.MatchParent(name)
			data, err := json.Marshal(df)
			if err != nil {
				t.Fatalf("marshal %v: %v", df, err)
			}
			var back endpoint.DomainFilter
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatalf("unmarshal %s: %v", data, err)
			}
			if got := back.Match(name); got != want {
				t.Fatalf("Match(%q): %v before and %v after the JSON round trip %s", name, want, got, data)
			}
			again, err := json.Marshal(&back)
			if err != nil {
				t.Fatalf("marshal again: %v", err)
			}
			if string(again) != string(data) {
				t.Fatalf("JSON not stable: %s then %s", data, again)
			}
			if all := (endpoint.MatchAllDomainFilters{df, nil}).Match(name); all != want {
				t.Fatalf("MatchAllDomainFilters{df}.Match(%q) = %v, df.Match = %v", name, all, want)
			}
		}
	})
}

// FuzzEndpointJSON decodes arbitrary bytes as an endpoint; whatever decodes
// must encode, and the encoding must be stable under another decode/encode.
func FuzzEndpointJSON(f *testing.F) {
	f.Add([]byte(fullEndpointJSON))
	f.Add([]byte(`{"dnsName":"foo"}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"DNSName":"foo","TARGETS":["x"],"labels":null,"providerSpecific":[{"name":"record-type"}]}`))
	f.Add([]byte(`{"targets":["\u003c\u2028\ud800"],"labels":{"a":"b","a":"c"}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var ep endpoint.Endpoint
		if err := json.Unmarshal(data, &ep); err != nil {
			return
		}
		first, err := json.Marshal(&ep)
		if err != nil {
			t.Fatalf("marshal %+v: %v", ep, err)
		}
		var back endpoint.Endpoint
		if err := json.Unmarshal(first, &back); err != nil {
			t.Fatalf("unmarshal own output %s: %v", first, err)
		}
		second, err := json.Marshal(&back)
		if err != nil {
			t.Fatalf("marshal again: %v", err)
		}
		if string(first) != string(second) {
			t.Fatalf("encoding not stable:\n%s\n%s", first, second)
		}
		if !ep.Equal(&back) {
			t.Fatalf("decoded endpoint differs after a round trip: %v vs %v", &ep, &back)
		}
		if !ep.Equal(ep.DeepCopy()) {
			t.Fatalf("DeepCopy not Equal: %v", &ep)
		}
		_ = ep.Validate()
		_ = ep.String()
	})
}

// FuzzValidateTargetTLSA checks ValidateTarget for TLSA against a plain
// restatement of the rules external-dns applies (join the data fields, drop
// ":" separators, decode as hex, check the ranges and digest lengths).
func FuzzValidateTargetTLSA(f *testing.F) {
	for _, seed := range []string{
		"3 1 1 " + sha256Hex, "2 0 2 " + sha512Hex, "3 1 0 deadbeef", "3 1 0 DE AD:BE ef",
		"3 1 1", "4 1 1 00", "3 1 0 abc", "3 1 0 :", "003 1 0 00", "3 1 0 0x00", "3\u00a01 0 00",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, target string) {
		got := endpoint.ValidateTarget(endpoint.RecordTypeTLSA, target) == nil
		if want := referenceTLSAValid(target); got != want {
			t.Fatalf("ValidateTarget(TLSA, %q) valid = %v, want %v", target, got, want)
		}
	})
}

func referenceTLSAValid(target string) bool {
	fields := strings.Fields(target)
	if len(fields) < 4 {
		return false
	}
	var mt uint64
	for i, limit := range []uint64{3, 1, 2} {
		v, err := strconv.ParseUint(fields[i], 10, 8)
		if err != nil || v > limit {
			return false
		}
		mt = v
	}
	data := strings.ReplaceAll(strings.Join(fields[3:], ""), ":", "")
	if _, err := hex.DecodeString(data); err != nil || data == "" {
		return false
	}
	return mt == 0 || mt == 1 && len(data) == 64 || mt == 2 && len(data) == 128
}

// nameSeeds are the seeds of the name fuzz targets: punycode, UTS #46
// mapping (full width, other full stops, İ, ǅ, ß, ς, joiners), white space,
// names IDNA rejects and invalid UTF-8.
var nameSeeds = []string{
	"example.com", "Example.COM.", "xn--bcher-kva.example", "xn--r28h.org",
	"API.xn--StonkS-u354e.ORG", "xn--xn--abc-.example", "xn--", "a..", ".", "",
	"\u212a.example", "a\xffb", "xn--99999999999",
	"ＡＰＰ", "ａｐｐ．ｅｘａｍｐｌｅ", "www。example。com", "a．b｡c。", "İ.example", "ǅ.example",
	"straße.de", "STRAẞE.de", "xn--strae-oqa.de", "ς.example", "a\u200db.example",
	" a.example", "a.example ", "a b.example", "a\u00a0b", "a\u3000b", "a.example\t.",
	"München.Example.COM.", "xn--mnchen-3ya.example.com", "a-b.example.com.",
	"AB--CD.München.de", "Ü--x.example", "xn--abc-.example", "ｘｎ--abc-.example", "-a.example",
	"*._tcp.Example.com", "ꮪꮲ.example",
	// Issue 21, finding 2: zone-file escapes and other characters that
	// must never reach a provider.
	`\102oo.example.org`, `a\.b.example.org`, "foo\x00.example.org", `"foo".example.org`,
	"a/b.example.org", "f oo.example.org", "a*.example.org", "a.*.example.org", "bü\\cher.example",
	"a\uff3cb.example", "a\u200bb.example", "@.example.org", "a;b.example.org",
}

// FuzzToUnicode checks that normalisation never panics, is
// idempotent, and leaves canonical ASCII names alone.
func FuzzToUnicode(f *testing.F) {
	for _, seed := range nameSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		once := endpoint.ToUnicode(name)
		twice := endpoint.ToUnicode(once)
		if once != twice {
			t.Fatalf("not idempotent: %q -> %q -> %q", name, once, twice)
		}
		if strings.HasSuffix(once, ".") {
			t.Fatalf("ToUnicode(%q) = %q ends with a dot", name, once)
		}
		if strings.ContainsFunc(once, func(r rune) bool { return r >= 'A' && r <= 'Z' }) {
			t.Fatalf("ToUnicode(%q) = %q has upper-case ASCII", name, once)
		}
		if plainLowerASCII(name) && !strings.HasSuffix(name, ".") && once != name {
			t.Fatalf("ToUnicode(%q) = %q changed a plain lower-case ASCII name", name, once)
		}
		_ = endpoint.ValidateDNSName(name)
	})
}

// fuzzProfile is the profile documented for ToUnicode and
// ToALabel; the fuzz targets use it to tell names IDNA accepts.
var fuzzProfile = idna.New(idna.MapForLookup(), idna.Transitional(true), idna.StrictDomainName(false))

// FuzzToALabel checks that the canonical form never panics, is ASCII
// for names IDNA accepts, and agrees with ToUnicode both ways:
// normalising the canonical form gives the normalised name, and
// canonicalising the normalised name gives the canonical form, so that two
// valid names compare equal exactly when their canonical forms are equal.
func FuzzToALabel(f *testing.F) {
	for _, seed := range nameSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		canonical := endpoint.ToALabel(name)
		normalized := endpoint.ToUnicode(name)
		if plainLowerASCII(name) && !strings.HasSuffix(name, ".") && canonical != name {
			t.Fatalf("ToALabel(%q) = %q changed a plain lower-case ASCII name", name, canonical)
		}
		if _, err := fuzzProfile.ToASCII(name); err != nil || !utf8.ValidString(name) {
			return // not a name IDNA accepts (x/net reads invalid UTF-8 as U+FFFD without error)
		}
		for i := 0; i < len(canonical); i++ {
			if c := canonical[i]; c >= utf8.RuneSelf || c >= 'A' && c <= 'Z' {
				t.Fatalf("ToALabel(%q) = %q is not lower-case ASCII", name, canonical)
			}
		}
		if got := endpoint.ToUnicode(canonical); got != normalized {
			t.Fatalf("ToUnicode(ToALabel(%q)) = ToUnicode(%q) = %q, want ToUnicode(%q) = %q",
				name, canonical, got, name, normalized)
		}
		if strings.HasSuffix(canonical, ".") {
			return // more than one trailing dot: only one is removed
		}
		if got := endpoint.ToALabel(normalized); got != canonical {
			t.Fatalf("ToALabel(ToUnicode(%q)) = ToALabel(%q) = %q, want ToALabel(%q) = %q",
				name, normalized, got, name, canonical)
		}
	})
}

// plainLowerASCII reports whether name is lower-case ASCII without a label
// starting with "xn--": the names both functions return unchanged.
func plainLowerASCII(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= utf8.RuneSelf || c >= 'A' && c <= 'Z' {
			return false
		}
	}
	for label := range strings.SplitSeq(name, ".") {
		if strings.HasPrefix(label, "xn--") {
			return false
		}
	}
	return true
}

// FuzzLabelsSerialize checks the defence against label injection: whatever
// two labels hold, the text Serialize writes (plain and encrypted) parses
// back to a subset of them, each with its own value, and to all of them when
// ValidateLabels accepts them. No key or value can add or change a label.
func FuzzLabelsSerialize(f *testing.F) {
	key := []byte(vectorKey)
	f.Add("owner", "me", "zz", "x,external-dns/owner=victim")
	f.Add("owner", "me", "zz=x,external-dns/owner", "victim")
	f.Add("owner", "me", "zz", `x",external-dns/owner=victim"`)
	f.Add("owner", "me", "zz", `x\054external-dns/owner\075victim`)
	f.Add("owner", "me", "zz", "x\x00y")
	f.Add("owner", "me", "", "x")
	f.Add("owner", "me", "resource", "crd/default/x")
	f.Add("owner", "", "heritage", "other")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		labels := endpoint.LabelsFromMap(map[string]string{k1: v1, k2: v2})
		labels.Delete(endpoint.TxtEncryptionNonceLabelKey)
		valid := endpoint.ValidateLabels(labels) == nil
		check := func(text string, got endpoint.Labels) {
			for k, v := range got.All() {
				if want, ok := labels.Get(k); !ok || want != v {
					t.Fatalf("labels %q serialised as %q read back with %q=%q", labels, text, k, v)
				}
			}
			if valid && !labels.Equal(got) {
				t.Fatalf("valid labels %q serialised as %q read back as %q", labels, text, got)
			}
		}
		for _, quoted := range []bool{false, true} {
			text := labels.Serialize(quoted)
			got, err := endpoint.ParseLabels(text)
			if err != nil {
				t.Fatalf("ParseLabels(Serialize(%q)) = ParseLabels(%q): %v", labels, text, err)
			}
			check(text, got)
		}
		enc, err := labels.SerializeEncrypted(key, true)
		if err != nil {
			t.Fatalf("SerializeEncrypted(%q): %v", labels, err)
		}
		got, err := endpoint.ParseLabelsWithKey(enc, key)
		if err != nil {
			t.Fatalf("ParseLabelsWithKey(SerializeEncrypted(%q)): %v", labels, err)
		}
		got.Delete(endpoint.TxtEncryptionNonceLabelKey)
		check(enc, got)
	})
}

// FuzzValidateDNSName checks that a name ValidateDNSName accepts is written
// as the name zonesync compares: its canonical form holds only letters,
// digits, "-", "_", dots and a leading "*" label, is within the length
// limits, is accepted again, and normalises like the name itself. A name
// with a byte outside those (and outside UTF-8 letters) is refused.
func FuzzValidateDNSName(f *testing.F) {
	for _, seed := range nameSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := endpoint.ValidateDNSName(name)
		for i := 0; i < len(name); i++ {
			switch c := name[i]; {
			case c >= utf8.RuneSelf, c == '.', c == '-', c == '_', c == '*',
				'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			default:
				if err == nil {
					t.Fatalf("ValidateDNSName(%q) accepted %q at offset %d", name, c, i)
				}
				return
			}
		}
		if err != nil {
			return
		}
		canonical := endpoint.ToALabel(name)
		if len(canonical) == 0 || len(canonical) > 253 {
			t.Fatalf("ValidateDNSName(%q) accepted a name whose canonical form %q has %d octets", name, canonical, len(canonical))
		}
		for i, label := range strings.Split(canonical, ".") {
			if label == "" || len(label) > 63 {
				t.Fatalf("ValidateDNSName(%q) accepted a name whose canonical form %q has label %q", name, canonical, label)
			}
			if label == "*" && i == 0 {
				continue
			}
			for j := 0; j < len(label); j++ {
				switch c := label[j]; {
				case c == '-', c == '_', 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				default:
					t.Fatalf("ValidateDNSName(%q) accepted a name whose canonical form %q holds %q", name, canonical, c)
				}
			}
		}
		if err := endpoint.ValidateDNSName(canonical); err != nil {
			t.Fatalf("ValidateDNSName(%q) accepted, but not its canonical form: %v", name, err)
		}
		if got, want := endpoint.ToUnicode(canonical), endpoint.ToUnicode(name); got != want {
			t.Fatalf("ToUnicode(ToALabel(%q)) = %q, want ToUnicode(%q) = %q", name, got, name, want)
		}
		if got := endpoint.ToALabel(endpoint.ToUnicode(name)); got != canonical {
			t.Fatalf("ToALabel(ToUnicode(%q)) = %q, want %q", name, got, canonical)
		}
	})
}
