package rfc2136

import (
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

// checkName checks that name (without a trailing dot) is a name whose
// presentation form is its wire form: [endpoint.ValidateDNSName] (or, for
// the ownership TXT of a record, [endpoint.ValidateOwnershipTXTName], which
// lets a "*" stand inside a label: "a-*.example.org") admits only letters,
// digits, hyphens, underscores and dots, so no escape or zone-file syntax
// can pass; and it must be ASCII, since a Unicode name would reach the
// wire as raw UTF-8 rather than as its A-labels.
func checkName(name string, ownershipTXT bool) error {
	validate := endpoint.ValidateDNSName
	if ownershipTXT {
		validate = endpoint.ValidateOwnershipTXTName
	}
	if err := validate(name); err != nil {
		return err
	}
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			return fmt.Errorf("name %q is not in A-label form (IDN names are written as xn-- labels)", name)
		}
	}
	return nil
}

// ownerName returns the wire form of an endpoint name, fully qualified:
// canonical (lower-case A-labels, [endpoint.CanonicalName]) and checked
// by checkName; ownershipTXT is set for the ownership TXT of a record.
func ownerName(name string, ownershipTXT bool) (string, error) {
	c := endpoint.CanonicalName(name)
	if err := checkName(c, ownershipTXT); err != nil {
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
	if err := checkName(h, false); err != nil {
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
