package source

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	"github.com/zonesync/zonesync/endpoint"
)

// NAT64 is a wrapper [Source] for NAT64 networks (RFC 6052 /96 prefixes).
// It keeps every endpoint of its inner source and adds, by default, what
// external-dns's --nat64-networks adds: for each AAAA endpoint with targets
// inside one of the prefixes, an A endpoint with the IPv4 addresses embedded
// in them (the last 32 bits). The new endpoint has the name, set identifier,
// TTL, labels and provider-specific properties of the AAAA one; AAAA
// targets outside the prefixes contribute nothing, and an AAAA endpoint
// with none inside adds nothing.
//
// With [NAT64Options.SynthesizeAAAA] it works the other way round, as a DNS64
// resolver would: for each A endpoint it adds an AAAA endpoint holding every
// IPv4 target embedded in every prefix.
//
// With no prefixes the wrapper passes everything through. Targets that are
// not addresses of the endpoint's family are skipped, not reported
// (validation reports them). Readiness and events are those of the inner
// source; a [*PartialError] from it is passed on with the endpoints.
//
//zonesync:source:name=nat64
//zonesync:source:category=wrapper
//zonesync:source:description=Adds A endpoints for AAAA targets inside NAT64 /96 prefixes (or, optionally, AAAA endpoints for A targets).
//zonesync:source:resources=none
//zonesync:source:filters=networks
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=true
type NAT64 struct {
	wrapper
	prefixes       []netip.Prefix
	synthesizeAAAA bool
}

var (
	_ Source = (*NAT64)(nil)
	_ Syncer = (*NAT64)(nil)
)

// NAT64Options configures a [NAT64]. The zero value has no prefix, and the
// wrapper then adds nothing.
type NAT64Options struct {
	// Prefixes are the NAT64 prefixes, each an IPv6 /96.
	Prefixes []netip.Prefix
	// SynthesizeAAAA adds AAAA endpoints for A endpoints (each IPv4
	// target embedded in each prefix) instead of A endpoints for the AAAA
	// targets inside a prefix.
	SynthesizeAAAA bool
}

// NewNAT64 wraps inner (nil = [Empty]). Every prefix must be an IPv6 /96;
// otherwise NewNAT64 returns an error naming it.
func NewNAT64(inner Source, opts NAT64Options) (*NAT64, error) {
	n := &NAT64{wrapper: wrapper{orEmpty(inner)}, synthesizeAAAA: opts.SynthesizeAAAA}
	for i, p := range opts.Prefixes {
		if !p.IsValid() || !p.Addr().Is6() || p.Addr().Is4In6() || p.Bits() != 96 {
			return nil, fmt.Errorf("nat64 prefix %d %q: want an IPv6 /96 prefix", i, p)
		}
		n.prefixes = append(n.prefixes, p.Masked())
	}
	return n, nil
}

// Endpoints returns the inner source's endpoints followed by the
// synthesised ones, in the order of the endpoints they came from.
func (n *NAT64) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, partial, hard := innerEndpoints(ctx, n.inner)
	if hard != nil {
		return nil, hard
	}
	if len(n.prefixes) == 0 {
		return eps, partial
	}
	var added []*endpoint.Endpoint
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		var targets []string
		var recordType string
		if n.synthesizeAAAA {
			if ep.RecordType != endpoint.RecordTypeA {
				continue
			}
			recordType = endpoint.RecordTypeAAAA
			targets = n.embed(ep.Targets)
		} else {
			if ep.RecordType != endpoint.RecordTypeAAAA {
				continue
			}
			recordType = endpoint.RecordTypeA
			targets = n.extract(ep.Targets)
		}
		if len(targets) == 0 {
			continue
		}
		added = append(added, &endpoint.Endpoint{
			DNSName:          ep.DNSName,
			Targets:          targets,
			RecordType:       recordType,
			SetIdentifier:    ep.SetIdentifier,
			RecordTTL:        ep.RecordTTL,
			Labels:           ep.Labels,
			ProviderSpecific: slices.Clone(ep.ProviderSpecific),
		})
	}
	return append(eps, added...), partial
}

// extract returns the IPv4 addresses embedded in the targets that lie in a
// prefix.
func (n *NAT64) extract(targets endpoint.Targets) endpoint.Targets {
	var out endpoint.Targets
	for _, t := range targets {
		a, err := netip.ParseAddr(t)
		if err != nil || !a.Is6() || a.Is4In6() || !containsAddr(n.prefixes, a) {
			continue
		}
		b := a.As16()
		out = appendUnique(out, netip.AddrFrom4([4]byte(b[12:16])).String())
	}
	return out
}

// embed returns every IPv4 target embedded in every prefix.
func (n *NAT64) embed(targets endpoint.Targets) endpoint.Targets {
	var out endpoint.Targets
	for _, p := range n.prefixes {
		for _, t := range targets {
			a, err := netip.ParseAddr(t)
			if err != nil || !a.Is4() {
				continue
			}
			b := p.Addr().As16()
			v4 := a.As4()
			copy(b[12:], v4[:])
			out = appendUnique(out, netip.AddrFrom16(b).String())
		}
	}
	return out
}

// String describes the wrapper.
func (n *NAT64) String() string { return "nat64 of " + describe(n.inner) }

func appendUnique(ts endpoint.Targets, t string) endpoint.Targets {
	if slices.Contains(ts, t) {
		return ts
	}
	return append(ts, t)
}
