package registry

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// plain is a registry with no optional capability; its owner id tells
// instances apart.
type plain struct{ owner string }

func (*plain) Records(context.Context) ([]*endpoint.Endpoint, error) { return nil, nil }
func (*plain) ApplyChanges(context.Context, *plan.Changes) error     { return nil }
func (*plain) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return eps, nil
}
func (*plain) GetDomainFilter() endpoint.DomainFilterInterface { return &endpoint.DomainFilter{} }
func (p *plain) OwnerID() string                               { return p.owner }

// full is a registry with every optional capability, each answer naming
// the instance.
type full struct{ plain }

func (f *full) Ownership() Ownership                  { return Ownership{OwnerID: f.owner} }
func (f *full) CheckOwnable(*endpoint.Endpoint) error { return errors.New(f.owner) }
func (f *full) SettingsWarnings() []string            { return []string{f.owner} }
func (f *full) PendingRepairs() int                   { return len(f.owner) }
func newFull(owner string) *full                      { return &full{plain{owner: owner}} }
func answers(r Registry) (own, check, warn string, rep int) {
	if o, ok := r.(OwnershipReporter); ok {
		own = o.Ownership().OwnerID
	}
	if c, ok := r.(OwnabilityChecker); ok {
		check = c.CheckOwnable(nil).Error()
	}
	if w, ok := r.(SettingsWarner); ok {
		warn = w.SettingsWarnings()[0]
	}
	if p, ok := r.(Repairer); ok {
		rep = p.PendingRepairs()
	}
	return own, check, warn, rep
}

// TestViewOfEveryCombination builds the view of every combination of
// capabilities: each has exactly its capabilities, answered by the
// registry that has them, and Registry's methods answered by the wrapper.
// A capability added without its views makes viewOf panic here.
func TestViewOfEveryCombination(t *testing.T) {
	for want := capability(0); want <= capAll; want++ {
		outer, inner := &plain{owner: "outer"}, newFull("inner")
		var v Registry
		require.NotPanics(t, func() { v = viewOf(want, outer, inner) }, "combination %b", want)
		assert.Equal(t, want, capabilitiesOf(v), "combination %b", want)
		assert.Equal(t, "outer", v.OwnerID())
		own, check, warn, rep := answers(v)
		if want&capOwnershipReporter != 0 {
			assert.Equal(t, "inner", own)
		}
		if want&capOwnabilityChecker != 0 {
			assert.Equal(t, "inner", check)
		}
		if want&capSettingsWarner != 0 {
			assert.Equal(t, "inner", warn)
		}
		if want&capRepairer != 0 {
			assert.Equal(t, len("inner"), rep)
		}
		u, ok := v.(interface{ Unwrap() Registry })
		require.True(t, ok)
		assert.Same(t, outer, u.Unwrap())
	}
}

// onlyOwnership has one capability.
type onlyOwnership struct{ plain }

func (o *onlyOwnership) Ownership() Ownership { return Ownership{OwnerID: "only-" + o.owner} }

// overridesRepairs is a wrapper that answers PendingRepairs itself.
type overridesRepairs struct{ plain }

func (*overridesRepairs) PendingRepairs() int { return 42 }

// TestForward: the result has exactly inner's capabilities, answered by
// outer where outer overrides them.
func TestForward(t *testing.T) {
	tests := []struct {
		name         string
		outer, inner Registry
		want         capability
		own, check   string
		rep          int
		same         bool
	}{
		{name: "none", outer: &plain{owner: "outer"}, inner: &plain{owner: "inner"}, same: true},
		{name: "all", outer: &plain{owner: "outer"}, inner: newFull("inner"), want: capAll, own: "inner", check: "inner", rep: 5},
		{name: "one", outer: &plain{owner: "outer"}, inner: &onlyOwnership{plain{owner: "inner"}}, want: capOwnershipReporter, own: "only-inner"},
		{name: "override", outer: &overridesRepairs{plain{owner: "outer"}}, inner: newFull("inner"), want: capAll, own: "inner", check: "inner", rep: 42},
		{name: "override hidden", outer: &overridesRepairs{plain{owner: "outer"}}, inner: &plain{owner: "inner"}},
		{name: "nil inner", outer: newFull("outer")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Forward(tt.outer, tt.inner)
			if tt.same {
				assert.Same(t, tt.outer, got)
			}
			assert.Equal(t, tt.want, capabilitiesOf(got))
			own, check, _, rep := answers(got)
			assert.Equal(t, tt.own, own)
			assert.Equal(t, tt.check, check)
			assert.Equal(t, tt.rep, rep)
			assert.Equal(t, "outer", got.OwnerID())
		})
	}
	assert.Nil(t, Forward(nil, newFull("inner")))
}
