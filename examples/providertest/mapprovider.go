package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// mapProvider is a tiny DNS provider for one zone that keeps its records in
// a map — the kind of provider this example proves with the conformance
// suite. A real provider would call a DNS API where this one edits the map.
type mapProvider struct {
	zone string

	mu      sync.RWMutex
	records map[recordKey]*endpoint.Endpoint
}

// canonicalName returns the form in which zonesync exchanges names: lower
// case, without a trailing dot. Names arrive with internationalised labels
// already in A-label (punycode) form, and are stored and returned that way.
func canonicalName(name string) string {
	return strings.ToLower(strings.TrimSuffix(name, "."))
}

// recordKey identifies a record set; the name is canonical (lower case, no
// trailing dot).
type recordKey struct{ name, recordType, setIdentifier string }

var _ provider.Provider = (*mapProvider)(nil)

// errNotFound and errExists classify failed changes.
var (
	errNotFound = errors.New("record does not exist")
	errExists   = errors.New("record already exists")
)

func newMapProvider(zone string) *mapProvider {
	return &mapProvider{zone: canonicalName(zone), records: map[recordKey]*endpoint.Endpoint{}}
}

func keyOf(ep *endpoint.Endpoint) recordKey {
	return recordKey{name: canonicalName(ep.DNSName), recordType: ep.RecordType, setIdentifier: ep.SetIdentifier}
}

// Records returns copies of all records, sorted by (DNSName, SetIdentifier,
// RecordType).
func (p *mapProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mapprovider: listing zone %s: %w", p.zone, err)
	}
	p.mu.RLock()
	out := make([]*endpoint.Endpoint, 0, len(p.records))
	for _, ep := range p.records {
		out = append(out, ep.DeepCopy())
	}
	p.mu.RUnlock()
	slices.SortFunc(out, endpoint.Compare)
	return out, nil
}

// ApplyChanges applies all changes or none: they are checked and applied on
// a copy of the zone, which replaces the zone only when every change
// succeeded.
func (p *mapProvider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mapprovider: applying changes to zone %s: %w", p.zone, err)
	}
	if changes == nil {
		return nil
	}
	if len(changes.UpdateOld) != len(changes.UpdateNew) {
		return fmt.Errorf("mapprovider: %d old and %d new update records do not pair up", len(changes.UpdateOld), len(changes.UpdateNew))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	next := maps.Clone(p.records)
	var errs []error
	for _, ep := range changes.Delete {
		if _, ok := next[keyOf(ep)]; !ok {
			errs = append(errs, fmt.Errorf("delete %s: %w", ep.Key(), errNotFound))
			continue
		}
		delete(next, keyOf(ep))
	}
	for i, oldEp := range changes.UpdateOld {
		newEp := changes.UpdateNew[i]
		if keyOf(oldEp) != keyOf(newEp) {
			errs = append(errs, fmt.Errorf("update %s: new record %s has another name, type or set identifier", oldEp.Key(), newEp.Key()))
			continue
		}
		if _, ok := next[keyOf(oldEp)]; !ok {
			errs = append(errs, fmt.Errorf("update %s: %w", oldEp.Key(), errNotFound))
			continue
		}
		next[keyOf(newEp)] = p.stored(newEp)
	}
	for _, ep := range changes.Create {
		if err := p.inZone(ep); err != nil {
			errs = append(errs, fmt.Errorf("create %s: %w", ep.Key(), err))
			continue
		}
		if _, ok := next[keyOf(ep)]; ok {
			errs = append(errs, fmt.Errorf("create %s: %w", ep.Key(), errExists))
			continue
		}
		next[keyOf(ep)] = p.stored(ep)
	}
	if len(errs) > 0 {
		return fmt.Errorf("mapprovider: zone %s unchanged: %w", p.zone, errors.Join(errs...))
	}
	p.records = next
	return nil
}

// stored returns the copy of ep the provider keeps: canonical name, no
// labels (a DNS server stores none; the registry keeps ownership in TXT
// records).
func (p *mapProvider) stored(ep *endpoint.Endpoint) *endpoint.Endpoint {
	c := ep.DeepCopy()
	c.DNSName = canonicalName(c.DNSName)
	c.Labels = endpoint.Labels{}
	return c
}

func (p *mapProvider) inZone(ep *endpoint.Endpoint) error {
	name := canonicalName(ep.DNSName)
	if name != p.zone && !strings.HasSuffix(name, "."+p.zone) {
		return fmt.Errorf("name %q is outside zone %s", ep.DNSName, p.zone)
	}
	return nil
}

// AdjustEndpoints returns eps unchanged: this provider stores what it is
// given.
func (p *mapProvider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return eps, nil
}

// GetDomainFilter matches the zone and the names below it.
func (p *mapProvider) GetDomainFilter() endpoint.DomainFilterInterface {
	return endpoint.NewDomainFilter([]string{p.zone})
}
