package txt

import (
	"context"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
)

var (
	_ registry.OwnabilityChecker = (*Registry)(nil)
	_ provider.ZoneLister        = (*Registry)(nil)
)

// CheckOwnable reports whether the registry could write the ownership TXT
// record of ep if it were created: nil when it could, otherwise the error
// that [Registry.ApplyChanges] would give for the create (it wraps
// [ErrTXTName] when the TXT name has a label over 63 octets, or falls
// outside the provider's domain filter while ep is inside it, as
// "a-example.com" does for the apex "example.com" without a templated
// prefix). A Reconciler asks before applying and skips the creates it
// refuses ([registry.OwnabilityChecker]). ep is not modified. The
// provider's domain filter is the one the last Records call took (or, before
// any, taken once), not asked for again for every record.
func (r *Registry) CheckOwnable(ep *endpoint.Endpoint) error {
	if ep == nil {
		return fmt.Errorf("txt registry: %w: nil endpoint", ErrTXTName)
	}
	// The record as ApplyChanges would write it: canonical name, our owner.
	rec := ep.DeepCopy()
	rec.DNSName = endpoint.ToALabel(rec.DNSName)
	rec.Labels.Set(endpoint.OwnerLabelKey, r.ownerID)
	txt, err := r.ownershipTXT(rec)
	if err == nil {
		err = r.usableTXTName(r.domainFilter(), rec, txt.DNSName)
	}
	if err != nil {
		return fmt.Errorf("txt registry: the ownership of %s cannot be recorded: %w", rec.Key(), err)
	}
	return nil
}

// ListZones returns the zones of the provider under the registry, so that
// callers holding only the registry (a Reconciler applying its safety
// threshold per zone) see them through [provider.ZonesOf]. It returns an
// error matching [provider.ErrZonesUnsupported] when that provider does not
// list zones.
func (r *Registry) ListZones(ctx context.Context) ([]string, error) {
	zones, ok, err := provider.ZonesOf(ctx, r.provider)
	if err != nil {
		return nil, fmt.Errorf("txt registry: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("txt registry: %w", provider.ErrZonesUnsupported)
	}
	return zones, nil
}
