package source

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/zonesync/zonesync/endpoint"
)

// Empty is a [Source] with no endpoints. Its zero value is ready to use.
// Endpoints returns an empty, non-nil slice (or ctx.Err() when ctx is
// done); handlers are never called.
//
// Beware: a Reconciler with an Empty source plans the deletion of every
// record it owns (subject to its safety threshold).
//
//zonesync:source:name=empty
//zonesync:source:category=core
//zonesync:source:description=A source with no endpoints.
//zonesync:source:resources=none
//zonesync:source:filters=none
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=false
type Empty struct{}

var _ Source = Empty{}

// Endpoints returns an empty slice.
func (Empty) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return []*endpoint.Endpoint{}, nil
}

// AddEventHandler does nothing: an Empty source never changes.
func (Empty) AddEventHandler(context.Context, func()) {}

// String returns "empty".
func (Empty) String() string { return "empty" }

// orEmpty returns s, or Empty{} when s is nil.
func orEmpty(s Source) Source {
	if s == nil {
		return Empty{}
	}
	return s
}

// Static is a [Source] that serves a list of endpoints held in memory: a
// fixed list given to [NewStatic], or one the program changes with
// [Static.Set] and [Static.Add], which notify every handler registered with
// [Static.AddEventHandler]. It is meant for programs whose desired records
// are computed in-process, for examples and for tests.
//
// Static keeps its own deep copies: neither the endpoints passed to
// NewStatic, Set or Add nor those returned by [Static.Endpoints] are shared
// with it, so the caller owns what it gets. Endpoints come back sorted by
// (DNSName, SetIdentifier, RecordType), without nil entries. A Static is
// safe for concurrent use; the zero value is an empty source ready to use.
//
//zonesync:source:name=static
//zonesync:source:category=core
//zonesync:source:description=Endpoints held in memory: a fixed list, or one the program replaces with Set or extends with Add, which notify the handlers.
//zonesync:source:resources=none
//zonesync:source:filters=none
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=true
type Static struct {
	mu       sync.Mutex
	eps      []*endpoint.Endpoint // sorted, owned by the source, replaced and never mutated
	handlers map[uint64]func()
	nextID   uint64
}

var _ Source = (*Static)(nil)

// NewStatic returns a source that serves copies of eps.
func NewStatic(eps ...*endpoint.Endpoint) *Static {
	return &Static{eps: copySorted(nil, eps)}
}

// Endpoints returns deep copies of the endpoints, sorted by (DNSName,
// SetIdentifier, RecordType). It returns ctx.Err() when ctx is done.
func (s *Static) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	eps := s.eps
	s.mu.Unlock()
	// s.eps is replaced, never modified, so copying outside the lock is safe.
	if len(eps) == 0 {
		return []*endpoint.Endpoint{}, nil
	}
	return endpoint.DeepCopyAll(eps), nil
}

// Set replaces the endpoints with copies of eps and then calls every
// registered handler, in registration order, on the calling goroutine.
func (s *Static) Set(eps ...*endpoint.Endpoint) {
	sorted := copySorted(nil, eps)
	s.mu.Lock()
	s.eps = sorted
	handlers := s.handlersLocked()
	s.mu.Unlock()
	for _, h := range handlers {
		h()
	}
}

// Add adds copies of eps to the endpoints and then calls every registered
// handler, in registration order, on the calling goroutine. An endpoint
// with the key of one already held is added beside it, not in its place;
// use [Static.Set] to replace.
func (s *Static) Add(eps ...*endpoint.Endpoint) {
	s.mu.Lock()
	s.eps = copySorted(s.eps, eps)
	handlers := s.handlersLocked()
	s.mu.Unlock()
	for _, h := range handlers {
		h()
	}
}

// handlersLocked returns the registered handlers in registration order;
// the caller holds s.mu.
func (s *Static) handlersLocked() []func() {
	ids := slices.Sorted(maps.Keys(s.handlers))
	handlers := make([]func(), len(ids))
	for i, id := range ids {
		handlers[i] = s.handlers[id]
	}
	return handlers
}

// AddEventHandler registers handler to be called after every [Static.Set]
// and [Static.Add] until ctx is done. A nil handler, or a ctx that is
// already done, registers nothing.
func (s *Static) AddEventHandler(ctx context.Context, handler func()) {
	if handler == nil || ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	if s.handlers == nil {
		s.handlers = make(map[uint64]func())
	}
	id := s.nextID
	s.nextID++
	s.handlers[id] = handler
	s.mu.Unlock()
	context.AfterFunc(ctx, func() {
		s.mu.Lock()
		delete(s.handlers, id)
		s.mu.Unlock()
	})
}

// String describes the source, e.g. "static (3 endpoints)".
func (s *Static) String() string {
	s.mu.Lock()
	n := len(s.eps)
	s.mu.Unlock()
	return "static (" + strconv.Itoa(n) + " endpoints)"
}

// copySorted returns held (owned copies, not modified) followed by deep
// copies of eps without nil entries, sorted, in a new slice.
func copySorted(held, eps []*endpoint.Endpoint) []*endpoint.Endpoint {
	out := make([]*endpoint.Endpoint, 0, len(held)+len(eps))
	out = append(out, held...)
	for _, ep := range eps {
		if ep != nil {
			out = append(out, ep.DeepCopy())
		}
	}
	slices.SortStableFunc(out, endpoint.Compare)
	return out
}
