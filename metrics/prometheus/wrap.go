package prometheus

import (
	"context"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/source"
)

// Registry wraps r so that its failed Records and ApplyChanges calls count
// in external_dns_registry_errors_total. The wrapper has the optional
// capabilities of r ([registry.OwnershipReporter],
// [registry.OwnabilityChecker], [registry.SettingsWarner],
// [registry.Repairer]; see [registry.As]), answered by r.
func (m *Metrics) Registry(r registry.Registry) registry.Registry {
	return &countingRegistry{Registry: r, m: m}
}

type countingRegistry struct {
	registry.Registry
	m *Metrics
}

// Unwrap returns r, for [registry.As].
func (r *countingRegistry) Unwrap() provider.Provider { return r.Registry }

func (r *countingRegistry) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := r.Registry.Records(ctx)
	if err != nil {
		r.m.registryErrors.Inc()
	}
	return eps, err
}

func (r *countingRegistry) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	err := r.Registry.ApplyChanges(ctx, changes)
	if err != nil {
		r.m.registryErrors.Inc()
	}
	return err
}

// Source wraps s so that its failed Endpoints calls count in
// external_dns_source_errors_total. A partial error (some objects could not
// be read) counts as an error too. The wrapper reports s's readiness
// ([source.HasSynced]) and passes event handlers through.
func (m *Metrics) Source(s source.Source) source.Source {
	return &countingSource{Source: s, m: m}
}

type countingSource struct {
	source.Source
	m *Metrics
}

var _ source.Syncer = (*countingSource)(nil)

func (s *countingSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := s.Source.Endpoints(ctx)
	if err != nil {
		s.m.sourceErrors.Inc()
	}
	return eps, err
}

func (s *countingSource) HasSynced() bool { return source.HasSynced(s.Source) }

// WebhookProvider wraps p, typically a webhook client, so that its calls
// count in the external_dns_webhook_provider_* metrics: requests and errors
// of Records, ApplyChanges and AdjustEndpoints. These are gauges that only
// grow, as in external-dns.
//
// The wrapper has the optional capabilities of p ([provider.ZoneLister],
// ...; see [provider.As]), answered by p and not counted.
func (m *Metrics) WebhookProvider(p provider.Provider) provider.Provider {
	return &countingProvider{Provider: p, m: m}
}

type countingProvider struct {
	provider.Provider
	m *Metrics
}

// Unwrap returns p, for [provider.As].
func (p *countingProvider) Unwrap() provider.Provider { return p.Provider }

func (p *countingProvider) count(method string, err error) {
	g := p.m.webhook[method]
	g[0].Inc()
	if err != nil {
		g[1].Inc()
	}
}

func (p *countingProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := p.Provider.Records(ctx)
	p.count(methodRecords, err)
	return eps, err
}

func (p *countingProvider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	err := p.Provider.ApplyChanges(ctx, changes)
	p.count(methodApplyChanges, err)
	return err
}

func (p *countingProvider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	out, err := p.Provider.AdjustEndpoints(ctx, eps)
	p.count(methodAdjustEndpoints, err)
	return out, err
}
