// Package batch is a provider wrapper that applies large change sets in
// batches that fit the limits of a DNS API, and keeps one bad record from
// blocking the others.
//
// Real DNS APIs bound what one call may carry (Route 53: 1,000 record
// values and 32,000 characters of values per change batch) and reject a
// whole batch for one invalid record. [New] wraps any [provider.Provider]:
// its ApplyChanges splits the change set into batches bounded by
// [Options.MaxRecords] and [Options.MaxValueBytes] (defaults fit Route 53),
// optionally pausing between them, and when the provider refuses a batch
// with a hard error it halves the batch until the refused changes are
// isolated, applies all the rest and returns a [provider.RejectedError]
// naming each refused change with the provider's reason.
//
// # Groups
//
// A record and its ownership TXT must be applied, or refused, together.
// The wrapper groups changes by [provider.GroupKey]: the TXT registry
// labels each ownership TXT with the name of the record it owns
// ([endpoint.OwnedRecordLabelKey]), so the group holds the record and its
// TXT whatever the TXT naming. A group is never split across batches; a
// group too big for any batch is refused ([ErrTooLarge]) without being
// sent, never retried in a loop.
//
// # Where it goes
//
// Put the wrapper between the TXT registry and the provider (under a rate
// limiter, if any, so that each batch waits for its own token):
//
//	limited, err := ratelimit.New(p, ratelimit.Options{Rate: 5, Burst: 5})
//	...
//	batched, err := batch.New(limited, batch.Options{})
//	...
//	reg, err := txt.New(batched, cfg)
//
// The wrapper has the optional capabilities of the provider it wraps
// ([provider.As]): with [provider.ZoneLister] the registry still applies
// one zone per call and the batches of a call all belong to one zone.
//
// Soft errors (throttling) are not split: the call stops and returns them,
// and the Reconciler retries at its next cycle.
package batch
