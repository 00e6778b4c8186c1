package sourcetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// Rule names, as they appear in every [Violation].
const (
	// RuleReadiness: a source that implements [source.Syncer] reports
	// true within the timeout and stays true.
	RuleReadiness = "Readiness"
	// RuleValidEndpoints: every endpoint returned is non-nil and passes
	// [endpoint.Endpoint.ValidateDesired]: a source hands out desired
	// endpoints, and a TXT value that reads as an ownership record is not
	// one.
	RuleValidEndpoints = "ValidEndpoints"
	// RuleDeterminism: two calls with no change in between return equal
	// endpoints in the same order.
	RuleDeterminism = "Determinism"
	// RuleDeepCopies: changing the slice or the endpoints a call returned
	// changes nothing the next call returns.
	RuleDeepCopies = "DeepCopies"
	// RuleContext: Endpoints with a done context returns an error
	// wrapping the context's error.
	RuleContext = "Context"
	// RulePartialErrors: a per-object failure comes back as a
	// [*source.PartialError] (found with errors.As) whose keys have the
	// form of the resource label ("kind/namespace/name" or "kind/name"),
	// together with the endpoints of the other objects.
	RulePartialErrors = "PartialErrors"
	// RuleEvents: a handler registered with AddEventHandler is called
	// after a change, and no longer once its context is done; a handler
	// registered with a context already done is never called.
	RuleEvents = "Events"
)

// Violation is one breach of the [source.Source] contract found by
// [CheckSource], which returns violations joined with errors.Join;
// errors.As finds them.
type Violation struct {
	// Rule is the rule broken, e.g. "DeepCopies".
	Rule string
	// Msg says what was wrong.
	Msg string
	// Err is the error the source returned, if any.
	Err error
}

// Error renders "Rule: Msg: Err".
func (v *Violation) Error() string {
	s := v.Rule + ": " + v.Msg
	if v.Err != nil {
		s += ": " + v.Err.Error()
	}
	return s
}

// Unwrap returns the error the source returned, if any.
func (v *Violation) Unwrap() error { return v.Err }

// DefaultTimeout is how long [CheckSource] waits for readiness, for a
// handler after a change and for a failure to show, when
// [CheckOptions.Timeout] is zero.
const DefaultTimeout = 5 * time.Second

// CheckOptions tells [CheckSource] how to act on the source checked. The
// zero value checks a source whose endpoints never change: the rules that
// need a change or a failure check only what they can without one.
type CheckOptions struct {
	// Change changes the endpoints the source returns: for example it
	// calls [source.Static.Set], or creates an object in a fake
	// clientset. CheckSource calls it twice, so each call must give a
	// result different from the one before. Nil means the source never
	// changes; RuleEvents then only checks that a handler registered with
	// a done context is never called.
	Change func(ctx context.Context) error
	// Fail makes the source fail to build the endpoints of one object
	// while the others still work: for example it gives an object an
	// annotation that does not parse. Nil leaves RulePartialErrors to the
	// partial errors the source returns on its own.
	Fail func(ctx context.Context) error
	// Timeout bounds each wait (readiness, a handler call after Change, a
	// partial error after Fail); zero means [DefaultTimeout]. A handler
	// that must not be called is watched for a tenth of it.
	Timeout time.Duration
}

// CheckSource checks src against the contract written on [source.Source]
// and returns every violation joined with errors.Join (each a
// [*Violation] naming the rule), or nil. The rules run in this order:
// readiness, valid endpoints, determinism, deep copies, context, partial
// errors (calling opts.Fail) and events (calling opts.Change). Endpoints
// is called from several goroutines at once, so that a test run with
// -race finds a source that is not safe for concurrent use.
//
// CheckSource stops early only when ctx is done.
func CheckSource(ctx context.Context, src source.Source, opts CheckOptions) error {
	if src == nil {
		return errors.New("sourcetest: CheckSource: source is nil")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	c := &checker{src: src, opts: opts}
	for _, rule := range []func(context.Context){
		c.readiness, c.validEndpoints, c.determinism, c.deepCopies, c.context, c.partialErrors, c.events, c.stillReady,
	} {
		if err := ctx.Err(); err != nil {
			c.errs = append(c.errs, fmt.Errorf("sourcetest: CheckSource stopped: %w", err))
			break
		}
		rule(ctx)
	}
	return errors.Join(c.errs...)
}

// TestSource runs [CheckSource] and reports each violation with t.Error.
func TestSource(t testing.TB, src source.Source, opts CheckOptions) {
	t.Helper()
	err := CheckSource(t.Context(), src, opts)
	if err == nil {
		return
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			t.Error(e)
		}
		return
	}
	t.Error(err)
}

type checker struct {
	src  source.Source
	opts CheckOptions
	errs []error
}

func (c *checker) fail(rule string, err error, format string, args ...any) {
	c.errs = append(c.errs, &Violation{Rule: rule, Msg: fmt.Sprintf(format, args...), Err: err})
}

