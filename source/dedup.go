package source

import (
	"bytes"
	"context"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// Dedup is a wrapper [Source] that drops exact duplicates from the endpoints
// of its inner source, keeping the first of each group in place. Two
// endpoints are exact duplicates when they have the same canonical DNS name
// ([endpoint.ToALabel]: case, trailing dot and IDNA form ignored),
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
//zonesync:source:name=dedup
//zonesync:source:category=wrapper
//zonesync:source:description=Drops exact duplicate endpoints (same name, type, set identifier, targets, TTL, labels, provider-specific).
//zonesync:source:resources=none
//zonesync:source:filters=none
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=true
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
	// Keys are hashed so that the common case allocates nothing per
	// endpoint: first maps a key's hash to the index in out of the first
	// endpoint with it; a hash match is confirmed by comparing the keys, and
	// the rare different keys with one hash go to the collided set.
	seed := maphash.MakeSeed()
	out := eps[:0]
	first := make(map[uint64]int, len(eps))
	var collided map[string]struct{}
	var k, other keyBuilder
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		key := k.build(ep)
		h := maphash.Bytes(seed, key)
		i, seen := first[h]
		if !seen {
			first[h] = len(out)
			out = append(out, ep)
			continue
		}
		if bytes.Equal(key, other.build(out[i])) {
			continue
		}
		if _, dup := collided[string(key)]; dup {
			continue
		}
		if collided == nil {
			collided = map[string]struct{}{}
		}
		collided[string(key)] = struct{}{}
		out = append(out, ep)
	}
	clear(eps[len(out):]) // let the dropped endpoints go
	return out, partial
}

// String describes the wrapper.
func (d *Dedup) String() string { return "dedup of " + describe(d.inner) }

// keyBuilder renders every compared field of an endpoint in a canonical
// form: the unordered lists sorted, each string prefixed by its length so
// that no two different endpoints give the same key. Its buffers are reused
// from one endpoint to the next.
type keyBuilder struct {
	buf     []byte
	targets []string
	props   []endpoint.ProviderSpecificProperty
}

func (k *keyBuilder) put(s string) {
	k.buf = strconv.AppendInt(k.buf, int64(len(s)), 10)
	k.buf = append(k.buf, ':')
	k.buf = append(k.buf, s...)
}

func (k *keyBuilder) build(ep *endpoint.Endpoint) []byte {
	k.buf = k.buf[:0]
	k.put(endpoint.ToALabel(ep.DNSName))
	k.put(ep.RecordType)
	k.put(ep.SetIdentifier)
	k.buf = strconv.AppendInt(k.buf, int64(ep.RecordTTL), 10)
	k.buf = append(k.buf, '|')

	k.targets = k.targets[:0]
	for _, t := range ep.Targets {
		k.targets = append(k.targets, endpoint.CanonicalTarget(t))
	}
	slices.Sort(k.targets)
	k.buf = strconv.AppendInt(k.buf, int64(len(k.targets)), 10)
	k.buf = append(k.buf, '|')
	for _, t := range k.targets {
		k.put(t)
	}

	k.buf = strconv.AppendInt(k.buf, int64(ep.Labels.Len()), 10)
	k.buf = append(k.buf, '|')
	for key, v := range ep.Labels.All() {
		k.put(key)
		k.put(v)
	}

	k.props = append(k.props[:0], ep.ProviderSpecific...)
	slices.SortFunc(k.props, func(x, y endpoint.ProviderSpecificProperty) int {
		if c := strings.Compare(x.Name, y.Name); c != 0 {
			return c
		}
		return strings.Compare(x.Value, y.Value)
	})
	k.buf = strconv.AppendInt(k.buf, int64(len(k.props)), 10)
	k.buf = append(k.buf, '|')
	for _, p := range k.props {
		k.put(p.Name)
		k.put(p.Value)
	}
	return k.buf
}
