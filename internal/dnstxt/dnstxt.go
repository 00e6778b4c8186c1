// Package dnstxt reads TXT data in the presentation form github.com/miekg/dns
// gives it: each character-string with '"' and '\' escaped by a backslash
// and other bytes outside printable ASCII written as \DDD (three decimal
// digits). It is the one place where provider/rfc2136 and verify turn that
// form back into the bytes a TXT record holds.
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