// endpoints calls Endpoints; any error but a partial one is a violation of
// rule, and ok is false.
func (c *checker) endpoints(ctx context.Context, rule string) (eps []*endpoint.Endpoint, partial *source.PartialError, ok bool) {
	eps, err := c.src.Endpoints(ctx)
	if err == nil {
		return eps, nil, true
	}
	if errors.As(err, &partial) {
		c.checkKeys(partial)
		return eps, partial, true
	}
	c.fail(rule, err, "Endpoints failed")
	return nil, nil, false
}

// waitFor polls cond until it is true or the timeout passes.
func (c *checker) waitFor(ctx context.Context, d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (c *checker) readiness(ctx context.Context) {
	sy, ok := c.src.(source.Syncer)
	if !ok {
		return
	}
	if !c.waitFor(ctx, c.opts.Timeout, sy.HasSynced) {
		c.fail(RuleReadiness, nil, "HasSynced did not report true within %v", c.opts.Timeout)
	}
}

func (c *checker) stillReady(context.Context) {
	if sy, ok := c.src.(source.Syncer); ok && sy.HasSynced() && !source.HasSynced(c.src) {
		c.fail(RuleReadiness, nil, "HasSynced and source.HasSynced disagree")
	}
	if sy, ok := c.src.(source.Syncer); ok && !sy.HasSynced() {
		c.fail(RuleReadiness, nil, "HasSynced went back to false")
	}
}

func (c *checker) validEndpoints(ctx context.Context) {
	eps, _, ok := c.endpoints(ctx, RuleValidEndpoints)
	if !ok {
		return
	}
	if eps == nil {
		c.fail(RuleValidEndpoints, nil, "Endpoints returned a nil slice without error; return an empty one")
	}
	for i, ep := range eps {
		if ep == nil {
			c.fail(RuleValidEndpoints, nil, "endpoint %d is nil", i)
			continue
		}
		if err := ep.ValidateDesired(); err != nil {
			c.fail(RuleValidEndpoints, err, "endpoint %d %s is invalid", i, ep.Key())
		}
	}
}

func (c *checker) determinism(ctx context.Context) {
	const calls = 4
	results := make([][]string, calls)
	errs := make([]error, calls)
	done := make(chan int, calls)
	for i := range calls {
		go func() {
			eps, err := c.src.Endpoints(ctx)
			var pe *source.PartialError
			if err != nil && !errors.As(err, &pe) {
				errs[i] = err
			}
			results[i] = render(eps)
			done <- i
		}()
	}
	for range calls {
		<-done
	}
	for i := range calls {
		if errs[i] != nil {
			c.fail(RuleDeterminism, errs[i], "concurrent Endpoints call %d failed", i)
			return
		}
	}
	for i := 1; i < calls; i++ {
		if !slices.Equal(results[0], results[i]) {
			c.fail(RuleDeterminism, nil, "two calls with no change in between differ: %s", diff(results[0], results[i]))
			return
		}
	}
}

func (c *checker) deepCopies(ctx context.Context) {
	first, _, ok := c.endpoints(ctx, RuleDeepCopies)
	if !ok {
		return
	}
	// Compared as sets: the order is RuleDeterminism's business.
	want := slices.Sorted(slices.Values(render(first)))
	for i, ep := range first {
		if ep == nil {
			continue
		}
		ep.DNSName = "mutated." + ep.DNSName
		ep.RecordTTL++
		for j := range ep.Targets {
			ep.Targets[j] = "mutated-" + ep.Targets[j]
		}
		ep.Labels.Set("sourcetest-mutated", "true")
		for j := range ep.ProviderSpecific {
			ep.ProviderSpecific[j].Value = "mutated"
		}
		first[i] = nil
	}
	second, _, ok := c.endpoints(ctx, RuleDeepCopies)
	if !ok {
		return
	}
	if got := slices.Sorted(slices.Values(render(second))); !slices.Equal(want, got) {
		c.fail(RuleDeepCopies, nil, "changing what one call returned changed the next call's result: %s", diff(want, got))
	}
}

func (c *checker) context(ctx context.Context) {
	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err := c.src.Endpoints(done)
	if !errors.Is(err, context.Canceled) {
		c.fail(RuleContext, err, "Endpoints with a canceled context returned an error that does not wrap context.Canceled")
	}
}

// checkKeys checks the keys of a partial error.
func (c *checker) checkKeys(pe *source.PartialError) {
	if len(pe.Failed) == 0 {
		c.fail(RulePartialErrors, pe, "a *PartialError names no object; return nil instead (PartialError.OrNil)")
	}
	for k := range pe.Failed {
		parts := strings.Split(k, "/")
		if (len(parts) != 2 && len(parts) != 3) || slices.Contains(parts, "") {
			c.fail(RulePartialErrors, nil, "key %q of a *PartialError is not a resource key (kind/namespace/name or kind/name)", k)
		}
	}
}

func (c *checker) partialErrors(ctx context.Context) {
	if c.opts.Fail == nil {
		return
	}
	before, _, ok := c.endpoints(ctx, RulePartialErrors)
	if !ok {
		return
	}
	if err := c.opts.Fail(ctx); err != nil {
		c.errs = append(c.errs, fmt.Errorf("sourcetest: CheckOptions.Fail: %w", err))
		return
	}
	var (
		eps     []*endpoint.Endpoint
		partial *source.PartialError
		hard    error
	)
	c.waitFor(ctx, c.opts.Timeout, func() bool {
		var err error
		eps, err = c.src.Endpoints(ctx)
		partial, hard = nil, nil
		if err != nil && !errors.As(err, &partial) {
			hard = err
		}
		return err != nil
	})
	switch {
	case hard != nil:
		c.fail(RulePartialErrors, hard, "after Fail, Endpoints returned an error that is not a *PartialError")
		return
	case partial == nil:
		c.fail(RulePartialErrors, nil, "after Fail, Endpoints returned no *PartialError within %v", c.opts.Timeout)
		return
	}
	c.checkKeys(partial)
	got := map[string]bool{}
	for _, ep := range eps {
		if ep != nil {
			got[ep.Key().String()] = true
		}
	}
	for _, ep := range before {
		if ep == nil {
			continue
		}
		if res, _ := ep.Labels.Get(endpoint.ResourceLabelKey); res != "" {
			if _, failed := partial.Failed[res]; failed {
				continue
			}
		}
		if !got[ep.Key().String()] {
			c.fail(RulePartialErrors, partial, "endpoint %s of an object that did not fail is missing from the result returned with the *PartialError", ep.Key())
		}
	}
}

func (c *checker) events(ctx context.Context) {
	var live, early, witness atomic.Int64
	liveCtx, cancelLive := context.WithCancel(ctx)
	defer cancelLive()
	doneCtx, cancelDone := context.WithCancel(ctx)
	cancelDone()
	c.src.AddEventHandler(liveCtx, func() { live.Add(1) })
	c.src.AddEventHandler(doneCtx, func() { early.Add(1) })
	quiet := c.opts.Timeout / 10
	if c.opts.Change == nil {
		time.Sleep(quiet)
		if n := early.Load(); n > 0 {
			c.fail(RuleEvents, nil, "a handler registered with a done context was called %d time(s)", n)
		}
		return
	}
	// Informer-backed sources call new handlers for the objects they
	// hold; let that settle before counting.
	time.Sleep(quiet)
	base := live.Load()
	if err := c.opts.Change(ctx); err != nil {
		c.errs = append(c.errs, fmt.Errorf("sourcetest: CheckOptions.Change: %w", err))
		return
	}
	if !c.waitFor(ctx, c.opts.Timeout, func() bool { return live.Load() > base }) {
		c.fail(RuleEvents, nil, "no handler call within %v of a change", c.opts.Timeout)
	}
	cancelLive()
	witnessCtx, cancelWitness := context.WithCancel(ctx)
	defer cancelWitness()
	c.src.AddEventHandler(witnessCtx, func() { witness.Add(1) })
	time.Sleep(quiet)
	base, wbase := live.Load(), witness.Load()
	if err := c.opts.Change(ctx); err != nil {
		c.errs = append(c.errs, fmt.Errorf("sourcetest: CheckOptions.Change: %w", err))
		return
	}
	// The witness, registered after the first handler's context ended,
	// shows when the source has delivered the second change.
	if c.waitFor(ctx, c.opts.Timeout, func() bool { return witness.Load() > wbase }) {
		time.Sleep(quiet)
		if n := live.Load() - base; n > 0 {
			c.fail(RuleEvents, nil, "a handler was called %d time(s) after its context was done", n)
		}
	}
	if n := early.Load(); n > 0 {
		c.fail(RuleEvents, nil, "a handler registered with a done context was called %d time(s)", n)
	}
}

// render describes endpoints for comparison, one line each, in order.
func render(eps []*endpoint.Endpoint) []string {
	out := make([]string, len(eps))
	for i, ep := range eps {
		if ep == nil {
			out[i] = "<nil>"
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s %q ttl=%d targets=%q", ep.DNSName, ep.RecordType, ep.SetIdentifier, ep.RecordTTL, []string(ep.Targets))
		keys := make([]string, 0, ep.Labels.Len())
		for k, v := range ep.Labels.All() {
			keys = append(keys, k+"="+v)
		}
		slices.Sort(keys)
		fmt.Fprintf(&b, " labels=%q", keys)
		for _, p := range ep.ProviderSpecific {
			fmt.Fprintf(&b, " %s=%q", p.Name, p.Value)
		}
		out[i] = b.String()
	}
	return out
}

// diff names the first difference of two renderings.
func diff(a, b []string) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d endpoints, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			// The renderings hold the source's names as they are.
			return fmt.Sprintf("endpoint %d was %s, then %s", i, endpoint.Printable(a[i]), endpoint.Printable(b[i]))
		}
	}
	return "no difference"
}
