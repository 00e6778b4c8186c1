package zonesync

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/verify/result"
)

// RecordState is what a cycle did with one record, or, summed up, with the
// records of one object; see [Cycle.RecordStatuses] and
// [Cycle.ResourceStatuses]. The values are short, stable strings meant for
// an object's status.
type RecordState string

// Record states.
const (
	// RecordApplied: the cycle created or updated the record and the
	// provider accepted it.
	RecordApplied RecordState = "applied"
	// RecordUnchanged: DNS already held the record as desired.
	RecordUnchanged RecordState = "unchanged"
	// RecordPending: the record needs a change the cycle did not apply
	// because the Reconciler is in dry-run mode.
	RecordPending RecordState = "pending"
	// RecordSkipped: the plan did not make the change; Reason is the
	// [plan.SkipReason] and Message its detail.
	RecordSkipped RecordState = "skipped"
	// RecordRejected: the provider refused the change while it applied the
	// rest; Message is its reason. The next cycle tries again.
	RecordRejected RecordState = "rejected"
	// RecordFailed: the change was not applied because the cycle failed:
	// Reason is [ReasonUnsafePlan] when the safety threshold refused the
	// plan, [ReasonZoneFailed] when the record's zone failed to apply, and
	// [ReasonError] otherwise; Message is the error.
	RecordFailed RecordState = "failed"
	// RecordInvalid: the desired endpoint failed validation and was not
	// planned (Reason is [plan.SkipInvalid]); for an object
	// ([ResourceStatus]), also: the source could not build its endpoints
	// at all (Reason [ReasonSourceError]). Message is the error. The
	// object's records in DNS are held as they are.
	RecordInvalid RecordState = "invalid"
	// RecordDeleted: the cycle deleted the record and the provider
	// accepted it ([Cycle.DeleteStatuses]); for an object, every record it
	// had was deleted and none is desired.
	RecordDeleted RecordState = "deleted"
)

// Reason says why a record or an object is in its state: for a skipped or
// invalid record, the plan's skip reason ([plan.SkipReason], converted:
// Reason(skip.Reason)); for a failed one, one of the Reason constants
// below. Like [RecordState], its values are short, stable strings meant
// for an object's status.
type Reason string

// Reasons of a [RecordFailed] record.
const (
	ReasonUnsafePlan Reason = "unsafe-plan"
	ReasonZoneFailed Reason = "zone-failed"
	ReasonError      Reason = "error"
)

// ReasonSourceError is the reason of a [RecordInvalid] object whose
// endpoints the source could not build: it is a key of the cycle's
// [*source.PartialError] and has no valid desired record.
const ReasonSourceError = Reason(plan.SkipSourceError)

// RecordStatus is the outcome of one desired endpoint in a cycle: the data an
// operator keeps per record in the status of the object the record comes
// from.
type RecordStatus struct {
	// Resource is the endpoint's resource label ("kind/namespace/name",
	// see [endpoint.ResourceLabelKey]), "" when it has none.
	Resource string
	// Endpoint is the desired endpoint (read-only: it belongs to the
	// cycle's plan).
	Endpoint *endpoint.Endpoint
	// State, Reason and Message say what happened; Reason and Message are
	// empty for applied, unchanged and pending records, but for a
	// contribution to a record set shared by several owners, whose
	// Message says "contributed, shared with N owners" (N counting this
	// one).
	State   RecordState
	Reason  Reason
	Message string
	// Verification is what [Reconciler.Verifier] found for an applied
	// record, nil when it was not verified.
	Verification *result.Result
}

// Ready reports whether DNS holds the record as desired: it was applied,
// unchanged or deleted and, when it was verified, found in sync.
func (s RecordStatus) Ready() bool {
	if s.State != RecordApplied && s.State != RecordUnchanged && s.State != RecordDeleted {
		return false
	}
	return s.Verification == nil || s.Verification.Status == result.Sync
}

