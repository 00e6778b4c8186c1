// Package rfc2136 is a [provider.Provider] for any authoritative name server
// that accepts RFC 2136 dynamic updates and AXFR zone transfers, such as
// BIND 9, Knot or PowerDNS. It uses github.com/miekg/dns for everything on
// the wire and is tested against a real named.
//
// # Usage
//
//	p, err := rfc2136.New(rfc2136.Config{
//		Server: "ns1.example.org:53",
//		Zones:  []string{"example.org"},
//		TSIG:   &rfc2136.TSIG{KeyName: "zonesync.", Algorithm: "hmac-sha256", Secret: secret},
//	})
//
// The server must allow the key to update and transfer every zone (BIND:
// allow-update and allow-transfer, or an update-policy).
//
// # Records
//
// [Provider.Records] transfers each zone (AXFR over TCP) and groups RRs of
// one name and type into one endpoint with one target per RR. Managed types:
// A, AAAA, CNAME, TXT, MX ("10 mail.example.org"), SRV ("1 5 443
// host.example.org."), NS, PTR and NAPTR. SOA records and each zone's own
// apex NS records are left out (external-dns returns the apex NS too); NS
// records below the apex (delegations) are ordinary records. Names are
// lower case without a trailing dot; host-name targets (CNAME, NS, PTR, MX)
// lose their trailing dot, SRV and NAPTR keep theirs, as package endpoint
// spells them.
//
// A TXT endpoint's target is the whole text. It is written as
// character-strings of at most 255 bytes and the strings of an RR are joined
// on read, so values longer than 255 bytes and any bytes (quotes,
// backslashes, non-ASCII) round-trip exactly; external-dns instead returns
// each character-string as a target of its own.
//
// The quotes of the TXT registry's ownership values are therefore data on
// the wire ("\"heritage=external-dns,…\"" in dig's output). external-dns's
// rfc2136 provider passes values through the zone-file parser, which takes
// such quotes as syntax, so its ownership TXT data has none. zonesync reads
// that form as ownership too, so a zone managed by external-dns moves to
// zonesync without churn. The way back needs the ownership TXT records
// rewritten: external-dns's rfc2136 provider returns the quoted data in
// miekg/dns's escaped form (\"heritage=…\"), which its registry does not
// parse as ownership (read from its code; not tested against it).
//
// # Changes
//
// [Provider.ApplyChanges] groups changes by zone and sends them in UPDATE
// messages of up to [Config.MaxChangesPerUpdate] changes, over one TCP
// connection per zone. Each change carries prerequisites (see ApplyChanges)
// so that creating an existing record, updating a record changed behind
// zonesync's back or deleting a missing record fails instead of silently
// doing something else.
//
// A record and its ownership TXT (the TXT registry labels it with the
// record's name, [provider.GroupKey]), and all changes at one name, form a
// group that goes in one UPDATE message, which the server applies
// atomically: a record someone else created meanwhile fails its
// prerequisite and takes the TXT that would have claimed it down with it,
// and a connection cut at any point leaves no record without its TXT and
// no TXT without its record. Only a group that deletes RRsets at a name and
// creates others there (an A replaced by a CNAME) takes two messages, its
// deletes and then its creates, each holding records with their TXT.
// Batching and the splitting of rejected batches (until the rejected
// groups are isolated and the others applied) cut only between groups. Set
// identifiers (routing policies) are not supported.
//
// # Names
//
// miekg/dns takes names in zone-file notation, where "\102oo" is "foo".
// The provider builds every name it writes (owner names and host names in
// targets: CNAME, NS, PTR, MX and SRV hosts, NAPTR replacement) from labels
// of letters, digits, hyphens and underscores (a first label may be "*"),
// and refuses anything else with an error naming the record and the field,
// whatever package endpoint accepts. Records whose name or host target
// holds bytes that have no such form (escaped in zone-file notation) are
// skipped and logged when reading, never returned under another name.
//
// TTL: an endpoint without a configured TTL is written with
// [Config.DefaultTTL] (300 s unless set). An RRset whose RRs disagree is
// read with the smallest TTL.
//
// # Errors
//
// Errors name the zone, the changes and the response code
// ("rfc2136: zone example.org: update a.example.org A: NXRRSET"); the
// response code is available as an [*RcodeError]. NOTAUTH, NOTZONE and
// REFUSED say which case they are and what to check, and match
// [ErrTSIG] (a key the server rejects: BADKEY, BADSIG, BADTIME or an
// unsigned answer), [ErrNotAuthoritative] (a zone the server does not
// serve), [ErrNotZone] or [ErrRefused] (the server's allow-update,
// update-policy or allow-transfer) with errors.Is. [New] checks that the
// TSIG secret is base64. Network failures, time-outs and SERVFAIL are soft
// errors ([provider.SoftError]): the next cycle retries. A zone that fails
// does not stop the others; their errors are joined. Every exchange is
// bounded by [Config.Timeout] and by the context.
//
// # Concurrency
//
// A Provider is immutable and safe for concurrent use. Concurrent
// ApplyChanges calls are serialised by the server, and the prerequisites
// keep them from overwriting each other's changes.
package rfc2136
