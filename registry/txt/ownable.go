package txt

import (
	"context"
	"errors"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
)

var (
	_ registry.OwnabilityChecker = (*Registry)(nil)
	_ registry.DesiredChecker    = (*Registry)(nil)
	_ provider.ZoneLister        = (*Registry)(nil)
	_ provider.GuaranteeDeclarer = (*Registry)(nil)
)

// CheckDesired implements [registry.DesiredChecker]: it refuses a desired
// TXT record with a target this registry would read as one of its
// ownership records ([endpoint.CheckNotOwnershipText] with the registry's
// encryption key). [endpoint.Endpoint.ValidateDesired] refuses plain
// ownership text already; the key adds values encrypted with it, such as a
// copy of an ownership TXT value read from the zone, which would otherwise
// lend ownership to the records at the name it was copied to. ep is not
// modified.
//
// It also refuses a desired record that could not be written beside an
// ownership TXT record the last read found (see [Registry.Records]; a
// Reconciler reads the registry before it checks its desired endpoints): a
// TXT record whose record set is an ownership TXT, and a CNAME record at
// its name (unless that TXT is a legacy untyped one, which owns the records
// of its own name: the CNAME's own ownership record). The planner never sees ownership TXT records, so it would plan
// the create, and the provider would refuse it (together with the rest of
// its zone, on a provider that applies a zone's changes at once) or replace
// the ownership record. An ownership TXT of ours that the read found to
// delete as a repair does not refuse a TXT record: the create replaces it
// (see ApplyChanges).
func (r *Registry) CheckDesired(ep *endpoint.Endpoint) error {
	if ep == nil {
		return nil
	}
	if ep.RecordType == endpoint.RecordTypeTXT && len(r.key) > 0 {
		for i, t := range ep.Targets {
			if err := endpoint.CheckNotOwnershipText(t, r.key); err != nil {
				return fmt.Errorf("txt registry: invalid endpoint %s: targets[%d]: %w", ep.Key(), i, err)
			}
		}
	}
	if ep.RecordType != endpoint.RecordTypeTXT && ep.RecordType != endpoint.RecordTypeCNAME {
		return nil
	}
	r.mu.Lock()
	st := r.state
	r.mu.Unlock()
	if st == nil {
		return nil
	}
	name := lowerASCII(endpoint.CanonicalName(ep.DNSName))
	keys := [2]string{txtKey(name, ep.SetIdentifier), txtKey(name, "")}
	for _, key := range keys {
		if ep.RecordType == endpoint.RecordTypeTXT && key != keys[0] {
			break // a TXT record set is its name and set identifier
		}
		info, ok := st.lookup(key)
		if !ok || ep.RecordType == endpoint.RecordTypeTXT && st.repairing(key) {
			continue
		}
		if ep.RecordType == endpoint.RecordTypeCNAME {
			if owned, rtype, parsed := r.namer.parseTXTName(name); parsed && rtype == "" && owned == name {
				// A legacy untyped TXT owns the records of its own name:
				// the CNAME's own ownership record in a zone external-dns
				// v0.17 or earlier wrote, not something in its way.
				continue
			}
		}
		owner := "another owner"
		if info.mine {
			owner = "this registry"
		}
		what := "its record set is an ownership TXT record of " + owner + ", which a TXT record there would replace"
		if ep.RecordType == endpoint.RecordTypeCNAME {
			what = "its name holds an ownership TXT record of " + owner + ", and a CNAME cannot share a name with other records"
		}
		return fmt.Errorf("txt registry: invalid endpoint %s: %w: %s", ep.Key(), ErrOwnershipTXTInTheWay, what)
	}
	return nil
}

// ErrOwnershipTXTInTheWay is wrapped by the error of
// [Registry.CheckDesired] for a desired record that cannot be written
// beside an ownership TXT record.
var ErrOwnershipTXTInTheWay = errors.New("an ownership TXT record is in the way")

// Guarantees implements [provider.GuaranteeDeclarer]: the guarantees of the
// provider under the registry ([provider.GuaranteesOf]), so that a
// Reconciler holding only the registry enforces them.
func (r *Registry) Guarantees() provider.Guarantees {
	return provider.GuaranteesOf(r.provider)
}

// ZoneGuarantees implements [provider.ZoneGuaranteeDeclarer]: the
// per-zone guarantees of the provider under the registry
// ([provider.ZoneGuaranteesOf]), nil when it has none.
func (r *Registry) ZoneGuarantees() map[string]provider.Guarantees {
	return provider.ZoneGuaranteesOf(r.provider)
}

// CheckOwnable reports whether the registry could write the ownership TXT
// record of ep if it were created: nil when it could, otherwise the error
// that [Registry.ApplyChanges] would give for the create (it wraps
// [ErrTXTName] when the TXT name has a label over 63 octets, or falls
// outside the provider's domain filter while ep is inside it, as
// "a-example.com" does for the apex "example.com" without a templated
// prefix, or the last Records call found a TXT record that is not an
// ownership record, or a CNAME record, at the TXT's name). A Reconciler asks before applying and skips the creates it
// refuses ([registry.OwnabilityChecker]). ep is not modified. The
// provider's domain filter is the one the last Records call took (or, before
// any, taken once), not asked for again for every record.
func (r *Registry) CheckOwnable(ep *endpoint.Endpoint) error {
	if ep == nil {
		return fmt.Errorf("txt registry: %w: nil endpoint", ErrTXTName)
	}
	// The record as ApplyChanges would write it: canonical name, our owner.
	rec := ep.DeepCopy()
	rec.DNSName = endpoint.CanonicalName(rec.DNSName)
	rec.Labels.Set(endpoint.OwnerLabelKey, r.ownerID)
	txt, err := r.ownershipTXT(rec)
	if err == nil {
		err = r.usableTXTName(r.domainFilter(), rec, txt.DNSName)
	}
	if err == nil && r.shared.covers(sharedKeyOf(rec).DNSName, rec.RecordType) {
		err = r.sharedOwnable(rec)
	}
	if err == nil {
		r.mu.Lock()
		st := r.state
		r.mu.Unlock()
		err = txtInTheWay(st, txt)
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
