package providertest

import (
	"context"
	"slices"
	"sync"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// Method names a [provider.Provider] method in a recorded [Call].
type Method string

// The methods a [RecordingProvider] records.
const (
	MethodRecords         Method = "Records"
	MethodApplyChanges    Method = "ApplyChanges"
	MethodAdjustEndpoints Method = "AdjustEndpoints"
	MethodGetDomainFilter Method = "GetDomainFilter"
)

// Call is one recorded call. Arguments and results are deep copies taken
// when the call was made, so later changes by the caller or the provider do
// not show through.
type Call struct {
	// Method is the method called.
	Method Method
	// Changes is the argument of ApplyChanges (nil for other methods).
	Changes *plan.Changes
	// Endpoints is the argument of AdjustEndpoints, or the result of
	// Records (nil for other methods or when the call failed).
	Endpoints []*endpoint.Endpoint
	// Err is the error the wrapped provider returned.
	Err error
}

// RecordingProvider wraps a provider and records every call with its
// arguments, for tests that check what a registry or Reconciler asked of
// its provider. Calls pass through to the wrapped provider unchanged.
//
// It is safe for concurrent use when the wrapped provider is; calls are
// recorded in the order they returned.
type RecordingProvider struct {
	next provider.Provider

	mu    sync.Mutex
	calls []Call
}

var (
	_ provider.Provider   = (*RecordingProvider)(nil)
	_ provider.ZoneLister = (*RecordingProvider)(nil)
)

// NewRecordingProvider returns a provider that records calls and forwards
// them to p.
func NewRecordingProvider(p provider.Provider) *RecordingProvider {
	return &RecordingProvider{next: p}
}

func (r *RecordingProvider) record(c Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
}

// Records calls the wrapped provider and records the call and a copy of the
// result.
func (r *RecordingProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := r.next.Records(ctx)
	r.record(Call{Method: MethodRecords, Endpoints: endpoint.DeepCopyAll(eps), Err: err})
	return eps, err
}

// ApplyChanges records a copy of changes and calls the wrapped provider.
func (r *RecordingProvider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	c := copyChanges(changes)
	err := r.next.ApplyChanges(ctx, changes)
	r.record(Call{Method: MethodApplyChanges, Changes: c, Err: err})
	return err
}

// AdjustEndpoints records a copy of eps and calls the wrapped provider.
func (r *RecordingProvider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	in := endpoint.DeepCopyAll(eps)
	out, err := r.next.AdjustEndpoints(ctx, eps)
	r.record(Call{Method: MethodAdjustEndpoints, Endpoints: in, Err: err})
	return out, err
}

// Unwrap returns the wrapped provider, through which [provider.As] finds
// its optional capabilities.
func (r *RecordingProvider) Unwrap() provider.Provider { return r.next }

// ListZones forwards [provider.ZoneLister.ListZones] to the wrapped
// provider, or fails with [provider.ErrZonesUnsupported] when it does not
// list zones. The call is not recorded.
func (r *RecordingProvider) ListZones(ctx context.Context) ([]string, error) {
	return forwardZones(ctx, r.next)
}

// GetDomainFilter records the call and returns the wrapped provider's
// filter.
func (r *RecordingProvider) GetDomainFilter() endpoint.DomainFilterInterface {
	f := r.next.GetDomainFilter()
	r.record(Call{Method: MethodGetDomainFilter})
	return f
}

// Calls returns the calls recorded so far, oldest first. The slice and its
// contents are copies the caller may modify.
func (r *RecordingProvider) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Call, len(r.calls))
	for i, c := range r.calls {
		out[i] = Call{Method: c.Method, Changes: copyChanges(c.Changes), Endpoints: endpoint.DeepCopyAll(c.Endpoints), Err: c.Err}
	}
	return out
}

// CallsTo returns the recorded calls of one method, oldest first.
func (r *RecordingProvider) CallsTo(m Method) []Call {
	return slices.DeleteFunc(r.Calls(), func(c Call) bool { return c.Method != m })
}

// Reset forgets the recorded calls.
func (r *RecordingProvider) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = nil
}

func copyChanges(c *plan.Changes) *plan.Changes {
	if c == nil {
		return nil
	}
	return &plan.Changes{
		Create:    endpoint.DeepCopyAll(c.Create),
		UpdateOld: endpoint.DeepCopyAll(c.UpdateOld),
		UpdateNew: endpoint.DeepCopyAll(c.UpdateNew),
		Delete:    endpoint.DeepCopyAll(c.Delete),
	}
}
