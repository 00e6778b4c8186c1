// Package source defines [Source], the origin of desired DNS records.
package source

import (
	"context"

	"github.com/zonesync/zonesync/endpoint"
)

// Source produces the endpoints a program wants to exist.
type Source interface {
	// Endpoints returns the desired endpoints. It returns a new slice on
	// every call; the caller may modify it.
	Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error)
	// AddEventHandler registers handler to be called when the source's
	// endpoints may have changed. Handlers must be cheap and must not
	// block; registration ends when ctx is done.
	AddEventHandler(ctx context.Context, handler func())
}
