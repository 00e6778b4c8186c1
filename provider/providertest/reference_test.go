package providertest_test

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

// refProvider is the smallest provider that keeps the whole contract, so
// that the suite's own tests do not depend on any real provider. Its
// flaws switch on deliberate deviations.
type refProvider struct {
	zone  string
	flaws refFlaws

	mu      sync.Mutex
	records map[refKey]*endpoint.Endpoint
}

type refFlaws struct {
	// upsert: a create of an existing record replaces it and an update of
	// a missing record creates it, as with Route 53 UPSERT.
	upsert bool
	// keepCase: names are stored and matched as given (only a trailing
	// dot is removed), not lower-cased.
	keepCase bool
}

type refKey struct{ name, recordType, setID string }

func newRef(zone string, flaws refFlaws) *refProvider {
	return &refProvider{zone: zone, flaws: flaws, records: map[refKey]*endpoint.Endpoint{}}
}

func newReference() provider.Provider { return newRef("example.org", refFlaws{}) }

func (p *refProvider) name(n string) string {
	n = strings.TrimSuffix(n, ".")
	if p.flaws.keepCase {
		return n
	}
	return strings.ToLower(n)
}

func (p *refProvider) key(e *endpoint.Endpoint) refKey {
	return refKey{name: p.name(e.DNSName), recordType: e.RecordType, setID: e.SetIdentifier}
}

func (p *refProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("ref: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*endpoint.Endpoint, 0, len(p.records))
	for _, e := range p.records {
		out = append(out, e.DeepCopy())
	}
	slices.SortFunc(out, endpoint.Compare)
	return out, nil
}

func (p *refProvider) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("ref: %w", err)
	}
	if len(c.UpdateOld) != len(c.UpdateNew) {
		return errors.New("ref: unpaired updates")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	next := maps.Clone(p.records)
	store := func(e *endpoint.Endpoint) {
		s := e.DeepCopy()
		s.DNSName = p.name(s.DNSName)
		s.Labels = endpoint.Labels{}
		s.ProviderSpecific = nil
		next[p.key(e)] = s
	}
	for _, e := range c.Delete {
		if _, ok := next[p.key(e)]; !ok {
			return fmt.Errorf("ref: delete %s: not found", e.Key())
		}
		delete(next, p.key(e))
	}
	for i, o := range c.UpdateOld {
		if _, ok := next[p.key(o)]; !ok && !p.flaws.upsert {
			return fmt.Errorf("ref: update %s: not found", o.Key())
		}
		delete(next, p.key(o))
		store(c.UpdateNew[i])
	}
	for _, e := range c.Create {
		n := p.name(e.DNSName)
		if n != p.zone && !strings.HasSuffix(strings.ToLower(n), "."+p.zone) {
			return fmt.Errorf("ref: create %s: outside zone %s", e.Key(), p.zone)
		}
		if _, ok := next[p.key(e)]; ok && !p.flaws.upsert {
			return fmt.Errorf("ref: create %s: exists", e.Key())
		}
		store(e)
	}
	p.records = next
	return nil
}

func (p *refProvider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return eps, nil
}

func (p *refProvider) GetDomainFilter() endpoint.DomainFilterInterface {
	return endpoint.NewDomainFilter([]string{p.zone})
}
