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
// [LoadTSIGKeyFile] reads the key from a BIND key file, as tsig-keygen
// writes it and named.conf includes it, so that the program and the
// server share one copy of the secret ([ParseTSIGKey] parses the same
// syntax from memory):
//
//	key, err := rfc2136.LoadTSIGKeyFile("/etc/bind/zonesync.key")
//	if err != nil { ... } // names the file, line, key and field; never the secret
//	p, err := rfc2136.New(rfc2136.Config{Server: "ns1.example.org:53", Zones: zones, TSIG: key})
//
// The file must hold exactly one key statement (comments and other
// named.conf statements around it are allowed) and at most
// [MaxTSIGKeyFileSize] bytes.
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
// # TXT data
//
// The data of a TXT RR is its character-strings joined. Targets and data
// map as follows (package internal/dnstxt, shared with package verify);
// "clean" means without '"' and without '\'.
//
// Writing, target to data: a target "X" with X clean is written as X,
// without the quotes; any other target as its exact bytes. The data is cut
// into character-strings of 255 bytes, the last one shorter (inside a
// multi-byte character if it falls there); empty data is one empty
// character-string. For the quoted clean targets — the TXT registry's
// ownership values, "v=spf1 -all", "" — and for unquoted clean targets
// that are one zone-file token (token-123), the RDATA is byte for byte
// what external-dns v0.23's rfc2136 provider writes for the same target:
// it parses fmt.Sprintf("%s %d %s %s", name, ttl, type, target) with
// dns.NewRR, which takes the quotes as syntax and cuts long strings at 255
// bytes the same way. dig shows an ownership TXT as
// "heritage=external-dns,external-dns/owner=…". Other targets are written
// as their bytes where external-dns's parser would split them into
// several character-strings (two words), unescape them (a\b), take inner
// quotes as syntax (say "hi"), end them at ';' or refuse them: see
// docs/compatibility.md.
//
// Reading, data to target: data that is clean, or is "X" with X clean
// (the quotes as data: every zonesync release before this one wrote
// quoted targets so), reads as X; except when X is an ownership text (a
// comma-separated token heritage=external-dns and no heritage token of
// another value, as endpoint.ParseLabels reads it), which reads as "X",
// the form the TXT registry writes. Any other data reads as its exact
// bytes. The character-strings of an RR are joined into one target;
// external-dns instead returns each as a target of its own, in
// miekg/dns's escaped form.
//
//	target                    data written              read back as
//	"heritage=external-dns,…" heritage=external-dns,…   "heritage=external-dns,…"
//	heritage=external-dns,…   heritage=external-dns,…   "heritage=external-dns,…"
//	"v=spf1 -all"             v=spf1 -all               v=spf1 -all
//	v=spf1 -all               v=spf1 -all               v=spf1 -all
//	""                        (empty)                   (empty)
//	say "hi"                  say "hi"                  say "hi"
//	"say \"hi\""              "say \"hi\""              "say \"hi\""
//	(old form) data "heritage=external-dns,…" reads as "heritage=external-dns,…"
//	(old form) data "v=spf1 -all" reads as v=spf1 -all
//
// Both forms of a record read as the same target, so a zone written by
// external-dns, by an older zonesync or by this one plans nothing, and
// external-dns reads the quoted clean targets this provider writes (the
// ownership values above all) as it reads its own.
// [Provider.AdjustEndpoints] rewrites desired TXT targets to the form they
// read back in ("v=spf1 -all" becomes v=spf1 -all), so that plans
// converge. A delete removes each clean target in both data forms (X and
// "X"; removing an RR that is not there does nothing). An update's
// prerequisite names the exact RRset; when an old target has two data
// forms the provider first queries the RRset and, when what the server
// holds reads as exactly the old targets, uses those RRs as the
// prerequisite and removes them: so a record in the old form is updated
// (and rewritten in the current form) like any other, and one changed
// behind zonesync's back still fails its prerequisite. A record in the
// old form is left as it is until a change rewrites it.
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
