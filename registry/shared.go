package registry

import (
	"time"

	"github.com/zonesync/zonesync/endpoint"
)

// SharedRecord is a record set that several owners publish together: each
// owner records its own contribution in the zone, and the record holds
// their merge (the TXT registry's shared mode, see
// [github.com/zonesync/zonesync/registry/txt.SharedConfig]).
type SharedRecord struct {
	// Key is the record set's name, type and set identifier.
	Key endpoint.Key
	// Record is the record set as the last read found it; nil when it was
	// missing.
	Record *endpoint.Endpoint
	// Contributions are the contributions the last read found, one per
	// owner, sorted by owner.
	Contributions []Contribution
	// Want is the record set the live contributions merge into (what a
	// contributor writes); nil when none is live: the record set is to be
	// deleted.
	Want *endpoint.Endpoint
}

// Live returns the number of contributions that have not expired.
func (s SharedRecord) Live() int {
	n := 0
	for _, c := range s.Contributions {
		if !c.Expired {
			n++
		}
	}
	return n
}

// Contribution is what one owner asks of a [SharedRecord].
type Contribution struct {
	// Owner is the owner id of the contributor.
	Owner string
	// Targets, TTL and ProviderSpecific are what the owner asked for.
	Targets          endpoint.Targets
	TTL              endpoint.TTL
	ProviderSpecific endpoint.ProviderSpecific
	// Resource is the resource label of the owner's endpoint ("" when it
	// had none).
	Resource string
	// Seen is when the owner last wrote the contribution (its heartbeat),
	// and Refresh the interval at which it promised to rewrite it.
	Seen    time.Time
	Refresh time.Duration
	// Expired: the contribution has not been refreshed for longer than the
	// reading registry's expiry allows; the next ApplyChanges removes it.
	Expired bool
}

// SharedReporter is implemented by registries that publish record sets
// shared by several owners. A Reconciler reports them in its Preview and
// record statuses, and counts the expired contributions the registry will
// remove with the deletes its safety threshold judges.
type SharedReporter interface {
	// SharedRecords returns the shared record sets of the last Records
	// call in scope of this registry, sorted by key; nil when there are
	// none or before the first read. The result is the caller's.
	SharedRecords() []SharedRecord
	// Shares reports whether record sets of this name and type are
	// published in shared mode: a record of ours there is a contribution.
	Shares(name, recordType string) bool
}