// RecordStatuses returns the outcome of every desired endpoint of the cycle,
// sorted by Resource, then DNS name, set identifier and record type, so that
// the records of one object are adjacent (see [GroupByResource]). It is nil
// when the cycle failed before planning (c.Plan is nil): then nothing is
// known about any record. It is computed on each call, from the plan, the
// error, Rejected and Verified.
func (c Cycle) RecordStatuses() []RecordStatus {
	if c.Plan == nil {
		return nil
	}
	return newClassifier(&c).recordStatuses()
}

// recordStatuses is [Cycle.RecordStatuses] with the cycle's classifier.
func (cl *classifier) recordStatuses() []RecordStatus {
	out := make([]RecordStatus, 0, len(cl.c.Plan.Desired))
	for _, e := range cl.c.Plan.Desired {
		if e != nil {
			out = append(out, cl.desired(e))
		}
	}
	sortStatuses(out)
	return out
}

// DeleteStatuses returns the outcome of every delete of the cycle's changes,
// classified as [Cycle.RecordStatuses] classifies changed records: deleted
// (the record is gone), pending (dry run), rejected or failed. It is sorted
// like RecordStatuses and nil when the cycle failed before planning.
func (c Cycle) DeleteStatuses() []RecordStatus {
	if c.Plan == nil || c.Plan.Changes == nil {
		return nil
	}
	cl := newClassifier(&c)
	out := make([]RecordStatus, 0, len(c.Plan.Changes.Delete))
	for _, e := range c.Plan.Changes.Delete {
		if e != nil {
			out = append(out, cl.changed(plan.ActionDelete, e))
		}
	}
	sortStatuses(out)
	return out
}

func sortStatuses(out []RecordStatus) {
	slices.SortStableFunc(out, func(a, b RecordStatus) int {
		return cmp.Or(
			strings.Compare(a.Resource, b.Resource),
			strings.Compare(a.Endpoint.DNSName, b.Endpoint.DNSName),
			strings.Compare(a.Endpoint.SetIdentifier, b.Endpoint.SetIdentifier),
			strings.Compare(a.Endpoint.RecordType, b.Endpoint.RecordType),
		)
	})
}

// classifier is the outcome of each record in one cycle: the plan's
// decision about it ([plan.Outcomes]: skipped, unchanged or changed) and,
// for a change, what the registry's call made of it
// ([registry.ApplyOutcome]: applied, rejected, its zone failed), with the
// verification results. It reads each of them once per cycle; it decides
// only what the cycle adds: dry run, the safety threshold, an error before
// applying.
type classifier struct {
	c        *Cycle
	plan     *plan.Outcomes
	apply    *registry.ApplyOutcome
	verified map[endpoint.Key]*result.Result
	// sharedOwners counts, by key, the other live contributors of each
	// shared record set; built on first use.
	sharedOwners map[endpoint.Key]int
}

func newClassifier(c *Cycle) *classifier {
	cl := &classifier{
		c:        c,
		plan:     c.Plan.Outcomes(),
		apply:    registry.NewApplyOutcome(applyErr(c.Err), c.Rejected),
		verified: map[endpoint.Key]*result.Result{},
	}
	for i := range c.Verified {
		if e := c.Verified[i].Endpoint; e != nil {
			cl.verified[e.Key()] = &c.Verified[i]
		}
	}
	return cl
}

