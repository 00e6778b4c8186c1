// Package provider defines the [Provider] interface that every DNS backend
// implements, the [BaseProvider] defaults, the [SoftError] classification of
// transient failures, and helpers for zone-based providers
// ([DomainFilterFromZones], [DomainFilterFromZoneLister], [ZoneMatcher]).
//
// Implementations live in sub-packages (provider/inmemory, provider/webhook,
// provider/rfc2136) or in other modules; the blueprint package holds the
// conformance suite that proves an implementation keeps the contract below,
// and fakes for tests.
//
// # Contract
//
// Every Provider must keep these rules; callers (the registry, the
// Reconciler) rely on them.
//
//   - Context. Records and ApplyChanges honour their context: when it is
//     cancelled or its deadline passes they return promptly with an error
//     that wraps ctx.Err() (errors.Is(err, context.Canceled) holds), and a
//     call made with an already cancelled context changes nothing.
//   - Concurrency. All methods are safe for concurrent use by several
//     goroutines. Concurrent ApplyChanges calls touching different records
//     must all take effect.
//   - Slice ownership. Records returns a fresh slice of fresh endpoints on
//     every call: the caller may modify the slice, the endpoints, their
//     targets and their maps without affecting the provider or later results.
//     ApplyChanges must not modify the [plan.Changes] it is given, nor the
//     endpoints in it, and must not keep references to them after it
//     returns (copy what is stored). AdjustEndpoints must not modify the
//     endpoints it is given in place; it copies ([endpoint.Endpoint.DeepCopy])
//     before changing one, and may return its input unchanged.
//   - Order. Records returns endpoints sorted by DNSName, then SetIdentifier,
//     then RecordType (plain string order), so that results are
//     deterministic.
//   - Names. Every DNS name a provider is given (in [plan.Changes] and to
//     AdjustEndpoints) and every name Records returns is in the one form
//     zonesync holds names in: lower-case A-labels without a trailing dot
//     ([endpoint.ToALabel]; "xn--mnchen-3ya.example.org", never
//     "münchen.example.org"). A provider whose API speaks Unicode converts
//     at its own boundary. DNS names are case-insensitive, so a provider
//     should also find a record when a change spells its name in another
//     case or with a trailing dot. One endpoint holds every target of its
//     (name, type, set identifier).
//   - What is stored. A provider stores what a DNS server stores: name, type,
//     set identifier, TTL, targets and the provider-specific properties it
//     understands. Labels are not record data: ownership is kept in TXT
//     records written by the registry, so Records need not return labels.
//     Provider-specific properties a provider does not know, such as
//     [endpoint.ProviderSpecificForceUpdate] ("txt/force-update", which the
//     TXT registry sets to request a rewrite), must be ignored, never
//     rejected.
//   - Changes. Creating a record that exists, and updating or deleting a
//     record that does not exist, are errors. UpdateOld[i] and UpdateNew[i]
//     are a pair describing one record before and after.
//
// # Errors
//
// Errors name the record at fault (name, type and set identifier, see
// [endpoint.Endpoint.Key]) and wrap their cause with %w. Transient failures
// (rate limits, timeouts, 5xx answers) are wrapped with [NewSoftError] so
// that errors.Is(err, SoftError) holds and the caller retries at its next
// cycle instead of giving up.
//
// An error from ApplyChanges does not say how much was applied. Each
// provider documents whether it applies a change set atomically (the
// inmemory provider does: a failing call changes nothing) or record by
// record (most DNS APIs, which may have applied a prefix of the changes).
// Callers must therefore treat the zone state as unknown after an error and
// read it again with Records before planning the next change set; the
// Reconciler does exactly that at every cycle.
//
// # Domain filters
//
// GetDomainFilter reports the names the provider can manage and never
// returns nil (an empty [endpoint.DomainFilter] matches everything). The
// Reconciler combines it (logical AND) with the filter the user configured, so a
// provider that knows its zones protects names outside them even when the
// user configured nothing. Providers without a notion of zones embed
// [BaseProvider], whose filter matches everything; providers with a zone list
// build the filter with [DomainFilterFromZones] or, when listing zones may
// fail, [DomainFilterFromZoneLister], which falls back to the match-all
// filter on error. [ZoneMatcher] assigns a record name to the most specific
// zone that holds it.
//
// # Zones and applying at scale
//
// A provider that can tell its zones implements [ZoneLister] (inmemory,
// rfc2136 and the webhook client do). The TXT registry then applies a
// change set one zone per call ([SplitByZone]), each record with its
// ownership TXT ([GroupKey]), so that a zone that fails does not stop the
// others; its errors are [*ZoneError] values naming the zone. [ZonesOf]
// tells whether a provider, wrapped or not, lists zones.
//
// # Wrappers and optional capabilities
//
// A wrapper has exactly the optional capabilities ([ZoneLister], ...) of
// the provider it wraps, answered by that provider unless the wrapper
// overrides them: every wrapper implements Unwrap() Provider, returning
// what it wraps, and callers ask for a capability with [As] (never a type
// assertion), the one helper that walks the layers. A new capability thus
// needs no change to any wrapper.
//
// [RecordVisitor] is the exception: it reads the records without a copy,
// so reaching it through the layers would bypass a wrapper that changes or
// limits Records. Callers use it only by a type assertion on the provider
// they hold, and wrappers do not implement it: a wrapped provider is read
// with Records.
//
// The wrappers in the subpackages batch, ratelimit and cache handle the
// limits of real DNS APIs once for every provider: batches bounded by
// record count and value bytes with bad records isolated and reported as
// [*RejectedError] (collect them with [Rejected]); a token bucket with
// backoff on soft errors; a records cache dropped by every ApplyChanges.
// Stack them as registry → cache → batch → ratelimit → provider: a cache
// hit takes no token, and every batch waits for its own.
package provider
