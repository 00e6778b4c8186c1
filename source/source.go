package source

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// Source produces the endpoints a program wants to exist.
//
// The contract every implementation keeps:
//
//   - Endpoints returns a new slice on every call. The caller owns the slice
//     and the endpoints in it and may modify them; a source never keeps or
//     reuses what it returned. Order does not matter: the planner sorts, so
//     sources need not.
//   - Endpoints honours ctx: it returns promptly with an error wrapping
//     ctx.Err() once ctx is done.
//   - Errors name the object at fault (for Kubernetes objects
//     kind/namespace/name) and wrap their cause with %w. A bad object is a
//     per-object error (a [*PartialError]), never a reason to return no
//     endpoints for the others.
//   - Handlers given to AddEventHandler are cheap and non-blocking; the
//     source stops calling them once the registration's ctx is done.
//   - A source that can be incomplete (informer caches not synced) also
//     implements [Syncer].
//
// Implementations must be safe for concurrent use: a Reconciler may call
// Endpoints from its loop while an event handler registration is in flight.
type Source interface {
	// Endpoints returns the desired endpoints in a new slice, in any order.
	// The caller owns the slice and the endpoints in it. Errors name the
	// object at fault (for Kubernetes objects: kind/namespace/name) and wrap
	// their cause with %w.
	//
	// A source that could build the endpoints of some objects but not of
	// others returns the endpoints it built together with a
	// [*PartialError] naming the others; see [PartialError]. Any other
	// error means the list is unusable, and the caller must not plan from
	// it.
	Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error)
	// AddEventHandler registers handler to be called when the source's
	// endpoints may have changed. Handlers must be cheap and must not
	// block (they usually call zonesync's Reconciler.ScheduleRunOnce);
	// registration ends when ctx is done. A source whose endpoints never
	// change may ignore the handler.
	AddEventHandler(ctx context.Context, handler func())
}

// Syncer is implemented by sources that can be not ready yet, typically
// because their informer caches have not synced: until then their
// Endpoints would return an incomplete list, and a plan made from it would
// delete records that are still wanted. A Reconciler does not plan while
// its source reports false.
//
// Sources that combine others ([Multi] and the wrappers of this package)
// implement Syncer and report true only when every source they hold that
// implements it does. A source that does not implement Syncer is always
// ready.
type Syncer interface {
	// HasSynced reports whether the source's Endpoints is complete. It
	// must be cheap and safe for concurrent use; once true it should stay
	// true.
	HasSynced() bool
}

// HasSynced reports whether s is ready: false only when s implements
// [Syncer] and reports false.
func HasSynced(s Source) bool {
	if sy, ok := s.(Syncer); ok {
		return sy.HasSynced()
	}
	return true
}

// PartialError is the error of an Endpoints call that built the endpoints of
// some objects but failed on others (a bad annotation, a template that does
// not execute). The endpoints returned with it are complete for every object
// not named in Failed. A Reconciler plans them and protects the records of
// the failed objects: records whose resource label
// ([endpoint.ResourceLabelKey]) names a key of Failed are neither updated
// nor deleted in that cycle.
//
// Return it as a *PartialError, possibly wrapped; callers find it with
// errors.As.
//
// Its size is bounded per key: build it with [PartialError.Add] and
// [PartialError.Merge], which keep at most [MaxCausesPerKey] causes for one
// key, in the order they were added, and count the rest. The error tree
// stays flat (a key's causes are never nested in each other), so Error,
// errors.Is and errors.As take time linear in what is kept, however many
// causes were added.
type PartialError struct {
	// Failed maps the resource key of each object whose endpoints could
	// not be built ("kind/namespace/name", the value its endpoints carry
	// in the resource label) to the cause. A key given several causes
	// holds an error whose Unwrap() []error returns the kept causes and
	// whose message ends with the count of the others ("and 15990 more").
	Failed map[string]error
}

// MaxCausesPerKey is the most causes a [PartialError] keeps for one key;
// further causes are only counted.
const MaxCausesPerKey = 10

// maxKeysInError is the most keys [PartialError.Error] names; the others
// are counted (Failed keeps them all).
const maxKeysInError = 100

// keyCauses holds the causes of one key of a PartialError: at most
// MaxCausesPerKey of them, in the order added, and the count of the others.
type keyCauses struct {
	causes  []error
	dropped int
}

// Error returns the kept causes separated by "; ", followed by the count
// of the others.
func (k *keyCauses) Error() string {
	var b strings.Builder
	for i, c := range k.causes {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.Error())
	}
	if k.dropped > 0 {
		fmt.Fprintf(&b, "; and %d more", k.dropped)
	}
	return b.String()
}

// Unwrap returns the kept causes, so that errors.Is and errors.As see them.
func (k *keyCauses) Unwrap() []error { return k.causes }

