// Package verify checks endpoints against DNS: it resolves each one at a
// chosen name server and reports whether the answers equal its targets
// ([Sync]), differ ([NotSync], with what was seen) or could not be had
// ([NotAvailable], with the error). [Hash] gives a stable SHA-256 of a set
// of endpoints, so that callers can skip a verification (or any other
// work) when nothing changed.
//
// # Usage
//
//	v, err := verify.New(verify.Options{Nameserver: "ns1.example.org:53"})
//	results, err := v.Verify(ctx, endpoints)
//	for _, r := range results {
//		fmt.Println(r.Endpoint.DNSName, r.Status, r.Seen, r.Err)
//	}
//
// A [zonesync.Reconciler] runs a Verifier after every cycle that applied
// changes when its Verifier field is set, and reports the results to its
// Observer in [zonesync.Cycle].Verified.
//
// # Comparison
//
// A and AAAA answers are compared as IP addresses, CNAME, NS, PTR and the
// host names in MX and SRV answers as names (case and a trailing dot do not
// matter), and other types by their presentation form. A TXT answer's
// character-strings are joined and read as provider/rfc2136 reads them: a
// target "X" or X, with X free of '"' and '\', matches the data X (what
// external-dns and provider/rfc2136 write for "X") and the data "X" (the
// quotes as data, as zonesync releases before wrote it); every other target
// matches its exact bytes. Only records owned by the
// endpoint's name count; a name holding a CNAME where an A record was
// expected is NotSync and the CNAME is reported in Seen. NXDOMAIN, an empty
// answer and network failures are NotAvailable.
//
// Ask the zone's primary (or any authoritative server) to verify what was
// just applied: a recursive resolver may answer from its cache until the
// old TTL has run out, and secondaries follow the primary only after a
// zone transfer.
//
// # Concurrency
//
// Verify resolves with at most Options.Workers lookups at once (default
// 10), each bounded by Options.Timeout (default 5 s) and by the context. A
// Verifier is immutable and safe for concurrent use.
//
// [zonesync.Reconciler]: https://pkg.go.dev/github.com/zonesync/zonesync#Reconciler
// [zonesync.Cycle]: https://pkg.go.dev/github.com/zonesync/zonesync#Cycle
package verify
