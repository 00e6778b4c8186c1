package rfc2136

import (
	"errors"
	"fmt"
	"strings"

	"github.com/miekg/dns"

	"github.com/zonesync/zonesync/endpoint"
)

// Names on the wire.
//
// miekg/dns keeps domain names in presentation (zone-file) form: "\102oo"
// packs as "foo", "a\.b" as one label holding a dot. A name taken from
// outside input and handed to miekg/dns as is could therefore reach the
// server as another name than the one the planner and the registry saw. So
// every name the provider writes is built from labels that may hold only
// letters, digits, hyphens and underscores (a first label may be "*"), in
// which presentation and wire form are the same text; anything else is
// refused. Names read from the server whose presentation form has an
// escape cannot be represented that way and are skipped (see Records).

// maxWireName is the longest name in presentation form without the
// trailing dot (RFC 1035 §2.3.4: 255 octets on the wire).
const maxWireName = 253

// checkLabels checks that name (without a trailing dot) is made of labels
// of letters, digits, hyphens and underscores, with an optional leading
// "*" label.
func checkLabels(name string) error {
	if name == "" {
		return errors.New("the name is empty")
	}
	if len(name) > maxWireName {
		return fmt.Errorf("the name is %d octets long (at most %d allowed)", len(name), maxWireName)
	}
	start := 0
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] != '.' {
			continue
		}
		label := name[start:i]
		switch {
		case label == "":
			return errors.New("the name has an empty label")
		case len(label) > 63:
			return fmt.Errorf("label %q is %d octets long (at most 63 allowed)", label, len(label))
		case label == "*" && start == 0:
		default:
			for j := 0; j < len(label); j++ {
				if c := label[j]; !isLabelByte(c) {
					return fmt.Errorf("label %q holds %s; names may hold only letters, digits, hyphens, underscores, dots and a leading \"*\" label (A-labels for IDN)", label, byteName(c))
				}
			}
		}
		start = i + 1
	}
	return nil
}

func isLabelByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// byteName describes a byte for an error message.
func byteName(c byte) string {
	if c > ' ' && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("the byte 0x%02x", c)
}

// ownerName returns the wire form of an endpoint name, fully qualified:
// canonical (lower-case A-labels, [endpoint.CanonicalDNSName]) and checked
// by checkLabels.
func ownerName(name string) (string, error) {
	c := endpoint.CanonicalDNSName(name)
	if err := checkLabels(c); err != nil {
		return "", err
	}
	return c + ".", nil
}

// hostName returns the wire form of a host name in a target, fully
// qualified; its case is kept (servers keep it, and targets compare
// without case). root allows ".", the root name (an SRV target meaning
// "no service").
func hostName(host string, root bool) (string, error) {
	if host == "." && root {
		return host, nil
	}
	h := strings.TrimSuffix(host, ".")
	if err := checkLabels(h); err != nil {
		return "", fmt.Errorf("host %q: %w", host, err)
	}
	return h + ".", nil
}

// representable reports whether the owner name and every host name in the
// data of rr, as miekg/dns presents them, hold no escape: a name with one
// (a dot or a backslash inside a label, "\DDD" for a byte that is no
// printable ASCII) has no faithful form as an endpoint name or target.
func representable(rr dns.RR) bool {
	if strings.IndexByte(rr.Header().Name, '\\') >= 0 {
		return false
	}
	var host string
	switch r := rr.(type) {
	case *dns.CNAME:
		host = r.Target
	case *dns.NS:
		host = r.Ns
	case *dns.PTR:
		host = r.Ptr
	case *dns.MX:
		host = r.Mx
	case *dns.SRV:
		host = r.Target
	case *dns.NAPTR:
		host = r.Replacement
	}
	return strings.IndexByte(host, '\\') < 0
}