// add appends err to k, flattening another keyCauses into its causes.
func (k *keyCauses) add(err error) {
	if other, ok := err.(*keyCauses); ok {
		for _, c := range other.causes {
			k.add(c)
		}
		k.dropped += other.dropped
		return
	}
	if len(k.causes) < MaxCausesPerKey {
		k.causes = append(k.causes, err)
		return
	}
	k.dropped++
}

// Error names the failed objects in key order with their causes. At most
// 100 keys are named; the message ends with the count of the others.
func (e *PartialError) Error() string {
	if e == nil || len(e.Failed) == 0 {
		return "source: no object failed"
	}
	return fmt.Sprintf("source: endpoints of %d object(s) could not be built: %s", len(e.Failed), e.Causes())
}

// Causes returns the objects' keys with their causes, as Error lists them
// after its opening words: "key: cause; key: cause", in key order, naming at
// most 100 keys and counting the others. A caller that reports the failures
// in words of its own (the Reconciler, for endpoints its registry's
// AdjustEndpoints made invalid) uses it.
func (e *PartialError) Causes() string {
	if e == nil || len(e.Failed) == 0 {
		return ""
	}
	keys := slices.Sorted(maps.Keys(e.Failed))
	var b strings.Builder
	for i, k := range keys {
		if i == maxKeysInError {
			fmt.Fprintf(&b, "; and %d more object(s)", len(keys)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(endpoint.Printable(k)) // keys may come from outside (a resource label)
		b.WriteString(": ")
		if err := e.Failed[k]; err != nil {
			b.WriteString(err.Error())
		} else {
			b.WriteString("unknown error")
		}
	}
	return b.String()
}

// Unwrap returns the causes in key order, so that errors.Is and errors.As
// see them.
func (e *PartialError) Unwrap() []error {
	if e == nil {
		return nil
	}
	keys := slices.Sorted(maps.Keys(e.Failed))
	out := make([]error, 0, len(keys))
	for _, k := range keys {
		if err := e.Failed[k]; err != nil {
			out = append(out, err)
		}
	}
	return out
}

// Add records that the object with resource key key failed with err, and
// returns e. A nil e is allocated. A key recorded several times keeps its
// first [MaxCausesPerKey] causes, in order, and counts the others; the
// causes stay side by side (see [PartialError]), never nested.
func (e *PartialError) Add(key string, err error) *PartialError {
	if e == nil {
		e = &PartialError{}
	}
	if e.Failed == nil {
		e.Failed = map[string]error{}
	}
	prev, ok := e.Failed[key]
	switch {
	case err == nil:
		if !ok {
			e.Failed[key] = nil
		}
	case prev == nil:
		if kc, isKC := err.(*keyCauses); isKC {
			// Another PartialError's causes: copy them, so that adding to
			// one never changes the other.
			own := &keyCauses{}
			own.add(kc)
			err = own
		}
		e.Failed[key] = err
	default:
		kc, isKC := prev.(*keyCauses)
		if !isKC {
			kc = &keyCauses{}
			kc.add(prev)
			e.Failed[key] = kc
		}
		kc.add(err)
	}
	return e
}

// Merge adds every failed object of other to e and returns e (allocated
// when nil). A nil or empty other leaves e unchanged.
func (e *PartialError) Merge(other *PartialError) *PartialError {
	if other == nil {
		return e
	}
	for _, k := range slices.Sorted(maps.Keys(other.Failed)) {
		e = e.Add(k, other.Failed[k])
	}
	return e
}

// OrNil returns e as an error, or nil when e names no object. It lets a
// source build a PartialError as it goes and return it unconditionally.
func (e *PartialError) OrNil() error {
	if e == nil || len(e.Failed) == 0 {
		return nil
	}
	return e
}

// innerEndpoints calls src.Endpoints and sorts its error: a *PartialError
// (possibly wrapped) comes back as partial together with the endpoints, to
// be passed on by the caller; any other error comes back as hard, and the
// endpoints are then nil.
func innerEndpoints(ctx context.Context, src Source) (eps []*endpoint.Endpoint, partial, hard error) {
	eps, err := src.Endpoints(ctx)
	if err == nil {
		return eps, nil, nil
	}
	var pe *PartialError
	if errors.As(err, &pe) {
		return eps, err, nil
	}
	return nil, nil, err
}

// wrapper holds the inner source of a wrapper and gives it readiness and
// event delegation: a wrapper is ready exactly when its inner source is
// (see [HasSynced]), and handlers are registered on the inner source.
type wrapper struct {
	inner Source
}

// HasSynced reports whether the wrapped source is ready.
func (w wrapper) HasSynced() bool { return HasSynced(w.inner) }

// AddEventHandler registers handler on the wrapped source.
func (w wrapper) AddEventHandler(ctx context.Context, handler func()) {
	w.inner.AddEventHandler(ctx, handler)
}
