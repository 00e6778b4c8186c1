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
	p := c.Plan
	if p == nil {
		return nil
	}
	// Skips name the desired endpoint itself (a create or an update); an
	// endpoint that lost a conflict shares its key with the winner, so the
	// pointer decides first, and the key with the same resource second.
	type resKey struct {
		res string
		key endpoint.Key
	}
	skipByPtr := map[*endpoint.Endpoint]plan.Skip{}
	skipByKey := map[resKey]plan.Skip{}
	for _, s := range p.Skipped {
		if s.Endpoint == nil || s.Action == plan.ActionDelete {
			continue
		}
		skipByPtr[s.Endpoint] = s
		skipByKey[resKey{resourceOf(s.Endpoint), s.Endpoint.Key()}] = s
	}
	changed := map[endpoint.Key]bool{}
	if p.Changes != nil {
		for _, list := range [][]*endpoint.Endpoint{p.Changes.Create, p.Changes.UpdateNew} {
			for _, e := range list {
				if e != nil {
					changed[e.Key()] = true
				}
			}
		}
	}
	rejected := map[endpoint.Key]string{}
	for _, r := range c.Rejected {
		if r.Endpoint != nil && r.Action != string(plan.ActionDelete) {
			msg := "rejected by the provider"
			if r.Reason != nil {
				msg = r.Reason.Error()
			}
			rejected[r.Endpoint.Key()] = msg
		}
	}
	verified := map[endpoint.Key]*result.Result{}
	for i := range c.Verified {
		if e := c.Verified[i].Endpoint; e != nil {
			verified[e.Key()] = &c.Verified[i]
		}
	}
	failedZones := provider.FailedZones(c.Err)
	for i, z := range failedZones {
		if z != "" && z != "." {
			failedZones[i] = endpoint.CanonicalDNSName(z)
		}
	}

	out := make([]RecordStatus, 0, len(p.Desired))
	for _, e := range p.Desired {
		if e == nil {
			continue
		}
		st := RecordStatus{Resource: resourceOf(e), Endpoint: e}
		key := e.Key()
		s, skipped := skipByPtr[e]
		if !skipped {
			s, skipped = skipByKey[resKey{st.Resource, key}]
		}
		switch {
		case skipped:
			st.State, st.Reason, st.Message = RecordSkipped, string(s.Reason), s.Detail
		case !changed[key]:
			st.State = RecordUnchanged
		case rejected[key] != "":
			st.State, st.Message = RecordRejected, rejected[key]
		case c.Applied:
			st.State = RecordApplied
			st.Verification = verified[key]
		case c.DryRun && c.Err == nil:
			st.State = RecordPending
		default:
			st.State, st.Reason, st.Message = c.failure(key, failedZones)
		}
		out = append(out, st)
	}
	slices.SortStableFunc(out, func(a, b RecordStatus) int {
		return cmp.Or(
			strings.Compare(a.Resource, b.Resource),
			strings.Compare(a.Endpoint.DNSName, b.Endpoint.DNSName),
			strings.Compare(a.Endpoint.SetIdentifier, b.Endpoint.SetIdentifier),
			strings.Compare(a.Endpoint.RecordType, b.Endpoint.RecordType),
		)
	})
	return out
}

// failure classifies a changed record of a cycle that did not apply.
func (c Cycle) failure(key endpoint.Key, failedZones []string) (RecordState, string, string) {
	msg := ""
	if c.Err != nil {
		msg = c.Err.Error()
	}
	switch {
	case errors.Is(c.Err, ErrUnsafePlan):
		return RecordFailed, ReasonUnsafePlan, msg
	case len(failedZones) > 0:
		// The registry applied one zone per call: the other zones went
		// through.
		for _, z := range failedZones {
			if inZone(key.DNSName, z) {
				return RecordFailed, ReasonZoneFailed, msg
			}
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

// inZone reports whether name is zone or below it. zone is in the one form
// names take in memory, A-labels ([endpoint.CanonicalDNSName]: lower case,
// no trailing dot; RecordStatuses converts the zones of
// [provider.ZoneError], which may be in Unicode), and so is name once
// canonicalised: "bücher.de" holds "www.xn--bcher-kva.de". The root zone
// (".") holds every name; the zone "" (changes outside every zone) holds
// none.
func inZone(name, zone string) bool {
	switch zone {
	case "":
		return false
	case ".":
		return true
	}
	name = endpoint.CanonicalDNSName(name)
	return name == zone || strings.HasSuffix(name, "."+zone)
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
