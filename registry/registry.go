package registry

import (
	"context"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// Registry is a provider that also tracks ownership.
type Registry interface {
	// Records returns the provider's records with ownership labels attached
	// (endpoint.OwnerLabelKey and the labels stored with the ownership).
	// The slice and endpoints are the caller's; the Labels maps may be
	// shared between records and are read-only.
	Records(ctx context.Context) ([]*endpoint.Endpoint, error)
	// ApplyChanges applies changes and writes the matching ownership data.
	ApplyChanges(ctx context.Context, changes *plan.Changes) error
	// AdjustEndpoints passes desired endpoints to the provider's
	// AdjustEndpoints.
	AdjustEndpoints(eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error)
	// GetDomainFilter returns the provider's domain filter.
	GetDomainFilter() endpoint.DomainFilterInterface
	// OwnerID returns the id this registry writes as owner ("" = none).
	OwnerID() string
}
