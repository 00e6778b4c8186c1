package providertest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// ErrInjected is the error the fault injectors return (wrapped) when they
// are given a nil error.
var ErrInjected = errors.New("injected fault")

// Funcs holds the functions [Intercept] calls instead of the wrapped
// provider's methods. Each receives the wrapped provider as next, so it can
// call through, change the arguments or the result, or fail without calling
// it. A nil function passes the call through unchanged.
type Funcs struct {
	Records         func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error)
	ApplyChanges    func(ctx context.Context, next provider.Provider, changes *plan.Changes) error
	AdjustEndpoints func(ctx context.Context, next provider.Provider, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error)
	GetDomainFilter func(next provider.Provider) endpoint.DomainFilterInterface
	// ListZones, when set, answers [provider.ZoneLister.ListZones], and
	// the provider lists zones whether p does or not. When nil, the
	// provider has the optional capabilities of p, [provider.ZoneLister]
	// among them, answered by p (see [provider.As]).
	ListZones func(ctx context.Context, next provider.Provider) ([]string, error)
}

// Intercept returns a provider that routes each method through funcs (when
// set) and otherwise calls p. It is the building block for fault injection
// and for the deliberately broken providers that test a conformance check.
// It has the optional capabilities of p (see [Funcs.ListZones] for the one
// exception).
//
// The returned provider is as safe for concurrent use as p and the funcs.
func Intercept(p provider.Provider, funcs Funcs) provider.Provider {
	return &interceptor{next: p, funcs: funcs}
}

// Unwrap returns the wrapped provider, through which [provider.As] finds
// the optional capabilities of p, or nil when [Funcs.ListZones] is set: the
// interceptor then adds a capability and is the innermost layer.
func (i *interceptor) Unwrap() provider.Provider {
	if i.funcs.ListZones != nil {
		return nil
	}
	return i.next
}

type interceptor struct {
	next  provider.Provider
	funcs Funcs
}

var (
	_ provider.Provider   = (*interceptor)(nil)
	_ provider.ZoneLister = (*interceptor)(nil)
)

func (i *interceptor) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if i.funcs.Records != nil {
		return i.funcs.Records(ctx, i.next)
	}
	return i.next.Records(ctx)
}

func (i *interceptor) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if i.funcs.ApplyChanges != nil {
		return i.funcs.ApplyChanges(ctx, i.next, changes)
	}
	return i.next.ApplyChanges(ctx, changes)
}

func (i *interceptor) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	if i.funcs.AdjustEndpoints != nil {
		return i.funcs.AdjustEndpoints(ctx, i.next, eps)
	}
	return i.next.AdjustEndpoints(ctx, eps)
}

func (i *interceptor) ListZones(ctx context.Context) ([]string, error) {
	if i.funcs.ListZones != nil {
		return i.funcs.ListZones(ctx, i.next)
	}
	return forwardZones(ctx, i.next)
}

// forwardZones lists the zones of p for a wrapper that forwards the
// capability.
func forwardZones(ctx context.Context, p provider.Provider) ([]string, error) {
	zl, ok := provider.As[provider.ZoneLister](p)
	if !ok {
		return nil, fmt.Errorf("providertest: %w", provider.ErrZonesUnsupported)
	}
	return zl.ListZones(ctx)
}

func (i *interceptor) GetDomainFilter() endpoint.DomainFilterInterface {
	if i.funcs.GetDomainFilter != nil {
		return i.funcs.GetDomainFilter(i.next)
	}
	return i.next.GetDomainFilter()
}

// lockedRand makes a *rand.Rand safe for concurrent use.
type lockedRand struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func (r *lockedRand) hit(rate float64) bool {
	if rate <= 0 {
		return false
	}
	if rate >= 1 {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rng.Float64() < rate
}

func newLockedRand(rng *rand.Rand) *lockedRand {
	if rng == nil {
		// A fixed seed keeps runs reproducible when the caller gives none.
		rng = rand.New(rand.NewPCG(1, 2))
	}
	return &lockedRand{rng: rng}
}

func injected(method string, err error) error {
	if err == nil {
		err = ErrInjected
	}
	return fmt.Errorf("providertest: %s: %w", method, err)
}

// FailRandomly returns a provider whose Records and ApplyChanges calls fail
// with probability rate (0 never, 1 always) before reaching p; a failed
// ApplyChanges applies nothing. The error wraps err (or [ErrInjected] when
// err is nil), so errors.Is(result, err) holds; pass an error made with
// [provider.NewSoftError] to simulate transient failures.
//
// The sequence of failures is determined by rng: the same seed and the same
// sequence of calls give the same failures. A nil rng uses a fixed seed.
// The provider is safe for concurrent use (rng is guarded by a mutex; with
// concurrent callers the order in which they draw is up to the scheduler).
func FailRandomly(p provider.Provider, rate float64, rng *rand.Rand, err error) provider.Provider {
	r := newLockedRand(rng)
	return Intercept(p, Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			if r.hit(rate) {
				return nil, injected("Records", err)
			}
			return next.Records(ctx)
		},
		ApplyChanges: func(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
			if r.hit(rate) {
				return injected("ApplyChanges", err)
			}
			return next.ApplyChanges(ctx, changes)
		},
	})
}

// FailAfterApplyRandomly returns a provider whose ApplyChanges calls p and
// then, with probability rate, reports an error although p succeeded: the
// "lost response" case (a timeout after the DNS API accepted the change)
// that callers must survive by reading the records again. Other methods pass
// through. err, rng and concurrency are as for [FailRandomly].
func FailAfterApplyRandomly(p provider.Provider, rate float64, rng *rand.Rand, err error) provider.Provider {
	r := newLockedRand(rng)
	return Intercept(p, Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
			if applyErr := next.ApplyChanges(ctx, changes); applyErr != nil {
				return applyErr
			}
			if r.hit(rate) {
				return injected("ApplyChanges (after applying)", err)
			}
			return nil
		},
	})
}

// WithLatency returns a provider whose Records and ApplyChanges wait d
// before calling p. The wait ends early when ctx is done, and the call then
// returns an error wrapping ctx.Err() without reaching p.
func WithLatency(p provider.Provider, d time.Duration) provider.Provider {
	wait := func(ctx context.Context, method string) error {
		if d <= 0 {
			return nil
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return fmt.Errorf("providertest: %s: waiting %v: %w", method, d, ctx.Err())
		case <-t.C:
			return nil
		}
	}
	return Intercept(p, Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			if err := wait(ctx, "Records"); err != nil {
				return nil, err
			}
			return next.Records(ctx)
		},
		ApplyChanges: func(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
			if err := wait(ctx, "ApplyChanges"); err != nil {
				return err
			}
			return next.ApplyChanges(ctx, changes)
		},
	})
}
