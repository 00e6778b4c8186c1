// Package zonesync keeps DNS records in step with what a program wants them
// to be. It does the job of kubernetes-sigs/external-dns — collect desired
// records from sources, compare them with what a DNS provider holds, plan
// the changes under a policy, and track which records it owns — as a set of
// small packages that any Go program or Kubernetes operator can embed.
//
// This package holds the [Reconciler], the thin loop that wires the others
// together. The rest of the library is a map of one-noun packages, each
// usable on its own. Imports flow one way, from the data model up: below,
// "a → b" reads "a imports b, directly or through packages not shown", and
// every package imports only packages of lower layers (derived from the
// code by go generate ./docs; docs/architecture.md has the table):
//
//	endpoint
//	plan     → endpoint
//	policy   → plan
//	provider → plan
//	registry → provider
//	source   → endpoint
//	zonesync → policy, registry, source
//
//	layer 6: metrics/prometheus
//	layer 5: inventory, source/kubernetes/conditions,
//	         source/kubernetes/events
//	layer 4: registry/crd, registry/noop, registry/registrytest,
//	         registry/txt, source/gatewayapi, source/kubernetes, zonesync
//	layer 3: provider/batch, provider/cache, provider/inmemory,
//	         provider/providertest, provider/ratelimit, provider/rfc2136,
//	         provider/router, provider/webhook, registry,
//	         source/kubernetes/kubeopts
//	layer 2: policy, provider, source/annotations, source/connector,
//	         source/fqdn, source/sourcetest, verify
//	layer 1: blueprint, clock/clocktest, plan, source, verify/result
//	layer 0: clock, endpoint, informers, internal/contractkit,
//	         internal/dnstxt
//
// # The packages
//
//   - [github.com/zonesync/zonesync/endpoint]: the data model. An
//     [endpoint.Endpoint] is one record set (name, type, targets, TTL, set
//     identifier, labels, provider-specific properties); also the ownership
//     [endpoint.Labels] and their TXT encoding, and the domain filters
//     ([endpoint.DomainFilter], [endpoint.MatchAllDomainFilters]).
//     Standard library and golang.org/x/net/idna only.
//   - [github.com/zonesync/zonesync/plan]: the heart. [plan.Plan] compares
//     current and desired records and calculates [plan.Changes] (creates,
//     updates, deletes) under ownership rules, with a pluggable
//     [plan.ConflictResolver]; every change it does not make is reported in
//     [plan.Plan.Skipped] with a reason.
//   - [github.com/zonesync/zonesync/policy]: [policy.Sync], [policy.UpsertOnly]
//     and [policy.CreateOnly] filter the changes; [policy.ByName] looks them up.
//   - [github.com/zonesync/zonesync/provider]: the [provider.Provider]
//     interface a DNS service implements, and [provider.SoftError] for
//     transient failures. [github.com/zonesync/zonesync/provider/inmemory] is
//     a zone-aware in-memory provider, the embedded default and reference
//     implementation; github.com/zonesync/zonesync/provider/externaldns (a
//     module of its own) runs external-dns's in-tree providers — Route 53,
//     Cloud DNS, Azure DNS, Cloudflare and the others — in-process;
//     [github.com/zonesync/zonesync/provider/webhook] speaks external-dns's
//     webhook protocol both ways (a client Provider for the community
//     webhook providers, and an http.Handler serving any Provider to
//     external-dns). Providers that
//     list their zones ([provider.ZoneLister]) are applied one zone per
//     call; provider/batch, provider/ratelimit and provider/cache wrap a
//     provider for APIs with limits.
//   - [github.com/zonesync/zonesync/registry]: the [registry.Registry]
//     interface, a provider that also knows who owns each record.
//     [github.com/zonesync/zonesync/registry/txt] keeps ownership in TXT
//     records compatible with external-dns, so zones it manages today can be
//     taken over: with the same owner id and TXT settings, records both
//     are asked for do not change (docs/from-external-dns.md lists the
//     cases that do); [github.com/zonesync/zonesync/registry/noop] keeps
//     none.
//   - [github.com/zonesync/zonesync/source]: the two-method [source.Source]
//     interface that yields desired endpoints, the optional readiness
//     capability [source.Syncer], the per-object [source.PartialError],
//     wrappers ([source.Multi], [source.Dedup], [source.PostProcessor] and
//     more) and ready-made sources ([source.Static]; package
//     source/connector reads external-dns's connector wire format);
//     packages source/annotations and source/fqdn hold the external-dns
//     annotation parser and FQDN templates for sources of one's own, and
//     source/sourcetest a contract checker and a random source for tests.
//     [github.com/zonesync/zonesync/source/kubernetes] reads Services,
//     Ingresses, DNSEndpoints, Istio Gateways, Contour HTTPProxies and any
//     resource through informers set up with
//     [github.com/zonesync/zonesync/informers], and
//     [github.com/zonesync/zonesync/source/gatewayapi] the Gateway API
//     routes. client-go is imported by the packages under source/kubernetes
//     and source/gatewayapi, by informers, by registry/crd (ownership in
//     DNSRecord objects) and by the test harnesses under internal/kubetest,
//     and by no other package (deps_test.go keeps it so).
//   - [github.com/zonesync/zonesync/clock]: the one [clock.Clock] of the
//     library; tests drive it with clock/clocktest.
//   - [github.com/zonesync/zonesync/blueprint]: helpers for provider
//     authors that production code may import ([blueprint.ZoneCache]);
//     [github.com/zonesync/zonesync/provider/providertest] is the test
//     kit beside it: the conformance suite (providertest.TestProvider,
//     providertest.CheckProvider), fault injection (providertest.Intercept,
//     providertest.FailRandomly) and a recording provider.
//
// Runnable programs live in the examples directory: quickstart (this
// package in thirty lines), customsource (a Source of one's own),
// providertest (proving a provider with the conformance suite),
// webhookserver (a zonesync provider served to external-dns), bind (a BIND
// zone kept in step with a file: RFC 2136 with TSIG, the TXT registry, a
// preview before each cycle, Prometheus metrics) and operator (a
// controller-runtime manager with leader election, in its own module).
//
// # Usage
//
// A Reconciler needs a source and a registry over a provider:
//
//	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
//	reg, err := txt.New(zone, txt.Config{OwnerID: "my-operator"})
//	if err != nil { ... }
//	rec := &zonesync.Reconciler{
//		Source:   mySource,
//		Registry: reg,
//		Logger:   logger, // any logr.Logger; unset: the context's logger
//	}
//
// An operator calls [Reconciler.RunOnce] from its own reconcile loop; a
// standalone program calls [Reconciler.Run], which runs a cycle every
// Interval and, unless IgnoreSourceEvents is set, soon after the source
// reports a change (never sooner than MinEventSyncInterval after the
// previous cycle; external-dns reacts to changes only with --events).
// [Reconciler.Preview] shows what a cycle would do — the changes, every
// change it would skip with the reason, the safety verdict — without
// applying anything; DryRun makes RunOnce compute the changes without
// applying them.
//
// Ownership settings live in one place, the registry: the Reconciler reads
// the owner id, the old owner id of a migration and the managed record types
// from it ([registry.OwnershipReporter]) and refuses to run when its own
// ManagedRecordTypes contradict them ([ErrInvalidConfig]).
//
// # Sources that are not ready, and bad objects
//
// A source that reports it is not ready ([source.Syncer], e.g. informer
// caches not synced) stops a cycle before anything is read, with the soft
// error [ErrSourceNotReady]: an empty list from a cold cache never becomes a
// deletion plan. A source that cannot build the endpoints of some objects
// returns the others with a [*source.PartialError]: the cycle plans and
// applies them, keeps the records of the failed objects as they are (skip
// reason [plan.SkipSourceError]) and returns the error, which the Observer
// also sees. One bad object never blocks the others. Protection is keyed on
// what the records carry: while a failed object is named by no record of
// ours (a connector endpoint without a resource label, an object never
// applied), no record is deleted at all.
//
// Every desired endpoint is validated ([endpoint.Endpoint.ValidateDesired],
// then the registry's own check, [registry.DesiredChecker]) after the
// source and after the registry adjusted it; an invalid one — a TXT value
// that reads as an ownership record among them — is not planned and is
// reported like an object the source could not read. A
// create whose ownership the registry could not record (an apex record with
// a TXT prefix that is not templated) is skipped with
// [plan.SkipUnownable]; the rest is applied and the cycle does not fail.
//
// # Safety
//
// Ownership is decided once per record, by the registry when it reads it,
// and carried with the record ([endpoint.Ownership]); the plan enforces it:
// with a TXT registry, records owned by another owner id or by nobody are
// never updated or deleted. What a provider cannot store as asked is never
// sent to it: its declared guarantees ([provider.Guarantees]; a provider
// that declares nothing is assumed to drop set identifiers and to let
// creates overwrite) make the plan skip such endpoints with
// [plan.SkipUnsupported], and the registries re-read the zone just before
// creating on providers whose creates overwrite. On top of
// that, the safety threshold ([Reconciler.Safety], a [plan.SafetyThreshold],
// on by default) refuses a plan that would
// delete or update more than 30% of the owned records once at least 10 are
// owned, the classic accident of a source that briefly looks empty. When the
// registry lists its zones the limit also holds in each zone, so that a
// small zone is not emptied in the shadow of a large one. The error matches
// [ErrUnsafePlan] and carries the counts, per zone too
// ([plan.UnsafePlanError]).
//
// # Observability
//
// Logs go to the Reconciler's [logr.Logger], or, when it is unset, to the
// logger in the context given to RunOnce, Run or Preview (a
// controller-runtime request logger, for instance): one line per cycle at
// V(0), an error line (logr's Error) per failed cycle, and one line per
// change at V(1). The logger travels in the context of every call
// ([logr.NewContext]); the source, the registry and the provider log
// through [logr.FromContextOrDiscard], so one logger covers them all.
// Metrics go through an [Observer], called at the start and end of every
// cycle with counts, durations and the calculated plan ([Cycle.Plan]).
// With [Reconciler.Verifier] set (for example a *verify.Verifier), a cycle
// that applied changes resolves the records it created or updated and
// reports what DNS answered in [Cycle.Verified]; [Cycle.RecordStatuses]
// gives the state of every desired record and [Cycle.ResourceStatuses] that
// of every object the cycle heard of, those the source could not read
// included. [Reconciler.RunOnce] returns the same Cycle the Observer gets. The metrics/prometheus package
// turns cycles into Prometheus metrics with external-dns's names, and
// source/kubernetes/events into Kubernetes Events. There is no package-level state: two Reconcilers in one process share
// nothing.
//
// # Concurrency
//
// A Reconciler's cycles never overlap: concurrent RunOnce calls are
// serialised. [Reconciler.ScheduleRunOnce] may be called from any
// goroutine, typically from a source's event handler. Only one Run may be
// active at a time.
//
// # Errors
//
// Errors name the step that failed (reading the registry, reading the
// source, adjusting, applying) and wrap their cause: errors.Is(err,
// provider.SoftError) marks transient failures. Run retries every failed
// cycle with exponential backoff, soft or hard, and returns only when its
// context ends or on a configuration error ([ErrInvalidConfig]); a source's
// partial error is logged and Run keeps its schedule. Error trees stay flat:
// an object with many failures reports a few causes and counts the rest.
// [provider.ErrorParts] splits a joined error (several rejected records, per-zone
// failures) into its parts.
package zonesync
