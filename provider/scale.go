package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// ZoneLister is the optional capability of a [Provider] that can tell which
// zones it holds, in the spirit of libdns's ZoneLister. Callers that see it
// (the TXT registry, the wrappers of this module) apply changes one zone at
// a time, so that a zone that fails does not stop the others.
//
// ListZones returns the zone names (with or without a trailing dot, in
// any case, Unicode or A-labels; [ZonesOf] gives them in one form). A
// wrapper has it exactly when the provider it wraps does (see [As]). A
// provider that only knows at run time whether it can
// list zones (the webhook client, before its server named any) fails with
// an error matching [ErrZonesUnsupported]; use [ZonesOf] rather than a type
// assertion to honour both.
type ZoneLister interface {
	ListZones(ctx context.Context) ([]string, error)
}

// ErrZonesUnsupported is returned (wrapped) by the ListZones method of a
// provider that implements [ZoneLister] but cannot list zones this time, or
// of a wrapper that implements it whatever it wraps when it is reached by a
// type assertion rather than through [As].
var ErrZonesUnsupported = errors.New("provider does not list zones")

// ZonesOf returns the zones of p and true when p lists zones
// ([ZoneLister], found with [As] through any wrappers, and its ListZones
// does not fail with [ErrZonesUnsupported]); nil and false otherwise. An error from ListZones
// is returned with true.
//
// The zones are in the form names have in memory, as [ZoneMatcher] gives
// them: lower-case A-labels without a trailing dot ("Bücher.example." is
// "xn--bcher-kva.example"), the root zone as "."; white space is trimmed,
// duplicates are dropped and the order is kept. The slice is new.
func ZonesOf(ctx context.Context, p Provider) ([]string, bool, error) {
	zl, ok := As[ZoneLister](p)
	if !ok {
		return nil, false, nil
	}
	listed, err := zl.ListZones(ctx)
	if errors.Is(err, ErrZonesUnsupported) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, fmt.Errorf("listing zones: %w", err)
	}
	zones := make([]string, 0, len(listed))
	for _, z := range listed {
		z = canonicalName(strings.TrimSpace(z))
		if z == "" {
			z = "."
		}
		if !slices.Contains(zones, z) {
			zones = append(zones, z)
		}
	}
	return zones, true, nil
}

// GroupKey returns the name and set identifier that tie a change to the
// record it belongs to: for an ownership TXT record (a TXT record carrying the label
// [endpoint.OwnedRecordLabelKey], as the TXT registry writes them) the name
// of the record it owns, for every other record its own name. The name is
// in the form names have in memory, lower-case A-labels without a trailing
// dot ([endpoint.ToALabel]), the form of [ZoneMatcher]'s zones.
//
// Changes with the same group key form a group that is applied (or
// rejected) as a unit: splitting by zone and batching never separate a
// record from its ownership TXT, whatever the TXT naming (prefix, suffix)
// of the registry.
func GroupKey(ep *endpoint.Endpoint) (name, setID string) {
	name = ep.DNSName
	if ep.RecordType == endpoint.RecordTypeTXT && ep.Labels.Len() > 0 {
		if owned, _ := ep.Labels.Get(endpoint.OwnedRecordLabelKey); owned != "" {
			name = owned
		}
	}
	return canonicalName(name), ep.SetIdentifier
}

// SplitByZone splits changes by the zone of each change's group
// ([GroupKey]): an ownership TXT goes with its record, into the record's
// zone, even when the TXT name would fall in another zone. It returns the
// zone names in sorted order and one change set per zone (update pairs stay
// together, the order of each list is kept). Changes whose group is in no
// zone of m go under the zone "" (first in the order). changes is not
// modified; the endpoints are shared, and when every change falls in one
// zone its change set is changes itself.
func SplitByZone(changes *plan.Changes, m *ZoneMatcher) ([]string, map[string]*plan.Changes) {
	parts := map[string]*plan.Changes{}
	if changes == nil {
		return nil, parts
	}
	zoneOf := newZoneFinder(m)
	lists := [...][]*endpoint.Endpoint{changes.Create, changes.UpdateNew, changes.UpdateOld, changes.Delete}

	// The common case, one zone: no copy.
	first, one, seen := "", true, false
	for li, list := range lists {
		for i, ep := range list {
			if li == 2 && i < len(changes.UpdateNew) && changes.UpdateNew[i] != nil {
				continue // an update goes by its new record
			}
			z := zoneOf(ep)
			if !seen {
				first, seen = z, true
			} else if z != first {
				one = false
				break
			}
		}
		if !one {
			break
		}
	}
	if one {
		if seen {
			parts[first] = changes
			return []string{first}, parts
		}
		return nil, parts
	}

	part := func(ep *endpoint.Endpoint) *plan.Changes {
		zone := zoneOf(ep)
		c, ok := parts[zone]
		if !ok {
			c = &plan.Changes{}
			parts[zone] = c
		}
		return c
	}
	for _, ep := range changes.Create {
		c := part(ep)
		c.Create = append(c.Create, ep)
	}
	for i, ep := range changes.UpdateNew {
		var old *endpoint.Endpoint
		if i < len(changes.UpdateOld) {
			old = changes.UpdateOld[i]
		}
		key := ep
		if key == nil {
			key = old
		}
		c := part(key)
		c.UpdateOld = append(c.UpdateOld, old)
		c.UpdateNew = append(c.UpdateNew, ep)
	}
	for _, ep := range changes.Delete {
		c := part(ep)
		c.Delete = append(c.Delete, ep)
	}
	names := make([]string, 0, len(parts))
	for z := range parts {
		names = append(names, z)
	}
	slices.Sort(names)
	return names, parts
}

