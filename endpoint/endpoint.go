package endpoint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Record types known to zonesync. Any other string is transported unchanged.
const (
	RecordTypeA     = "A"
	RecordTypeAAAA  = "AAAA"
	RecordTypeCNAME = "CNAME"
	RecordTypeTXT   = "TXT"
	RecordTypeSRV   = "SRV"
	RecordTypeNS    = "NS"
	RecordTypePTR   = "PTR"
	RecordTypeMX    = "MX"
	RecordTypeNAPTR = "NAPTR"
	RecordTypeDNAME = "DNAME"
	RecordTypeTLSA  = "TLSA"
)

// KnownRecordTypes returns the record types zonesync knows, in the order
// external-dns uses when it interprets TXT ownership names. The slice is new
// on every call.
func KnownRecordTypes() []string {
	return []string{
		RecordTypeA, RecordTypeAAAA, RecordTypeCNAME, RecordTypeNS, RecordTypeMX,
		RecordTypePTR, RecordTypeSRV, RecordTypeNAPTR, RecordTypeTXT, RecordTypeDNAME,
		RecordTypeTLSA,
	}
}

// DefaultManagedRecordTypes returns the record types managed when nothing else
// is configured: A, AAAA and CNAME. The slice is new on every call.
func DefaultManagedRecordTypes() []string {
	return []string{RecordTypeA, RecordTypeAAAA, RecordTypeCNAME}
}

// TTL is a record's time to live in seconds. Zero means "not configured": the
// provider's default applies.
type TTL int64

// IsConfigured reports whether the TTL was set (is greater than zero).
func (ttl TTL) IsConfigured() bool { return ttl > 0 }

// Well-known provider-specific property names.
const (
	// ProviderSpecificAlias asks for an ALIAS record instead of a CNAME
	// (values "true", "false", "A", "AAAA").
	ProviderSpecificAlias = "alias"
	// ProviderSpecificRecordType carries the record-type annotation.
	ProviderSpecificRecordType = "record-type"
	// ProviderSpecificForceUpdate is set by the TXT registry on current
	// records whose typed ownership TXT is missing; providers ignore it.
	ProviderSpecificForceUpdate = "txt/force-update"
)

// ProviderSpecificProperty is one provider-specific key/value pair.
type ProviderSpecificProperty struct {
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
}

// ProviderSpecific is an ordered list of provider-specific properties. Lookup
// is by exact name.
type ProviderSpecific []ProviderSpecificProperty

