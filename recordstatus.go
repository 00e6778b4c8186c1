package zonesync

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/verify/result"
)

// RecordState is what a cycle did with one desired endpoint; see
// [Cycle.RecordStatuses]. The values are short, stable strings meant for an
// object's status.
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
)

// Reasons of a [RecordFailed] record.
const (
	ReasonUnsafePlan = "unsafe-plan"
	ReasonZoneFailed = "zone-failed"
	ReasonError      = "error"
)

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
	// empty for applied, unchanged and pending records.
	State   RecordState
	Reason  string
	Message string
	// Verification is what [Reconciler.Verifier] found for an applied
	// record, nil when it was not verified.
	Verification *result.Result
}

// Ready reports whether DNS holds the record as desired: it was applied or
// unchanged and, when it was verified, found in sync.
func (s RecordStatus) Ready() bool {
	if s.State != RecordApplied && s.State != RecordUnchanged {
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
	cl := newClassifier(&c)
	out := make([]RecordStatus, 0, len(c.Plan.Desired))
	for _, e := range c.Plan.Desired {
		if e != nil {
			out = append(out, cl.desired(e))
		}
	}
	sortStatuses(out)
	return out
}

// DeleteStatuses returns the outcome of every delete of the cycle's changes,
// classified as [Cycle.RecordStatuses] classifies changed records: applied
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

// resKey identifies a desired endpoint by resource and record.
type resKey struct {
	res string
	key endpoint.Key
}

// actionKey identifies a change by action and record.
type actionKey struct {
	delete bool
	key    endpoint.Key
}

// classifier is the one home of the outcome of a record in a cycle: it
// indexes the plan's skips and changes, the rejections, the verification
// results and the failed zones of one cycle once.
type classifier struct {
	c         *Cycle
	skipByPtr map[*endpoint.Endpoint]plan.Skip
	skipByKey map[resKey]plan.Skip
	changedKs map[endpoint.Key]bool
	rejected  map[actionKey]string
	verified  map[endpoint.Key]*result.Result
	// zoneFailed is set when the error names failed zones
	// ([provider.ZoneError]); failedZones holds them (the zone "", changes
	// outside every zone, holds no name and is left out).
	zoneFailed  bool
	failedZones *provider.ZoneMatcher
}

func newClassifier(c *Cycle) *classifier {
	p := c.Plan
	cl := &classifier{
		c:         c,
		skipByPtr: map[*endpoint.Endpoint]plan.Skip{},
		skipByKey: map[resKey]plan.Skip{},
		changedKs: map[endpoint.Key]bool{},
		rejected:  map[actionKey]string{},
		verified:  map[endpoint.Key]*result.Result{},
	}
	// Skips name the desired endpoint itself (a create or an update); an
	// endpoint that lost a conflict shares its key with the winner, so the
	// pointer decides first, and the key with the same resource second.
	for _, s := range p.Skipped {
		if s.Endpoint == nil || s.Action == plan.ActionDelete {
			continue
		}
		cl.skipByPtr[s.Endpoint] = s
		cl.skipByKey[resKey{resource(s.Endpoint), s.Endpoint.Key()}] = s
	}
	if p.Changes != nil {
		for _, list := range [][]*endpoint.Endpoint{p.Changes.Create, p.Changes.UpdateNew} {
			for _, e := range list {
				if e != nil {
					cl.changedKs[e.Key()] = true
				}
			}
		}
	}
	for _, r := range c.Rejected {
		if r.Endpoint == nil {
			continue
		}
		msg := "rejected by the provider"
		if r.Reason != nil {
			msg = r.Reason.Error()
		}
		cl.rejected[actionKey{r.Action == string(plan.ActionDelete), r.Endpoint.Key()}] = msg
	}
	for i := range c.Verified {
		if e := c.Verified[i].Endpoint; e != nil {
			cl.verified[e.Key()] = &c.Verified[i]
		}
	}
	zones := provider.FailedZones(c.Err)
	cl.zoneFailed = len(zones) > 0
	cl.failedZones = provider.NewZoneMatcher(slices.DeleteFunc(zones, func(z string) bool { return z == "" })...)
	return cl
}

func resource(e *endpoint.Endpoint) string {
	res, _ := e.Labels.Get(endpoint.ResourceLabelKey)
	return res
}

// desired classifies a desired endpoint: skipped, unchanged, or the outcome
// of its change.
func (cl *classifier) desired(e *endpoint.Endpoint) RecordStatus {
	res, key := resource(e), e.Key()
	s, skipped := cl.skipByPtr[e]
	if !skipped {
		s, skipped = cl.skipByKey[resKey{res, key}]
	}
	switch {
	case skipped:
		return RecordStatus{Resource: res, Endpoint: e, State: RecordSkipped, Reason: string(s.Reason), Message: s.Detail}
	case !cl.changedKs[key]:
		return RecordStatus{Resource: res, Endpoint: e, State: RecordUnchanged}
	}
	return cl.changed(plan.ActionCreate, e)
}

// changed classifies a change of the plan (a create or an update when
// action is not [plan.ActionDelete]).
func (cl *classifier) changed(action plan.Action, e *endpoint.Endpoint) RecordStatus {
	c := cl.c
	st := RecordStatus{Resource: resource(e), Endpoint: e}
	key := e.Key()
	msg, rejected := cl.rejected[actionKey{action == plan.ActionDelete, key}]
	switch {
	case rejected:
		st.State, st.Message = RecordRejected, msg
	case c.Applied:
		st.State = RecordApplied
		if action != plan.ActionDelete {
			st.Verification = cl.verified[key]
		}
	case c.DryRun && c.Err == nil:
		st.State = RecordPending
	default:
		st.State, st.Reason, st.Message = cl.failure(key)
	}
	return st
}

// failure classifies a changed record of a cycle that did not apply.
func (cl *classifier) failure(key endpoint.Key) (RecordState, string, string) {
	c := cl.c
	msg := ""
	if c.Err != nil {
		msg = c.Err.Error()
	}
	switch {
	case errors.Is(c.Err, ErrUnsafePlan):
		return RecordFailed, ReasonUnsafePlan, msg
	case cl.zoneFailed:
		// The registry applied one zone per call: the other zones went
		// through.
		if _, failed := cl.failedZones.Zone(key.DNSName); failed {
			return RecordFailed, ReasonZoneFailed, msg
		}
		return RecordApplied, "", ""
	case len(c.Rejected) > 0 && c.Err != nil && errors.As(c.Err, new(*provider.RejectedError)):
		// Only the rejected changes failed; this one was applied.
		return RecordApplied, "", ""
	case c.Err == nil:
		// Nothing was applied without an error: a dry run with a source's
		// partial error.
		return RecordPending, "", ""
	default:
		return RecordFailed, ReasonError, msg
	}
}

// ResourceStatus gathers the records of one object (one resource label).
type ResourceStatus struct {
	// Resource is the resource label ("kind/namespace/name"), "" for the
	// records without one.
	Resource string
	// Records are the object's records, in the order of
	// [Cycle.RecordStatuses].
	Records []RecordStatus
}

// Ready reports whether every record of the object is ready (see
// [RecordStatus.Ready]).
func (r ResourceStatus) Ready() bool {
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

// resourceOf returns the resource label of ep ("" for a nil ep or none).
func resourceOf(ep *endpoint.Endpoint) string {
	if ep == nil {
		return ""
	}
	res, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
	return res
}
