package plan_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/policy"
)

// A failed key that no record of ours carries (a connector endpoint without a
// resource label, an object never seen before) cannot be tied to records:
// the plan deletes nothing, and still updates and creates.
func TestPlanProtectedUnattributableKeyHoldsDeletes(t *testing.T) {
	current := []*endpoint.Endpoint{
		ep("gone.example.com", a, "192.0.2.2", "@owner=me"),
		ep("kept.example.com", a, "192.0.2.3", "@owner=me", "@resource=service/default/kept"),
		ep("changed.example.com", a, "192.0.2.4", "@owner=me"),
		// A foreign record carrying the key does not make it attributable.
		ep("foreign.example.com", a, "192.0.2.5", "@owner=other", "@resource=connector/127.0.0.1:8080/0"),
	}
	desired := []*endpoint.Endpoint{
		ep("changed.example.com", a, "192.0.2.9"),
		ep("new.example.com", a, "192.0.2.6"),
	}
	tests := []struct {
		name        string
		protected   map[string]error
		wantDeletes []string
		wantHeld    []string
	}{
		{
			name:        "no failure deletes",
			wantDeletes: []string{"gone.example.com/A", "kept.example.com/A"},
		},
		{
			name:        "attributable key protects its records only",
			protected:   map[string]error{"service/default/kept": errors.New("bad annotation")},
			wantDeletes: []string{"gone.example.com/A"},
			wantHeld:    []string{"delete kept.example.com/A source-error"},
		},
		{
			name:      "unattributable key holds every delete",
			protected: map[string]error{"connector/127.0.0.1:8080/0": errors.New("invalid name")},
			wantHeld:  []string{"delete gone.example.com/A source-error", "delete kept.example.com/A source-error"},
		},
		{
			name: "mixed",
			protected: map[string]error{
				"service/default/kept":       errors.New("bad annotation"),
				"connector/127.0.0.1:8080/0": errors.New("invalid name"),
			},
			wantHeld: []string{"delete gone.example.com/A source-error", "delete kept.example.com/A source-error"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := (&plan.Plan{OwnerID: "me", Current: current, Desired: desired, Protected: tt.protected, Policies: []plan.Policy{policy.Sync}}).Calculate()
			assert.Equal(t, tt.wantDeletes, keys(res.Changes.Delete))
			assert.Equal(t, []string{"changed.example.com/A"}, keys(res.Changes.UpdateNew), "updates go ahead")
			assert.Equal(t, []string{"new.example.com/A"}, keys(res.Changes.Create), "creates go ahead")
			assert.Equal(t, tt.wantHeld, skips(res))
			for _, s := range res.Skipped {
				if s.Endpoint.DNSName == "gone.example.com" {
					assert.Contains(t, s.Detail, `"connector/127.0.0.1:8080/0"`)
					assert.Contains(t, s.Detail, "nothing is deleted")
				}
			}
		})
	}
}

func TestPlanProtectedUnattributableDetailBounded(t *testing.T) {
	failed := map[string]error{}
	for i := range 50 {
		failed[fmt.Sprintf("connector/x/%02d", i)] = errors.New("bad")
	}
	res := (&plan.Plan{
		OwnerID:   "me",
		Current:   []*endpoint.Endpoint{ep("gone.example.com", a, "192.0.2.2", "@owner=me")},
		Protected: failed,
	}).Calculate()
	require.Len(t, res.Skipped, 1)
	assert.Contains(t, res.Skipped[0].Detail, `"connector/x/00", "connector/x/01", "connector/x/02" and 47 more`)
	assert.Empty(t, res.Changes.Delete)
}

func TestPlanOwnable(t *testing.T) {
	refuse := errors.New("no usable ownership TXT name for the apex")
	desired := []*endpoint.Endpoint{
		ep("example.com", a, "192.0.2.1"),
		ep("www.example.com", a, "192.0.2.2"),
		ep("upd.example.com", a, "192.0.2.9"),
	}
	current := []*endpoint.Endpoint{ep("upd.example.com", a, "192.0.2.3", "@owner=me")}
	var asked []string
	res := (&plan.Plan{
		OwnerID: "me", Current: current, Desired: desired,
		Ownable: func(e *endpoint.Endpoint) error {
			asked = append(asked, e.Key().String())
			if e.DNSName == "example.com" {
				return refuse
			}
			return nil
		},
	}).Calculate()
	assert.Equal(t, []string{"www.example.com/A"}, keys(res.Changes.Create))
	assert.Equal(t, []string{"upd.example.com/A"}, keys(res.Changes.UpdateNew), "only creates are asked about")
	assert.Equal(t, []string{"create example.com/A unownable"}, skips(res))
	assert.Equal(t, refuse.Error(), res.Skipped[0].Detail)
	assert.Same(t, desired[0], res.Skipped[0].Endpoint)
	assert.ElementsMatch(t, []string{"example.com/A", "www.example.com/A"}, asked)
	assert.Contains(t, res.String(), "unownable")

	// Creates a policy dropped are not asked about.
	asked = nil
	res = (&plan.Plan{
		OwnerID: "me", Desired: desired,
		Policies: []plan.Policy{plan.PolicyFunc(func(c *plan.Changes) *plan.Changes { return &plan.Changes{} })},
		Ownable:  func(e *endpoint.Endpoint) error { asked = append(asked, e.Key().String()); return nil },
	}).Calculate()
	assert.Empty(t, res.Changes.Create)
	assert.Empty(t, asked)
}
