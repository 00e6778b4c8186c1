package providertest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// Errors of a [LimitedProvider] (wrapped, naming the call or the record).
var (
	// ErrBatchTooLarge: a change set exceeds APILimits.MaxRecords or
	// APILimits.MaxValueBytes. Hard: the whole call is refused.
	ErrBatchTooLarge = errors.New("change batch exceeds the API limits")
	// ErrThrottled: the call was throttled. Soft (it also matches
	// [provider.SoftError]).
	ErrThrottled = errors.New("throttled: rate exceeded")
	// ErrPoisoned: the change set holds a poisoned record. Hard: the whole
	// call is refused.
	ErrPoisoned = errors.New("invalid record")
)

// APILimits are the limits a [LimitedProvider] enforces, in the manner of
// the Route 53 API. Zero values disable a limit.
type APILimits struct {
	// MaxRecords bounds the record values of one ApplyChanges call (each
	// target of each endpoint counts one, an endpoint without targets one,
	// an update its old and its new record); Route 53: 1,000.
	MaxRecords int
	// MaxValueBytes bounds the bytes of the targets of one call, counted
	// the same way; Route 53: 32,000.
	MaxValueBytes int
	// ThrottleEvery throttles every n-th ApplyChanges call (the n-th,
	// 2n-th, ...) with a soft error before it reaches the provider: a
	// deterministic stand-in for a per-second request quota.
	ThrottleEvery int
	// Poisoned names records (DNS names, compared case-insensitively)
	// the API refuses: a call that creates, updates or deletes one fails
	// as a whole with ErrPoisoned, as an invalid record fails a Route 53
	// change batch.
	Poisoned []string
}

// APIStats counts the ApplyChanges calls of a [LimitedProvider].
type APIStats struct {
	Calls, Applied, Throttled, TooLarge, Poisoned int
}

// LimitedProvider is a fake DNS API with Route 53-like limits in front of
// another provider; see [NewLimitedProvider].
type LimitedProvider struct {
	next   provider.Provider
	limits APILimits

	mu    sync.Mutex
	stats APIStats
}

var (
	_ provider.Provider   = (*LimitedProvider)(nil)
	_ provider.ZoneLister = (*LimitedProvider)(nil)
)

// NewLimitedProvider returns a fake API over p that enforces limits on
// ApplyChanges: a call is checked before it reaches p and either refused
// as a whole (nothing applied) or passed on, so it is atomic when p is (as
// the in-memory provider is). Other methods, and ListZones, pass through.
// It is safe for concurrent use when p is.
func NewLimitedProvider(p provider.Provider, limits APILimits) *LimitedProvider {
	return &LimitedProvider{next: p, limits: limits}
}

// Stats returns the counts so far.
func (l *LimitedProvider) Stats() APIStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

// Records passes through.
func (l *LimitedProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return l.next.Records(ctx)
}

// AdjustEndpoints passes through.
func (l *LimitedProvider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return l.next.AdjustEndpoints(ctx, eps)
}

// GetDomainFilter passes through.
func (l *LimitedProvider) GetDomainFilter() endpoint.DomainFilterInterface {
	return l.next.GetDomainFilter()
}

// Unwrap returns the wrapped provider, through which [provider.As] finds
// its optional capabilities.
func (l *LimitedProvider) Unwrap() provider.Provider { return l.next }

// ListZones passes through (or fails with [provider.ErrZonesUnsupported]).
func (l *LimitedProvider) ListZones(ctx context.Context) ([]string, error) {
	return forwardZones(ctx, l.next)
}

// ApplyChanges checks the limits in this order: throttling, size,
// poisoned records; then passes the call on.
func (l *LimitedProvider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if changes == nil {
		return l.next.ApplyChanges(ctx, changes)
	}
	l.mu.Lock()
	l.stats.Calls++
	n := l.stats.Calls
	err := l.check(n, changes)
	l.mu.Unlock()
	if err != nil {
		return err
	}
	err = l.next.ApplyChanges(ctx, changes)
	if err == nil {
		l.mu.Lock()
		l.stats.Applied++
		l.mu.Unlock()
	}
	return err
}

// check runs with l.mu held.
func (l *LimitedProvider) check(n int, changes *plan.Changes) error {
	if l.limits.ThrottleEvery > 0 && n%l.limits.ThrottleEvery == 0 {
		l.stats.Throttled++
		return provider.NewSoftError(fmt.Errorf("providertest: call %d: %w", n, ErrThrottled))
	}
	records, size := 0, 0
	var poisoned []string
	for _, list := range [][]*endpoint.Endpoint{changes.Create, changes.UpdateOld, changes.UpdateNew, changes.Delete} {
		for _, ep := range list {
			if ep == nil {
				continue
			}
			records += max(len(ep.Targets), 1)
			for _, t := range ep.Targets {
				size += len(t)
			}
			if slices.ContainsFunc(l.limits.Poisoned, func(p string) bool {
				return endpoint.ToALabel(p) == endpoint.ToALabel(ep.DNSName)
			}) && !slices.Contains(poisoned, ep.Key().String()) {
				poisoned = append(poisoned, ep.Key().String())
			}
		}
	}
	if (l.limits.MaxRecords > 0 && records > l.limits.MaxRecords) || (l.limits.MaxValueBytes > 0 && size > l.limits.MaxValueBytes) {
		l.stats.TooLarge++
		return fmt.Errorf("providertest: call %d: %w: %d record values and %d bytes (limits %d and %d)",
			n, ErrBatchTooLarge, records, size, l.limits.MaxRecords, l.limits.MaxValueBytes)
	}
	if len(poisoned) > 0 {
		l.stats.Poisoned++
		return fmt.Errorf("providertest: call %d: %w: %v", n, ErrPoisoned, poisoned)
	}
	return nil
}
