package rfc2136

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/miekg/dns"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/dnstxt"
)

// maxCharString is the longest DNS character-string (RFC 1035 §3.3).
const maxCharString = 255

// rrType returns the DNS type of a record type the provider reads and
// writes.
func rrType(recordType string) (uint16, bool) {
	switch recordType {
	case endpoint.RecordTypeA:
		return dns.TypeA, true
	case endpoint.RecordTypeAAAA:
		return dns.TypeAAAA, true
	case endpoint.RecordTypeCNAME:
		return dns.TypeCNAME, true
	case endpoint.RecordTypeTXT:
		return dns.TypeTXT, true
	case endpoint.RecordTypeMX:
		return dns.TypeMX, true
	case endpoint.RecordTypeSRV:
		return dns.TypeSRV, true
	case endpoint.RecordTypeNS:
		return dns.TypeNS, true
	case endpoint.RecordTypePTR:
		return dns.TypePTR, true
	case endpoint.RecordTypeNAPTR:
		return dns.TypeNAPTR, true
	}
	return 0, false
}

// toRRs converts an endpoint to one RR per target, with the given TTL. The
// name and every host name in a target are built from checked labels (see
// names.go), so that no escape or zone-file syntax can make the record
// land under another name or point elsewhere; other targets are validated
// first, so that none can smuggle syntax (comments, extra fields) into the
// record, and a target must read back as itself (up to case and IPv6
// spelling): "010 mx" would otherwise be rewritten by the server and
// updated by every cycle.
func toRRs(ep *endpoint.Endpoint, ttl uint32) ([]dns.RR, error) {
	t, ok := rrType(ep.RecordType)
	if !ok {
		return nil, fmt.Errorf("record type %q is not supported (supported: A, AAAA, CNAME, TXT, MX, SRV, NS, PTR, NAPTR)", ep.RecordType)
	}
	ownershipTXT := ep.RecordType == endpoint.RecordTypeTXT // TXT names follow endpoint.ValidateOwnershipTXTName
	name, err := ownerName(ep.DNSName, ownershipTXT)
	if err != nil {
		return nil, fmt.Errorf("field dnsName %q: %w", ep.DNSName, err)
	}
	if len(ep.Targets) == 0 {
		return nil, fmt.Errorf("no targets")
	}
	hdr := dns.RR_Header{Name: name, Rrtype: t, Class: dns.ClassINET, Ttl: ttl}
	out := make([]dns.RR, 0, len(ep.Targets))
	for _, target := range ep.Targets {
		if err := endpoint.ValidateTarget(ep.RecordType, target); err != nil {
			return nil, err
		}
		rr, err := targetRR(hdr, ep.RecordType, target)
		if err != nil {
			return nil, fmt.Errorf("%s target %q: %w", ep.RecordType, target, err)
		}
		if t != dns.TypeTXT {
			// A target that reads back differently would make every
			// plan update it again: refuse it, naming the form to use.
			if _, back, _ := fromRR(rr); !endpoint.Targets([]string{back}).Same(endpoint.Targets{target}) {
				return nil, fmt.Errorf("%s target %q would be read back as %q: write it in that form", ep.RecordType, target, back)
			}
		}
		out = append(out, rr)
	}
	return out, nil
}

