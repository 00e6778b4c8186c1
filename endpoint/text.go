package endpoint

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Printable returns s as it may appear in error text and log lines: s
// itself when every character of it is printable ([unicode.IsPrint]; the
// ASCII space counts) and it is valid UTF-8, and otherwise s quoted as a Go
// string literal ([strconv.Quote]: "\n", "\x00" and invalid bytes escaped),
// so that a hostile name cannot start a new log line, hide text behind
// control characters or cut a message short. It does not allocate for
// printable text, which every valid record name is.
//
// [Key.String] and [Endpoint.String] apply it to names and set
// identifiers, so every error that names a record with them is safe;
// messages that quote a name with %q are safe already.
func Printable(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				return strconv.Quote(s)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
		i += size
	}
	return s
}
