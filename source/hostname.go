package source

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// EndpointMeta is what every endpoint built for one object carries besides
// its name, type and targets. The EndpointMeta method of annotations.Values
// (package source/annotations) fills it from an
// object's annotations.
type EndpointMeta struct {
	// TTL of the records; zero means the provider's default.
	TTL endpoint.TTL
	// SetIdentifier distinguishes record sets of one name (routing
	// policies).
	SetIdentifier string
	// ProviderSpecific properties; every endpoint gets its own copy.
	ProviderSpecific endpoint.ProviderSpecific
	// Resource is the object's resource key ([ObjectRef.Key]), written to
	// the resource label ([endpoint.ResourceLabelKey]). Empty sets no label.
	Resource string
}

// EndpointsForHostname returns the endpoints that make hostname point at
// targets, one endpoint per record type: the targets that parse as IPv4
// addresses form an A endpoint, the IPv6 ones (IPv4-mapped included) an
// AAAA endpoint, and all others a CNAME endpoint — the typing external-dns
// applies to discovered and annotated targets. Endpoints come in the order
// A, AAAA, CNAME; each carries meta.
//
// One trailing dot is dropped from hostname and from every target; empty
// targets are dropped and each endpoint's targets are sorted with
// duplicates removed. An empty hostname or no targets give nil. Names and
// targets are not otherwise checked: use [endpoint.Endpoint.Validate] on
// the result, or annotations.Config.Parse, which checks annotated ones.
func EndpointsForHostname(hostname string, targets []string, meta EndpointMeta) []*endpoint.Endpoint {
	hostname = strings.TrimSuffix(hostname, ".")
	if hostname == "" {
		return nil
	}
	var a, aaaa, cname []string
	for _, t := range targets {
		t = strings.TrimSuffix(t, ".")
		if t == "" {
			continue
		}
		addr, err := netip.ParseAddr(t)
		switch {
		case err != nil:
			cname = append(cname, t)
		case addr.Is4():
			a = append(a, t)
		default:
			aaaa = append(aaaa, t)
		}
	}
	var eps []*endpoint.Endpoint
	for _, group := range [...]struct {
		recordType string
		targets    []string
	}{
		{endpoint.RecordTypeA, a},
		{endpoint.RecordTypeAAAA, aaaa},
		{endpoint.RecordTypeCNAME, cname},
	} {
		if len(group.targets) == 0 {
			continue
		}
		slices.Sort(group.targets)
		ep := endpoint.NewEndpointWithTTL(hostname, group.recordType, meta.TTL, slices.Compact(group.targets)...)
		ep.SetIdentifier = meta.SetIdentifier
		if len(meta.ProviderSpecific) > 0 {
			ep.ProviderSpecific = slices.Clone(meta.ProviderSpecific)
		}
		if meta.Resource != "" {
			ep.Labels = endpoint.LabelsFromMap(map[string]string{endpoint.ResourceLabelKey: meta.Resource})
		}
		eps = append(eps, ep)
	}
	return eps
}

// EndpointsForHostnames returns the endpoints of [EndpointsForHostname] for
// every name of hostnames, in the order of hostnames.
func EndpointsForHostnames(hostnames, targets []string, meta EndpointMeta) []*endpoint.Endpoint {
	var eps []*endpoint.Endpoint
	for _, h := range hostnames {
		eps = append(eps, EndpointsForHostname(h, targets, meta)...)
	}
	return eps
}
