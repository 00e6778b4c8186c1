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

// Records returns the provider's records, each with the ownership verdict
// of a registry without an owner id: [endpoint.OwnedByUs] (the rule of
// [endpoint.Owners.Verdict] with no OwnerID). Nothing else is changed.
func (r *Registry) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	recs, err := r.provider.Records(ctx)
	if err != nil {
		return nil, err
	}
	var owners endpoint.Owners // no owner id: every record is ours
	for _, rec := range recs {
		if rec != nil {
			rec.SetOwnership(owners.Verdict(rec))
		}
	}
	return recs, nil
}

var _ provider.GuaranteeDeclarer = (*Registry)(nil)

// Guarantees implements [provider.GuaranteeDeclarer]: the guarantees of the
// provider ([provider.GuaranteesOf]).
func (r *Registry) Guarantees() provider.Guarantees {
	return provider.GuaranteesOf(r.provider)
}

// ZoneGuarantees implements [provider.ZoneGuaranteeDeclarer]: the
// per-zone guarantees of the provider under the registry
// ([provider.ZoneGuaranteesOf]), nil when it has none.
func (r *Registry) ZoneGuarantees() map[string]provider.Guarantees {
	return provider.ZoneGuaranteesOf(r.provider)
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
