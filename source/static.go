package source

import (
	"context"
	"strconv"

	"github.com/zonesync/zonesync/endpoint"
)

// Empty is a [Source] with no endpoints. Its zero value is ready to use.
// Endpoints returns an empty, non-nil slice (or ctx.Err() when ctx is
// done); handlers are never called.
//
// Beware: a Reconciler with an Empty source plans the deletion of every
// record it owns (subject to its safety threshold).
//
// +zonesync:source:name=empty
// +zonesync:source:category=core
// +zonesync:source:description=A source with no endpoints.
// +zonesync:source:resources=none
// +zonesync:source:filters=none
// +zonesync:source:namespaced=false
// +zonesync:source:fqdn-template=false
// +zonesync:source:events=false
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

// Static is a [Source] that serves a fixed list of endpoints given at
// construction.
//
// Copy semantics: [NewStatic] keeps deep copies of the endpoints it is given,
// and every Endpoints call returns fresh deep copies of them, so the caller
// owns what it gets: changing a returned endpoint changes neither the source
// nor the result of the next call. The endpoints come back in the order they
// were given, without nil entries. Handlers are never called. A Static is
// safe for concurrent use; the zero value has no endpoints.
//
// +zonesync:source:name=static
// +zonesync:source:category=core
// +zonesync:source:description=A fixed list of endpoints given at construction.
// +zonesync:source:resources=none
// +zonesync:source:filters=none
// +zonesync:source:namespaced=false
// +zonesync:source:fqdn-template=false
// +zonesync:source:events=false
type Static struct {
	eps []*endpoint.Endpoint // owned, never modified after construction
}

var _ Source = (*Static)(nil)

// NewStatic returns a source that serves copies of eps.
func NewStatic(eps ...*endpoint.Endpoint) *Static {
	nonNil := make([]*endpoint.Endpoint, 0, len(eps))
	for _, ep := range eps {
		if ep != nil {
			nonNil = append(nonNil, ep)
		}
	}
	return &Static{eps: endpoint.DeepCopyAll(nonNil)}
}

// Endpoints returns deep copies of the endpoints, in construction order.
func (s *Static) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(s.eps) == 0 {
		return []*endpoint.Endpoint{}, nil
	}
	return endpoint.DeepCopyAll(s.eps), nil
}

// AddEventHandler does nothing: a Static source never changes.
func (*Static) AddEventHandler(context.Context, func()) {}

// String describes the source, e.g. "static (3 endpoints)".
func (s *Static) String() string {
	return "static (" + strconv.Itoa(len(s.eps)) + " endpoints)"
}
