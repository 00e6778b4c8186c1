package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"
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

// ErrUnsafePlan is matched (errors.Is) by an [*UnsafePlanError], the error
// of a plan refused by a [SafetyThreshold]. The root package re-exports it
// as zonesync.ErrUnsafePlan, the name a Reconciler's users match.
var ErrUnsafePlan = errors.New("unsafe plan")

// SafetyThreshold guards against mass changes, typically the deletion of
// every record when a source briefly looks empty: a plan whose changes would
// delete or update more than MaxChangeRatio of the owned records is refused
// once at least MinOwned records are owned. Zero values mean the defaults;
// the zero value is on.
//
// The limit holds in total and, when the owned records are counted per zone
// ([Owned.Zone]), in every zone on its own: a zone with at least MinOwned
// owned records that would lose more than MaxChangeRatio of them refuses
// the plan even when the total stays under the limit, so that a small zone
// is not emptied in the shadow of a large one.
//
// "Owned" records are the current records the plan is allowed to change
// (see [endpoint.Owners]); the caller counts them ([Owned]). Only updates
// that change what resolvers see count: a new target list, TTL or
// provider-specific property ([UpdateReason.ChangesData]); updates that only
// rewrite ownership labels (owner migration) or that upgrade the TXT
// ownership format do not.
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

// Owned counts the owned records a [SafetyThreshold] judges changes
// against: in total and, when Zone is set, per zone.
type Owned struct {
	// Total is the number of owned records.
	Total int
	// Zone returns the zone holding a DNS name, in the form of the keys of
	// PerZone, and whether there is one; nil skips the per-zone check.
	Zone func(name string) (string, bool)
	// PerZone counts the owned records of each zone.
	PerZone map[string]int
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

// Validate reports a MaxChangeRatio outside [0, 1] or a negative MinOwned.
func (s SafetyThreshold) Validate() error {
	if s.MaxChangeRatio < 0 || s.MaxChangeRatio > 1 {
		return fmt.Errorf("SafetyThreshold.MaxChangeRatio %v is outside [0, 1]", s.MaxChangeRatio)
	}
	if s.MinOwned < 0 {
		return fmt.Errorf("SafetyThreshold.MinOwned %d is negative", s.MinOwned)
	}
	return nil
}

// Check returns an *UnsafePlanError when changes exceed the threshold, in
// total or in a zone of owned, and nil otherwise (always nil when the
// threshold is disabled or changes is nil).
func (s SafetyThreshold) Check(changes *Changes, owned Owned) *UnsafePlanError {
	if s.Disabled || changes == nil {
		return nil
	}
	minOwned, ratio := s.minOwned(), s.ratio()
	exceeds := func(owned, changed int) bool {
		return owned >= minOwned && float64(changed) > ratio*float64(owned)
	}
	deletes := len(changes.Delete)
	updates := countDataUpdates(changes)
	var zones []ZoneChanges
	if owned.Zone != nil && deletes+updates > 0 {
		for _, zc := range perZone(changes, owned) {
			if exceeds(zc.Owned, zc.Deletes+zc.Updates) {
				zones = append(zones, *zc)
			}
		}
		slices.SortFunc(zones, func(a, b ZoneChanges) int { return strings.Compare(a.Zone, b.Zone) })
	}
	if !exceeds(owned.Total, deletes+updates) && len(zones) == 0 {
		return nil
	}
	return &UnsafePlanError{
		Owned: owned.Total, Deletes: deletes, Updates: updates,
		MaxChangeRatio: ratio, MinOwned: minOwned,
		Zones: zones,
	}
}

// perZone counts the deletes and data updates of changes in each zone of
// owned.
func perZone(changes *Changes, owned Owned) map[string]*ZoneChanges {
	per := map[string]*ZoneChanges{}
	at := func(name string) *ZoneChanges {
		zone, ok := owned.Zone(name)
		if !ok {
			return nil
		}
		zc := per[zone]
		if zc == nil {
			zc = &ZoneChanges{Zone: zone, Owned: owned.PerZone[zone]}
			per[zone] = zc
		}
		return zc
	}
	for _, ep := range changes.Delete {
		if ep == nil {
			continue
		}
		if zc := at(ep.DNSName); zc != nil {
			zc.Deletes++
		}
	}
	for i, newEp := range changes.UpdateNew {
		if !changesData(changes, i) {
			continue
		}
		name := ""
		if i < len(changes.UpdateOld) && changes.UpdateOld[i] != nil {
			name = changes.UpdateOld[i].DNSName
		} else if newEp != nil {
			name = newEp.DNSName
		}
		if zc := at(name); zc != nil {
			zc.Updates++
		}
	}
	return per
}

// countDataUpdates counts the update pairs of c that change record data
// ([UpdateReason.ChangesData]); unpaired entries count as changes.
func countDataUpdates(c *Changes) int {
	n := 0
	for i := range c.UpdateNew {
		if changesData(c, i) {
			n++
		}
	}
	return n
}

// changesData reports whether update pair i of c changes record data.
func changesData(c *Changes, i int) bool {
	newEp := c.UpdateNew[i]
	return i >= len(c.UpdateOld) || c.UpdateOld[i] == nil || newEp == nil || Why(c.UpdateOld[i], newEp).ChangesData()
}

// UnsafePlanError is the error of changes refused by a [SafetyThreshold].
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
	// Zones lists the zones that exceed the limits on their own, sorted by
	// name, each with its counts; empty when only the totals exceed them
	// or the owned records were not counted per zone.
	Zones []ZoneChanges
}

// ZoneChanges counts the owned records of one zone and the changes a plan
// would make to them, for [UnsafePlanError].
type ZoneChanges struct {
	// Zone is the zone's name, as [Owned.Zone] gives it.
	Zone string
	// Owned is the number of owned records in the zone; Deletes and
	// Updates count the plan's deletes and data updates there.
	Owned, Deletes, Updates int
}

// Error describes the refused plan with its counts, in total and for each
// zone that exceeds the limits.
func (e *UnsafePlanError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unsafe plan refused: it would delete %d and update %d of %d owned records",
		e.Deletes, e.Updates, e.Owned)
	for _, z := range e.Zones {
		fmt.Fprintf(&b, "; in zone %s it would delete %d and update %d of %d owned records", z.Zone, z.Deletes, z.Updates, z.Owned)
	}
	fmt.Fprintf(&b, ", more than the allowed %g%% (threshold applies from %d owned records, in total and in each zone)",
		e.MaxChangeRatio*100, e.MinOwned)
	return b.String()
}

// Is reports whether target is [ErrUnsafePlan].
func (e *UnsafePlanError) Is(target error) bool { return target == ErrUnsafePlan }