// newZoneFinder returns a function giving the zone of a change's group
// ("" for none). Changes come in runs of one zone: it remembers the last
// zone and, when no other zone lies below it, takes any name under it
// without asking the matcher again.
func newZoneFinder(m *ZoneMatcher) func(*endpoint.Endpoint) string {
	zones := m.Zones()
	leaf := func(z string) bool {
		if z == "" || z == "." {
			return false
		}
		for _, other := range zones {
			if len(other) > len(z) && strings.HasSuffix(other, z) && other[len(other)-len(z)-1] == '.' {
				return false
			}
		}
		return true
	}
	var (
		last     string
		lastLeaf bool
	)
	return func(ep *endpoint.Endpoint) string {
		if ep == nil {
			return ""
		}
		name, _ := GroupKey(ep)
		if lastLeaf && (name == last ||
			len(name) > len(last) && strings.HasSuffix(name, last) && name[len(name)-len(last)-1] == '.') {
			return last
		}
		zone, _ := m.Zone(name)
		if zone != last {
			last, lastLeaf = zone, leaf(zone)
		}
		return zone
	}
}

// ZoneError is the error of applying the changes of one zone.
type ZoneError struct {
	// Zone is the zone name in the form of [ZoneMatcher] and record names
	// (lower-case A-labels without a trailing dot, as [SplitByZone] gives
	// it); "" for changes outside every zone.
	Zone string
	Err  error
}

// Error names the zone and gives the cause.
func (e *ZoneError) Error() string {
	if e.Zone == "" {
		return fmt.Sprintf("changes outside every zone: %v", e.Err)
	}
	return fmt.Sprintf("zone %s: %v", e.Zone, e.Err)
}

// Unwrap returns the cause.
func (e *ZoneError) Unwrap() error { return e.Err }

// Rejection is one change a provider refused while the others were
// applied: its action ("create", "update" or "delete"), the record (for an
// update, the new one) and the provider's reason.
type Rejection struct {
	Action   string
	Endpoint *endpoint.Endpoint
	Reason   error
}

// String renders the rejection as "action name/type[/set identifier]:
// reason".
func (r Rejection) String() string {
	rec := "<nil>"
	if r.Endpoint != nil {
		rec = r.Endpoint.Key().String()
	}
	return fmt.Sprintf("%s %s: %v", r.Action, rec, r.Reason)
}

// RejectedError reports changes that a provider refused while the rest of
// the change set was applied (see the batch wrapper). It is soft
// (errors.Is(err, [SoftError])): the rejected changes are planned again
// and retried at the next cycle. Use [Rejected] to collect the rejections
// of an error tree.
type RejectedError struct {
	Rejected []Rejection
}

// Error counts the rejected changes and names each with its reason.
func (e *RejectedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d change(s) rejected", len(e.Rejected))
	for i, r := range e.Rejected {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(r.String())
	}
	return b.String()
}

// Is makes a RejectedError match [SoftError].
func (e *RejectedError) Is(target error) bool { return target == SoftError }

// Unwrap returns the reasons of the rejections.
func (e *RejectedError) Unwrap() []error {
	errs := make([]error, 0, len(e.Rejected))
	for _, r := range e.Rejected {
		if r.Reason != nil {
			errs = append(errs, r.Reason)
		}
	}
	return errs
}

// Rejected returns every [Rejection] of every [*RejectedError] in err's
// tree (errors joined with [errors.Join], wrapped with %w), in order.
func Rejected(err error) []Rejection {
	var out []Rejection
	WalkErrors(err, func(e error) bool {
		if r, ok := e.(*RejectedError); ok {
			out = append(out, r.Rejected...)
			return false // its Unwrap gives the reasons, not more rejections
		}
		return true
	})
	return out
}

// FailedZones returns the zones of every [*ZoneError] in err's tree, in
// order, without duplicates: the zones whose changes were not (all)
// applied, for metrics and status.
func FailedZones(err error) []string {
	var out []string
	WalkErrors(err, func(e error) bool {
		if z, ok := e.(*ZoneError); ok && !slices.Contains(out, z.Zone) {
			out = append(out, z.Zone)
		}
		return true
	})
	return out
}
