// Package endpoint is the data model of zonesync: the [Endpoint] (one DNS
// record set with its targets, TTL, labels and provider-specific properties),
// the [Labels] that carry ownership and their TXT payload encoding, and the
// domain filter family ([DomainFilter], [MatchAllDomainFilters]).
//
// The package depends on the standard library only, so anything that wants to
// describe DNS records can import it without pulling in Kubernetes, a DNS
// library or a cloud SDK.
//
// # Names
//
// DNS names are compared case-insensitively, without a trailing dot and in
// IDNA-normalised (Unicode) form; [NormalizeDNSName] produces that form and
// returns plain lower-case ASCII names unchanged without allocating.
// Constructors such as [NewEndpoint] strip one trailing dot from the name and,
// depending on the record type, from the targets (see [NewEndpoint]).
//
// # Validation
//
// Constructors never fail and never return nil: they record what they are
// given. [Endpoint.Validate] reports everything wrong with an endpoint (an
// over-long label, an A target that is not IPv4, an SRV target with the wrong
// number of fields, ...) in one error that names the record and the field.
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