// applyErr returns the part of a cycle's error that can come from
// applying: err without the source's partial error that a cycle joins to
// it (see joinErrs), which says nothing of what was applied.
func applyErr(err error) error {
	if isPartial(err) {
		return nil
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	parts := j.Unwrap()
	if len(parts) != 2 || !isPartial(parts[1]) {
		return err
	}
	return parts[0]
}

func resource(e *endpoint.Endpoint) string {
	res, _ := e.Labels.Get(endpoint.ResourceLabelKey)
	return res
}

// skipStatus is the status of a record the plan skipped.
func skipStatus(e *endpoint.Endpoint, s plan.Skip) RecordStatus {
	st := RecordStatus{Resource: resource(e), Endpoint: e, State: RecordSkipped, Reason: Reason(s.Reason), Message: s.Detail}
	if s.Reason == plan.SkipInvalid {
		st.State = RecordInvalid
	}
	return st
}

// desired classifies a desired endpoint: skipped, unchanged, or the outcome
// of its change.
func (cl *classifier) desired(e *endpoint.Endpoint) RecordStatus {
	var st RecordStatus
	switch o := cl.plan.Of(e); {
	case o.Skipped():
		return skipStatus(e, o.Skip)
	case !o.Changed:
		st = RecordStatus{Resource: resource(e), Endpoint: e, State: RecordUnchanged}
	default:
		st = cl.changed(plan.ActionCreate, e)
	}
	if st.Message == "" && cl.c.shares != nil && cl.c.shares(e.DNSName, e.RecordType) {
		switch st.State {
		case RecordApplied, RecordUnchanged, RecordPending:
			if n := cl.sharedWith(e); n == 1 {
				st.Message = "contributed, shared with 1 owner (no other owner contributes yet)"
			} else {
				st.Message = fmt.Sprintf("contributed, shared with %d owners", n)
			}
		}
	}
	return st
}

// sharedWith returns the number of owners of the shared record set of e
// once its contribution is in: the live contributions of the others that
// the cycle read, and this one.
func (cl *classifier) sharedWith(e *endpoint.Endpoint) int {
	if cl.sharedOwners == nil {
		cl.sharedOwners = map[endpoint.Key]int{}
		own := cl.c.Plan.OwnerID
		for _, sr := range cl.c.Shared {
			n := 0
			for _, c := range sr.Contributions {
				if !c.Expired && c.Owner != own {
					n++
				}
			}
			cl.sharedOwners[sr.Key] = n
		}
	}
	k := e.Key()
	k.DNSName, k.RecordType = strings.ToLower(endpoint.CanonicalName(k.DNSName)), strings.ToUpper(k.RecordType)
	return cl.sharedOwners[k] + 1
}

// changed classifies a change of the plan (a create or an update when
// action is not [plan.ActionDelete]).
func (cl *classifier) changed(action plan.Action, e *endpoint.Endpoint) RecordStatus {
	c := cl.c
	st := RecordStatus{Resource: resource(e), Endpoint: e}
	applied, cause := cl.apply.Of(action, e)
	switch {
	case applied == registry.Rejected:
		st.State, st.Message = RecordRejected, cause.Error()
	case c.Applied:
		st.State = RecordApplied
		if action != plan.ActionDelete {
			st.Verification = cl.verified[e.Key()]
		}
	case c.DryRun && (c.Err == nil || isPartial(c.Err)):
		// A dry run applies nothing; the objects the source could not
		// read do not change that.
		st.State = RecordPending
	default:
		st.State, st.Reason, st.Message = cl.failure(applied)
	}
	if action == plan.ActionDelete && st.State == RecordApplied {
		st.State = RecordDeleted
	}
	return st
}

// failure classifies a changed record of a cycle that did not apply, from
// what the registry's call made of it.
func (cl *classifier) failure(applied registry.ApplyState) (RecordState, Reason, string) {
	c := cl.c
	msg := ""
	if c.Err != nil {
		msg = c.Err.Error()
	}
	switch {
	case errors.Is(c.Err, ErrUnsafePlan):
		return RecordFailed, ReasonUnsafePlan, msg
	case c.Err == nil:
		// Nothing was applied without an error: a dry run with a source's
		// partial error.
		return RecordPending, "", ""
	case applyErr(c.Err) == nil:
		// Only the source's partial error, and nothing applied.
		return RecordFailed, ReasonError, msg
	case applied == registry.ZoneFailed:
		return RecordFailed, ReasonZoneFailed, msg
	case applied == registry.Applied:
		// The registry applied one zone per call and this one's went
		// through, or it refused only other changes.
		return RecordApplied, "", ""
	default:
		return RecordFailed, ReasonError, msg
	}
}

// ResourceStatus is what a cycle did with one object: the records of one
// resource key ([Cycle.ResourceStatuses]), or records grouped by their
// resource label ([GroupByResource]).
type ResourceStatus struct {
	// Resource is the object's key as the source keyed it: the resource
	// label of its endpoints ("kind/namespace/name", see
	// [endpoint.ResourceLabelKey]) and the key of the source's
	// [*source.PartialError]. It is "" for the records without one.
	Resource string
	// State sums up the records (see [Cycle.ResourceStatuses]); Reason and
	// Message are those of the records in that state, Message naming the
	// first of them and counting the others. GroupByResource leaves the
	// three empty.
	State   RecordState
	Reason  Reason
	Message string
	// Records are the object's records: its desired endpoints, then the
	// records deleted or held back from deletion (skips of deletes), each
	// part in the order of [Cycle.RecordStatuses]. An object the source
	// could not read has none.
	Records []RecordStatus
}

// Ready reports whether every record of the object is ready (see
// [RecordStatus.Ready]) and the object is not invalid.
func (r ResourceStatus) Ready() bool {
	if r.State == RecordInvalid {
		return false
	}
	for _, s := range r.Records {
		if !s.Ready() {
			return false
		}
	}
	return true
}

// GroupByResource splits statuses, as returned by [Cycle.RecordStatuses],
// by resource, in the order of their first record.
func GroupByResource(statuses []RecordStatus) []ResourceStatus {
	var out []ResourceStatus
	index := map[string]int{}
	for _, s := range statuses {
		i, ok := index[s.Resource]
		if !ok {
			i = len(out)
			index[s.Resource] = i
			out = append(out, ResourceStatus{Resource: s.Resource})
		}
		out[i].Records = append(out[i].Records, s)
	}
	return out
}

// ResourceStatuses returns what the cycle did with every object it heard
// of, one [ResourceStatus] per resource key, sorted by key: each object
// with desired endpoints, each object whose records were deleted or held
// back from deletion, and each object the source could not turn into
// endpoints (a key of the cycle's [*source.PartialError], with no
// records). Records without a resource label are gathered under "".
//
// An object's State is, from the first that applies:
//
//   - [RecordInvalid] when the source reported it in the partial error
//     (Reason [ReasonSourceError], or [plan.SkipInvalid] when one of its
//     endpoints failed validation; Message is the error the partial error
//     holds for it) or one of its endpoints failed validation;
//   - [RecordFailed], [RecordRejected], [RecordSkipped] (Reason is the
//     skip reason: filtered-out, foreign-owner, unownable, policy, ...) or
//     [RecordPending] when one of its records is in that state;
//   - [RecordApplied] when a record was created, updated or deleted and the
//     object still has desired records;
//   - [RecordDeleted] when its records were deleted and none is desired
//     (the object was deleted, or no longer asks for records);
//   - [RecordUnchanged] otherwise.
//
// It is nil when the cycle failed before planning (c.Plan is nil): nothing
// is known about any object then. Messages come from the plan, the source,
// the provider and the error, with control characters escaped
// ([endpoint.Printable]).
func (c Cycle) ResourceStatuses() []ResourceStatus {
	if c.Plan == nil {
		return nil
	}
	cl := newClassifier(&c)
	desired := cl.recordStatuses()
	var gone []RecordStatus
	if ch := c.Plan.Changes; ch != nil {
		for _, e := range ch.Delete {
			if e != nil {
				gone = append(gone, cl.changed(plan.ActionDelete, e))
			}
		}
	}
	for _, sk := range c.Plan.Skipped {
		if sk.Action == plan.ActionDelete && sk.Endpoint != nil {
			gone = append(gone, RecordStatus{Resource: resource(sk.Endpoint), Endpoint: sk.Endpoint, State: RecordSkipped, Reason: Reason(sk.Reason), Message: sk.Detail})
		}
	}
	sortStatuses(gone)
	var failed map[string]error
	var failedKeys []string
	if pe := (*source.PartialError)(nil); errors.As(c.Err, &pe) && pe != nil {
		failed = pe.Failed
		for key := range failed {
			// Invalid endpoints without a resource label are keyed by
			// record in the partial error; their records are under "".
			if !strings.HasPrefix(key, invalidKeyPrefix) {
				failedKeys = append(failedKeys, key)
			}
		}
		slices.Sort(failedKeys)
	}

	// Three lists sorted by resource: merge them, one object per key.
	var out []ResourceStatus
	for len(desired) > 0 || len(gone) > 0 || len(failedKeys) > 0 {
		key := ""
		switch {
		case len(desired) > 0:
			key = desired[0].Resource
		case len(gone) > 0:
			key = gone[0].Resource
		default:
			key = failedKeys[0]
		}
		if len(gone) > 0 && gone[0].Resource < key {
			key = gone[0].Resource
		}
		if len(failedKeys) > 0 && failedKeys[0] < key {
			key = failedKeys[0]
		}
		var d, g []RecordStatus
		d, desired = cutRun(desired, key)
		g, gone = cutRun(gone, key)
		if len(failedKeys) > 0 && failedKeys[0] == key {
			failedKeys = failedKeys[1:]
		}
		st := ResourceStatus{Resource: key, Records: d}
		if len(g) > 0 {
			st.Records = append(slices.Clip(d), g...)
		}
		st.State, st.Reason, st.Message = summarize(st.Records, len(d) > 0, failed[key])
		out = append(out, st)
	}
	return out
}

// cutRun splits off the leading statuses of list whose resource is key.
func cutRun(list []RecordStatus, key string) (run, rest []RecordStatus) {
	n := 0
	for n < len(list) && list[n].Resource == key {
		n++
	}
	return list[:n:n], list[n:]
}

// stateRank orders the states of an object's records, the one that sums
// them up first; applied, deleted and unchanged are decided apart (ok is
// false for them).
func stateRank(s RecordState) (rank int, ok bool) {
	switch s {
	case RecordInvalid:
		return 1, true
	case RecordFailed:
		return 2, true
	case RecordRejected:
		return 3, true
	case RecordSkipped:
		return 4, true
	case RecordPending:
		return 5, true
	}
	return 0, false
}

// summarize returns the state, reason and message of an object from its
// records, whether any of them is desired, and the error the source's
// partial error holds for it (nil: none); see [Cycle.ResourceStatuses].
func summarize(records []RecordStatus, desired bool, srcErr error) (RecordState, Reason, string) {
	if srcErr != nil {
		reason := ReasonSourceError
		for _, r := range records {
			if r.State == RecordInvalid {
				reason = r.Reason
				break
			}
		}
		return RecordInvalid, reason, endpoint.Printable(srcErr.Error())
	}
	var worst *RecordStatus
	worstRank, same := 0, 0
	changed := false
	for i := range records {
		r := &records[i]
		if r.State == RecordApplied || r.State == RecordDeleted {
			changed = true
		}
		rank, ok := stateRank(r.State)
		if !ok {
			continue
		}
		switch {
		case worst == nil || rank < worstRank:
			worst, worstRank, same = r, rank, 1
		case rank == worstRank:
			same++
		}
	}
	switch {
	case worst != nil:
		return worst.State, worst.Reason, recordMessage(worst, same)
	case changed && desired:
		return RecordApplied, "", ""
	case changed:
		return RecordDeleted, "", ""
	}
	return RecordUnchanged, "", ""
}

// String returns "name/TYPE: state (reason): message" for s, the form in
// which a record appears in an object's message; the reason and the
// message are left out when empty, and the name is "?" without an
// endpoint.
func (s RecordStatus) String() string {
	var b strings.Builder
	if s.Endpoint != nil {
		b.WriteString(s.Endpoint.Key().String())
	} else {
		b.WriteString("?")
	}
	b.WriteString(": ")
	b.WriteString(string(s.State))
	if s.Reason != "" {
		b.WriteString(" (")
		b.WriteString(string(s.Reason))
		b.WriteByte(')')
	}
	if s.Message != "" {
		b.WriteString(": ")
		b.WriteString(endpoint.Printable(s.Message))
	}
	return b.String()
}

// recordMessage is the message of an object whose state is that of r,
// shared by n of its records: r's record and message, and the count of
// the others.
func recordMessage(r *RecordStatus, n int) string {
	if n > 1 {
		return fmt.Sprintf("%s; and %d more records %s", r, n-1, r.State)
	}
	return r.String()
}
