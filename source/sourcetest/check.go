package sourcetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/contractkit"
	"github.com/zonesync/zonesync/source"
)

// Rule names, as they appear in every [Violation] and in the rule table
// of the package documentation.
const (
	RuleReadiness      = "Readiness"
	RuleSliceOwnership = "SliceOwnership"
	RuleContext        = "Context"
	RuleConcurrency    = "Concurrency"
	RulePartialErrors  = "PartialErrors"
	RuleEvents         = "Events"

	// RuleDeterminism and RuleValidEndpoints name optional checks, run
	// only when [Options.Deterministic] and [Options.ValidEndpoints] ask
	// for them: the Source contract does not promise what they check.
	RuleDeterminism    = "Determinism"
	RuleValidEndpoints = "ValidEndpoints"
)

// Violation is one breach of the [source.Source] contract found by
// [CheckSource]: the rule broken (Rule...), the call that misbehaved (Op),
// the endpoint or object concerned (Record), what was wrong (Msg) and the
// source's error (Err). Its text is "Rule: Op record: Msg: Err". The three
// contract kits (providertest, registrytest, sourcetest) share this one
// type.
type Violation = contractkit.Violation

// DefaultTimeout is how long [CheckSource] waits for readiness, for a
// handler after a change and for a failure to show, when
// [Options.Timeout] is zero.
const DefaultTimeout = 5 * time.Second

// Options tells [CheckSource] and [TestSource] how to act on the source
// checked, and which optional checks to run. The zero value checks a
// source whose endpoints never change: the rules that need a change or a
// failure check only what they can without one.
type Options struct {
	// Change changes the endpoints the source returns: for example it
	// calls [source.Static.Set], or creates an object in a fake
	// clientset. CheckSource calls it twice, so each call must give a
	// result different from the one before. Nil means the source never
	// changes; Events then only checks that a handler registered with a
	// done context is never called.
	Change func(ctx context.Context) error
	// Fail makes the source fail to build the endpoints of one object
	// while the others still work: for example it gives an object an
	// annotation that does not parse. Nil leaves PartialErrors to the
	// partial errors the source returns on its own.
	Fail func(ctx context.Context) error
	// Timeout bounds each wait (readiness, a handler call after Change, a
	// partial error after Fail); zero means [DefaultTimeout]. A handler
	// that must not be called is watched for a tenth of it.
	Timeout time.Duration
	// Deterministic also runs the optional check Determinism: two calls
	// with no change in between return equal endpoints in the same order.
	// The contract does not ask for it (order does not matter, the
	// planner sorts); a source that promises it sets it.
	Deterministic bool
	// ValidEndpoints also runs the optional check ValidEndpoints: every
	// endpoint returned is non-nil and passes
	// [endpoint.Endpoint.ValidateDesired], and the slice is not nil. The
	// contract does not ask for it (a Reconciler skips invalid desired
	// endpoints and reports them); a source that promises it sets it.
	ValidEndpoints bool
}

type rule struct {
	name  string
	check func(c *checker, ctx context.Context)
}

// rules lists the rules of the contract, in the order they run; the last
// two change the source (Options.Fail, Options.Change).
func rules() []rule {
	return []rule{
		{RuleReadiness, (*checker).readiness},
		{RuleSliceOwnership, (*checker).sliceOwnership},
		{RuleContext, (*checker).context},
		{RuleConcurrency, (*checker).concurrency},
		{RulePartialErrors, (*checker).partialErrors},
		{RuleEvents, (*checker).events},
	}
}

// optional lists the optional checks o asks for, run after the rules.
func optional(o Options) []rule {
	var out []rule
	if o.Deterministic {
		out = append(out, rule{RuleDeterminism, (*checker).determinism})
	}
	if o.ValidEndpoints {
		out = append(out, rule{RuleValidEndpoints, (*checker).validEndpoints})
	}
	return out
}

