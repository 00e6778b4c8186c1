// Package result holds the outcome types of a DNS verification: [Status]
// and [Result]. They live apart from package verify, which resolves names
// with github.com/miekg/dns, so that the root package can carry results in
// its [zonesync.Cycle] without linking a DNS library. Use them through
// package verify, which re-exports them.
//
// [zonesync.Cycle]: https://pkg.go.dev/github.com/zonesync/zonesync#Cycle
package result

import "github.com/zonesync/zonesync/endpoint"

// Status is the outcome of verifying one endpoint.
type Status string

// The statuses.
const (
	// Sync: the name server's answers equal the endpoint's targets.
	Sync Status = "sync"
	// NotSync: the name server answers, with other data (see
	// [Result.Seen]).
	NotSync Status = "notsync"
	// NotAvailable: the lookup failed (no answer, NXDOMAIN, no data of
	// the type, a network error or a time-out; see [Result.Err]).
	NotAvailable Status = "notavailable"
)

// Result is the verification of one endpoint.
type Result struct {
	// Endpoint is the endpoint verified, as given to the verifier
	// (read-only).
	Endpoint *endpoint.Endpoint
	// Status is the outcome.
	Status Status
	// Seen lists what the name server answered, sorted, in the form of
	// the endpoint's targets (no trailing dots, TXT unescaped). For a name
	// holding another type than asked (a CNAME instead of an A record) it
	// holds that record as "CNAME target".
	Seen []string
	// Err says why the status is NotAvailable (or, for other statuses,
	// is nil).
	Err error
}
