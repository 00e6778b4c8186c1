package zonesync

import (
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
)

// tallyOwned counts the current records the plan may change: managed type,
// matched by the filter, and owned by the owner id or the old owner id
// (every record when there is no owner id); per zone too when m is not nil.
func tallyOwned(current []*endpoint.Endpoint, own registry.Ownership, filter endpoint.DomainFilterInterface, m *provider.ZoneMatcher) plan.Owned {
	var t plan.Owned
	owners := endpoint.Owners{OwnerID: own.OwnerID, OldOwnerID: own.OldOwnerID}
	if m != nil {
		t.Zone, t.PerZone = m.Zone, map[string]int{}
	}
	for _, ep := range current {
		if ep == nil || !slices.ContainsFunc(own.ManagedRecordTypes, func(t string) bool { return strings.EqualFold(t, ep.RecordType) }) {
			continue
		}
		if _, ok := ep.Labels.Get(endpoint.OwnedRecordLabelKey); ok {
			continue
		}
		if !owners.Owns(ep) {
			continue
		}
		if !filter.Match(ep.DNSName) {
			continue
		}
		t.Total++
		if m != nil {
			if zone, ok := m.Zone(ep.DNSName); ok {
				t.PerZone[zone]++
			}
		}
	}
	return t
}
