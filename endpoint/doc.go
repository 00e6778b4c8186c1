// Package endpoint is the data model of zonesync: the [Endpoint] (one DNS
// record set with its targets, TTL, labels and provider-specific properties),
// the [Labels] that carry ownership and their TXT payload encoding, and the
// domain filter family ([DomainFilter], [MatchAllDomainFilters]).
//
// The package depends on the standard library and golang.org/x/net/idna only,
// so anything that wants to describe DNS records can import it without
// pulling in Kubernetes, a DNS library or a cloud SDK.
//
// # Names
//
// zonesync holds every DNS name in one form, from the moment a source's
// endpoints enter the Reconciler until a provider writes them: lower-case
// A-labels ("xn--bcher-kva.example"), no trailing dot, what DNS stores.
// [ToALabel] gives that form; names are compared in it (grouping of records
// by name in the planner, domain filters, lookups in providers), written to
// providers in it and ownership TXT names are built from it. [ToUnicode]
// gives the form a person reads ("bücher.example"), for the edges: logs,
// messages, regular expressions in domain filters. Both derive from the
// UTS #46 profile external-dns uses (IDNA lookup mapping, transitional
// processing, non-strict STD3 rules, so "_" and "*" are allowed), and for
// names IDNA accepts they agree: ToUnicode(ToALabel(x)) equals ToUnicode(x).
// Both return plain lower-case ASCII names unchanged without allocating.
// Constructors such as [NewEndpoint] strip one trailing dot from the name
// and, depending on the record type, from the targets (see [NewEndpoint]),
// and change nothing else.
//
// Targets are compared with [Targets.Same]: ignoring order and case (Unicode
// simple case folding), IPv6 addresses in canonical form. [CanonicalTarget]
// is that comparison form, the one definition of target equality.
//
// # Validation
//
// Constructors never fail and never return nil: they record what they are
// given. [Endpoint.Validate] reports everything wrong with an endpoint (white
// space in the name, an over-long label, an A target that is not IPv4, an SRV
// target with the wrong number of fields, ...) in one error that names the
// record and the field.
//
// # Wire compatibility
//
// The JSON form of [Endpoint] and [DomainFilter] and the text form of [Labels]
// are byte-compatible with kubernetes-sigs/external-dns, so the same records
// can be exchanged with external-dns webhooks and registries.
//
// # Concurrency
//
// Values of this package are plain data: they are safe for concurrent reads,
// and a caller that mutates an Endpoint shared with other goroutines must
// synchronise itself. [DomainFilter] is immutable after construction and safe
// for concurrent use.
package endpoint
