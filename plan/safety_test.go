package plan_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

func TestSafetyIgnoresLabelOnlyUpdates(t *testing.T) {
	var c plan.Changes
	for range 20 {
		old := endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1").
			WithProviderSpecific(endpoint.ProviderSpecificForceUpdate, "true")
		c.UpdateOld = append(c.UpdateOld, old)
		c.UpdateNew = append(c.UpdateNew, endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1"))
	}
	assert.Nil(t, plan.SafetyThreshold{}.Check(&c, plan.Owned{Total: 20}), "upgrading the ownership format of every record is safe")
	c.Delete = make([]*endpoint.Endpoint, 7)
	assert.ErrorIs(t, plan.SafetyThreshold{}.Check(&c, plan.Owned{Total: 20}), plan.ErrUnsafePlan)
}

// zoneOf is a test stand-in for a zone matcher: the last two labels.
func zoneOf(name string) (string, bool) {
	parts := strings.Split(name, ".")
	if len(parts) < 2 {
		return "", false
	}
	return strings.Join(parts[len(parts)-2:], "."), true
}

func TestSafetyThresholdCheck(t *testing.T) {
	deletes := func(zone string, n int) []*endpoint.Endpoint {
		var out []*endpoint.Endpoint
		for i := range n {
			out = append(out, endpoint.NewEndpoint(fmt.Sprintf("r%d.%s", i, zone), endpoint.RecordTypeA, "192.0.2.1"))
		}
		return out
	}
	perZone := plan.Owned{Total: 120, Zone: zoneOf, PerZone: map[string]int{"big.example": 100, "small.example": 20}}
	tests := []struct {
		name    string
		safety  plan.SafetyThreshold
		changes *plan.Changes
		owned   plan.Owned
		want    *plan.UnsafePlanError
	}{
		{name: "nil changes", changes: nil, owned: plan.Owned{Total: 20}},
		{name: "under the ratio", changes: &plan.Changes{Delete: deletes("example.org", 6)}, owned: plan.Owned{Total: 20}},
		{name: "over the ratio", changes: &plan.Changes{Delete: deletes("example.org", 7)}, owned: plan.Owned{Total: 20},
			want: &plan.UnsafePlanError{Owned: 20, Deletes: 7, MaxChangeRatio: 0.3, MinOwned: 10}},
		{name: "under the minimum", changes: &plan.Changes{Delete: deletes("example.org", 9)}, owned: plan.Owned{Total: 9}},
		{name: "disabled", safety: plan.SafetyThreshold{Disabled: true}, changes: &plan.Changes{Delete: deletes("example.org", 20)}, owned: plan.Owned{Total: 20}},
		{name: "small zone emptied in the shadow of a big one", changes: &plan.Changes{Delete: deletes("small.example", 20)}, owned: perZone,
			want: &plan.UnsafePlanError{Owned: 120, Deletes: 20, MaxChangeRatio: 0.3, MinOwned: 10,
				Zones: []plan.ZoneChanges{{Zone: "small.example", Owned: 20, Deletes: 20}}}},
		{name: "without zones only the total counts", changes: &plan.Changes{Delete: deletes("small.example", 20)}, owned: plan.Owned{Total: 120}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.safety.Check(tt.changes, tt.owned)
			assert.Equal(t, tt.want, got)
			if tt.want != nil {
				require.ErrorIs(t, fmt.Errorf("wrapped: %w", got), plan.ErrUnsafePlan)
			}
		})
	}
}

func TestSafetyThresholdValidate(t *testing.T) {
	assert.NoError(t, plan.SafetyThreshold{}.Validate())
	assert.ErrorContains(t, plan.SafetyThreshold{MaxChangeRatio: 1.5}.Validate(), "MaxChangeRatio 1.5 is outside [0, 1]")
	assert.ErrorContains(t, plan.SafetyThreshold{MinOwned: -1}.Validate(), "MinOwned -1 is negative")
	var unsafe *plan.UnsafePlanError
	require.ErrorAs(t, fmt.Errorf("x: %w", &plan.UnsafePlanError{}), &unsafe)
	assert.NotErrorIs(t, errors.New("other"), plan.ErrUnsafePlan)
}
