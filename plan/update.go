package plan

import (
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// UpdateReason says why an update pair exists. It is a set of flags: an
// update can change the targets and the TTL at once. Only [UpdateTargets],
// [UpdateTTL] and [UpdateProviderSpecific] change what resolvers see (see
// [UpdateReason.ChangesData]); the others rewrite ownership data only.
type UpdateReason uint8

// Reasons for an update. See [Why].
const (
	// UpdateTargets: the target lists differ.
	UpdateTargets UpdateReason = 1 << iota
	// UpdateTTL: the new record has a configured TTL that differs from
	// the old one.
	UpdateTTL
	// UpdateProviderSpecific: the provider-specific properties differ
	// (not counting [endpoint.ProviderSpecificForceUpdate]).
	UpdateProviderSpecific
	// UpdateOwnershipFormat: the registry asked for the update to write a
	// missing ownership record (the old record carries
	// [endpoint.ProviderSpecificForceUpdate]), e.g. when a zone written in
	// the legacy TXT format is upgraded.
	UpdateOwnershipFormat
	// UpdateOwner: the owner label changes, as when records of an old
	// owner id are taken over (owner migration).
	UpdateOwner
	// UpdateLabels: other labels differ.
	UpdateLabels
)

var updateReasonNames = [...]string{"targets", "ttl", "provider-specific", "ownership-format", "owner", "labels"}

// ChangesData reports whether the update changes record data that
// resolvers see: targets, TTL or provider-specific properties.
func (r UpdateReason) ChangesData() bool {
	return r&(UpdateTargets|UpdateTTL|UpdateProviderSpecific) != 0
}

// String lists the reasons, comma-separated, in the order of the
// constants ("targets,ttl"); no reason renders as "none".
func (r UpdateReason) String() string {
	if r == 0 {
		return "none"
	}
	var b strings.Builder
	for i, name := range updateReasonNames {
		if r&(1<<i) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(name)
	}
	return b.String()
}

// Why returns the reasons of the update from old to new: which record data
// differ (targets compared with [endpoint.Targets.Same], the TTL only when
// new's is configured, provider-specific properties irrespective of order)
// and which ownership data change. It is the one definition of "this
// update changes data" in zonesync: the planner emits an update when the
// data differ, and the Reconciler's safety threshold counts only updates
// whose reasons [UpdateReason.ChangesData]. It does not allocate. Nil
// endpoints give 0.
func Why(old, new *endpoint.Endpoint) UpdateReason {
	if old == nil || new == nil {
		return 0
	}
	r := dataReasons(old, new)
	if _, ok := old.ProviderSpecific.Get(endpoint.ProviderSpecificForceUpdate); ok {
		r |= UpdateOwnershipFormat
	}
	oldOwner, oldHas := old.Labels.Get(endpoint.OwnerLabelKey)
	newOwner, newHas := new.Labels.Get(endpoint.OwnerLabelKey)
	if newHas && (!oldHas || oldOwner != newOwner) {
		r |= UpdateOwner
	}
	if !sameOtherLabels(old.Labels, new.Labels) {
		r |= UpdateLabels
	}
	return r
}

// dataReasons compares the record data of old and new.
func dataReasons(old, new *endpoint.Endpoint) UpdateReason {
	var r UpdateReason
	if !new.Targets.Same(old.Targets) {
		r |= UpdateTargets
	}
	if new.RecordTTL.IsConfigured() && new.RecordTTL != old.RecordTTL {
		r |= UpdateTTL
	}
	if !sameProviderSpecific(old.ProviderSpecific, new.ProviderSpecific) {
		r |= UpdateProviderSpecific
	}
	return r
}

// sameProviderSpecific compares two property lists irrespective of order,
// ignoring endpoint.ProviderSpecificForceUpdate. It does not allocate.
func sameProviderSpecific(a, b endpoint.ProviderSpecific) bool {
	_, fa := a.Get(endpoint.ProviderSpecificForceUpdate)
	_, fb := b.Get(endpoint.ProviderSpecificForceUpdate)
	if !fa && !fb {
		return a.Same(b)
	}
	n := 0
	for _, p := range a {
		if p.Name == endpoint.ProviderSpecificForceUpdate {
			continue
		}
		n++
		if a.Count(p) != b.Count(p) {
			return false
		}
	}
	m := 0
	for _, p := range b {
		if p.Name != endpoint.ProviderSpecificForceUpdate {
			m++
		}
	}
	return n == m
}

// sameOtherLabels compares two label sets without the owner label and the
// in-memory encryption nonce. It does not allocate.
func sameOtherLabels(a, b endpoint.Labels) bool {
	n := 0
	for k, v := range a.All() {
		if ignoredLabel(k) {
			continue
		}
		n++
		if w, ok := b.Get(k); !ok || w != v {
			return false
		}
	}
	m := 0
	for k := range b.All() {
		if !ignoredLabel(k) {
			m++
		}
	}
	return n == m
}

func ignoredLabel(k string) bool {
	return k == endpoint.OwnerLabelKey || k == endpoint.TxtEncryptionNonceLabelKey
}
