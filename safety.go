package zonesync

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
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
// The limit holds in total and, when the registry lists zones (it, or the
// provider under it, implements [provider.ZoneLister], as the TXT registry
// forwards it), in every zone on its own: a zone with at least MinOwned
// owned records that would lose more than MaxChangeRatio of them refuses
// the plan even when the total stays under the limit, so that a small zone
// is not emptied in the shadow of a large one. Records are assigned to the
// most specific zone holding their name ([provider.ZoneMatcher]).
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

// check returns an *UnsafePlanError when changes exceed the threshold, in
// total or in a zone of the tally, nil otherwise.
func (s SafetyThreshold) check(owned ownedTally, changes *plan.Changes) *UnsafePlanError {
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
	if owned.matcher != nil && deletes+updates > 0 {
		per := map[string]*ZoneChanges{}
		at := func(name string) *ZoneChanges {
			zone, ok := owned.matcher.Zone(name)
			if !ok {
				return nil
			}
			zc := per[zone]
			if zc == nil {
				zc = &ZoneChanges{Zone: zone, Owned: owned.zones[zone]}
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
		for _, zc := range per {
			if exceeds(zc.Owned, zc.Deletes+zc.Updates) {
				zones = append(zones, *zc)
			}
		}
		slices.SortFunc(zones, func(a, b ZoneChanges) int { return strings.Compare(a.Zone, b.Zone) })
	}
	if !exceeds(owned.total, deletes+updates) && len(zones) == 0 {
		return nil
	}
	return &UnsafePlanError{
		Owned: owned.total, Deletes: deletes, Updates: updates,
		MaxChangeRatio: ratio, MinOwned: minOwned,
		Zones: zones,
	}
}

// ownedTally counts the owned records (see [SafetyThreshold]) in total and,
// with a zone matcher, per zone.
type ownedTally struct {
	total   int
	matcher *provider.ZoneMatcher // nil: the registry lists no zones
	zones   map[string]int        // owned records per normalised zone name
}

// tallyOwned counts the current records the plan may change: managed type,
// matched by the filter, and owned by the owner id or the old owner id
// (every record when there is no owner id); per zone too when m is not nil.
func tallyOwned(current []*endpoint.Endpoint, own registry.Ownership, filter endpoint.DomainFilterInterface, m *provider.ZoneMatcher) ownedTally {
	t := ownedTally{matcher: m}
	if m != nil {
		t.zones = map[string]int{}
	}
	for _, ep := range current {
		if ep == nil || !slices.ContainsFunc(own.ManagedRecordTypes, func(t string) bool { return strings.EqualFold(t, ep.RecordType) }) {
			continue
		}
		if _, ok := ep.Labels.Get(endpoint.OwnedRecordLabelKey); ok {
			continue
		}
		if own.OwnerID != "" && !ep.IsOwnedBy(own.OwnerID) && (own.OldOwnerID == "" || !ep.IsOwnedBy(own.OldOwnerID)) {
			continue
		}
		if !filter.Match(ep.DNSName) {
			continue
		}
		t.total++
		if m != nil {
			if zone, ok := m.Zone(ep.DNSName); ok {
				t.zones[zone]++
			}
		}
	}
	return t
}

// countDataUpdates counts the update pairs that change record data (see
// [plan.UpdateReason.ChangesData]); unpaired entries count as changes.
func countDataUpdates(c *plan.Changes) int {
	n := 0
	for i := range c.UpdateNew {
		if changesData(c, i) {
			n++
		}
	}
	return n
}

// changesData reports whether update pair i of c changes record data.
func changesData(c *plan.Changes, i int) bool {
	newEp := c.UpdateNew[i]
	return i >= len(c.UpdateOld) || c.UpdateOld[i] == nil || newEp == nil || plan.Why(c.UpdateOld[i], newEp).ChangesData()
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
	// Zones lists the zones that exceed the limits on their own, sorted by
	// name, each with its counts; empty when only the totals exceed them
	// or the registry lists no zones.
	Zones []ZoneChanges
}

// ZoneChanges counts the owned records of one zone and the changes a plan
// would make to them, for [UnsafePlanError].
type ZoneChanges struct {
	// Zone is the zone's normalised name ([endpoint.NormalizeDNSName]).
	Zone string
	// Owned is the number of owned records in the zone; Deletes and
	// Updates count the plan's deletes and data updates there.
	Owned, Deletes, Updates int
}

// Error describes the refused plan with its counts, in total and for each
// zone that exceeds the limits.
func (e *UnsafePlanError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "zonesync: unsafe plan refused: it would delete %d and update %d of %d owned records",
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
