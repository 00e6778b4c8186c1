// Package dnstxt maps TXT record data to endpoint targets and back, the one
// place where provider/rfc2136 and verify agree on it.
//
// The data of a TXT record is its character-strings joined (the bytes, not
// a presentation form). A target is written as data by [Data], data is read
// as a target by [Target], and [Canonical] is the target a target reads
// back as. Call a text clean when it holds no '"' and no '\'. Then:
//
//   - a target "X" (a double quote, clean X, a double quote) is written as
//     the data X, exactly the bytes github.com/miekg/dns's zone-file parser
//     makes of the same text (the TXT registry's ownership values and
//     values such as "v=spf1 -all" are written that way); every other
//     target is written as its exact bytes;
//   - data that is clean, or is "X" with X clean, reads as X, except when X
//     is an external-dns ownership text (a comma-separated token
//     heritage=external-dns and no heritage token of another value): then
//     it reads as "X", the form the TXT registry writes; every other data
//     reads as its exact bytes.
//
// So the data "X" (quotes as data, written by zonesync before it followed
// external-dns) and the data X read as the same target, and a target reads
// back as itself when it is canonical: a clean text that is not an
// ownership text, a quoted clean ownership text, or any text that is
// neither clean nor a quoted clean text.
//
// [Unescape] turns github.com/miekg/dns's presentation form of
// character-strings (a backslash before '"' and '\', \DDD for other bytes)
// back into the bytes.
package dnstxt

import "strings"

// Unescape returns the bytes of the character-strings parts, unescaped and
// concatenated: "\DDD" gives the byte with decimal value DDD, a backslash
// before any other byte gives that byte, and a backslash at the end of a
// string is kept. A value without a backslash is returned without copying
// when it is a single string.
func Unescape(parts ...string) string {
	if len(parts) == 1 && strings.IndexByte(parts[0], '\\') < 0 {
		return parts[0]
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			c := p[i]
			if c != '\\' || i+1 == len(p) {
				b.WriteByte(c)
				continue
			}
			if i+3 < len(p) && isDigit(p[i+1]) && isDigit(p[i+2]) && isDigit(p[i+3]) {
				b.WriteByte((p[i+1]-'0')*100 + (p[i+2]-'0')*10 + (p[i+3] - '0'))
				i += 3
				continue
			}
			b.WriteByte(p[i+1])
			i++
		}
	}
	return b.String()
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Target returns the target of a TXT record whose character-strings, in
// github.com/miekg/dns's presentation form, are parts: the data (parts
// unescaped and joined) read as described in the package documentation.
func Target(parts ...string) string { return FromData(Unescape(parts...)) }

// FromData returns the target of the TXT data v (the bytes of its
// character-strings joined).
func FromData(v string) string {
	x, ok := inner(v)
	if !ok {
		x = v
		if !clean(x) {
			return v
		}
	}
	if !IsOwnership(x) {
		return x
	}
	if ok {
		return v
	}
	return `"` + x + `"`
}

// Data returns the TXT data written for target: the inside of a quoted
// clean text, else the target's exact bytes.
func Data(target string) string {
	if x, ok := inner(target); ok {
		return x
	}
	return target
}

// Canonical returns the target that target reads back as once written:
// FromData(Data(target)).
func Canonical(target string) string { return FromData(Data(target)) }

// Forms returns every TXT data that reads as Canonical(target) and that a
// zonesync release writes for it, the current form ([Data]) first: X and
// "X" for a clean or quoted clean text X, else the target's bytes alone.
func Forms(target string) []string {
	if x, ok := inner(target); ok {
		return []string{x, target}
	}
	if clean(target) {
		return []string{target, `"` + target + `"`}
	}
	return []string{target}
}

// IsOwnership reports whether the clean text x is an external-dns
// ownership text, as endpoint.ParseLabels accepts it: among its
// comma-separated tokens, one is heritage=external-dns and no other
// heritage token has another value.
func IsOwnership(x string) bool {
	saw := false
	for {
		token, rest, more := strings.Cut(x, ",")
		if key, value, ok := strings.Cut(token, "="); ok && key == "heritage" {
			if value != "external-dns" {
				return false
			}
			saw = true
		}
		if !more {
			break
		}
		x = rest
	}
	return saw
}

// inner returns X when s is "X" with X clean.
func inner(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	x := s[1 : len(s)-1]
	return x, clean(x)
}

func clean(s string) bool { return strings.IndexByte(s, '"') < 0 && strings.IndexByte(s, '\\') < 0 }