// CheckSource checks src against the contract written on [source.Source]
// (see the package documentation for the rules) and the optional checks
// opts asks for, and returns all violations joined with errors.Join (each
// a [*Violation]), or nil. Endpoints is called from several goroutines at
// once, so that a test run with -race finds a source that is not safe for
// concurrent use. It stops early only when ctx is done, adding ctx's
// error.
func CheckSource(ctx context.Context, src source.Source, opts Options) error {
	f := check(ctx, src, opts)
	return f.Err()
}

// TestSource runs [CheckSource] and reports each violation with t.Error,
// so that one run shows every problem.
func TestSource(t testing.TB, src source.Source, opts Options) {
	t.Helper()
	f := check(t.Context(), src, opts)
	f.Report(t)
}

func check(ctx context.Context, src source.Source, opts Options) *contractkit.Findings {
	f := &contractkit.Findings{}
	if src == nil {
		f.Violations = append(f.Violations, errors.New("sourcetest: the source is nil"))
		return f
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	c := &checker{src: src, opts: opts}
	// The optional checks look at the source as it was given, before the
	// last two rules (PartialErrors, Events) change it through opts.
	all := rules()
	all = slices.Concat(all[:len(all)-2], optional(opts), all[len(all)-2:])
	for _, r := range all {
		if err := ctx.Err(); err != nil {
			c.errs = append(c.errs, fmt.Errorf("sourcetest: CheckSource stopped before %s: %w", r.name, err))
			break
		}
		c.rule = r.name
		r.check(c, ctx)
	}
	c.rule = RuleReadiness
	c.stillReady()
	f.Violations = c.errs
	return f
}

type checker struct {
	src  source.Source
	opts Options
	rule string // the rule being checked
	errs []error
}

// fail records a violation of the rule being checked.
func (c *checker) fail(op, record string, err error, format string, args ...any) {
	c.errs = append(c.errs, &Violation{Rule: c.rule, Op: op, Record: record, Msg: fmt.Sprintf(format, args...), Err: err})
}

// endpoints calls Endpoints; any error but a partial one is a violation of
// the rule being checked, and ok is false.
func (c *checker) endpoints(ctx context.Context) (eps []*endpoint.Endpoint, partial *source.PartialError, ok bool) {
	eps, err := c.src.Endpoints(ctx)
	if err == nil {
		return eps, nil, true
	}
	if errors.As(err, &partial) {
		c.checkKeys(partial)
		return eps, partial, true
	}
	c.fail("Endpoints", "", err, "failed")
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
		c.fail("HasSynced", "", nil, "did not report true within %v", c.opts.Timeout)
	}
}

// stillReady checks, after every other check, that a source that reported
// ready still does.
func (c *checker) stillReady() {
	sy, ok := c.src.(source.Syncer)
	if !ok || !sy.HasSynced() {
		if ok {
			c.fail("HasSynced", "", nil, "went back to false")
		}
		return
	}
	if !source.HasSynced(c.src) {
		c.fail("HasSynced", "", nil, "the method and source.HasSynced disagree")
	}
}

func (c *checker) sliceOwnership(ctx context.Context) {
	first, _, ok := c.endpoints(ctx)
	if !ok {
		return
	}
	// Compared as sets: order does not matter.
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
	second, _, ok := c.endpoints(ctx)
	if !ok {
		return
	}
	if got := slices.Sorted(slices.Values(render(second))); !slices.Equal(want, got) {
		c.fail("Endpoints", "", nil, "changing what one call returned changed the next call's result: %s", diff(want, got))
	}
}

func (c *checker) context(ctx context.Context) {
	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err := c.src.Endpoints(done)
	if !errors.Is(err, context.Canceled) {
		c.fail("Endpoints", "", err, "with a canceled context returned an error that does not wrap context.Canceled")
	}
}

// concurrency calls Endpoints from several goroutines at once: every call
// must succeed (a partial error counts as success), and -race reports a
// source that is not safe for concurrent use.
func (c *checker) concurrency(ctx context.Context) {
	const calls = 4
	errs := make([]error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			_, err := c.src.Endpoints(ctx)
			var pe *source.PartialError
			if err != nil && !errors.As(err, &pe) {
				errs[i] = err
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			c.fail("Endpoints", "", err, "concurrent call %d failed", i)
			return
		}
	}
}

