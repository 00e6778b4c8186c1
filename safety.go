package zonesync

import (
	"errors"
	"fmt"

	"github.com/zonesync/zonesync/plan"
)

// Defaults of [SafetyThreshold].
const (
	// DefaultMaxChangeRatio is the share of owned records a plan may delete
	// or update before the safety threshold refuses it.
	DefaultMaxChangeRatio = 0.3
	// DefaultMinOwned is the number of owned records from which the safety
	// threshold applies.
	DefaultMinOwned = 10
)

// ErrUnsafePlan is matched (errors.Is) by the error [Reconciler.RunOnce]
// returns when the safety threshold refused a plan. The error is an
// [*UnsafePlanError] carrying the counts.
var ErrUnsafePlan = errors.New("zonesync: unsafe plan")

// SafetyThreshold guards against mass changes, typically the deletion of
// every record when a source briefly looks empty. It is on by default: a
// plan that would delete or update more than MaxChangeRatio of the owned
// records is refused once at least MinOwned records are owned. Zero values
// mean the defaults.
//
// "Owned" records are the current records the plan is allowed to change:
// those whose owner label is the registry's owner id, or, when the registry
// has no owner id (registry/noop), every current record. Only updates that
// change what resolvers see count: a new target list, TTL or provider-specific
// property; updates that only rewrite ownership labels (owner migration) or
// that upgrade the TXT ownership format (txt/force-update) do not.
type SafetyThreshold struct {
	// Disabled switches the check off.
	Disabled bool
	// MaxChangeRatio is the largest allowed (deletes+updates)/owned, in
	// (0, 1]. Zero means [DefaultMaxChangeRatio].
	MaxChangeRatio float64
	// MinOwned is the number of owned records from which the check
	// applies; with fewer owned records any plan is allowed. Zero means
	// [DefaultMinOwned].
	MinOwned int
}

func (s SafetyThreshold) ratio() float64 {
	if s.MaxChangeRatio == 0 {
		return DefaultMaxChangeRatio
	}
	return s.MaxChangeRatio
}

func (s SafetyThreshold) minOwned() int {
	if s.MinOwned == 0 {
		return DefaultMinOwned
	}
	return s.MinOwned
}

func (s SafetyThreshold) validate() error {
	if s.MaxChangeRatio < 0 || s.MaxChangeRatio > 1 {
		return fmt.Errorf("zonesync: SafetyThreshold.MaxChangeRatio %v is outside [0, 1]", s.MaxChangeRatio)
	}
	if s.MinOwned < 0 {
		return fmt.Errorf("zonesync: SafetyThreshold.MinOwned %d is negative", s.MinOwned)
	}
	return nil
}

// check returns an *UnsafePlanError when changes exceed the threshold, nil
// otherwise.
func (s SafetyThreshold) check(owned int, changes *plan.Changes) *UnsafePlanError {
	if s.Disabled || changes == nil {
		return nil
	}
	deletes := len(changes.Delete)
	updates := countDataUpdates(changes)
	minOwned, ratio := s.minOwned(), s.ratio()
	if owned < minOwned {
		return nil
	}
	if float64(deletes+updates) <= ratio*float64(owned) {
		return nil
	}
	return &UnsafePlanError{
		Owned: owned, Deletes: deletes, Updates: updates,
		MaxChangeRatio: ratio, MinOwned: minOwned,
	}
}

// countDataUpdates counts the update pairs that change record data (see
// [plan.UpdateReason.ChangesData]); unpaired entries count as changes.
func countDataUpdates(c *plan.Changes) int {
	n := 0
	for i, newEp := range c.UpdateNew {
		if i >= len(c.UpdateOld) || c.UpdateOld[i] == nil || newEp == nil || plan.Why(c.UpdateOld[i], newEp).ChangesData() {
			n++
		}
	}
	return n
}

// UnsafePlanError is the error of a plan refused by the [SafetyThreshold].
// errors.Is(err, ErrUnsafePlan) holds for it; use errors.As to read the
// counts.
type UnsafePlanError struct {
	// Owned is the number of records the plan was allowed to change.
	Owned int
	// Deletes and Updates count the refused changes (updates that change
	// record data only).
	Deletes, Updates int
	// MaxChangeRatio and MinOwned are the limits in force.
	MaxChangeRatio float64
	MinOwned       int
}

// Error describes the refused plan with its counts.
func (e *UnsafePlanError) Error() string {
	return fmt.Sprintf("zonesync: unsafe plan refused: it would delete %d and update %d of %d owned records, more than the allowed %g%% (threshold applies from %d owned records)",
		e.Deletes, e.Updates, e.Owned, e.MaxChangeRatio*100, e.MinOwned)
}

// Is reports whether target is [ErrUnsafePlan].
func (e *UnsafePlanError) Is(target error) bool { return target == ErrUnsafePlan }
