// Package source defines [Source], the origin of desired DNS records, and
// small sources that programs and tests can use directly.
//
// A Source answers one question — which records should exist? — with
// [Source.Endpoints], and tells its consumer when the answer may have changed
// through handlers registered with [Source.AddEventHandler]. Everything else
// (ownership, conflict resolution, policies, providers) is done by the other
// packages of zonesync, so a source of one's own is two methods.
//
// # Usage
//
// [Static] holds a list of endpoints that the program replaces with
// [Static.Set] or extends with [Static.Add]; each call notifies the
// registered handlers:
//
//	src := source.NewStatic(endpoint.NewEndpoint("app.example.com", endpoint.RecordTypeA, "192.0.2.10"))
//	rec := &zonesync.Reconciler{Source: src, Registry: reg}
//	go rec.Run(ctx)                 // Run registers a handler on src (unless rec.IgnoreSourceEvents)
//	src.Set(newEndpoints...)        // schedules a cycle
//
// A source of one's own looks like this (a static list from a map):
//
//	type hostsSource struct{ hosts map[string]string } // name -> IPv4
//
//	func (s hostsSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
//		if err := ctx.Err(); err != nil {
//			return nil, err
//		}
//		eps := make([]*endpoint.Endpoint, 0, len(s.hosts))
//		for _, name := range slices.Sorted(maps.Keys(s.hosts)) {
//			eps = append(eps, endpoint.NewEndpoint(name, endpoint.RecordTypeA, s.hosts[name]))
//		}
//		return eps, nil
//	}
//
//	func (hostsSource) AddEventHandler(context.Context, func()) {} // static: never fires
//
// # Contract
//
//   - Endpoints returns a new slice on every call, in any order (the planner
//     sorts; sources need not); the caller may modify it and its endpoints.
//   - Endpoints honours its context and returns promptly once it is done.
//   - Errors wrap their cause with %w and name the object at fault. A bad
//     object is reported in a [*PartialError] together with the endpoints of
//     the others; any other error means the list must not be planned from.
//   - Handlers passed to AddEventHandler are cheap and non-blocking; a source
//     stops calling a handler once the context it was registered with is done.
//   - A source that can be incomplete (informer caches not synced) implements
//     [Syncer]; informer-backed sources register their handlers before the
//     informers start and stop with the context.
//
// CheckSource in package source/sourcetest checks a source against this
// contract and reports every violation; run it in the source's tests.
//
// # Wrappers
//
// Wrappers hold another source and change what it returns. Each reports the
// readiness of what it wraps ([Syncer]), registers handlers on it, and passes
// on a [*PartialError] together with the endpoints:
//
//   - [Multi] combines several sources, asked concurrently, in a
//     deterministic order; partial errors are merged, any other error fails
//     the call and names the source;
//   - [Dedup] drops exact duplicates;
//   - [TargetFilter] keeps A/AAAA targets inside given networks;
//   - [NAT64] adds A endpoints for AAAA targets inside NAT64 prefixes (or
//     the reverse);
//   - [PTR] adds reverse-DNS endpoints for A/AAAA targets;
//   - [DefaultTargets] gives endpoints fixed targets;
//   - [PostProcessor] applies default and minimum TTLs and keeps only the
//     provider-specific properties meant for the provider in use (for
//     Cloudflare after renaming legacy property names to the canonical
//     cloudflare/⟨attr⟩ ones, [CanonicalProviderSpecificName]).
//
// The order external-dns applies them in is a good default:
//
//	var src source.Source = source.NewMulti(sources, source.MultiOptions{})
//	src = source.NewDefaultTargets(src, source.DefaultTargetsOptions{Targets: defaults})
//	src = source.NewDedup(src)
//	src, err = source.NewNAT64(src, source.NAT64Options{Prefixes: nat64Prefixes}) // when used
//	src = source.NewTargetFilter(src, source.TargetFilterOptions{Include: include, Exclude: exclude})
//	src = source.NewPTR(src, source.PTROptions{ReverseZones: reverseZones}) // when PTR records are wanted
//	src = source.NewPostProcessor(src, source.PostProcessorOptions{DefaultTTL: ttl, Provider: "webhook"})
//
// Each wrapper takes one options struct whose zero value changes nothing
// (or, for [Multi], asks every source at once).
//
// # Other sources
//
// [Empty] has no endpoints and [Static] serves a list held in memory.
// Package [github.com/zonesync/zonesync/source/connector] reads endpoints
// from a TCP server in the wire format of external-dns's connector source,
// and serves them in that format. The test kit [github.com/zonesync/zonesync/source/sourcetest] has a source
// of random endpoints and a checker of the contract above.
//
// # Building endpoints from objects
//
// Sources that read objects carrying external-dns annotations use the
// parser of package source/annotations and the FQDN templates of package
// source/fqdn; both name the object at fault with an [ObjectRef]. Report
// an object whose endpoints could not be built with [PartialError.Add] and
// obj.Key(), so the other objects' records are still planned.
// [EndpointsForHostname] turns names and targets into typed endpoints (A,
// AAAA, CNAME) carrying the object's resource label.
//
// # Doc markers
//
// The doc comment of every source type ends with "//zonesync:source:"
// marker lines (name, category, description, resources, filters,
// namespaced, fqdn-template, events, and config for the options table) from
// which go generate ./source writes docs/sources.md. Written without a space
// after "//", they are directive comments, which go doc and pkg.go.dev do
// not show; internal/sourcedocs refuses the visible "// +zonesync:source:"
// form of earlier revisions.
//
// # Concurrency
//
// Every Source in this package is safe for concurrent use.
package source
