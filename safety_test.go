package zonesync_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/source"
)

// ownedRecords returns n A records owned by owner: r0.example.com, r1...
func ownedRecords(n int, owner string) []*endpoint.Endpoint {
	eps := make([]*endpoint.Endpoint, n)
	for i := range eps {
		eps[i] = endpoint.NewEndpoint(fmt.Sprintf("r%d.example.com", i), endpoint.RecordTypeA, "192.0.2.1").
			WithLabel(endpoint.OwnerLabelKey, owner)
	}
	return eps
}

// desiredRecords returns the first keep records of ownedRecords, the first
// change of them with a new target.
func desiredRecords(keep, change int) []*endpoint.Endpoint {
	eps := make([]*endpoint.Endpoint, keep)
	for i := range eps {
		target := "192.0.2.1"
		if i < change {
			target = "192.0.2.2"
		}
		eps[i] = endpoint.NewEndpoint(fmt.Sprintf("r%d.example.com", i), endpoint.RecordTypeA, target)
	}
	return eps
}

func TestSafetyThreshold(t *testing.T) {
	tests := []struct {
		name        string
		owned       int
		foreign     int
		keep        int // desired = first keep owned records
		change      int // of which the first change get a new target
		safety      plan.SafetyThreshold
		wantUnsafe  *plan.UnsafePlanError
		wantDeletes int
		wantUpdates int
	}{
		{
			name: "source suddenly empty", owned: 20, keep: 0,
			wantUnsafe: &plan.UnsafePlanError{Owned: 20, Deletes: 20, MaxChangeRatio: 0.3, MinOwned: 10},
		},
		{
			name: "exactly 30% deleted is allowed", owned: 20, keep: 14,
			wantDeletes: 6,
		},
		{
			name: "just over 30% deleted is refused", owned: 20, keep: 13,
			wantUnsafe: &plan.UnsafePlanError{Owned: 20, Deletes: 7, MaxChangeRatio: 0.3, MinOwned: 10},
		},
		{
			name: "updates count too", owned: 20, keep: 16, change: 3,
			wantUnsafe: &plan.UnsafePlanError{Owned: 20, Deletes: 4, Updates: 3, MaxChangeRatio: 0.3, MinOwned: 10},
		},
		{
			name: "foreign records do not count as owned", owned: 10, foreign: 30, keep: 6,
			wantUnsafe: &plan.UnsafePlanError{Owned: 10, Deletes: 4, MaxChangeRatio: 0.3, MinOwned: 10},
		},
		{
			name: "below the minimum any plan passes", owned: 9, keep: 0,
			wantDeletes: 9,
		},
		{
			name: "custom minimum", owned: 9, keep: 0, safety: plan.SafetyThreshold{MinOwned: 5},
			wantUnsafe: &plan.UnsafePlanError{Owned: 9, Deletes: 9, MaxChangeRatio: 0.3, MinOwned: 5},
		},
		{
			name: "custom ratio", owned: 20, keep: 10, safety: plan.SafetyThreshold{MaxChangeRatio: 0.5},
			wantDeletes: 10,
		},
		{
			name: "disabled", owned: 50, keep: 0, safety: plan.SafetyThreshold{Disabled: true},
			wantDeletes: 50,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			records := append(ownedRecords(tt.owned, "me"), foreignRecords(tt.foreign)...)
			reg := &fakeRegistry{owner: "me", records: records}
			rec := &zonesync.Reconciler{
				Source:   source.NewStatic(desiredRecords(tt.keep, tt.change)...),
				Registry: reg,
				Safety:   tt.safety,
			}
			cyc, err := rec.RunOnce(context.Background())
			changes := cyc.Changes
			if tt.wantUnsafe != nil {
				require.ErrorIs(t, err, zonesync.ErrUnsafePlan)
				var unsafe *plan.UnsafePlanError
				require.True(t, errors.As(err, &unsafe))
				assert.Equal(t, tt.wantUnsafe, unsafe)
				assert.Contains(t, err.Error(), fmt.Sprintf("delete %d and update %d of %d owned records", unsafe.Deletes, unsafe.Updates, unsafe.Owned))
				assert.Zero(t, reg.appliedCount(), "nothing applied")
				require.NotNil(t, changes, "the refused changes are returned")
				assert.Len(t, changes.Delete, tt.wantUnsafe.Deletes)
				return
			}
			require.NoError(t, err)
			assert.Len(t, changes.Delete, tt.wantDeletes)
			assert.Len(t, changes.UpdateNew, tt.wantUpdates)
		})
	}
}

func foreignRecords(n int) []*endpoint.Endpoint {
	eps := make([]*endpoint.Endpoint, n)
	for i := range eps {
		eps[i] = endpoint.NewEndpoint(fmt.Sprintf("f%d.example.com", i), endpoint.RecordTypeA, "192.0.2.9").
			WithLabel(endpoint.OwnerLabelKey, "someone-else")
	}
	return eps
}

func TestSafetyThresholdValidation(t *testing.T) {
	tests := []struct {
		name    string
		safety  plan.SafetyThreshold
		wantErr string
	}{
		{name: "negative ratio", safety: plan.SafetyThreshold{MaxChangeRatio: -0.1}, wantErr: "MaxChangeRatio -0.1 is outside [0, 1]"},
		{name: "ratio above one", safety: plan.SafetyThreshold{MaxChangeRatio: 1.5}, wantErr: "MaxChangeRatio 1.5 is outside [0, 1]"},
		{name: "negative minimum", safety: plan.SafetyThreshold{MinOwned: -1}, wantErr: "MinOwned -1 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &zonesync.Reconciler{Source: source.NewStatic(), Registry: &fakeRegistry{}, Safety: tt.safety}
			_, err := rec.RunOnce(context.Background())
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestUnsafePlanErrorMatching(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &plan.UnsafePlanError{Owned: 10, Deletes: 5, MaxChangeRatio: 0.3, MinOwned: 10})
	assert.ErrorIs(t, err, zonesync.ErrUnsafePlan)
	assert.NotErrorIs(t, errors.New("other"), zonesync.ErrUnsafePlan)
	assert.EqualError(t, err, "wrapped: unsafe plan refused: it would delete 5 and update 0 of 10 owned records, more than the allowed 30% (threshold applies from 10 owned records, in total and in each zone)")
}
