package plan

import (
	"math/bits"
)

// isOwned reports whether the current record with one-based index i is
// ours by its verdict.
func (pl *planner) isOwned(i int32) bool {
	return pl.owned[(i-1)/64]&(1<<((i-1)%64)) != 0
}

// OwnedIn returns the counts of [Plan.Owned] with the records also counted
// per zone: zone returns the zone holding a DNS name and whether there is
// one (provider.ZoneMatcher's Zone, for instance); records outside every
// zone count in the total only. The result is what
// [SafetyThreshold.Check] needs to judge each zone on its own. It needs a
// plan returned by [Plan.Calculate]; with a nil zone it returns Owned.
func (p *Plan) OwnedIn(zone func(name string) (string, bool)) Owned {
	out := p.Owned
	if zone == nil {
		return out
	}
	out.Zone, out.PerZone = zone, map[string]int{}
	for w, word := range p.owned {
		for word != 0 {
			i := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			if i >= len(p.Current) {
				break
			}
			if z, ok := zone(p.Current[i].DNSName); ok {
				out.PerZone[z]++
			}
		}
	}
	return out
}