// checkKeys checks the keys of a partial error.
func (c *checker) checkKeys(pe *source.PartialError) {
	rule := c.rule
	c.rule = RulePartialErrors
	defer func() { c.rule = rule }()
	if len(pe.Failed) == 0 {
		c.fail("Endpoints", "", pe, "a *PartialError names no object; return nil instead (PartialError.OrNil)")
	}
	for _, k := range slices.Sorted(maps.Keys(pe.Failed)) {
		parts := strings.Split(k, "/")
		if (len(parts) != 2 && len(parts) != 3) || slices.Contains(parts, "") {
			c.fail("Endpoints", endpoint.Printable(k), nil, "a key of a *PartialError is not a resource key (kind/namespace/name or kind/name)")
		}
	}
}

func (c *checker) partialErrors(ctx context.Context) {
	if c.opts.Fail == nil {
		return
	}
	before, _, ok := c.endpoints(ctx)
	if !ok {
		return
	}
	if err := c.opts.Fail(ctx); err != nil {
		c.fail("Options.Fail", "", err, "failed")
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
		c.fail("Endpoints", "", hard, "after Options.Fail, returned an error that is not a *PartialError")
		return
	case partial == nil:
		c.fail("Endpoints", "", nil, "after Options.Fail, returned no *PartialError within %v", c.opts.Timeout)
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
			c.fail("Endpoints", ep.Key().String(), partial, "the endpoint of an object that did not fail is missing from the result returned with the *PartialError")
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
			c.fail("AddEventHandler", "", nil, "a handler registered with a done context was called %d time(s)", n)
		}
		return
	}
	// Informer-backed sources call new handlers for the objects they
	// hold; let that settle before counting.
	time.Sleep(quiet)
	base := live.Load()
	if err := c.opts.Change(ctx); err != nil {
		c.fail("Options.Change", "", err, "failed")
		return
	}
	if !c.waitFor(ctx, c.opts.Timeout, func() bool { return live.Load() > base }) {
		c.fail("AddEventHandler", "", nil, "no handler call within %v of a change", c.opts.Timeout)
	}
	cancelLive()
	witnessCtx, cancelWitness := context.WithCancel(ctx)
	defer cancelWitness()
	c.src.AddEventHandler(witnessCtx, func() { witness.Add(1) })
	time.Sleep(quiet)
	base, wbase := live.Load(), witness.Load()
	if err := c.opts.Change(ctx); err != nil {
		c.fail("Options.Change", "", err, "failed")
		return
	}
	// The witness, registered after the first handler's context ended,
	// shows when the source has delivered the second change.
	if c.waitFor(ctx, c.opts.Timeout, func() bool { return witness.Load() > wbase }) {
		time.Sleep(quiet)
		if n := live.Load() - base; n > 0 {
			c.fail("AddEventHandler", "", nil, "a handler was called %d time(s) after its context was done", n)
		}
	}
	if n := early.Load(); n > 0 {
		c.fail("AddEventHandler", "", nil, "a handler registered with a done context was called %d time(s)", n)
	}
}

// determinism is the optional check of Options.Deterministic.
func (c *checker) determinism(ctx context.Context) {
	first, _, ok := c.endpoints(ctx)
	if !ok {
		return
	}
	second, _, ok := c.endpoints(ctx)
	if !ok {
		return
	}
	if a, b := render(first), render(second); !slices.Equal(a, b) {
		c.fail("Endpoints", "", nil, "two calls with no change in between differ: %s", diff(a, b))
	}
}

// validEndpoints is the optional check of Options.ValidEndpoints.
func (c *checker) validEndpoints(ctx context.Context) {
	eps, _, ok := c.endpoints(ctx)
	if !ok {
		return
	}
	if eps == nil {
		c.fail("Endpoints", "", nil, "returned a nil slice without error; return an empty one")
	}
	for i, ep := range eps {
		if ep == nil {
			c.fail("Endpoints", "", nil, "endpoint %d is nil", i)
			continue
		}
		if err := ep.ValidateDesired(); err != nil {
			c.fail("Endpoints", ep.Key().String(), err, "endpoint %d is invalid", i)
		}
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
