package source

import (
	"context"
	"slices"
	"sync"

	"github.com/zonesync/zonesync/endpoint"
)

// InMemory is a [Source] that serves a list of endpoints held in memory. The
// program replaces the list with [InMemory.Set], which notifies every handler
// registered with [InMemory.AddEventHandler]. It is meant for programs whose
// desired records are computed in-process, for examples and for tests.
//
// InMemory keeps its own copies: neither the endpoints passed to
// [NewInMemory] or Set nor those returned by [InMemory.Endpoints] are shared
// with it. It is safe for concurrent use; the zero value is an empty source
// ready to use.
//
// +zonesync:source:name=inmemory
// +zonesync:source:category=core
// +zonesync:source:description=Endpoints held in memory and replaced by the program with Set, which notifies the handlers.
// +zonesync:source:resources=none
// +zonesync:source:filters=none
// +zonesync:source:namespaced=false
// +zonesync:source:fqdn-template=false
// +zonesync:source:events=true
type InMemory struct {
	mu       sync.Mutex
	eps      []*endpoint.Endpoint // sorted, owned by the source, never mutated
	handlers map[uint64]func()
	nextID   uint64
}

var _ Source = (*InMemory)(nil)

// NewInMemory returns a source that serves copies of eps.
func NewInMemory(eps ...*endpoint.Endpoint) *InMemory {
	return &InMemory{eps: copySorted(eps)}
}

// Endpoints returns deep copies of the endpoints, sorted by (DNSName,
// SetIdentifier, RecordType). It returns ctx.Err() when ctx is done.
func (s *InMemory) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	eps := s.eps
	s.mu.Unlock()
	// s.eps is replaced, never modified, so copying outside the lock is safe.
	return endpoint.DeepCopyAll(eps), nil
}

// Set replaces the endpoints with copies of eps and then calls every
// registered handler, in registration order, on the calling goroutine.
func (s *InMemory) Set(eps ...*endpoint.Endpoint) {
	sorted := copySorted(eps)
	s.mu.Lock()
	s.eps = sorted
	ids := make([]uint64, 0, len(s.handlers))
	for id := range s.handlers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	handlers := make([]func(), len(ids))
	for i, id := range ids {
		handlers[i] = s.handlers[id]
	}
	s.mu.Unlock()
	for _, h := range handlers {
		h()
	}
}

// AddEventHandler registers handler to be called after every [InMemory.Set]
// until ctx is done. A nil handler, or a ctx that is already done, registers
// nothing.
func (s *InMemory) AddEventHandler(ctx context.Context, handler func()) {
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

// copySorted deep-copies eps (skipping nil entries) and sorts the copies.
func copySorted(eps []*endpoint.Endpoint) []*endpoint.Endpoint {
	nonNil := make([]*endpoint.Endpoint, 0, len(eps))
	for _, ep := range eps {
		if ep != nil {
			nonNil = append(nonNil, ep)
		}
	}
	out := endpoint.DeepCopyAll(nonNil)
	slices.SortStableFunc(out, endpoint.Compare)
	return out
}
