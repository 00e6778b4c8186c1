package webhook

import (
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The JSON field names of an endpoint, in the order of the struct (see
// docs/compatibility.md).
var endpointKeys = []string{"dnsName", "targets", "recordType", "setIdentifier", "recordTTL", "labels", "providerSpecific"}

// The JSON field names of a provider-specific property.
var propertyKeys = []string{"name", "value"}

// The JSON field names of a change set, as external-dns v0.17 and later
// write them (older versions capitalise them; the match ignores case).
var changesKeys = []string{"create", "updateOld", "updateNew", "delete"}

// matchKey returns the index of the field name a quoted object name
// matches, or -1. An exact match is tried first, then encoding/json's
// case folding.
func (d *decoder) matchKey(quoted jsontext.Value, names []string) int {
	raw := quoted[1 : len(quoted)-1]
	for i, n := range names {
		if string(raw) == n {
			return i
		}
	}
	key := d.unquote(quoted)
	for i, n := range names {
		if string(key) == n {
			return i
		}
	}
	for i, n := range names {
		if foldEqual(key, n) {
			return i
		}
	}
	return -1
}

// foldEqual reports whether key equals name (an ASCII field name) under the
// case folding encoding/json uses to match keys to fields: every rune of
// the key is mapped through ToLower then ToUpper, ASCII letters to upper
// case.
func foldEqual(key []byte, name string) bool {
	j := 0
	for i := 0; i < len(key); {
		c := key[i]
		var r rune
		if c < utf8.RuneSelf {
			r = rune(c)
			i++
		} else {
			var size int
			r, size = utf8.DecodeRune(key[i:])
			i += size
		}
		r = unicode.ToUpper(unicode.ToLower(r))
		if j >= len(name) || r >= utf8.RuneSelf {
			return false
		}
		n := name[j]
		if 'a' <= n && n <= 'z' {
			n -= 'a' - 'A'
		}
		if byte(r) != n {
			return false
		}
		j++
	}
	return j == len(name)
}
