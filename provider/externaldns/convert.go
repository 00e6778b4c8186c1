package externaldns

import (
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xplan "sigs.k8s.io/external-dns/plan"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// The conversions copy every field both ways: name, targets, type, set
// identifier, TTL, labels and provider-specific properties. external-dns's
// unexported reference to the Kubernetes objects an endpoint came from is
// not record data and has no zonesync counterpart.
//
// A batch is converted into a few shared arrays (one of endpoints, one of
// targets, one of properties) instead of one allocation per slice, so a
// conversion costs a small constant number of allocations plus, towards
// external-dns, the labels map every external-dns endpoint has. Every slice handed out is capped at its own
// length (s[i:j:j]), so a provider that appends to one endpoint's targets
// reallocates instead of writing into its neighbour's.

// FromExternalDNS returns zonesync copies of external-dns endpoints, in the
// same order; nil entries are left out. Names are returned as external-dns
// gave them; [Provider] puts them into zonesync's name form.
func FromExternalDNS(eps []*xendpoint.Endpoint) []*endpoint.Endpoint {
	var nTargets, nProps, n int
	for _, ep := range eps {
		if ep != nil {
			n++
			nTargets += len(ep.Targets)
			nProps += len(ep.ProviderSpecific)
		}
	}
	out := make([]*endpoint.Endpoint, 0, n)
	slab := make([]endpoint.Endpoint, n)
	targets := make([]string, 0, nTargets)
	props := make([]endpoint.ProviderSpecificProperty, 0, nProps)
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		z := &slab[len(out)]
		z.DNSName = ep.DNSName
		z.RecordType = ep.RecordType
		z.SetIdentifier = ep.SetIdentifier
		z.RecordTTL = endpoint.TTL(ep.RecordTTL)
		if len(ep.Targets) > 0 {
			start := len(targets)
			targets = append(targets, ep.Targets...)
			z.Targets = endpoint.Targets(targets[start:len(targets):len(targets)])
		}
		if len(ep.ProviderSpecific) > 0 {
			start := len(props)
			for _, p := range ep.ProviderSpecific {
				props = append(props, endpoint.ProviderSpecificProperty{Name: p.Name, Value: p.Value})
			}
			z.ProviderSpecific = endpoint.ProviderSpecific(props[start:len(props):len(props)])
		}
		if len(ep.Labels) > 0 {
			z.Labels = endpoint.LabelsFromMap(ep.Labels)
		}
		out = append(out, z)
	}
	return out
}

// ToExternalDNS returns external-dns copies of zonesync endpoints, in the
// same order; nil entries are left out.
func ToExternalDNS(eps []*endpoint.Endpoint) []*xendpoint.Endpoint {
	var nTargets, nProps, n int
	for _, ep := range eps {
		if ep != nil {
			n++
			nTargets += len(ep.Targets)
			nProps += len(ep.ProviderSpecific)
		}
	}
	out := make([]*xendpoint.Endpoint, 0, n)
	slab := make([]xendpoint.Endpoint, n)
	targets := make([]string, 0, nTargets)
	props := make([]xendpoint.ProviderSpecificProperty, 0, nProps)
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		x := &slab[len(out)]
		x.DNSName = ep.DNSName
		x.RecordType = ep.RecordType
		x.SetIdentifier = ep.SetIdentifier
		x.RecordTTL = xendpoint.TTL(ep.RecordTTL)
		if len(ep.Targets) > 0 {
			start := len(targets)
			targets = append(targets, ep.Targets...)
			x.Targets = xendpoint.Targets(targets[start:len(targets):len(targets)])
		}
		if len(ep.ProviderSpecific) > 0 {
			start := len(props)
			for _, p := range ep.ProviderSpecific {
				props = append(props, xendpoint.ProviderSpecificProperty{Name: p.Name, Value: p.Value})
			}
			x.ProviderSpecific = xendpoint.ProviderSpecific(props[start:len(props):len(props)])
		}
		// Always a map, as external-dns's endpoint constructors make one:
		// some of its providers write into it (coredns keeps each
		// target's etcd key there).
		m := make(xendpoint.Labels, ep.Labels.Len())
		for k, v := range ep.Labels.All() {
			m[k] = v
		}
		x.Labels = m
		out = append(out, x)
	}
	return out
}

// ChangesToExternalDNS converts a zonesync change set; a nil one converts
// to an empty one.
func ChangesToExternalDNS(c *plan.Changes) *xplan.Changes {
	if c == nil {
		return &xplan.Changes{}
	}
	return &xplan.Changes{
		Create:    ToExternalDNS(c.Create),
		UpdateOld: ToExternalDNS(c.UpdateOld),
		UpdateNew: ToExternalDNS(c.UpdateNew),
		Delete:    ToExternalDNS(c.Delete),
	}
}

// ChangesFromExternalDNS converts an external-dns change set; a nil one
// converts to an empty one.
func ChangesFromExternalDNS(c *xplan.Changes) *plan.Changes {
	if c == nil {
		return &plan.Changes{}
	}
	return &plan.Changes{
		Create:    FromExternalDNS(c.Create),
		UpdateOld: FromExternalDNS(c.UpdateOld),
		UpdateNew: FromExternalDNS(c.UpdateNew),
		Delete:    FromExternalDNS(c.Delete),
	}
}
