package provider

import (
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// DomainFilterFromZones returns a domain filter that matches the given zones
// and every name below them. Each zone loses its trailing dot and
// contributes two entries, "zone" (the apex and names below it) and ".zone"
// (names below it), the form external-dns providers return from
// GetDomainFilter. Blank zones are ignored.
//
// With no (non-blank) zone the filter matches everything, like
// [BaseProvider.GetDomainFilter]: a provider that cannot tell its zones adds
// no constraint.
func DomainFilterFromZones(zones []string) *endpoint.DomainFilter {
	names := make([]string, 0, 2*len(zones))
	for _, z := range zones {
		z = strings.TrimSuffix(strings.TrimSpace(z), ".")
		if z == "" {
			continue
		}
		names = append(names, z, "."+z)
	}
	return endpoint.NewDomainFilter(names)
}

// DomainFilterFromZoneLister calls listZones and returns
// [DomainFilterFromZones] of the result. When listZones fails it returns the
// empty filter, which matches everything: GetDomainFilter has no way to
// report an error, and an empty filter leaves the user's own filter in
// charge, whereas guessing a list of zones could hide records.
//
// It is meant for GetDomainFilter implementations, typically with a listZones
// that reads a [blueprint.ZoneCache] first.
//
// [blueprint.ZoneCache]: https://pkg.go.dev/github.com/zonesync/zonesync/blueprint#ZoneCache
func DomainFilterFromZoneLister(listZones func() ([]string, error)) *endpoint.DomainFilter {
	if listZones == nil {
		return &endpoint.DomainFilter{}
	}
	zones, err := listZones()
	if err != nil {
		return &endpoint.DomainFilter{}
	}
	return DomainFilterFromZones(zones)
}

// ZoneMatcher assigns DNS names to the most specific zone that holds them:
// the longest zone name that equals the record name or is a suffix of it on
// a label boundary ("example.org" holds "a.example.org" but not
// "myexample.org"). Names and zones are compared in the form names have in
// memory, that of [endpoint.ToALabel] (lower-case A-labels without
// a trailing dot): case, trailing dots and the Unicode or A-label spelling
// of an IDN label do not matter, and the zone names it returns are in that
// form ("bücher.example" is "xn--bcher-kva.example"), so that they compare
// equal to record names. The root zone (given as "." or "") holds every
// name.
//
// A ZoneMatcher is immutable after [NewZoneMatcher] and safe for concurrent
// use. The zero value holds no zone. Finding a zone costs one map lookup per
// label of the name and does not allocate for lower-case ASCII names.
type ZoneMatcher struct {
	zones map[string]struct{}
	root  bool
}

// NewZoneMatcher returns a matcher for the given zones. Duplicates (after
// canonicalisation) are merged; surrounding white space is trimmed.
func NewZoneMatcher(zones ...string) *ZoneMatcher {
	m := &ZoneMatcher{zones: make(map[string]struct{}, len(zones))}
	for _, z := range zones {
		n := canonicalName(strings.TrimSpace(z))
		if n == "" {
			m.root = true
			continue
		}
		m.zones[n] = struct{}{}
	}
	return m
}

// Zone returns the canonical name (A-labels) of the most specific zone
// holding name, and whether there is one. The root zone is returned as ".".
func (m *ZoneMatcher) Zone(name string) (string, bool) {
	if m == nil {
		return "", false
	}
	n := canonicalName(name)
	for n != "" {
		if _, ok := m.zones[n]; ok {
			return n, true
		}
		i := strings.IndexByte(n, '.')
		if i < 0 {
			break
		}
		n = n[i+1:]
	}
	if m.root {
		return ".", true
	}
	return "", false
}

// Zones returns the canonical zone names (A-labels), sorted; the root zone
// appears as ".". The slice is new on every call.
func (m *ZoneMatcher) Zones() []string {
	if m == nil {
		return nil
	}
	out := make([]string, 0, len(m.zones)+1)
	if m.root {
		out = append(out, ".")
	}
	for z := range m.zones {
		out = append(out, z)
	}
	slices.Sort(out)
	return out
}

// canonicalName returns name in the form names have in memory:
// [endpoint.CanonicalName] without any trailing dot. It does not
// convert, nor allocate, a name already in that form.
func canonicalName(name string) string {
	return endpoint.CanonicalName(strings.TrimRight(name, "."))
}
