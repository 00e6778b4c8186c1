package source

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// Dedup is a wrapper [Source] that drops exact duplicates from the endpoints
// of its inner source, keeping the first of each group in place. Two
// endpoints are exact duplicates when they have the same canonical DNS name
// ([endpoint.CanonicalDNSName]: case, trailing dot and IDNA form ignored),
// record type, set identifier, targets ([endpoint.Targets.Same]: order and
// case ignored), TTL, labels and provider-specific properties (order
// ignored). Nil entries are dropped too. Endpoints are never split or
// merged: an endpoint with several targets stays one endpoint.
//
// external-dns's dedup wrapper compares only type, name, set identifier and
// targets, so it also drops an endpoint that differs from an earlier one in
// TTL, labels or provider-specific properties; Dedup keeps such endpoints and
// leaves the choice between them to the planner's conflict resolution, which
// decides deterministically instead of by arrival order. Unlike external-dns,
// Dedup does not validate endpoints (the planner and providers do).
//
// Readiness and events are those of the inner source; a [*PartialError]
// from it is passed on with the deduplicated endpoints.
//
// +zonesync:source:name=dedup
// +zonesync:source:category=wrapper
// +zonesync:source:description=Drops exact duplicate endpoints (same name, type, set identifier, targets, TTL, labels, provider-specific).
// +zonesync:source:resources=none
// +zonesync:source:filters=none
// +zonesync:source:namespaced=false
// +zonesync:source:fqdn-template=false
// +zonesync:source:events=true
type Dedup struct {
	wrapper
}

var (
	_ Source = (*Dedup)(nil)
	_ Syncer = (*Dedup)(nil)
)

// NewDedup wraps inner; a nil inner is an [Empty] source.
func NewDedup(inner Source) *Dedup {
	return &Dedup{wrapper{orEmpty(inner)}}
}

// Endpoints returns the inner source's endpoints without exact duplicates.
func (d *Dedup) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, partial, hard := innerEndpoints(ctx, d.inner)
	if hard != nil {
		return nil, hard
	}
	out := eps[:0]
	seen := make(map[string]struct{}, len(eps))
	var b strings.Builder
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		key := dedupKey(&b, ep)
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		out = append(out, ep)
	}
	clear(eps[len(out):]) // let the dropped endpoints go
	return out, partial
}

// String describes the wrapper.
func (d *Dedup) String() string { return "dedup of " + describe(d.inner) }

// dedupKey renders every compared field of ep in a canonical form, the
// unordered lists sorted, fields separated by bytes that cannot occur in
// them unescaped (lengths prefix each string).
func dedupKey(b *strings.Builder, ep *endpoint.Endpoint) string {
	b.Reset()
	put := func(s string) {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	put(endpoint.CanonicalDNSName(ep.DNSName))
	put(ep.RecordType)
	put(ep.SetIdentifier)
	b.WriteString(strconv.FormatInt(int64(ep.RecordTTL), 10))
	b.WriteByte('|')
	targets := make([]string, len(ep.Targets))
	for i, t := range ep.Targets {
		targets[i] = endpoint.CanonicalTarget(t)
	}
	slices.Sort(targets)
	b.WriteString(strconv.Itoa(len(targets)))
	b.WriteByte('|')
	for _, t := range targets {
		put(t)
	}
	labels := make([]string, 0, len(ep.Labels))
	for k := range ep.Labels {
		labels = append(labels, k)
	}
	slices.Sort(labels)
	b.WriteString(strconv.Itoa(len(labels)))
	b.WriteByte('|')
	for _, k := range labels {
		put(k)
		put(ep.Labels[k])
	}
	props := slices.Clone(ep.ProviderSpecific)
	slices.SortFunc(props, func(x, y endpoint.ProviderSpecificProperty) int {
		if c := strings.Compare(x.Name, y.Name); c != 0 {
			return c
		}
		return strings.Compare(x.Value, y.Value)
	})
	b.WriteString(strconv.Itoa(len(props)))
	b.WriteByte('|')
	for _, p := range props {
		put(p.Name)
		put(p.Value)
	}
	return b.String()
}
