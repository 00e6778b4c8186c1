package provider

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// plain is a provider with no optional capability.
type plain struct {
	BaseProvider
	name string
}

func (*plain) Records(context.Context) ([]*endpoint.Endpoint, error) { return nil, nil }
func (*plain) ApplyChanges(context.Context, *plan.Changes) error     { return nil }

// lister is a provider that lists one zone, named after it.
type lister struct{ plain }

func (l *lister) ListZones(context.Context) ([]string, error) {
	return []string{l.name + ".example"}, nil
}

// wrapper wraps next and forwards its capabilities through Unwrap.
type wrapper struct {
	plain
	next Provider
}

func (w *wrapper) Unwrap() Provider { return w.next }

// overriding is a wrapper that answers ListZones itself.
type overriding struct{ wrapper }

func (o *overriding) ListZones(context.Context) ([]string, error) {
	return []string{o.name + ".example"}, nil
}

// adding is a wrapper that adds ListZones to a provider without it: it ends
// the chain.
type adding struct{ overriding }

func (*adding) Unwrap() Provider { return nil }

func wrap(name string, next Provider) *wrapper { return &wrapper{plain{name: name}, next} }

func TestAs(t *testing.T) {
	ctx := context.Background()
	base := &lister{plain{name: "base"}}
	none := &plain{name: "none"}
	tests := []struct {
		name      string
		p         Provider
		wantZones []string // nil: no ZoneLister
	}{
		{name: "innermost lists", p: base, wantZones: []string{"base.example"}},
		{name: "innermost does not list", p: none},
		{name: "two wrappers forward", p: wrap("outer", wrap("inner", base)), wantZones: []string{"base.example"}},
		{name: "two wrappers, nothing to forward", p: wrap("outer", wrap("inner", none))},
		{name: "outer wrapper overrides", p: &overriding{*wrap("outer", wrap("inner", base))}, wantZones: []string{"outer.example"}},
		{name: "inner wrapper overrides", p: wrap("outer", &overriding{*wrap("inner", base)}), wantZones: []string{"inner.example"}},
		{name: "an override cannot claim what the innermost lacks", p: wrap("outer", &overriding{*wrap("inner", none)})},
		{name: "a wrapper ending the chain adds it", p: wrap("outer", &adding{overriding{*wrap("inner", none)}}), wantZones: []string{"inner.example"}},
		{name: "a nil in the chain", p: wrap("outer", nil)},
		{name: "nil", p: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zl, ok := As[ZoneLister](tt.p)
			require.Equal(t, tt.wantZones != nil, ok)
			if ok {
				zones, err := zl.ListZones(ctx)
				require.NoError(t, err)
				assert.Equal(t, tt.wantZones, zones)
			}
			zones, ok, err := ZonesOf(ctx, tt.p)
			require.NoError(t, err)
			assert.Equal(t, tt.wantZones != nil, ok)
			assert.Equal(t, tt.wantZones, zones)
		})
	}
}

// TestAsConcreteType: a layer's own type is found only when it is the
// innermost layer; wrappers are reached by Unwrap.
func TestAsConcreteType(t *testing.T) {
	base := &plain{name: "base"}
	got, ok := As[*plain](wrap("outer", base))
	require.True(t, ok)
	assert.Same(t, base, got)
	_, ok = As[*wrapper](wrap("outer", base))
	assert.False(t, ok)
}
