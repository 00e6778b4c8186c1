package source

import (
	"context"
	"net/netip"
	"slices"

	"github.com/zonesync/zonesync/endpoint"
)

// TargetFilter is a wrapper [Source] that keeps only the A and AAAA targets
// inside given networks and outside excluded ones, much as external-dns's
// --target-net-filter and --exclude-target-net do:
//
//   - with include networks, an address target is kept only when one of
//     them contains it; with none, every address passes this step;
//   - an address target inside any exclude network is dropped;
//   - an endpoint left with no targets is dropped; an endpoint that keeps
//     some keeps its other fields unchanged.
//
// Where it differs from external-dns: only A and AAAA endpoints are
// filtered; endpoints of other types (CNAME, TXT, ...) pass unchanged,
// whereas external-dns filters the targets of every endpoint, so that once
// include networks are set it drops every non-address target (a CNAME's
// host name is in no network). [TargetFilterOptions.AllRecordTypes] restores that. A
// target that is not an address is treated as in no network: dropped when
// include networks are set, kept otherwise. With neither list set the
// wrapper passes everything through.
//
// Readiness and events are those of the inner source; a [*PartialError]
// from it is passed on with the filtered endpoints.
//
//zonesync:source:name=target-filter
//zonesync:source:category=wrapper
//zonesync:source:description=Keeps only A/AAAA targets inside the included networks and outside the excluded ones.
//zonesync:source:resources=none
//zonesync:source:filters=networks
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=true
type TargetFilter struct {
	wrapper
	include, exclude []netip.Prefix
	allTypes         bool
}

var (
	_ Source = (*TargetFilter)(nil)
	_ Syncer = (*TargetFilter)(nil)
)

// TargetFilterOptions configures a [TargetFilter]. The zero value keeps
// every target.
type TargetFilterOptions struct {
	// Include are the networks targets must be inside; empty means any.
	// Invalid (zero) prefixes are ignored.
	Include []netip.Prefix
	// Exclude are the networks targets must be outside. Invalid (zero)
	// prefixes are ignored.
	Exclude []netip.Prefix
	// AllRecordTypes filters the targets of endpoints of every type, as
	// external-dns does, not only of A and AAAA ones.
	AllRecordTypes bool
}

// NewTargetFilter wraps inner (nil = [Empty]).
func NewTargetFilter(inner Source, opts TargetFilterOptions) *TargetFilter {
	valid := func(ps []netip.Prefix) []netip.Prefix {
		var out []netip.Prefix
		for _, p := range ps {
			if p.IsValid() {
				out = append(out, p.Masked())
			}
		}
		return out
	}
	return &TargetFilter{wrapper: wrapper{orEmpty(inner)}, include: valid(opts.Include), exclude: valid(opts.Exclude), allTypes: opts.AllRecordTypes}
}

// Endpoints returns the inner source's endpoints with the targets outside
// the allowed networks removed.
func (f *TargetFilter) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, partial, hard := innerEndpoints(ctx, f.inner)
	if hard != nil {
		return nil, hard
	}
	if len(f.include) == 0 && len(f.exclude) == 0 {
		return eps, partial
	}
	out := eps[:0]
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		if !f.allTypes && ep.RecordType != endpoint.RecordTypeA && ep.RecordType != endpoint.RecordTypeAAAA {
			out = append(out, ep)
			continue
		}
		if !slices.ContainsFunc(ep.Targets, f.refused) {
			out = append(out, ep) // the common case: nothing to drop, nothing to copy
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(ep.Targets), f.refused)
		if len(kept) == 0 {
			continue
		}
		ep.Targets = kept
		out = append(out, ep)
	}
	clear(eps[len(out):])
	return out, partial
}

// refused reports whether target fails the include or exclude lists.
func (f *TargetFilter) refused(target string) bool {
	addr, err := netip.ParseAddr(target)
	if err != nil {
		return len(f.include) > 0
	}
	addr = addr.Unmap()
	if len(f.include) > 0 && !containsAddr(f.include, addr) {
		return true
	}
	return containsAddr(f.exclude, addr)
}

// String describes the wrapper.
func (f *TargetFilter) String() string { return "target filter of " + describe(f.inner) }

func containsAddr(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
