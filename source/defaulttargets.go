package source

import (
	"context"
	"net/netip"
	"slices"

	"github.com/zonesync/zonesync/endpoint"
)

// DefaultTargets is a wrapper [Source] that gives endpoints a fixed set of
// targets, as external-dns's --default-targets and --force-default-targets
// do.
//
// By default only endpoints without targets are affected; with
// [DefaultTargetsOptions.ReplaceExisting] every endpoint is. An affected endpoint is replaced
// by one endpoint per kind of default target: an A endpoint holding the IPv4
// addresses, an AAAA endpoint holding the IPv6 addresses and a CNAME
// endpoint holding the other (host name) targets, each with the original's
// name, set identifier, TTL, labels and provider-specific properties; the
// original record type is not kept. Endpoints with targets (without
// ReplaceExisting) pass unchanged. With no default targets the wrapper passes
// everything through.
//
// Where it differs from external-dns: external-dns lets an explicit
// per-resource target annotation win over --force-default-targets; this
// wrapper cannot tell where targets came from, so a source that wants that
// must apply its annotations after this wrapper. Forcing defaults on
// several endpoints of one name (say an A and an AAAA one) yields duplicate
// replacements: wrap the result in [Dedup].
//
// Readiness and events are those of the inner source; a [*PartialError]
// from it is passed on with the endpoints.
//
//zonesync:source:name=default-targets
//zonesync:source:category=wrapper
//zonesync:source:description=Gives endpoints without targets (or all endpoints, when forced) a fixed set of default targets.
//zonesync:source:resources=none
//zonesync:source:filters=none
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=true
type DefaultTargets struct {
	wrapper
	groups []targetGroup
	force  bool
}

var (
	_ Source = (*DefaultTargets)(nil)
	_ Syncer = (*DefaultTargets)(nil)
)

type targetGroup struct {
	recordType string
	targets    endpoint.Targets
}

// DefaultTargetsOptions configures a [DefaultTargets]. The zero value has
// no targets, and the wrapper then changes nothing.
type DefaultTargetsOptions struct {
	// Targets are the default targets (--default-targets): IPv4 addresses
	// give A records, IPv6 addresses AAAA records and names CNAME
	// records. Duplicates are dropped.
	Targets []string
	// ReplaceExisting gives every endpoint the default targets, not only
	// those without targets (--force-default-targets).
	ReplaceExisting bool
}

// NewDefaultTargets wraps inner (nil = [Empty]) with the default targets
// of opts.
func NewDefaultTargets(inner Source, opts DefaultTargetsOptions) *DefaultTargets {
	d := &DefaultTargets{wrapper: wrapper{orEmpty(inner)}, force: opts.ReplaceExisting}
	targets := opts.Targets
	var v4, v6, hosts endpoint.Targets
	for _, t := range targets {
		if a, err := netip.ParseAddr(t); err == nil && a.Zone() == "" {
			if a.Is4() || a.Is4In6() {
				v4 = appendUnique(v4, a.Unmap().String())
			} else {
				v6 = appendUnique(v6, a.String())
			}
			continue
		}
		if t != "" {
			hosts = appendUnique(hosts, t)
		}
	}
	for _, g := range []targetGroup{
		{endpoint.RecordTypeA, v4}, {endpoint.RecordTypeAAAA, v6}, {endpoint.RecordTypeCNAME, hosts},
	} {
		if len(g.targets) > 0 {
			d.groups = append(d.groups, g)
		}
	}
	return d
}

// Endpoints returns the inner source's endpoints, the affected ones
// replaced in place by their default-target endpoints.
func (d *DefaultTargets) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, partial, hard := innerEndpoints(ctx, d.inner)
	if hard != nil {
		return nil, hard
	}
	if len(d.groups) == 0 {
		return eps, partial
	}
	out := make([]*endpoint.Endpoint, 0, len(eps))
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		if len(ep.Targets) > 0 && !d.force {
			out = append(out, ep)
			continue
		}
		for _, g := range d.groups {
			out = append(out, &endpoint.Endpoint{
				DNSName:          ep.DNSName,
				Targets:          slices.Clone(g.targets),
				RecordType:       g.recordType,
				SetIdentifier:    ep.SetIdentifier,
				RecordTTL:        ep.RecordTTL,
				Labels:           ep.Labels,
				ProviderSpecific: slices.Clone(ep.ProviderSpecific),
			})
		}
	}
	return out, partial
}

// String describes the wrapper.
func (d *DefaultTargets) String() string { return "default targets of " + describe(d.inner) }
