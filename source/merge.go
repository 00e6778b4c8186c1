package source

import (
	"cmp"
	"slices"

	"github.com/zonesync/zonesync/endpoint"
)

// MergeEndpoints joins the endpoints that several objects give one name,
// as external-dns's sources do (its endpoint.MergeEndpoints): endpoints of
// equal name, record type, set identifier and TTL become the first of
// them, whose targets are the union of theirs, sorted, without
// duplicates; the first one's labels (so its resource label) and
// provider-specific properties are kept. CNAME endpoints are joined only
// when their targets are equal, as a name has one canonical name. The
// result is sorted by name, record type, set identifier, TTL and targets,
// so it does not depend on the order of eps; the endpoints of eps are
// reused, not copied.
//
// A record joined from several objects carries the resource label of one
// of them only: when another of them fails (a [PartialError]), its
// targets leave the record, where the records labelled with its own
// resource would be kept.
func MergeEndpoints(eps []*endpoint.Endpoint) []*endpoint.Endpoint {
	type key struct {
		name, recordType, setID, target string
		ttl                             endpoint.TTL
	}
	first := make(map[key]*endpoint.Endpoint, len(eps))
	out := make([]*endpoint.Endpoint, 0, len(eps))
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		k := key{name: ep.DNSName, recordType: ep.RecordType, setID: ep.SetIdentifier, ttl: ep.RecordTTL}
		if ep.RecordType == endpoint.RecordTypeCNAME {
			k.target = joinTargets(ep.Targets)
		}
		if f, ok := first[k]; ok {
			f.Targets = append(f.Targets, ep.Targets...)
			continue
		}
		first[k] = ep
		out = append(out, ep)
	}
	for _, ep := range out {
		slices.Sort(ep.Targets)
		ep.Targets = slices.Compact(ep.Targets)
	}
	slices.SortStableFunc(out, func(a, b *endpoint.Endpoint) int {
		return cmp.Or(
			cmp.Compare(a.DNSName, b.DNSName),
			cmp.Compare(a.RecordType, b.RecordType),
			cmp.Compare(a.SetIdentifier, b.SetIdentifier),
			cmp.Compare(a.RecordTTL, b.RecordTTL),
			slices.Compare(a.Targets, b.Targets),
		)
	})
	return out
}

// joinTargets is the key of a CNAME endpoint's targets.
func joinTargets(targets []string) string {
	n := 0
	for _, t := range targets {
		n += len(t) + 1
	}
	b := make([]byte, 0, n)
	for _, t := range targets {
		b = append(b, t...)
		b = append(b, 0)
	}
	return string(b)
}
