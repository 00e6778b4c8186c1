package plan

import (
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// ConflictResolver decides which desired endpoint a record set gets when
// several desired endpoints (usually from several Kubernetes resources) ask
// for the same name, set identifier and record type.
//
// Resolve is called once per record set that has at least one valid,
// in-scope candidate. current is the record now in DNS for that set, or nil
// when there is none; candidates holds every desired endpoint for the set
// (at least one). Resolve returns the endpoint to plan and the candidates
// that did not contribute to it; each loser is reported in [Plan.Skipped]
// with [SkipLostConflict].
//
// Resolve must not modify current, the candidates or the candidates slice,
// and must not keep the slice after it returns (the planner reuses it). It
// may return one of the candidates or a new endpoint; a new endpoint must
// have the candidates' DNS name, record type and set identifier. It must be
// deterministic: the same current record and the same set of candidates, in
// any order, must give the same result.
type ConflictResolver interface {
	Resolve(current *endpoint.Endpoint, candidates []*endpoint.Endpoint) (winner *endpoint.Endpoint, losers []*endpoint.Endpoint)
}

// PerResource is the default [ConflictResolver]: several resources asking
// for one name do not merge, so that no resource can hijack a record another
// resource created.
//
//   - When the current record carries a resource label (see
//     [endpoint.ResourceLabelKey]) and a candidate comes from that resource,
//     that candidate wins: the record stays with its resource and follows
//     that resource's target changes.
//   - Otherwise (a new record, or the owning resource is gone) the candidate
//     with the smallest targets wins ([endpoint.Targets.IsLess]: fewer targets
//     first, then the sorted target lists compared), so the choice does not
//     depend on the order in which sources return endpoints. Ties are broken
//     by the resource label, the TTL and the provider-specific properties.
//
// A resource with several targets is one endpoint carrying all of them, and
// competes as one candidate.
type PerResource struct{}

var _ ConflictResolver = PerResource{}

// Resolve implements [ConflictResolver].
func (PerResource) Resolve(current *endpoint.Endpoint, candidates []*endpoint.Endpoint) (*endpoint.Endpoint, []*endpoint.Endpoint) {
	switch len(candidates) {
	case 0:
		return nil, nil
	case 1:
		return candidates[0], nil
	}
	winner := pickPerResource(current, candidates)
	losers := make([]*endpoint.Endpoint, 0, len(candidates)-1)
	for _, c := range candidates {
		if c != winner {
			losers = append(losers, c)
		}
	}
	return winner, losers
}

// pickPerResource returns the candidate from the current record's resource,
// or else the smallest candidate. candidates holds at least one non-nil
// endpoint.
func pickPerResource(current *endpoint.Endpoint, candidates []*endpoint.Endpoint) *endpoint.Endpoint {
	var best *endpoint.Endpoint
	if current != nil {
		if owner, _ := current.Labels.Get(endpoint.ResourceLabelKey); owner != "" {
			for _, c := range candidates {
				if res, _ := c.Labels.Get(endpoint.ResourceLabelKey); res == owner && (best == nil || compareEndpointData(c, best) < 0) {
					best = c
				}
			}
			if best != nil {
				return best
			}
		}
	}
	for _, c := range candidates {
		if best == nil || compareEndpointData(c, best) < 0 {
			best = c
		}
	}
	return best
}

// MergeTargets is a [ConflictResolver] that unions the targets of every
// candidate into one record, as external-dns does since v0.21. Duplicate
// targets (compared case-insensitively, IPv6 addresses in canonical form)
// appear once and the union is sorted.
//
// The merged record takes everything but its targets (TTL, labels,
// provider-specific properties) from the candidate [PerResource] would
// choose. No candidate is reported as a loser: every one contributes its
// targets. With a single candidate, that candidate is returned unchanged.
type MergeTargets struct{}

var _ ConflictResolver = MergeTargets{}

// Resolve implements [ConflictResolver].
func (MergeTargets) Resolve(current *endpoint.Endpoint, candidates []*endpoint.Endpoint) (*endpoint.Endpoint, []*endpoint.Endpoint) {
	switch len(candidates) {
	case 0:
		return nil, nil
	case 1:
		return candidates[0], nil
	}
	base := pickPerResource(current, candidates)
	type target struct{ canon, text string }
	var all []target
	for _, c := range candidates {
		for _, t := range c.Targets {
			all = append(all, target{canon: endpoint.CanonicalTarget(t), text: t})
		}
	}
	slices.SortFunc(all, func(a, b target) int {
		if c := strings.Compare(a.canon, b.canon); c != 0 {
			return c
		}
		return strings.Compare(a.text, b.text)
	})
	merged := make(endpoint.Targets, 0, len(all))
	for i, t := range all {
		if i > 0 && all[i-1].canon == t.canon {
			continue
		}
		merged = append(merged, t.text)
	}
	if slices.Equal(merged, base.Targets) {
		return base, nil
	}
	out := base.DeepCopy()
	out.Targets = merged
	return out, nil
}
