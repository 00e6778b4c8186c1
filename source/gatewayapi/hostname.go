package gatewayapi

import (
	"net/netip"
	"strings"
)

// matchHost intersects a listener hostname with a route hostname, as
// external-dns does: an empty name matches anything, "*.example.com"
// matches every name below example.com (at any depth) but not example.com
// itself, and of two overlapping names the more specific one is returned.
// Names that are IP addresses or not valid DNS names (after a leading
// "*.") match nothing. The result is in lower case.
func matchHost(listenerHost, routeHost string) (string, bool) {
	a, ok := canonicalHost(listenerHost)
	if !ok {
		return "", false
	}
	b, ok := canonicalHost(routeHost)
	if !ok {
		return "", false
	}
	switch {
	case a == "":
		return b, true
	case b == "" || a == b:
		return a, true
	}
	// Let a be the shorter (less specific) one; of two equally long
	// names the wildcard.
	if len(b) < len(a) || (len(a) == len(b) && strings.HasPrefix(b, "*.")) {
		a, b = b, a
	}
	if strings.HasPrefix(a, "*.") && strings.HasSuffix(b, a[1:]) {
		return b, true
	}
	return "", false
}

// canonicalHost lower-cases h and reports whether it can be matched.
func canonicalHost(h string) (string, bool) {
	if h == "" {
		return "", true
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return "", false
	}
	if !isDNSName(strings.TrimPrefix(h, "*.")) {
		return "", false
	}
	return strings.ToLower(h), true
}

// isDNSName reports whether s is at most 255 bytes of dot-separated RFC
// 1123 labels (1 to 63 letters, digits and inner hyphens; either case),
// optionally followed by one dot: the rule external-dns applies to
// Gateway API names.
func isDNSName(s string) bool {
	if len(s) == 0 || len(s) > 255 {
		return false
	}
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		n := len(label)
		if n == 0 || n > 63 || label[0] == '-' || label[n-1] == '-' {
			return false
		}
		for i := 0; i < n; i++ {
			c := label[i]
			if c != '-' && (c < '0' || c > '9') && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
				return false
			}
		}
	}
	return true
}

// protocolMatches reports whether a route of protocol r can attach to a
// listener of protocol l: HTTPS counts as HTTP, and a TCP route may attach
// to a TLS listener.
func protocolMatches(r, l string) bool {
	if r == "HTTPS" {
		r = "HTTP"
	}
	if l == "HTTPS" {
		l = "HTTP"
	}
	if r == "TCP" && l == "TLS" {
		l = "TCP"
	}
	return r == l
}
