package source

import (
	"context"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// PostProcessor is a wrapper [Source] that applies the global adjustments
// external-dns makes to every endpoint after the sources (its post
// processor), each enabled by an option:
//
//   - [PostProcessorOptions.DefaultTTL]: endpoints without a configured TTL get this one
//     (external-dns's --min-ttl, which despite its name only fills in unset
//     TTLs);
//   - [PostProcessorOptions.MinTTL]: endpoints with a TTL below this one, unset TTLs included,
//     are raised to it;
//   - [PostProcessorOptions.Provider]: provider-specific properties meant for other
//     providers are dropped: a property whose name contains "/" is kept only
//     when it starts with "<provider>/"; names without "/" (alias,
//     record-type) are always kept. For "cloudflare" the legacy Cloudflare
//     names are first renamed to their canonical ones
//     ([CanonicalProviderSpecificName]; "⟨prefix⟩cloudflare-proxied"
//     becomes "cloudflare/proxied", under any prefix), a canonical property
//     already present winning over the legacy one it collides with, and
//     between two legacy ones the first; so only "cloudflare/..." names and
//     plain ones remain. For every other provider legacy names are left as
//     they are, and so dropped by the rule above ("webhook/cloudflare-tags"
//     reaches a webhook provider unchanged). For "webhook" only plain names
//     and "webhook/..." ones remain, which is what reaches a webhook
//     provider. This is what external-dns v0.23 does;
//   - [PostProcessorOptions.PreferAlias]: CNAME endpoints without an "alias" property get
//     alias=true.
//
// When any option is set, the provider-specific properties of every endpoint
// are also sorted by name, as external-dns does since v0.21. With no option
// the wrapper passes everything through unchanged.
//
// Readiness and events are those of the inner source; a [*PartialError]
// from it is passed on with the endpoints.
//
//zonesync:source:name=post-processor
//zonesync:source:category=wrapper
//zonesync:source:description=Applies default and minimum TTLs, renames legacy Cloudflare properties (cloudflare/proxied, ...) for the cloudflare provider, keeps only the provider's provider-specific properties, optionally prefers ALIAS.
//zonesync:source:resources=none
//zonesync:source:filters=none
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=true
type PostProcessor struct {
	wrapper
	defaultTTL, minTTL endpoint.TTL
	provider           string
	preferAlias        bool
}

var (
	_ Source = (*PostProcessor)(nil)
	_ Syncer = (*PostProcessor)(nil)
)

// PostProcessorOptions configures a [PostProcessor]. The zero value
// changes nothing.
type PostProcessorOptions struct {
	// DefaultTTL is the TTL of endpoints whose TTL is not configured; zero
	// or negative disables it.
	DefaultTTL endpoint.TTL
	// MinTTL raises every TTL below it, unset ones included; zero or
	// negative disables it.
	MinTTL endpoint.TTL
	// Provider keeps only the provider-specific properties meant for the
	// named provider (see [PostProcessor]); white space around it is
	// ignored and an empty name keeps them all.
	Provider string
	// PreferAlias sets alias=true on CNAME endpoints that have no alias
	// property (external-dns's --prefer-alias).
	PreferAlias bool
}

// NewPostProcessor wraps inner (nil = [Empty]).
func NewPostProcessor(inner Source, opts PostProcessorOptions) *PostProcessor {
	return &PostProcessor{
		wrapper:     wrapper{orEmpty(inner)},
		defaultTTL:  max(opts.DefaultTTL, 0),
		minTTL:      max(opts.MinTTL, 0),
		provider:    strings.TrimSpace(opts.Provider),
		preferAlias: opts.PreferAlias,
	}
}

// Endpoints returns the inner source's endpoints, adjusted in place.
func (p *PostProcessor) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, partial, hard := innerEndpoints(ctx, p.inner)
	if hard != nil {
		return nil, hard
	}
	if p.defaultTTL == 0 && p.minTTL == 0 && p.provider == "" && !p.preferAlias {
		return eps, partial
	}
	prefix := p.provider + "/"
	foreign := func(prop endpoint.ProviderSpecificProperty) bool {
		return strings.Contains(prop.Name, "/") && !strings.HasPrefix(prop.Name, prefix)
	}
	// Legacy names are renamed for Cloudflare only: renamed for another
	// provider they would be dropped as foreign all the same, and
	// "webhook/cloudflare-tags" must reach a webhook provider unchanged.
	canonicalize := p.provider == "cloudflare"
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		if p.defaultTTL > 0 && !ep.RecordTTL.IsConfigured() {
			ep.RecordTTL = p.defaultTTL
		}
		if p.minTTL > 0 && ep.RecordTTL < p.minTTL {
			ep.RecordTTL = p.minTTL
		}
		if canonicalize {
			ep.ProviderSpecific = canonicalProviderSpecific(ep.ProviderSpecific)
		}
		if p.provider != "" {
			ep.ProviderSpecific = slices.DeleteFunc(ep.ProviderSpecific, foreign)
		}
		if p.preferAlias && ep.RecordType == endpoint.RecordTypeCNAME {
			if _, ok := ep.GetProviderSpecificProperty(endpoint.ProviderSpecificAlias); !ok {
				ep.SetProviderSpecificProperty(endpoint.ProviderSpecificAlias, "true")
			}
		}
		slices.SortStableFunc(ep.ProviderSpecific, byName)
		if len(ep.ProviderSpecific) == 0 {
			ep.ProviderSpecific = nil
		}
	}
	return eps, partial
}

