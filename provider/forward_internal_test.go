package provider

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// plain is a provider with no optional capability; name tells instances
// apart.
type plain struct {
	BaseProvider
	name string
}

func (p *plain) Records(context.Context) ([]*endpoint.Endpoint, error) {
	return []*endpoint.Endpoint{endpoint.NewEndpoint("from."+p.name, endpoint.RecordTypeA, "192.0.2.1")}, nil
}

func (*plain) ApplyChanges(context.Context, *plan.Changes) error { return nil }

// full is a provider with every optional capability, answering with its
// name.
type full struct{ plain }

func (p *full) ListZones(context.Context) ([]string, error) {
	return []string{p.name + ".example"}, nil
}

// TestViewOfEveryCombination builds the view of every combination of
// capabilities: each has exactly its capabilities, answered by the
// provider that has them, and Provider's methods answered by the wrapper.
// A capability added without its views makes viewOf panic here.
func TestViewOfEveryCombination(t *testing.T) {
	ctx := context.Background()
	for want := capability(0); want <= capAll; want++ {
		outer := &plain{name: "outer"}
		inner := &full{plain{name: "inner"}}
		var v Provider
		require.NotPanics(t, func() { v = viewOf(want, outer, inner) }, "combination %b", want)
		assert.Equal(t, want, capabilitiesOf(v), "combination %b", want)
		eps, err := v.Records(ctx)
		require.NoError(t, err)
		assert.Equal(t, "from.outer", eps[0].DNSName)
		if want&capZoneLister != 0 {
			zones, err := v.(ZoneLister).ListZones(ctx)
			require.NoError(t, err)
			assert.Equal(t, []string{"inner.example"}, zones)
		}
		got, ok := As[*plain](v)
		require.True(t, ok)
		assert.Same(t, outer, got)
	}
}

// TestForward: the result has the capabilities of inner, answered by outer
// when outer overrides them; outer is returned as it is when it already
// has exactly those.
func TestForward(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name         string
		outer, inner Provider
		wantZones    []string // nil: no ZoneLister
		wantSame     bool     // the result is outer itself
	}{
		{name: "neither lists", outer: &plain{name: "outer"}, inner: &plain{name: "inner"}, wantSame: true},
		{name: "inner lists", outer: &plain{name: "outer"}, inner: &full{plain{name: "inner"}}, wantZones: []string{"inner.example"}},
		{name: "outer overrides", outer: &full{plain{name: "outer"}}, inner: &full{plain{name: "inner"}}, wantZones: []string{"outer.example"}, wantSame: true},
		{name: "outer lists, inner does not", outer: &full{plain{name: "outer"}}, inner: &plain{name: "inner"}},
		{name: "nil inner", outer: &full{plain{name: "outer"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Forward(tt.outer, tt.inner)
			if tt.wantSame {
				assert.Same(t, tt.outer, got)
			}
			zl, ok := got.(ZoneLister)
			require.Equal(t, tt.wantZones != nil, ok)
			if ok {
				zones, err := zl.ListZones(ctx)
				require.NoError(t, err)
				assert.Equal(t, tt.wantZones, zones)
			}
			eps, err := got.Records(ctx)
			require.NoError(t, err)
			assert.Equal(t, "from.outer", eps[0].DNSName)
		})
	}
	assert.Nil(t, Forward(nil, &plain{}))
}

// TestAs walks views and wrappers that unwrap.
func TestAs(t *testing.T) {
	base := &full{plain{name: "base"}}
	outer := &plain{name: "outer"}
	v := Forward(outer, base) // a view: outer has no ListZones
	got, ok := As[*plain](v)
	require.True(t, ok)
	assert.Same(t, outer, got)
	_, ok = As[*full](v)
	assert.False(t, ok, "a wrapper without Unwrap ends the walk")
	_, ok = As[*full](nil)
	assert.False(t, ok)
}
