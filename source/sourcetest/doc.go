// Package sourcetest is the test kit for [source.Source] implementations:
// the contract checker ([CheckSource], [TestSource]) and [Fake], a source
// of random endpoints for testing providers and pipelines.
//
// [CheckSource] checks a source against the contract written on
// [source.Source] and returns every violation, joined; [TestSource] runs
// the same checks in a test and reports each violation with t.Error, as
// fstest.TestFS does for a file system. Each violation is a [*Violation]
// naming the rule, the call, the endpoint or object and what was wrong.
// The other contract kits, provider/providertest and registry/registrytest,
// have the same shape.
//
// Library code does not import this package; tests and benchmarks do.
//
// # Rules
//
// Each rule is a sentence of the contract on [source.Source], quoted after
// the arrow; the name is the constant Rule... and the first word of every
// violation:
//
//   - Readiness: a source that implements [source.Syncer] reports true
//     within [Options.Timeout] and still does after every other check. ←
//     "A source that can be incomplete (informer caches not synced) also
//     implements Syncer"; HasSynced: "once true it should stay true".
//   - SliceOwnership: changing the slice or the endpoints a call returned
//     changes nothing the next call returns (compared as sets). ←
//     "Endpoints returns a new slice on every call. The caller owns the
//     slice and the endpoints in it and may modify them; a source never
//     keeps or reuses what it returned."
//   - Context: Endpoints with a done context returns an error wrapping the
//     context's error. ← "Endpoints honours ctx: it returns promptly with
//     an error wrapping ctx.Err() once ctx is done."
//   - Concurrency: calls of Endpoints from several goroutines at once all
//     succeed (run the test with -race to find data races). ←
//     "Implementations must be safe for concurrent use."
//   - PartialErrors: a per-object failure (made by [Options.Fail], or
//     returned by the source on its own) comes back as a
//     [*source.PartialError] whose keys have the form of the resource label
//     ("kind/namespace/name" or "kind/name"), together with the endpoints
//     of the other objects. ← "A bad object is a per-object error (a
//     *PartialError), never a reason to return no endpoints for the
//     others"; PartialError.Failed maps "the resource key of each object".
//   - Events: a handler registered with AddEventHandler is called after a
//     change (made by [Options.Change]), and no longer once its context is
//     done; a handler registered with a context already done is never
//     called. ← AddEventHandler "registers handler to be called when the
//     source's endpoints may have changed"; "the source stops calling them
//     once the registration's ctx is done".
//
// # Optional checks
//
// The contract leaves these free; a source that promises them asks for the
// check with an option:
//
//   - Determinism: with [Options.Deterministic], two calls with no change
//     in between return equal endpoints in the same order. The contract
//     says "Order does not matter: the planner sorts, so sources need
//     not".
//   - ValidEndpoints: with [Options.ValidEndpoints], the slice is not nil
//     and every endpoint is non-nil and passes
//     [endpoint.Endpoint.ValidateDesired]. The contract does not ask for
//     it: a Reconciler validates desired endpoints and skips invalid ones,
//     reporting them.
package sourcetest
