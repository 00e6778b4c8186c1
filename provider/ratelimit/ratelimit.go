// Package ratelimit is a provider wrapper that keeps calls to a DNS API
// under its request quota and rides out its throttling responses.
//
// [New] wraps any [provider.Provider]. Every call that reaches the API
// (Records, ApplyChanges, ListZones) first takes a token from a token
// bucket ([golang.org/x/time/rate]: Rate tokens per second, up to Burst at
// once), waiting for it as long as the context allows. A call that fails
// with a soft error ([provider.SoftError], the way providers report
// throttling such as HTTP 429 or Route 53's Throttling) is retried after an
// exponential backoff, a few times, within the same call; when the retries
// are spent the soft error is returned, and the Reconciler retries at its
// next cycle. Because the TXT registry applies one zone per call, a zone
// whose calls stay throttled does not stop the other zones of the cycle.
//
// golang.org/x/time/rate is the one dependency the core takes for this: a
// well-kept token bucket whose reservations take the time as an argument,
// so the wrapper runs on an injected [clock.Clock] and tests need no
// sleeping.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/time/rate"

	"github.com/zonesync/zonesync/clock"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// Defaults of [Options].
const (
	DefaultRetries        = 3
	DefaultBackoffInitial = time.Second
	DefaultBackoffMax     = 30 * time.Second
)

// ErrInvalidOptions is wrapped by every error [New] returns: a nil
// provider or an [Options] field out of range, named in the message.
var ErrInvalidOptions = errors.New("invalid rate limit options")

// Options configures [New]. Zero values mean the defaults; negative values
// are errors, except for Retries.
type Options struct {
	// Rate is the number of calls allowed per second on average; zero
	// means no limit. Cloudflare's 1,200 requests per 5 minutes is
	// Rate 4; Route 53's 5 requests per second per account is Rate 5.
	Rate float64
	// Burst is the number of calls allowed at once; zero means 1.
	Burst int
	// Retries is how many times a call that failed with a soft error is
	// retried; zero means [DefaultRetries], negative means never.
	//
	// A soft error may also be a lost response after the API applied the
	// changes; the retry then fails on records that exist, which the batch
	// wrapper reports as rejected, and the next cycle reads the zone again.
	Retries int
	// BackoffInitial is the wait before the first retry, doubled for each
	// further one up to BackoffMax; zero values mean
	// [DefaultBackoffInitial] and [DefaultBackoffMax] (capped by, or
	// raised to, the other field when it is set). When both are set, BackoffMax
	// must not be less than BackoffInitial.
	BackoffInitial, BackoffMax time.Duration
	// Clock times the waits; nil means [clock.Real].
	Clock clock.Clock
}

// Provider is a rate-limited [provider.Provider]; see [New].
type Provider struct {
	next provider.Provider
	opts Options
	lim  *rate.Limiter
}

var (
	_ provider.Provider   = (*Provider)(nil)
	_ provider.ZoneLister = (*Provider)(nil)
)

// New returns a rate-limited wrapper of p. It fails, with an error
// wrapping [ErrInvalidOptions], when p is nil or a field of opts is out of
// range. The wrapper has the optional capabilities of p
// ([provider.ZoneLister], ...; see [provider.As]); ListZones goes through
// the limit like the other calls.
func New(p provider.Provider, opts Options) (*Provider, error) {
	if p == nil {
		return nil, fmt.Errorf("ratelimit: %w: the provider is nil", ErrInvalidOptions)
	}
	switch {
	case opts.Rate < 0 || math.IsNaN(opts.Rate):
		return nil, fmt.Errorf("ratelimit: %w: Options.Rate is %v: zero means no limit", ErrInvalidOptions, opts.Rate)
	case opts.Burst < 0:
		return nil, fmt.Errorf("ratelimit: %w: Options.Burst is negative (%d): zero means 1", ErrInvalidOptions, opts.Burst)
	case opts.BackoffInitial < 0:
		return nil, fmt.Errorf("ratelimit: %w: Options.BackoffInitial is negative (%v): zero means %v", ErrInvalidOptions, opts.BackoffInitial, DefaultBackoffInitial)
	case opts.BackoffMax < 0:
		return nil, fmt.Errorf("ratelimit: %w: Options.BackoffMax is negative (%v): zero means %v", ErrInvalidOptions, opts.BackoffMax, DefaultBackoffMax)
	}
	limit := rate.Inf
	if opts.Rate > 0 {
		limit = rate.Limit(opts.Rate)
	}
	if opts.Burst == 0 {
		opts.Burst = 1
	}
	if opts.Retries == 0 {
		opts.Retries = DefaultRetries
	}
	switch {
	case opts.BackoffInitial == 0 && opts.BackoffMax == 0:
		opts.BackoffInitial, opts.BackoffMax = DefaultBackoffInitial, DefaultBackoffMax
	case opts.BackoffInitial == 0:
		opts.BackoffInitial = min(DefaultBackoffInitial, opts.BackoffMax)
	case opts.BackoffMax == 0:
		opts.BackoffMax = max(DefaultBackoffMax, opts.BackoffInitial)
	case opts.BackoffMax < opts.BackoffInitial:
		return nil, fmt.Errorf("ratelimit: %w: Options.BackoffMax (%v) is less than Options.BackoffInitial (%v)", ErrInvalidOptions, opts.BackoffMax, opts.BackoffInitial)
	}
	opts.Clock = clock.OrReal(opts.Clock)
	return &Provider{next: p, opts: opts, lim: rate.NewLimiter(limit, opts.Burst)}, nil
}

