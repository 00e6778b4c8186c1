package registry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
)

// plain is a registry with no optional capability; its owner id tells
// instances apart.
type plain struct{ owner string }

func (*plain) Records(context.Context) ([]*endpoint.Endpoint, error) { return nil, nil }
func (*plain) ApplyChanges(context.Context, *plan.Changes) error     { return nil }
func (*plain) AdjustEndpoints(_ context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return eps, nil
}
func (*plain) GetDomainFilter() endpoint.DomainFilterInterface { return &endpoint.DomainFilter{} }
func (p *plain) OwnerID() string                               { return p.owner }

// full is a registry with every optional capability, each answer naming
// the instance.
type full struct{ plain }

func (f *full) Ownership() registry.Ownership         { return registry.Ownership{OwnerID: f.owner} }
func (f *full) CheckOwnable(*endpoint.Endpoint) error { return errors.New(f.owner) }
func (f *full) SettingsWarnings() []string            { return []string{f.owner} }
func (f *full) PendingRepairs() int                   { return len(f.owner) }
func (f *full) ListZones(context.Context) ([]string, error) {
	return []string{f.owner + ".example"}, nil
}

// wrapper wraps a registry and forwards its capabilities through Unwrap.
type wrapper struct {
	registry.Registry
	name string
}

func (w *wrapper) Unwrap() provider.Provider { return w.Registry }
func (w *wrapper) OwnerID() string           { return w.name }

// overriding is a wrapper that answers every capability itself, with its
// own name.
type overriding struct {
	full
	next registry.Registry
}

func (o *overriding) Unwrap() provider.Provider { return o.next }

func wrap(name string, r registry.Registry) *wrapper { return &wrapper{Registry: r, name: name} }
func newFull(owner string) *full                     { return &full{plain{owner: owner}} }
func override(name string, r registry.Registry) *overriding {
	return &overriding{full: full{plain{owner: name}}, next: r}
}

// answers asks r for each capability through registry.As; "" (or 0) for a
// capability it does not have.
func answers(t *testing.T, r registry.Registry) (own, check, warn string, rep int, zones []string) {
	t.Helper()
	if o, ok := registry.As[registry.OwnershipReporter](r); ok {
		own = o.Ownership().OwnerID
	}
	if c, ok := registry.As[registry.OwnabilityChecker](r); ok {
		check = c.CheckOwnable(nil).Error()
	}
	if w, ok := registry.As[registry.SettingsWarner](r); ok {
		warn = w.SettingsWarnings()[0]
	}
	if p, ok := registry.As[registry.Repairer](r); ok {
		rep = p.PendingRepairs()
	}
	if z, ok := registry.As[provider.ZoneLister](r); ok {
		var err error
		zones, err = z.ListZones(context.Background())
		require.NoError(t, err)
	}
	return own, check, warn, rep, zones
}

// TestAsThroughTwoWrappers: every capability of the innermost registry is
// found through two layers of wrapping, answered by the outermost layer
// that implements it; none is found when the innermost lacks it, even if a
// wrapper implements it.
func TestAsThroughTwoWrappers(t *testing.T) {
	tests := []struct {
		name       string
		r          registry.Registry
		own, check string
		warn       string
		rep        int
		zones      []string
	}{
		{name: "innermost has all", r: wrap("outer", wrap("inner", newFull("base"))),
			own: "base", check: "base", warn: "base", rep: 4, zones: []string{"base.example"}},
		{name: "innermost has none", r: wrap("outer", wrap("inner", &plain{owner: "base"}))},
		{name: "outer overrides", r: override("outer", wrap("inner", newFull("base"))),
			own: "outer", check: "outer", warn: "outer", rep: 5, zones: []string{"outer.example"}},
		{name: "inner overrides", r: wrap("outer", override("inner", newFull("base"))),
			own: "inner", check: "inner", warn: "inner", rep: 5, zones: []string{"inner.example"}},
		{name: "overrides of what the innermost lacks are hidden", r: override("outer", override("inner", &plain{owner: "base"}))},
		{name: "nil", r: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			own, check, warn, rep, zones := answers(t, tt.r)
			assert.Equal(t, tt.own, own, "OwnershipReporter")
			assert.Equal(t, tt.check, check, "OwnabilityChecker")
			assert.Equal(t, tt.warn, warn, "SettingsWarner")
			assert.Equal(t, tt.rep, rep, "Repairer")
			assert.Equal(t, tt.zones, zones, "provider.ZoneLister")
			if tt.r != nil {
				got, ok, err := provider.ZonesOf(context.Background(), tt.r)
				require.NoError(t, err)
				assert.Equal(t, tt.zones != nil, ok)
				assert.Equal(t, tt.zones, got)
			}
		})
	}
}
