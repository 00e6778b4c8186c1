package interop

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xplan "sigs.k8s.io/external-dns/plan"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// ToZonesync returns a zonesync copy of an external-dns endpoint; no slice
// or map is shared with ep.
func ToZonesync(ep *xendpoint.Endpoint) *endpoint.Endpoint {
	out := &endpoint.Endpoint{
		DNSName:       ep.DNSName,
		Targets:       endpoint.Targets(slices.Clone([]string(ep.Targets))),
		RecordType:    ep.RecordType,
		SetIdentifier: ep.SetIdentifier,
		RecordTTL:     endpoint.TTL(ep.RecordTTL),
	}
	out.Labels = endpoint.LabelsFromMap(ep.Labels)
	for _, p := range ep.ProviderSpecific {
		out.ProviderSpecific = append(out.ProviderSpecific, endpoint.ProviderSpecificProperty{Name: p.Name, Value: p.Value})
	}
	return out
}

// FromZonesync returns an external-dns copy of a zonesync endpoint; no
// slice or map is shared with ep.
func FromZonesync(ep *endpoint.Endpoint) *xendpoint.Endpoint {
	out := &xendpoint.Endpoint{
		DNSName:       ep.DNSName,
		Targets:       xendpoint.Targets(slices.Clone([]string(ep.Targets))),
		RecordType:    ep.RecordType,
		SetIdentifier: ep.SetIdentifier,
		RecordTTL:     xendpoint.TTL(ep.RecordTTL),
	}
	if ep.Labels.Len() > 0 {
		out.Labels = xendpoint.Labels(maps.Collect(ep.Labels.All()))
	}
	for _, p := range ep.ProviderSpecific {
		out.ProviderSpecific = append(out.ProviderSpecific, xendpoint.ProviderSpecificProperty{Name: p.Name, Value: p.Value})
	}
	return out
}

// ToZonesyncAll converts every endpoint with [ToZonesync].
func ToZonesyncAll(eps []*xendpoint.Endpoint) []*endpoint.Endpoint {
	out := make([]*endpoint.Endpoint, len(eps))
	for i, ep := range eps {
		out[i] = ToZonesync(ep)
	}
	return out
}

// FromZonesyncAll converts every endpoint with [FromZonesync].
func FromZonesyncAll(eps []*endpoint.Endpoint) []*xendpoint.Endpoint {
	out := make([]*xendpoint.Endpoint, len(eps))
	for i, ep := range eps {
		out[i] = FromZonesync(ep)
	}
	return out
}

// ChangesToZonesync converts external-dns changes to zonesync changes.
func ChangesToZonesync(c *xplan.Changes) *plan.Changes {
	if c == nil {
		return &plan.Changes{}
	}
	return &plan.Changes{
		Create:    ToZonesyncAll(c.Create),
		UpdateOld: ToZonesyncAll(c.UpdateOld),
		UpdateNew: ToZonesyncAll(c.UpdateNew),
		Delete:    ToZonesyncAll(c.Delete),
	}
}

// recordReader is what providers and registries of either project offer
// for reading a zone.
type recordReader[E any] interface {
	Records(ctx context.Context) ([]E, error)
}

// ReadZonesync reads every record of an external-dns provider (or
// registry) and returns them as zonesync endpoints.
func ReadZonesync(ctx context.Context, p recordReader[*xendpoint.Endpoint]) ([]*endpoint.Endpoint, error) {
	eps, err := p.Records(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the external-dns records: %w", err)
	}
	return ToZonesyncAll(eps), nil
}

// ReadExternalDNS reads every record of a zonesync provider (or registry)
// and returns them as external-dns endpoints.
func ReadExternalDNS(ctx context.Context, p recordReader[*endpoint.Endpoint]) ([]*xendpoint.Endpoint, error) {
	eps, err := p.Records(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the zonesync records: %w", err)
	}
	return FromZonesyncAll(eps), nil
}

// Key identifies a record set across both libraries: the name in zonesync's
// canonical form (lower-case A-labels, no trailing dot), the set identifier
// and the type.
func Key(dnsName, setID, recordType string) string {
	return endpoint.ToALabel(dnsName) + " " + strconv.Quote(setID) + " " + recordType
}