// String describes the wrapper.
func (p *PostProcessor) String() string { return "post-processor of " + describe(p.inner) }

func byName(a, b endpoint.ProviderSpecificProperty) int { return strings.Compare(a.Name, b.Name) }

// CanonicalProviderSpecificName returns the name external-dns v0.23 and
// later give the provider-specific property name, and whether that differs
// from name. Only Cloudflare's properties were renamed: a name whose last
// "/"-separated part (the whole name when it has no "/") is
// "cloudflare-⟨attr⟩", for one of the five known attributes, is a legacy
// name, written by earlier releases as the whole annotation key under any
// prefix; its canonical name is "cloudflare/⟨attr⟩":
//
//	external-dns.alpha.kubernetes.io/cloudflare-proxied → cloudflare/proxied
//	custom.example/cloudflare-tags                      → cloudflare/tags
//	cloudflare-region-key                               → cloudflare/region-key
//
// The known attributes are proxied, custom-hostname, region-key,
// record-comment and tags (the property names are constants in package
// annotations). Any other name, canonical names and unknown attributes
// included, is returned unchanged with false. This is the one mapping from
// legacy to canonical names: the annotation parser and [PostProcessor]
// both use it.
func CanonicalProviderSpecificName(name string) (string, bool) {
	last := name[strings.LastIndexByte(name, '/')+1:]
	attr, ok := strings.CutPrefix(last, "cloudflare-")
	if !ok {
		return name, false
	}
	var canonical string
	switch attr {
	case "proxied":
		canonical = "cloudflare/proxied"
	case "custom-hostname":
		canonical = "cloudflare/custom-hostname"
	case "region-key":
		canonical = "cloudflare/region-key"
	case "record-comment":
		canonical = "cloudflare/record-comment"
	case "tags":
		canonical = "cloudflare/tags"
	default:
		return name, false
	}
	return canonical, true
}

// canonicalProviderSpecific renames the legacy Cloudflare properties of ps
// to their canonical names, in place. A legacy property whose canonical
// name is already present — as a property that was never legacy, or from
// an earlier legacy one — is dropped. The order of the rest is kept.
func canonicalProviderSpecific(ps endpoint.ProviderSpecific) endpoint.ProviderSpecific {
	legacy := 0
	for _, prop := range ps {
		if _, ok := CanonicalProviderSpecificName(prop.Name); ok {
			legacy++
		}
	}
	if legacy == 0 {
		return ps
	}
	present := make(map[string]bool, len(ps)-legacy+1)
	for _, prop := range ps {
		if _, ok := CanonicalProviderSpecificName(prop.Name); !ok {
			present[prop.Name] = true
		}
	}
	out := ps[:0]
	for _, prop := range ps {
		if name, ok := CanonicalProviderSpecificName(prop.Name); ok {
			if present[name] {
				continue
			}
			present[name] = true
			prop.Name = name
		}
		out = append(out, prop)
	}
	clear(ps[len(out):])
	return out
}
