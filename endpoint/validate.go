package endpoint

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Validate reports what is wrong with the endpoint: an invalid DNS name (see
// [ValidateDNSName]: a character other than letters, digits, "-", "_", dots
// and a leading "*" label, an empty or over-long label, ...; one trailing
// dot is accepted, [ToALabel] removes it; for a TXT record, which
// may be an ownership record, see [ValidateOwnershipTXTName]), a
// missing record type, no targets, or targets that do not fit the record type
// (see [Endpoint.CheckTarget]: host names for an alias A or AAAA record,
// [ValidateTarget] otherwise), labels that cannot be written into an ownership
// TXT record as they are (see [ValidateLabels]), a record type that is not
// a mnemonic of letters and digits, or a set identifier or
// provider-specific property holding control characters or invalid UTF-8. All problems are reported
// together; the error names the record and the offending field ("dnsName",
// "targets[i]", "labels[\"key\"]", ...).
func (e *Endpoint) Validate() error {
	return e.validate(false)
}

// ValidateDesired reports what is wrong with e as a desired endpoint, one a
// source asks for: everything [Endpoint.Validate] reports and, for a TXT
// record, a target that reads as the text of an ownership record
// ([CheckNotOwnershipText]). A registry reads such a TXT record as
// ownership data: created at a free name, it would make the records that
// later appear there (by hand, or from anyone) pass for ours, and be
// updated or deleted. Ownership TXT records are written by registries
// alone, never asked for. The Reconciler validates every desired endpoint
// with it, and the sources of this module check their objects with it.
func (e *Endpoint) ValidateDesired() error {
	return e.validate(true)
}

// validate implements [Endpoint.Validate] and, with desired,
// [Endpoint.ValidateDesired].
func (e *Endpoint) validate(desired bool) error {
	if e == nil {
		return errors.New("endpoint is nil")
	}
	var errs []error
	if err := ValidateRecordName(e.RecordType, e.DNSName); err != nil {
		errs = append(errs, fmt.Errorf("dnsName: %w", err))
	}
	if e.RecordType == "" {
		errs = append(errs, errors.New("record type is empty"))
	} else if !isTypeName(e.RecordType) {
		errs = append(errs, fmt.Errorf("record type %q: only letters and digits are allowed", e.RecordType))
	}
	if Printable(e.SetIdentifier) != e.SetIdentifier {
		errs = append(errs, fmt.Errorf("set identifier %q holds control characters or invalid UTF-8", e.SetIdentifier))
	}
	for _, p := range e.ProviderSpecific {
		if Printable(p.Name) != p.Name || Printable(p.Value) != p.Value {
			errs = append(errs, fmt.Errorf("provider-specific property %q=%q holds control characters or invalid UTF-8", p.Name, p.Value))
		}
	}
	if len(e.Targets) == 0 {
		errs = append(errs, errors.New("no targets"))
	}
	for i, t := range e.Targets {
		if err := e.CheckTarget(t); err != nil {
			errs = append(errs, fmt.Errorf("targets[%d]: %w", i, err))
		}
		if desired && e.RecordType == RecordTypeTXT {
			if err := CheckNotOwnershipText(t, nil); err != nil {
				errs = append(errs, fmt.Errorf("targets[%d]: %w", i, err))
			}
		}
	}
	if e.RecordTTL < 0 {
		errs = append(errs, fmt.Errorf("recordTTL %d is negative", e.RecordTTL))
	}
	for _, p := range e.Labels.pairs {
		if err := validateLabel(p.key, p.value); err != nil {
			errs = append(errs, fmt.Errorf("labels[%q]: %w", p.key, err))
		}
	}
	if alias, ok := e.GetProviderSpecificProperty(ProviderSpecificAlias); ok && alias != "false" {
		switch e.RecordType {
		case RecordTypeA, RecordTypeAAAA, RecordTypeCNAME:
		default:
			errs = append(errs, fmt.Errorf("provider-specific alias=%q is only allowed on A, AAAA and CNAME records", alias))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("invalid endpoint %s: %w", e.Key(), errors.Join(errs...))
}

// IsAlias reports whether e asks for an alias record: a record the DNS
// service answers with the addresses of another name (a Route 53 alias, a
// PowerDNS ALIAS) instead of a CNAME. That is the provider-specific
// property "alias" (external-dns's annotation and the value its providers
// set in AdjustEndpoints) with the value "true" on an A, AAAA or CNAME
// record, or the value naming the record's own address family: "A" on an A
// record, "AAAA" on an AAAA record, and either on a CNAME (the alias is then
// asked for that family alone). Any other value, "false" included, or the
// property on another type (which [Endpoint.Validate] refuses), is not an
// alias.
func (e *Endpoint) IsAlias() bool {
	v, ok := e.GetProviderSpecificProperty(ProviderSpecificAlias)
	if !ok {
		return false
	}
	switch e.RecordType {
	case RecordTypeA, RecordTypeAAAA:
		return v == "true" || v == e.RecordType
	case RecordTypeCNAME:
		return v == "true" || v == RecordTypeA || v == RecordTypeAAAA
	}
	return false
}

// CheckTarget checks that target is valid record data for e: the one rule
// for a target of an endpoint. It is [ValidateTarget] for e's record type,
// but for an alias A or AAAA record ([Endpoint.IsAlias]), whose target may
// also be the name the alias points at (an AWS load balancer's host name,
// say), checked as a host name: the addresses are the DNS service's to
// find. An address of the record's family stays valid there, as it is for
// external-dns. Every other record is held to its type as strictly as
// ValidateTarget says.
func (e *Endpoint) CheckTarget(target string) error {
	err := ValidateTarget(e.RecordType, target)
	if err == nil || (e.RecordType != RecordTypeA && e.RecordType != RecordTypeAAAA) || !e.IsAlias() {
		return err
	}
	if herr := validateHost(target); herr != nil {
		return fmt.Errorf("alias %s target %q is neither an address of its family nor a host name: %w", e.RecordType, target, herr)
	}
	return nil
}

// ValidateTarget checks that target is valid record data for recordType:
//
//   - A: an IPv4 address; AAAA: an IPv6 address (not IPv4-mapped, no zone);
//   - CNAME, NS, PTR, DNAME: a host name, under the rules of
//     [ValidateDNSName] for record names: host names in MX, SRV and NAPTR
//     targets, too;
//   - MX: "<preference> <host>";
//   - SRV: "<priority> <weight> <port> <host>." (numbers fit in 16 bits, the
//     host ends with a dot);
//   - NAPTR: "<order> <preference> "<flags>" "<service>" "<regexp>" <replacement>"
//     (the replacement is "." or a host name);
//   - TLSA: "<usage> <selector> <matching-type> <data>" as external-dns
//     accepts it: usage 0 to 3, selector 0 or 1, matching type 0 to 2, and
//     the certificate association data in hex (either case, at least one
//     byte), which may be split into several fields separated by white space
//     and may hold ":" separators; a SHA-256 digest (matching type 1) has 64
//     hex digits, a SHA-512 digest (matching type 2) 128;
//   - TXT and unknown types: any text.
//
// Fields are separated by white space.
func ValidateTarget(recordType, target string) error {
	switch recordType {
	case RecordTypeA:
		a, err := netip.ParseAddr(target)
		if err != nil || !a.Is4() {
			return fmt.Errorf("A target %q is not an IPv4 address", target)
		}
	case RecordTypeAAAA:
		a, err := netip.ParseAddr(target)
		if err != nil || !a.Is6() || a.Is4In6() || a.Zone() != "" {
			return fmt.Errorf("AAAA target %q is not an IPv6 address", target)
		}
	case RecordTypeCNAME, RecordTypeNS, RecordTypePTR, RecordTypeDNAME:
		if err := validateHost(target); err != nil {
			return fmt.Errorf("%s target %q: %w", recordType, target, err)
		}
	case RecordTypeMX:
		fields := strings.Fields(target)
		if len(fields) != 2 {
			return fmt.Errorf("MX target %q: want \"<preference> <host>\"", target)
		}
		if _, err := strconv.ParseUint(fields[0], 10, 16); err != nil {
			return fmt.Errorf("MX target %q: preference %q is not a 16-bit number", target, fields[0])
		}
		if err := validateHost(fields[1]); err != nil {
			return fmt.Errorf("MX target %q: %w", target, err)
		}
	case RecordTypeSRV:
		fields := strings.Fields(target)
		if len(fields) != 4 {
			return fmt.Errorf("SRV target %q: want \"<priority> <weight> <port> <host>.\"", target)
		}
		for i, name := range []string{"priority", "weight", "port"} {
			if _, err := strconv.ParseUint(fields[i], 10, 16); err != nil {
				return fmt.Errorf("SRV target %q: %s %q is not a 16-bit number", target, name, fields[i])
			}
		}
		if !strings.HasSuffix(fields[3], ".") {
			return fmt.Errorf("SRV target %q: host %q must end with a dot", target, fields[3])
		}
		if fields[3] != "." {
			if err := validateHost(fields[3]); err != nil {
				return fmt.Errorf("SRV target %q: %w", target, err)
			}
		}
	case RecordTypeNAPTR:
		if err := validateNAPTR(target); err != nil {
			return fmt.Errorf("NAPTR target %q: %w", target, err)
		}
	case RecordTypeTLSA:
		if err := validateTLSA(target); err != nil {
			return fmt.Errorf("TLSA target %q: %w", target, err)
		}
	}
	return nil
}

// validateTLSA checks "<usage> <selector> <matching-type> <data>" (RFC 6698
// presentation format) with the limits external-dns applies.
func validateTLSA(target string) error {
	fields := strings.Fields(target)
	if len(fields) < 4 {
		return fmt.Errorf("want \"<usage> <selector> <matching-type> <data>\", got %d fields", len(fields))
	}
	var values [3]uint64
	for i, f := range []struct {
		name string
		max  uint64
	}{{"usage", 3}, {"selector", 1}, {"matching type", 2}} {
		v, err := strconv.ParseUint(fields[i], 10, 8)
		if err != nil || v > f.max {
			return fmt.Errorf("%s %q is not a number from 0 to %d", f.name, fields[i], f.max)
		}
		values[i] = v
	}
	digits := 0
	for _, f := range fields[3:] {
		for i := 0; i < len(f); i++ {
			switch c := f[i]; {
			case c == ':':
			case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
				digits++
			default:
				return fmt.Errorf("certificate association data %q is not hex", strings.Join(fields[3:], " "))
			}
		}
	}
	switch {
	case digits == 0:
		return errors.New("certificate association data is empty")
	case digits%2 != 0:
		return fmt.Errorf("certificate association data has an odd number of hex digits (%d)", digits)
	case values[2] == 1 && digits != 64:
		return fmt.Errorf("matching type 1 (SHA-256) needs 64 hex digits, got %d", digits)
	case values[2] == 2 && digits != 128:
		return fmt.Errorf("matching type 2 (SHA-512) needs 128 hex digits, got %d", digits)
	}
	return nil
}

func validateHost(host string) error {
	if host == "" {
		return errors.New("host name is empty")
	}
	return ValidateDNSName(host)
}

// validateNAPTR checks "<order> <preference> "<flags>" "<service>" "<regexp>" <replacement>".
func validateNAPTR(target string) error {
	rest := strings.TrimSpace(target)
	var fields []string
	for rest != "" {
		var f string
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return errors.New("unterminated quoted string")
			}
			f, rest = rest[:end+2], rest[end+2:]
		} else {
			end := strings.IndexAny(rest, " \t")
			if end < 0 {
				end = len(rest)
			}
			f, rest = rest[:end], rest[end:]
		}
		fields = append(fields, f)
		rest = strings.TrimLeft(rest, " \t")
	}
	if len(fields) != 6 {
		return fmt.Errorf("want 6 fields (order preference \"flags\" \"service\" \"regexp\" replacement), got %d", len(fields))
	}
	for i, name := range []string{"order", "preference"} {
		if _, err := strconv.ParseUint(fields[i], 10, 16); err != nil {
			return fmt.Errorf("%s %q is not a 16-bit number", name, fields[i])
		}
	}
	for i, name := range []string{"flags", "service", "regexp"} {
		f := fields[2+i]
		if len(f) < 2 || f[0] != '"' || f[len(f)-1] != '"' {
			return fmt.Errorf("%s %q must be a quoted string", name, f)
		}
	}
	if fields[5] == "" {
		return errors.New("replacement is empty")
	}
	if fields[5] != "." {
		if err := validateHost(fields[5]); err != nil {
			return fmt.Errorf("replacement: %w", err)
		}
	}
	return nil
}

// ErrOwnershipText is wrapped by the error of [CheckNotOwnershipText]: a
// desired TXT value that reads as an ownership record.
var ErrOwnershipText = errors.New("TXT value reads as an ownership record")

// CheckNotOwnershipText returns an error wrapping [ErrOwnershipText] when
// text, the value of a TXT record a source asks for, reads as the text of an
// ownership TXT record: [ParseLabelsWithKey] accepts it with aesKey (nil: as
// plain text only, which every registry reads whatever its key). It is the
// one rule that keeps ownership data out of desired records:
// [Endpoint.ValidateDesired] applies it without a key, and a registry that
// decrypts ownership records applies it with its key, so that a copy of an
// encrypted ownership value is refused too.
func CheckNotOwnershipText(text string, aesKey []byte) error {
	if _, err := ParseLabelsWithKey(text, aesKey); err != nil {
		return nil
	}
	return fmt.Errorf("%w (%s=%s): a registry would take the record for ownership data and could then claim the records at the name it reads as owning; "+
		"ownership records are written by registries only, never asked for", ErrOwnershipText, heritageKey, heritage)
}

// isTypeName reports whether t is a record type mnemonic: ASCII letters
// and digits only ("A", "AAAA", "TYPE65534").
func isTypeName(t string) bool {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
