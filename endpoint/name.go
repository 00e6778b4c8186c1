package endpoint

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxLabelLength is the longest a single DNS label may be, in octets.
const maxLabelLength = 63

// maxNameLength is the longest a DNS name may be in text form without the
// trailing dot: 255 octets in wire form less the length octets.
const maxNameLength = 253

// NormalizeDNSName returns the form in which DNS names are compared: the
// trailing dot removed, lower-case, and labels in punycode ("xn--…") decoded
// to Unicode. A name that is already plain lower-case ASCII without a trailing
// dot is returned as it is, without allocating.
//
// The mapping covers what DNS names meet in practice (ASCII and Unicode case,
// punycode); it is not a full UTS #46 implementation (no width or
// compatibility mapping, no normalisation form C). A label that is not valid
// punycode, or whose decoded form would be plain ASCII, is kept as lower-case
// ASCII. Invalid UTF-8 is replaced by U+FFFD.
//
// The result is a fixed point: NormalizeDNSName(NormalizeDNSName(x)) equals
// NormalizeDNSName(x). For that reason every trailing dot is removed, not just
// one ("a.b.." gives "a.b"); external-dns removes one, which differs only for
// names that end in an empty label and are invalid anyway.
func NormalizeDNSName(name string) string {
	name = strings.TrimRight(name, ".")
	if isCanonicalASCII(name) {
		return name
	}
	labels := strings.Split(name, ".")
	for i, l := range labels {
		l = strings.ToLower(l)
		if strings.HasPrefix(l, "xn--") {
			// Accept the decoded label only when it holds a non-ASCII
			// character: an all-ASCII result is not a valid A-label and
			// could itself start with "xn--", so decoding it again would
			// change it again.
			if u, err := decodePunycode(l[4:]); err == nil {
				if u = strings.ToLower(u); !isASCII(u) {
					l = u
				}
			}
		}
		labels[i] = l
	}
	return strings.Join(labels, ".")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isCanonicalASCII reports whether name is lower-case ASCII with no label
// starting with "xn--".
func isCanonicalASCII(name string) bool {
	labelStart := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 0x80 || (c >= 'A' && c <= 'Z') {
			return false
		}
		if labelStart && c == 'x' && strings.HasPrefix(name[i:], "xn--") {
			return false
		}
		labelStart = c == '.'
	}
	return true
}

// ValidateDNSName checks that name is usable as a record name: not empty, at
// most 253 octets, no empty labels (other than one trailing dot) and no label
// longer than 63 octets. The error names the offending name and label.
func ValidateDNSName(name string) error {
	trimmed := strings.TrimSuffix(name, ".")
	if trimmed == "" {
		return fmt.Errorf("DNS name %q is empty", name)
	}
	if len(trimmed) > maxNameLength {
		return fmt.Errorf("DNS name %q is %d octets long (at most %d allowed)", name, len(trimmed), maxNameLength)
	}
	start := 0
	for i := 0; i <= len(trimmed); i++ {
		if i < len(trimmed) && trimmed[i] != '.' {
			continue
		}
		label := trimmed[start:i]
		if label == "" {
			return fmt.Errorf("DNS name %q has an empty label", name)
		}
		if len(label) > maxLabelLength {
			return fmt.Errorf("DNS name %q has label %q of %d octets (at most %d allowed)",
				name, label, len(label), maxLabelLength)
		}
		start = i + 1
	}
	return nil
}

// Punycode parameters of RFC 3492.
const (
	pcBase        = 36
	pcTMin        = 1
	pcTMax        = 26
	pcSkew        = 38
	pcDamp        = 700
	pcInitialBias = 72
	pcInitialN    = 128
)

var errPunycode = errors.New("invalid punycode")

// decodePunycode decodes the part of a label after "xn--" (RFC 3492).
func decodePunycode(s string) (string, error) {
	var out []rune
	pos := 0
	if b := strings.LastIndexByte(s, '-'); b >= 0 {
		for i := 0; i < b; i++ {
			if s[i] >= 0x80 {
				return "", errPunycode
			}
			out = append(out, rune(s[i]))
		}
		pos = b + 1
	}
	n, i, bias := int32(pcInitialN), int32(0), int32(pcInitialBias)
	for pos < len(s) {
		oldi, w := i, int32(1)
		for k := int32(pcBase); ; k += pcBase {
			if pos >= len(s) {
				return "", errPunycode
			}
			digit, ok := punyDigit(s[pos])
			pos++
			if !ok {
				return "", errPunycode
			}
			if digit > (1<<31-1-i)/w {
				return "", errPunycode
			}
			i += digit * w
			t := k - bias
			if t < pcTMin {
				t = pcTMin
			} else if t > pcTMax {
				t = pcTMax
			}
			if digit < t {
				break
			}
			if w > (1<<31-1)/(pcBase-t) {
				return "", errPunycode
			}
			w *= pcBase - t
		}
		numPoints := int32(len(out) + 1)
		bias = punyAdapt(i-oldi, numPoints, oldi == 0)
		if i/numPoints > 1<<31-1-n {
			return "", errPunycode
		}
		n += i / numPoints
		i %= numPoints
		if n > utf8.MaxRune || (n >= 0xD800 && n <= 0xDFFF) {
			return "", errPunycode
		}
		out = append(out, 0)
		copy(out[i+1:], out[i:])
		out[i] = n
		i++
	}
	if len(out) == 0 {
		return "", errPunycode
	}
	return string(out), nil
}

func punyDigit(c byte) (int32, bool) {
	switch {
	case c >= '0' && c <= '9':
		return int32(c-'0') + 26, true
	case c >= 'a' && c <= 'z':
		return int32(c - 'a'), true
	case c >= 'A' && c <= 'Z':
		return int32(c - 'A'), true
	}
	return 0, false
}

func punyAdapt(delta, numPoints int32, first bool) int32 {
	if first {
		delta /= pcDamp
	} else {
		delta /= 2
	}
	delta += delta / numPoints
	k := int32(0)
	for delta > ((pcBase-pcTMin)*pcTMax)/2 {
		delta /= pcBase - pcTMin
		k += pcBase
	}
	return k + (pcBase-pcTMin+1)*delta/(delta+pcSkew)
}
