package inventory

import (
	"slices"
	"strings"
	"time"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/verify/result"
)

// View is one record of the inventory: a name with its type and set
// identifier, as one object asks for it (or, when Desired is false, as DNS
// still holds it for an object that no longer asks for it). Its JSON form
// is the element of "names" in the handler's response (see the package
// documentation, "JSON").
//
// The slices of a View returned by [Inventory.List] are its own: the
// caller may modify them.
type View struct {
	// Name is the record's name in A-label form, the key of the record
	// (lower case, no trailing dot); DisplayName the same in Unicode, for
	// people.
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	// RecordType, SetIdentifier, Targets and TTL are those of the
	// endpoint (TTL 0: not configured).
	RecordType    string   `json:"recordType"`
	SetIdentifier string   `json:"setIdentifier"`
	Targets       []string `json:"targets"`
	TTL           int64    `json:"ttl"`
	// Resource is the object behind the record: the endpoint's resource
	// label ("kind/namespace/name", or "kind/name" for a cluster-scoped
	// object), "" when it has none. SourceType, Namespace and Object are
	// its parts ("service", "default", "web").
	Resource   string `json:"resource"`
	SourceType string `json:"sourceType"`
	Namespace  string `json:"namespace"`
	Object     string `json:"object"`
	// Owner is the owner id of the record: the endpoint's owner label when
	// it has one, the foreign owner when another owner holds the name
	// (skip reason foreign-owner), else the registry's owner id.
	Owner string `json:"owner"`
	// Groups are the groups the mapping placed the record in, sorted (see
	// [GroupMapping]); empty when no rule and no default applies.
	Groups []string `json:"groups"`
	// Desired is false for a record whose object no longer asks for it
	// while DNS still holds it: its delete was refused (policy, foreign
	// owner), failed, or waits (dry run). It leaves the inventory when the
	// delete is applied.
	Desired bool `json:"desired"`
	// Outcome is what the last cycle that planned did with the record.
	Outcome Outcome `json:"outcome"`
	// Verification is the last DNS check of the record, nil when it was
	// never checked (or its data changed since).
	Verification *Verification `json:"verification"`
}

// Outcome is what a cycle did with a record: [zonesync.RecordState] with
// its reason and message (see [zonesync.RecordStatus]).
type Outcome struct {
	// State is applied, unchanged, pending, skipped, rejected, failed or
	// invalid.
	State zonesync.RecordState `json:"state"`
	// Reason is the skip or failure reason, "" for applied, unchanged and
	// pending records.
	Reason zonesync.Reason `json:"reason"`
	// Message is the detail: the skip's explanation or the error.
	Message string `json:"message"`
	// At is when the cycle that decided it ended.
	At time.Time `json:"at"`
}

// Verification is the DNS check of a record.
type Verification struct {
	// Status is sync, notsync or notavailable.
	Status result.Status `json:"status"`
	// Seen is what the name server answered (see [result.Result.Seen]).
	Seen []string `json:"seen"`
	// Error says why the status is notavailable.
	Error string `json:"error"`
	// CheckedAt is when the check was made: the end of the cycle whose
	// Verifier checked it, or when the inventory's own verification (see
	// [Inventory.Run]) got the answer.
	CheckedAt time.Time `json:"checkedAt"`
}

// Unverified is the status filter value (and metric label) of records
// without a verification.
const Unverified = "unverified"

// verificationStatus returns the status of v, [Unverified] for nil.
func verificationStatus(v *Verification) string {
	if v == nil {
		return Unverified
	}
	return string(v.Status)
}

// clone returns v with slices of its own.
func (v View) clone() View {
	v.Targets = slices.Clone(v.Targets)
	v.Groups = slices.Clone(v.Groups)
	if v.Verification != nil {
		ver := *v.Verification
		ver.Seen = slices.Clone(ver.Seen)
		v.Verification = &ver
	}
	return v
}

// compareViews orders views by name, set identifier, record type and
// resource: the order of every list of the inventory.
func compareViews(a, b *View) int {
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	if c := strings.Compare(a.SetIdentifier, b.SetIdentifier); c != 0 {
		return c
	}
	if c := strings.Compare(a.RecordType, b.RecordType); c != 0 {
		return c
	}
	return strings.Compare(a.Resource, b.Resource)
}

// CycleSummary is the outcome of the last cycle the inventory saw, shown at
// the top of the page.
type CycleSummary struct {
	// Start and End bound the cycle.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Succeeded is [zonesync.Cycle.Succeeded]; Error the cycle's error
	// ("" on success).
	Succeeded bool   `json:"succeeded"`
	Error     string `json:"error"`
	// DryRun and Applied are those of the cycle.
	DryRun  bool `json:"dryRun"`
	Applied bool `json:"applied"`
	// Planned is false when the cycle failed before planning: the
	// inventory then kept what it held.
	Planned bool `json:"planned"`
	// Creates, Updates, Deletes and Skipped count the plan's changes.
	Creates int `json:"creates"`
	Updates int `json:"updates"`
	Deletes int `json:"deletes"`
	Skipped int `json:"skipped"`
}

// Result is the cycle's result in one word: "succeeded", "dry run" or
// "failed".
func (s CycleSummary) Result() string {
	switch {
	case !s.Succeeded:
		return "failed"
	case s.DryRun:
		return "dry run"
	}
	return "succeeded"
}

func summarize(c zonesync.Cycle) CycleSummary {
	s := CycleSummary{
		Start: c.Start, End: c.Start.Add(c.Duration),
		Succeeded: c.Succeeded(), DryRun: c.DryRun, Applied: c.Applied, Planned: c.Plan != nil,
		Creates: c.Creates, Updates: c.Updates, Deletes: c.Deletes, Skipped: c.Skipped,
	}
	if c.Err != nil {
		s.Error = c.Err.Error()
	}
	return s
}