// targetRR builds the RR of one validated target.
func targetRR(hdr dns.RR_Header, recordType, target string) (dns.RR, error) {
	switch hdr.Rrtype {
	case dns.TypeA, dns.TypeAAAA:
		a, err := netip.ParseAddr(target)
		if err != nil {
			return nil, err
		}
		if hdr.Rrtype == dns.TypeA {
			return &dns.A{Hdr: hdr, A: a.AsSlice()}, nil
		}
		return &dns.AAAA{Hdr: hdr, AAAA: a.AsSlice()}, nil
	case dns.TypeTXT:
		return txtRR(hdr, dnstxt.Data(target)), nil
	case dns.TypeCNAME, dns.TypeNS, dns.TypePTR:
		host, err := hostName(target, false)
		if err != nil {
			return nil, err
		}
		switch hdr.Rrtype {
		case dns.TypeCNAME:
			return &dns.CNAME{Hdr: hdr, Target: host}, nil
		case dns.TypeNS:
			return &dns.NS{Hdr: hdr, Ns: host}, nil
		}
		return &dns.PTR{Hdr: hdr, Ptr: host}, nil
	case dns.TypeMX:
		f := strings.Fields(target) // validated: "<preference> <host>"
		pref, err := strconv.ParseUint(f[0], 10, 16)
		if err != nil {
			return nil, err
		}
		host, err := hostName(f[1], false)
		if err != nil {
			return nil, err
		}
		return &dns.MX{Hdr: hdr, Preference: uint16(pref), Mx: host}, nil
	case dns.TypeSRV:
		f := strings.Fields(target) // validated: "<priority> <weight> <port> <host>."
		var n [3]uint16
		for i := range n {
			v, err := strconv.ParseUint(f[i], 10, 16)
			if err != nil {
				return nil, err
			}
			n[i] = uint16(v)
		}
		host, err := hostName(f[3], true)
		if err != nil {
			return nil, err
		}
		return &dns.SRV{Hdr: hdr, Priority: n[0], Weight: n[1], Port: n[2], Target: host}, nil
	case dns.TypeNAPTR:
		// Validated: order, preference, three quoted character-strings
		// (data, in presentation form) and the replacement, a host
		// name checked like the others. The owner name is clean, so
		// the zone-file parser can read the rest; the replacement it
		// parsed must be the one checked (a quote escaped inside a
		// string would shift the fields).
		f := strings.Fields(target)
		repl, err := hostName(f[len(f)-1], true)
		if err != nil {
			return nil, fmt.Errorf("replacement: %w", err)
		}
		parsed, err := dns.NewRR(hdr.Name + " " + strconv.FormatUint(uint64(hdr.Ttl), 10) + " IN NAPTR " + target)
		if err != nil {
			return nil, err
		}
		naptr, ok := parsed.(*dns.NAPTR)
		if !ok || !strings.EqualFold(naptr.Replacement, repl) || naptr.Hdr.Name != hdr.Name {
			return nil, fmt.Errorf("does not make a %s record with replacement %q", recordType, repl)
		}
		return naptr, nil
	}
	return nil, fmt.Errorf("record type %q is not supported", recordType)
}

// txtRR returns the TXT RR holding the data v.
func txtRR(hdr dns.RR_Header, v string) *dns.TXT {
	return &dns.TXT{Hdr: hdr, Txt: splitTXT(v)}
}

// splitTXT cuts a TXT value into character-strings of at most 255 bytes,
// each in miekg/dns's presentation escaping (backslash before '"' and '\',
// \DDD for bytes outside printable ASCII), which packs back to the exact
// bytes. The empty value is one empty character-string.
func splitTXT(v string) []string {
	if v == "" {
		return []string{""}
	}
	out := make([]string, 0, (len(v)+maxCharString-1)/maxCharString)
	for len(v) > 0 {
		n := min(len(v), maxCharString)
		out = append(out, escapeTXT(v[:n]))
		v = v[n:]
	}
	return out
}

func escapeTXT(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c < ' ' || c > '~' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < ' ' || c > '~':
			b.WriteByte('\\')
			b.WriteByte('0' + c/100)
			b.WriteByte('0' + c/10%10)
			b.WriteByte('0' + c%10)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// fromRR returns the endpoint type and target of rr, or ok false for a
// type the provider does not manage.
func fromRR(rr dns.RR) (recordType, target string, ok bool) {
	switch r := rr.(type) {
	case *dns.A:
		return endpoint.RecordTypeA, r.A.String(), true
	case *dns.AAAA:
		return endpoint.RecordTypeAAAA, r.AAAA.String(), true
	case *dns.CNAME:
		return endpoint.RecordTypeCNAME, trimDot(r.Target), true
	case *dns.TXT:
		return endpoint.RecordTypeTXT, dnstxt.Target(r.Txt...), true // reverses splitTXT and dnstxt.Data
	case *dns.MX:
		return endpoint.RecordTypeMX, strconv.Itoa(int(r.Preference)) + " " + trimDot(r.Mx), true
	case *dns.SRV:
		// SRV targets keep their trailing dot, as endpoint validates them.
		return endpoint.RecordTypeSRV, fmt.Sprintf("%d %d %d %s", r.Priority, r.Weight, r.Port, r.Target), true
	case *dns.NS:
		return endpoint.RecordTypeNS, trimDot(r.Ns), true
	case *dns.PTR:
		return endpoint.RecordTypePTR, trimDot(r.Ptr), true
	case *dns.NAPTR:
		return endpoint.RecordTypeNAPTR, strings.TrimPrefix(r.String(), r.Hdr.String()), true
	}
	return "", "", false
}

// trimDot removes the trailing dot of a host name, but keeps the root ".".
func trimDot(name string) string {
	if name == "." {
		return name
	}
	return strings.TrimSuffix(name, ".")
}
