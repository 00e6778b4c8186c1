package source

import (
	"context"

	"github.com/zonesync/zonesync/endpoint"
)

// Source produces the endpoints a program wants to exist.
//
// Implementations must be safe for concurrent use: a Reconciler may call
// Endpoints from its loop while an event handler registration is in flight.
type Source interface {
	// Endpoints returns the desired endpoints. It returns a new slice on
	// every call, sorted by (DNSName, SetIdentifier, RecordType); the caller
	// owns the slice and the endpoints in it and may modify them. Errors
	// name the object at fault (for Kubernetes objects: namespace/name) and
	// wrap their cause with %w.
	Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error)
	// AddEventHandler registers handler to be called when the source's
	// endpoints may have changed. Handlers must be cheap and must not
	// block (they usually call zonesync's Reconciler.ScheduleRunOnce);
	// registration ends when ctx is done. A source whose endpoints never
	// change may ignore the handler.
	AddEventHandler(ctx context.Context, handler func())
}
