package registry

import (
	"errors"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// ApplyState is what became of one change of an ApplyChanges call, as
// [ApplyOutcome] tells it from the call's error.
type ApplyState int

// The states of a change.
const (
	// Applied: the provider accepted the change.
	Applied ApplyState = iota
	// Rejected: the provider refused this change and applied the others
	// ([provider.RejectedError]); the cause is its reason.
	Rejected
	// ZoneFailed: the change's zone failed to apply
	// ([provider.ZoneError]); the other zones went through.
	ZoneFailed
	// Failed: the call failed as a whole.
	Failed
)

var stateNames = [...]string{"applied", "rejected", "zone-failed", "failed"}

// String returns "applied", "rejected", "zone-failed" or "failed".
func (s ApplyState) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// errRejected is the cause of a rejection that gives no reason, in a call
// that returned no error of its own.
var errRejected = errors.New("rejected by the provider")

// ApplyOutcome tells, from the error of an ApplyChanges call, what became
// of each change it was given: the one reading of rejections
// ([provider.RejectedError]) and failed zones ([provider.ZoneError]) for
// every caller that reports per record — a Reconciler's record statuses,
// registry/crd's DNSRecord conditions. Build it with [NewApplyOutcome].
type ApplyOutcome struct {
	err      error
	rejected map[rejectionKey]error
	// zoneFailed is set when err names zones ([provider.ZoneError]);
	// zones holds those whose changes failed beyond the rejected ones
	// (the zone "", changes outside every zone, holds no name and is left
	// out).
	zoneFailed bool
	zones      *provider.ZoneMatcher
	// onlyRejected: err reports nothing but rejections naming records.
	onlyRejected bool
}

// rejectionKey identifies a rejected change: its record (name in A-label
// form, upper-case type, set identifier) and whether it is a delete.
type rejectionKey struct {
	key    endpoint.Key
	delete bool
}

func recordKey(ep *endpoint.Endpoint, delete bool) rejectionKey {
	return rejectionKey{endpoint.Key{DNSName: endpoint.CanonicalName(ep.DNSName), RecordType: strings.ToUpper(ep.RecordType),
		SetIdentifier: ep.SetIdentifier}, delete}
}

// NewApplyOutcome returns the outcome of a call that returned err (nil:
// every change but the rejected ones was applied), with the rejections the
// error holds (provider.Rejected(err), or a list kept from it). The err of a call made
// for one zone is that zone's own error, not a [provider.ZoneError]
// around it: the zone of each change is then known, and it may be the
// zone "" of the changes outside every zone.
func NewApplyOutcome(err error, rejected []provider.Rejection) *ApplyOutcome {
	o := &ApplyOutcome{err: err}
	for _, r := range rejected {
		if r.Endpoint == nil {
			continue
		}
		cause := r.Reason
		if cause == nil {
			cause = err
		}
		if cause == nil {
			cause = errRejected
		}
		if o.rejected == nil {
			o.rejected = map[rejectionKey]error{}
		}
		if r.Action == "" {
			// A rejection that names no action stands for both.
			o.rejected[recordKey(r.Endpoint, false)] = cause
			o.rejected[recordKey(r.Endpoint, true)] = cause
			continue
		}
		o.rejected[recordKey(r.Endpoint, r.Action == string(plan.ActionDelete))] = cause
	}
	if err == nil {
		return o
	}
	var zones []string
	provider.WalkErrors(err, func(e error) bool {
		z, ok := e.(*provider.ZoneError)
		if !ok {
			return true
		}
		if !onlyRejections(z.Err) && !slices.Contains(zones, z.Zone) {
			zones = append(zones, z.Zone)
		}
		o.zoneFailed = true
		return false
	})
	if o.zoneFailed {
		o.zones = provider.NewZoneMatcher(slices.DeleteFunc(zones, func(z string) bool { return z == "" })...)
	}
	o.onlyRejected = onlyRejections(err)
	return o
}

// Of returns what became of the change of ep by action, and its cause: nil
// when it was applied, the provider's reason when it was rejected (the
// call's error when the rejection gives none), the call's error otherwise.
func (o *ApplyOutcome) Of(action plan.Action, ep *endpoint.Endpoint) (ApplyState, error) {
	if ep == nil {
		return Applied, nil
	}
	if cause, ok := o.rejected[recordKey(ep, action == plan.ActionDelete)]; ok {
		return Rejected, cause
	}
	if o.err == nil {
		return Applied, nil
	}
	if o.zoneFailed {
		// The call was made zone by zone: the other zones went through.
		if _, in := o.zones.Zone(ep.DNSName); in {
			return ZoneFailed, o.err
		}
		return Applied, nil
	}
	if o.onlyRejected {
		return Applied, nil
	}
	return Failed, o.err
}

// onlyRejections reports whether every failure err reports is a
// [provider.RejectedError] naming the record of each rejection: the
// provider refused the changes it names and applied the others. Errors
// that merely wrap or join others (a [provider.ZoneError], errors.Join,
// fmt.Errorf with %w) are looked through.
func onlyRejections(err error) bool {
	only := err != nil
	provider.WalkErrors(err, func(e error) bool {
		switch x := e.(type) {
		case *provider.RejectedError:
			for _, rj := range x.Rejected {
				if rj.Endpoint == nil {
					only = false // a rejection that names no record
				}
			}
			return false
		case interface{ Unwrap() []error }:
			if len(x.Unwrap()) > 0 {
				return true
			}
		case interface{ Unwrap() error }:
			if x.Unwrap() != nil {
				return true
			}
		}
		only = false
		return false
	})
	return only
}