// Get returns the value of the property called name.
func (ps ProviderSpecific) Get(name string) (string, bool) {
	for _, p := range ps {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

// Same reports whether ps and other hold the same (name, value) pairs,
// irrespective of order. It does not allocate.
func (ps ProviderSpecific) Same(other ProviderSpecific) bool {
	if len(ps) != len(other) {
		return false
	}
	for i := range ps {
		if ps[i] == other[i] {
			continue
		}
		// Order differs: fall back to counting.
		for _, p := range ps {
			if ps.Count(p) != other.Count(p) {
				return false
			}
		}
		return true
	}
	return true
}

// Count returns how many times the (name, value) pair p occurs in ps, the
// measure by which [ProviderSpecific.Same] compares lists in different
// orders.
func (ps ProviderSpecific) Count(p ProviderSpecificProperty) int {
	n := 0
	for _, q := range ps {
		if q == p {
			n++
		}
	}
	return n
}

// Endpoint is one DNS record set: a name, a record type, its targets and
// metadata. Its JSON form is the one external-dns uses on the wire.
type Endpoint struct {
	// DNSName is the fully qualified name, without a trailing dot. From
	// the Reconciler to the provider it is in lower-case A-label form
	// ([ToALabel]).
	DNSName string `json:"dnsName,omitempty"`
	// Targets holds the record data, one string per resource record.
	Targets Targets `json:"targets,omitempty"`
	// RecordType is the DNS type, e.g. "A" or "CNAME".
	RecordType string `json:"recordType,omitempty"`
	// SetIdentifier distinguishes several record sets of the same name and
	// type (routing policies).
	SetIdentifier string `json:"setIdentifier,omitempty"`
	// RecordTTL is the TTL; zero means the provider's default.
	RecordTTL TTL `json:"recordTTL,omitempty"`
	// Labels carries registry metadata such as the owner. Empty labels are
	// left out of the JSON (omitzero: encoding/json never finds a struct
	// empty, and empty labels are always the zero value).
	Labels Labels `json:"labels,omitempty,omitzero"`
	// ProviderSpecific carries properties only some providers understand.
	ProviderSpecific ProviderSpecific `json:"providerSpecific,omitempty"`

	// ownership is the verdict a registry attached to a current record
	// ([Endpoint.SetOwnership]). It is not record data: it is not in the
	// JSON form and [Endpoint.Equal] ignores it; copies keep it.
	ownership Ownership
}

// Ownership returns the verdict a registry attached to e when it read it
// ([Endpoint.SetOwnership]), or [OwnershipUndecided] when none did (every
// desired endpoint, and records built by hand). Use [Owners.Of] to read the
// verdict of a current record with the labels' rule as the fallback.
func (e *Endpoint) Ownership() Ownership { return e.ownership }

// SetOwnership attaches a registry's verdict to the current record e.
// Registries call it once for every record their Records returns, with
// [Owners.Verdict] of the labels their ownership data gave the record; the
// planner and everything after it read the verdict instead of deciding
// again. It is not record data: providers, the JSON form and
// [Endpoint.Equal] ignore it, while copies ([Endpoint.DeepCopy],
// [DeepCopyAll]) keep it. reflect.DeepEqual does see it: compare endpoints
// with Equal.
func (e *Endpoint) SetOwnership(o Ownership) { e.ownership = o }

// NewEndpoint returns an endpoint with the given name, type and targets and no
// TTL. See [NewEndpointWithTTL].
func NewEndpoint(dnsName, recordType string, targets ...string) *Endpoint {
	return NewEndpointWithTTL(dnsName, recordType, 0, targets...)
}

// NewEndpointWithTTL returns an endpoint with the given name, type, TTL and
// targets. One trailing dot is removed from dnsName and, for record types
// whose targets are host names or addresses (A, AAAA, CNAME, NS, PTR, DNAME,
// MX), from every target; SRV, NAPTR, TLSA, TXT and unknown types keep their
// targets verbatim. Nothing else is changed: the name is not converted to
// A-labels ([ToALabel]; the Reconciler does that for a source's endpoints).
// The target slice is copied.
//
// It never returns nil and never fails: use [Endpoint.Validate] to check the
// result.
func NewEndpointWithTTL(dnsName, recordType string, ttl TTL, targets ...string) *Endpoint {
	cleaned := make(Targets, len(targets))
	strip := stripsTargetDot(recordType)
	for i, t := range targets {
		if strip {
			t = strings.TrimSuffix(t, ".")
		}
		cleaned[i] = t
	}
	return &Endpoint{
		DNSName:    strings.TrimSuffix(dnsName, "."),
		Targets:    cleaned,
		RecordType: recordType,
		RecordTTL:  ttl,
	}
}

func stripsTargetDot(recordType string) bool {
	switch recordType {
	case RecordTypeA, RecordTypeAAAA, RecordTypeCNAME, RecordTypeNS,
		RecordTypePTR, RecordTypeDNAME, RecordTypeMX:
		return true
	default: // SRV, NAPTR, TLSA, TXT and unknown types: verbatim
		return false
	}
}

// WithSetIdentifier sets the set identifier and returns e.
func (e *Endpoint) WithSetIdentifier(id string) *Endpoint {
	e.SetIdentifier = id
	return e
}

// WithProviderSpecific sets a provider-specific property (replacing the value
// of an existing property of that name in place) and returns e.
func (e *Endpoint) WithProviderSpecific(name, value string) *Endpoint {
	e.SetProviderSpecificProperty(name, value)
	return e
}

// WithLabel sets a label and returns e.
func (e *Endpoint) WithLabel(key, value string) *Endpoint {
	e.Labels.Set(key, value)
	return e
}

// GetProviderSpecificProperty returns the value of the property called name.
func (e *Endpoint) GetProviderSpecificProperty(name string) (string, bool) {
	return e.ProviderSpecific.Get(name)
}

// SetProviderSpecificProperty sets the property called name: an existing
// property keeps its position and gets the new value; otherwise it is appended.
func (e *Endpoint) SetProviderSpecificProperty(name, value string) {
	for i := range e.ProviderSpecific {
		if e.ProviderSpecific[i].Name == name {
			e.ProviderSpecific[i].Value = value
			return
		}
	}
	e.ProviderSpecific = append(e.ProviderSpecific, ProviderSpecificProperty{Name: name, Value: value})
}

// DeleteProviderSpecificProperty removes every property called name.
func (e *Endpoint) DeleteProviderSpecificProperty(name string) {
	e.ProviderSpecific = slices.DeleteFunc(e.ProviderSpecific, func(p ProviderSpecificProperty) bool {
		return p.Name == name
	})
}

// IsOwnedBy reports whether the endpoint's owner label equals ownerID. An
// empty ownerID owns nothing. It reads the label only: whether a current
// record may be changed is its ownership verdict ([Owners.Of]).
func (e *Endpoint) IsOwnedBy(ownerID string) bool {
	if ownerID == "" {
		return false
	}
	owner, ok := e.Labels.Get(OwnerLabelKey)
	return ok && owner == ownerID
}

// Key returns the identity of the record set: name, type and set identifier.
func (e *Endpoint) Key() Key {
	return Key{DNSName: e.DNSName, RecordType: e.RecordType, SetIdentifier: e.SetIdentifier}
}

// DeepCopyAll returns a new slice holding a deep copy of every endpoint of
// eps (see [Endpoint.DeepCopy]); nil entries stay nil, and a nil slice gives
// nil. The copies share nothing with eps. To keep the cost of copying many
// endpoints to a few allocations, the copies' structs, target lists,
// provider-specific lists and labels live in four shared backing arrays,
// each copy's slices capped so that appending to one never writes into
// another (and [Labels.Set] never writes into a slice it holds).
func DeepCopyAll(eps []*Endpoint) []*Endpoint {
	if eps == nil {
		return nil
	}
	var n, nTargets, nProps, nLabels int
	for _, ep := range eps {
		if ep != nil {
			n++
			nTargets += len(ep.Targets)
			nProps += len(ep.ProviderSpecific)
			nLabels += ep.Labels.Len()
		}
	}
	out := make([]*Endpoint, len(eps))
	if n == 0 {
		return out
	}
	structs := make([]Endpoint, n)
	var targets []string
	if nTargets > 0 {
		targets = make([]string, 0, nTargets)
	}
	var props []ProviderSpecificProperty
	if nProps > 0 {
		props = make([]ProviderSpecificProperty, 0, nProps)
	}
	var labels []labelPair
	if nLabels > 0 {
		labels = make([]labelPair, 0, nLabels)
	}
	k := 0
	for i, ep := range eps {
		if ep == nil {
			continue
		}
		c := &structs[k]
		k++
		*c = *ep
		if ep.Targets != nil {
			start := len(targets)
			targets = append(targets, ep.Targets...)
			c.Targets = Targets(targets[start:len(targets):len(targets)])
		}
		if ep.ProviderSpecific != nil {
			start := len(props)
			props = append(props, ep.ProviderSpecific...)
			c.ProviderSpecific = ProviderSpecific(props[start:len(props):len(props)])
		}
		if ep.Labels.pairs != nil {
			start := len(labels)
			labels = append(labels, ep.Labels.pairs...)
			c.Labels = Labels{pairs: labels[start:len(labels):len(labels)]}
		}
		out[i] = c
	}
	return out
}

// DeepCopy returns a copy of e that shares no memory with it. A nil e gives nil.
func (e *Endpoint) DeepCopy() *Endpoint {
	if e == nil {
		return nil
	}
	out := *e
	if e.Targets != nil {
		out.Targets = slices.Clone(e.Targets)
	}
	out.Labels = e.Labels.clone()
	if e.ProviderSpecific != nil {
		out.ProviderSpecific = slices.Clone(e.ProviderSpecific)
	}
	return &out
}

// Equal reports whether e and o describe the same record set with the same
// data: name and set identifier compared exactly, the type exactly, targets
// with [Targets.Same], TTL, labels and provider-specific properties (in any
// order). The ownership verdict ([Endpoint.Ownership]) is not compared.
func (e *Endpoint) Equal(o *Endpoint) bool {
	if e == nil || o == nil {
		return e == o
	}
	if e.DNSName != o.DNSName || e.RecordType != o.RecordType ||
		e.SetIdentifier != o.SetIdentifier || e.RecordTTL != o.RecordTTL {
		return false
	}
	if !e.Targets.Same(o.Targets) || !e.ProviderSpecific.Same(o.ProviderSpecific) {
		return false
	}
	return e.Labels.Equal(o.Labels)
}

// String renders the endpoint for logs: name, TTL, class, type, set
// identifier, targets, and provider-specific properties. Text holding
// control characters, other unprintable characters or invalid UTF-8 is
// quoted ([Printable]).
func (e *Endpoint) String() string {
	if e == nil {
		return "<nil>"
	}
	var b strings.Builder
	b.WriteString(Printable(e.DNSName))
	b.WriteByte(' ')
	b.WriteString(strconv.FormatInt(int64(e.RecordTTL), 10))
	b.WriteString(" IN ")
	b.WriteString(Printable(e.RecordType))
	b.WriteByte(' ')
	b.WriteString(Printable(e.SetIdentifier))
	b.WriteByte(' ')
	b.WriteString(e.Targets.String())
	if len(e.ProviderSpecific) > 0 {
		b.WriteString(" [")
		for i, p := range e.ProviderSpecific {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "{%s %s}", Printable(p.Name), Printable(p.Value))
		}
		b.WriteByte(']')
	}
	return b.String()
}

// Key identifies a record set: its name, type and set identifier.
type Key struct {
	DNSName       string
	RecordType    string
	SetIdentifier string
}

// String renders the key as "name/type" or "name/type/set-identifier".
//
// A part holding control characters, other unprintable characters or
// invalid UTF-8 is quoted ([Printable]), so that a key in an error or a log
// line cannot forge another line.
func (k Key) String() string {
	name, rtype := Printable(k.DNSName), Printable(k.RecordType)
	if k.SetIdentifier == "" {
		return name + "/" + rtype
	}
	return name + "/" + rtype + "/" + Printable(k.SetIdentifier)
}

// Compare orders endpoints by (DNSName, SetIdentifier, RecordType), the
// order in which zonesync returns records and changes everywhere, comparing
// the strings byte by byte; nil sorts first. Use it with slices.SortFunc.
func Compare(a, b *Endpoint) int {
	if a == nil || b == nil {
		switch {
		case a == b:
			return 0
		case a == nil:
			return -1
		default:
			return 1
		}
	}
	if c := strings.Compare(a.DNSName, b.DNSName); c != 0 {
		return c
	}
	if c := strings.Compare(a.SetIdentifier, b.SetIdentifier); c != 0 {
		return c
	}
	return strings.Compare(a.RecordType, b.RecordType)
}
