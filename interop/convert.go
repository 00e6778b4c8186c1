package interop

import (
	"context"
	"fmt"
	"strconv"

	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xplan "sigs.k8s.io/external-dns/plan"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/externaldns"
)

// ToZonesync returns a zonesync copy of an external-dns endpoint; no slice
// or map is shared with ep. The conversion is provider/externaldns's, the
// one zonesync's adapter for external-dns providers uses.
func ToZonesync(ep *xendpoint.Endpoint) *endpoint.Endpoint {
	return externaldns.FromExternalDNS([]*xendpoint.Endpoint{ep})[0]
}

// FromZonesync returns an external-dns copy of a zonesync endpoint; no
// slice or map is shared with ep.
func FromZonesync(ep *endpoint.Endpoint) *xendpoint.Endpoint {
	return externaldns.ToExternalDNS([]*endpoint.Endpoint{ep})[0]
}

// ToZonesyncAll converts every endpoint with [ToZonesync].
func ToZonesyncAll(eps []*xendpoint.Endpoint) []*endpoint.Endpoint {
	return externaldns.FromExternalDNS(eps)
}

// FromZonesyncAll converts every endpoint with [FromZonesync].
func FromZonesyncAll(eps []*endpoint.Endpoint) []*xendpoint.Endpoint {
	return externaldns.ToExternalDNS(eps)
}

// ChangesToZonesync converts external-dns changes to zonesync changes.
func ChangesToZonesync(c *xplan.Changes) *plan.Changes {
	return externaldns.ChangesFromExternalDNS(c)
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
