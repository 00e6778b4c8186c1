package noop

import (
	"context"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
)

// Registry passes everything through to a provider and records no
// ownership. Create one with [New]. It does not implement
// [registry.OwnershipReporter] (see the package documentation).
type Registry struct {
	provider provider.Provider
}

var _ registry.Registry = (*Registry)(nil)

// New returns a registry over p, which must not be nil.
func New(p provider.Provider) *Registry {
	return &Registry{provider: p}
}

// Records returns the provider's records unchanged.
func (r *Registry) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return r.provider.Records(ctx)
}

// ApplyChanges passes changes to the provider unchanged.
func (r *Registry) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	return r.provider.ApplyChanges(ctx, changes)
}

// AdjustEndpoints passes eps to the provider's AdjustEndpoints.
func (r *Registry) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return r.provider.AdjustEndpoints(ctx, eps)
}

// GetDomainFilter returns the provider's domain filter.
func (r *Registry) GetDomainFilter() endpoint.DomainFilterInterface {
	return r.provider.GetDomainFilter()
}

// OwnerID returns "": this registry owns nothing.
func (r *Registry) OwnerID() string { return "" }