// Unwrap returns the wrapped provider, through which [provider.As] finds
// the optional capabilities of the wrapper.
func (p *Provider) Unwrap() provider.Provider { return p.next }

// wait sleeps d on the clock, or until ctx is done.
func (p *Provider) wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := p.opts.Clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C():
		return nil
	}
}

// token waits for a token of the bucket.
func (p *Provider) token(ctx context.Context) error {
	now := p.opts.Clock.Now()
	r := p.lim.ReserveN(now, 1)
	if !r.OK() {
		return errors.New("ratelimit: a call needs more tokens than the burst")
	}
	if err := p.wait(ctx, r.DelayFrom(now)); err != nil {
		r.CancelAt(p.opts.Clock.Now())
		return err
	}
	return nil
}

// call runs f under the limit, retrying soft errors with backoff.
func (p *Provider) call(ctx context.Context, what string, f func() error) error {
	delay := p.opts.BackoffInitial
	for attempt := 0; ; attempt++ {
		if err := p.token(ctx); err != nil {
			return fmt.Errorf("ratelimit: %s: waiting for the rate limit: %w", what, err)
		}
		err := f()
		if err == nil || !errors.Is(err, provider.SoftError) || attempt >= p.opts.Retries {
			return err
		}
		logr.FromContextOrDiscard(ctx).V(1).Info("provider call failed softly, backing off", "call", what, "attempt", attempt+1, "retryIn", delay, "error", err.Error())
		if werr := p.wait(ctx, delay); werr != nil {
			return errors.Join(err, fmt.Errorf("ratelimit: %s: backing off: %w", what, werr))
		}
		delay = min(2*delay, p.opts.BackoffMax)
	}
}

// Records calls the wrapped provider under the limit.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	var eps []*endpoint.Endpoint
	err := p.call(ctx, "Records", func() error {
		var err error
		eps, err = p.next.Records(ctx)
		return err
	})
	return eps, err
}

// ApplyChanges calls the wrapped provider under the limit.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	return p.call(ctx, "ApplyChanges", func() error { return p.next.ApplyChanges(ctx, changes) })
}

// ListZones calls the wrapped provider under the limit, or fails with
// [provider.ErrZonesUnsupported] when it does not list zones (then
// [provider.As] does not find the capability).
func (p *Provider) ListZones(ctx context.Context) ([]string, error) {
	zl, ok := provider.As[provider.ZoneLister](p.next)
	if !ok {
		return nil, fmt.Errorf("ratelimit: %w", provider.ErrZonesUnsupported)
	}
	var zones []string
	err := p.call(ctx, "ListZones", func() error {
		var err error
		zones, err = zl.ListZones(ctx)
		return err
	})
	return zones, err
}

// AdjustEndpoints calls the wrapped provider (no API call, no limit).
func (p *Provider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return p.next.AdjustEndpoints(ctx, eps)
}

// GetDomainFilter returns the wrapped provider's filter.
func (p *Provider) GetDomainFilter() endpoint.DomainFilterInterface {
	return p.next.GetDomainFilter()
}
