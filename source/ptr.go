package source

import (
	"context"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// PTR is a wrapper [Source] that adds reverse-DNS (PTR) endpoints for the
// address targets of A and AAAA endpoints, as external-dns's --create-ptr
// and its "record-type" annotation do.
//
// For every A or AAAA endpoint that asks for it, each target address gets a
// PTR endpoint named in in-addr.arpa (IPv4) or ip6.arpa (IPv6), for example
// 10.2.0.192.in-addr.arpa for 192.0.2.10, whose target is the endpoint's DNS
// name. Several names pointing to one address give one PTR endpoint with
// all of them as targets (sorted, without duplicates); when their TTLs
// differ the smallest is used. The PTR endpoints follow the inner source's
// endpoints, in the order their addresses first appear; they carry no set
// identifier or provider-specific properties. A PTR endpoint carries the
// resource label ([endpoint.ResourceLabelKey]) of the endpoint behind its
// first target that has one, so that a Reconciler protects it like the
// forward record when that object fails to build.
//
// Which endpoints ask: by default every A and AAAA endpoint (as with
// --create-ptr); with [PTROptions.OnlyAnnotated] none. Either way, an endpoint's
// "record-type" provider-specific property decides for it when present:
// "ptr" (any case) asks, any other value does not. The property is removed
// from the endpoints once read, as external-dns does.
//
// Only PTR names the domain filter given to [NewPTR] matches are produced,
// so that no PTR is planned for a reverse zone the program does not manage
// (nil matches everything). Wildcard names and targets that are not
// addresses are skipped.
//
// Readiness and events are those of the inner source; a [*PartialError]
// from it is passed on with the endpoints.
//
//zonesync:source:name=ptr
//zonesync:source:category=wrapper
//zonesync:source:description=Adds PTR endpoints in in-addr.arpa/ip6.arpa for A/AAAA targets, merging names that share an address.
//zonesync:source:resources=none
//zonesync:source:filters=domain-filter
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=true
type PTR struct {
	wrapper
	filter         endpoint.DomainFilterInterface
	defaultEnabled bool
}

var (
	_ Source = (*PTR)(nil)
	_ Syncer = (*PTR)(nil)
)

// PTROptions configures a [PTR]. The zero value makes a PTR endpoint for
// every A and AAAA target (external-dns's --create-ptr).
type PTROptions struct {
	// ReverseZones selects the reverse names to produce; nil means all.
	ReverseZones endpoint.DomainFilterInterface
	// OnlyAnnotated makes PTR endpoints only for the endpoints whose
	// "record-type" provider-specific property is "ptr" (the record-type
	// annotation), as external-dns does without --create-ptr.
	OnlyAnnotated bool
}

// NewPTR wraps inner (nil = [Empty]).
func NewPTR(inner Source, opts PTROptions) *PTR {
	return &PTR{wrapper: wrapper{orEmpty(inner)}, filter: opts.ReverseZones, defaultEnabled: !opts.OnlyAnnotated}
}

// Endpoints returns the inner source's endpoints followed by the PTR
// endpoints.
func (p *PTR) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, partial, hard := innerEndpoints(ctx, p.inner)
	if hard != nil {
		return nil, hard
	}
	byName := map[string]*endpoint.Endpoint{}
	resources := map[string]map[string]string{} // PTR name -> forward name -> resource label
	var ptrs []*endpoint.Endpoint
	for _, ep := range eps {
		if ep == nil || (ep.RecordType != endpoint.RecordTypeA && ep.RecordType != endpoint.RecordTypeAAAA) {
			continue
		}
		enabled := p.defaultEnabled
		if v, ok := ep.GetProviderSpecificProperty(endpoint.ProviderSpecificRecordType); ok {
			enabled = strings.EqualFold(v, "ptr")
			ep.DeleteProviderSpecificProperty(endpoint.ProviderSpecificRecordType)
		}
		if !enabled || strings.HasPrefix(ep.DNSName, "*") {
			continue
		}
		host := strings.TrimSuffix(ep.DNSName, ".")
		for _, t := range ep.Targets {
			name, ok := reverseName(t)
			if !ok || (p.filter != nil && !p.filter.Match(name)) {
				continue
			}
			ptr, seen := byName[name]
			if !seen {
				ptr = &endpoint.Endpoint{DNSName: name, RecordType: endpoint.RecordTypePTR, RecordTTL: ep.RecordTTL}
				byName[name] = ptr
				ptrs = append(ptrs, ptr)
			} else if ep.RecordTTL < ptr.RecordTTL {
				ptr.RecordTTL = ep.RecordTTL
			}
			ptr.Targets = append(ptr.Targets, host)
			if res, _ := ep.Labels.Get(endpoint.ResourceLabelKey); res != "" {
				if resources[name] == nil {
					resources[name] = map[string]string{}
				}
				if _, ok := resources[name][endpoint.ToALabel(host)]; !ok {
					resources[name][endpoint.ToALabel(host)] = res
				}
			}
		}
	}
	for _, ptr := range ptrs {
		slices.SortFunc(ptr.Targets, func(a, b string) int {
			return strings.Compare(endpoint.ToALabel(a), endpoint.ToALabel(b))
		})
		ptr.Targets = slices.CompactFunc(ptr.Targets, func(a, b string) bool {
			return endpoint.ToALabel(a) == endpoint.ToALabel(b)
		})
		for _, t := range ptr.Targets {
			if res, ok := resources[ptr.DNSName][endpoint.ToALabel(t)]; ok {
				ptr.Labels.Set(endpoint.ResourceLabelKey, res)
				break
			}
		}
	}
	return append(eps, ptrs...), partial
}

// String describes the wrapper.
func (p *PTR) String() string { return "ptr of " + describe(p.inner) }

// reverseName returns the reverse-DNS name of an IP address in text form,
// without a trailing dot: "10.2.0.192.in-addr.arpa" for "192.0.2.10", and
// the 32 nibbles of an IPv6 address in reverse order followed by
// "ip6.arpa". An IPv4-mapped IPv6 address gets its IPv4 name. ok is false
// when addr is not an IP address (or has a zone).
func reverseName(addr string) (name string, ok bool) {
	a, err := netip.ParseAddr(addr)
	if err != nil || a.Zone() != "" {
		return "", false
	}
	a = a.Unmap()
	var b strings.Builder
	if a.Is4() {
		b.Grow(len("255.255.255.255.in-addr.arpa"))
		v := a.As4()
		for i := 3; i >= 0; i-- {
			b.WriteString(strconv.Itoa(int(v[i])))
			b.WriteByte('.')
		}
		b.WriteString("in-addr.arpa")
		return b.String(), true
	}
	const hex = "0123456789abcdef"
	v := a.As16()
	b.Grow(64 + len("ip6.arpa"))
	for i := 15; i >= 0; i-- {
		b.WriteByte(hex[v[i]&0x0f])
		b.WriteByte('.')
		b.WriteByte(hex[v[i]>>4])
		b.WriteByte('.')
	}
	b.WriteString("ip6.arpa")
	return b.String(), true
}
