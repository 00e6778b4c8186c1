package zonesync

import (
	"errors"

	"github.com/zonesync/zonesync/plan"
)

// ErrInvalidConfig is matched (errors.Is) by the error of RunOnce, Run and
// Preview when the Reconciler's fields are unusable: a missing Source or
// Registry, a bad safety threshold, or ownership settings that contradict
// the Registry's.
var ErrInvalidConfig = errors.New("invalid Reconciler configuration")

// ErrSourceNotReady is matched (errors.Is) by the error of a cycle whose
// Source reported that it is not ready ([source.Syncer], e.g. informer
// caches not synced yet): nothing was read or planned, since an incomplete
// source would turn into a plan that deletes records still wanted. The
// error is soft (errors.Is(err, provider.SoftError)): Run retries.
var ErrSourceNotReady = errors.New("zonesync: source not ready")

// ErrUnsafePlan is matched (errors.Is) by the error [Reconciler.RunOnce]
// returns when the safety threshold ([plan.SafetyThreshold]) refused a plan.
// It is not a second sentinel: it is the value of [plan.ErrUnsafePlan],
// whose home is package plan (the threshold that refuses lives there, and
// plan imports nothing of the root), under the name a Reconciler's users
// match; either name matches the same errors. The error is a
// [*plan.UnsafePlanError] carrying the counts.
var ErrUnsafePlan = plan.ErrUnsafePlan

// partialError marks the error of a cycle that planned and applied
// everything but the objects a source could not read. Run keeps its regular
// schedule after it.
type partialError struct {
	err error
	msg string // the message, when it is not err's
}

func (e *partialError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return e.err.Error()
}
func (e *partialError) Unwrap() error { return e.err }

// isPartial reports whether err is only a source's partial error.
func isPartial(err error) bool {
	_, ok := err.(*partialError)
	return ok
}

// joinErrs returns err alone, or joined with the source's partial error.
func joinErrs(err, srcErr error) error {
	if srcErr == nil {
		return err
	}
	return errors.Join(err, srcErr)
}
