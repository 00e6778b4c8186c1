package plan

import (
	"cmp"
	"net/netip"
	"slices"
	"sort"
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
// resource created. It makes external-dns's choice (its plan.PerResource):
//
//   - When there is a current record, a candidate from the resource named in
//     its resource label (see [endpoint.ResourceLabelKey]) wins: the record
//     stays with its resource and follows that resource's target changes. A
//     current record without a resource label stays, in the same way, with
//     a candidate that has none (external-dns reads a missing label as the
//     empty resource name).
//   - Otherwise (a new record, or the owning resource is gone) the candidate
//     with the smallest targets wins, so the choice does not depend on the
//     order in which sources return endpoints. Targets compare as in
//     external-dns (its Targets.IsLess): fewer targets first; lists of
//     equal length are each sorted (IP addresses by their canonical text,
//     other targets as written) and compared at the first position where
//     the texts differ, where IP addresses compare as numbers (9.0.0.1
//     before 10.0.0.2, ::9 before 2001:db8::10, IPv4 before IPv6), an IP
//     address comes before a host name, and host names compare as written.
//     Ties (equal targets, or two spellings of one address at that
//     position) are broken by the exact targets, the resource label, the
//     TTL and the provider-specific properties, where external-dns takes
//     the first candidate in source order.
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

// pickPerResource returns the candidate external-dns's PerResource picks:
// with a current record, the first candidate from its resource once the
// candidates are sorted (stably, by compareCandidates); otherwise, or when
// none is from that resource, the first smallest. candidates holds at
// least one non-nil endpoint.
//
// The candidates are first put in the total order of compareEndpointData,
// where external-dns has them in source order. That order breaks ties, and
// keeps the choice independent of the candidates' order where
// external-dns's order of target lists is not a strict weak order: two
// spellings of one IP address compare equal there, whatever follows them
// (2001:db8::1 and 2001:DB8:0::1).
func pickPerResource(current *endpoint.Endpoint, candidates []*endpoint.Endpoint) *endpoint.Endpoint {
	ordered := make([]candidate, len(candidates))
	for i, c := range candidates {
		ordered[i] = candidate{ep: c, targets: externalDNSSorted(c.Targets)}
	}
	slices.SortFunc(ordered, func(a, b candidate) int { return compareEndpointData(a.ep, b.ep) })
	if current != nil {
		// A missing label reads as "", as a missing key of external-dns's
		// label map: an unlabelled record stays with unlabelled candidates.
		owner, _ := current.Labels.Get(endpoint.ResourceLabelKey)
		slices.SortStableFunc(ordered, compareCandidates)
		for _, c := range ordered {
			if res, _ := c.ep.Labels.Get(endpoint.ResourceLabelKey); res == owner {
				return c.ep
			}
		}
	}
	best := 0
	for i := 1; i < len(ordered); i++ {
		if compareCandidates(ordered[i], ordered[best]) < 0 {
			best = i
		}
	}
	return ordered[best].ep
}

// candidate is a desired endpoint with its targets in external-dns's order
// (externalDNSSorted).
type candidate struct {
	ep      *endpoint.Endpoint
	targets []string
}

// compareCandidates orders two candidates by their targets as external-dns's
// Targets.IsLess does: fewer targets first; then, at the first position
// where the sorted lists differ as text, compareTarget decides (0 when it
// finds the two equal: two spellings of one IP address).
func compareCandidates(a, b candidate) int {
	if c := cmp.Compare(len(a.targets), len(b.targets)); c != 0 {
		return c
	}
	for i, t := range a.targets {
		if u := b.targets[i]; t != u {
			return compareTarget(t, u)
		}
	}
	return 0
}

// compareTarget orders two targets as external-dns's Targets.IsLess does
// at the first position where two lists differ: two IP addresses as
// numbers (IPv4 before IPv6, then by value, then by zone), an IP address
// before anything else, and other targets as text.
func compareTarget(a, b string) int {
	ipA, errA := netip.ParseAddr(a)
	ipB, errB := netip.ParseAddr(b)
	switch {
	case errA == nil && errB == nil:
		return ipA.Compare(ipB)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// externalDNSSorted returns targets sorted as external-dns sorts a target
// list before comparing it (sort.Sort with its Targets.Less: two IP
// addresses by their canonical text, so 10.0.0.2 before 9.0.0.1; any other
// pair as written). It is the same algorithm on the same input, so the
// result is external-dns's even where that order is not transitive (IP
// addresses in other spellings beside host names). targets is not
// modified; a list of one target is returned as it is.
func externalDNSSorted(targets endpoint.Targets) []string {
	if len(targets) < 2 {
		return targets
	}
	out := externalDNSOrder(slices.Clone(targets))
	sort.Sort(out)
	return out
}

// externalDNSOrder sorts targets with external-dns's Targets.Less.
type externalDNSOrder []string

// Len is the number of targets.
func (t externalDNSOrder) Len() int { return len(t) }

// Swap exchanges two targets.
func (t externalDNSOrder) Swap(i, j int) { t[i], t[j] = t[j], t[i] }

// Less orders two IP addresses by their canonical text and any other pair
// as written, as external-dns's Targets.Less does.
func (t externalDNSOrder) Less(i, j int) bool {
	a, err := netip.ParseAddr(t[i])
	if err != nil {
		return t[i] < t[j]
	}
	b, err := netip.ParseAddr(t[j])
	if err != nil {
		return t[i] < t[j]
	}
	return a.String() < b.String()
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
