package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// Provider is a DNS service that holds records.
//
// The full contract is documented in the package documentation.
type Provider interface {
	// Records returns every record the provider holds, sorted by
	// (DNSName, SetIdentifier, RecordType). The caller owns the returned
	// slice and endpoints and may modify them.
	Records(ctx context.Context) ([]*endpoint.Endpoint, error)
	// ApplyChanges applies the changes: it creates the Create records,
	// replaces each UpdateOld[i] by UpdateNew[i] and removes the Delete
	// records. It must not modify changes or keep references to it. After an
	// error the caller cannot tell how much was applied (unless the provider
	// documents that it is atomic) and must read Records again.
	ApplyChanges(ctx context.Context, changes *plan.Changes) error
	// AdjustEndpoints lets the provider canonicalise desired endpoints
	// before planning (e.g. set its default TTL, drop unsupported
	// properties) so that plans converge. It must not modify the endpoints
	// it is given; it copies those it changes.
	AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error)
	// GetDomainFilter returns the names the provider can manage; it is
	// combined (logical AND) with the user's filter. It never returns nil.
	GetDomainFilter() endpoint.DomainFilterInterface
}

// BaseProvider gives providers the default AdjustEndpoints (identity) and
// GetDomainFilter (match everything). Embed it.
type BaseProvider struct{}

// AdjustEndpoints returns eps unchanged.
func (BaseProvider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return eps, nil
}

// GetDomainFilter returns a filter that matches everything.
func (BaseProvider) GetDomainFilter() endpoint.DomainFilterInterface {
	return &endpoint.DomainFilter{}
}

// SoftError marks transient errors: errors.Is(err, SoftError) reports whether
// a failure may go away by itself, so the caller should retry at its next
// cycle instead of giving up.
var SoftError = errors.New("soft error")

// NewSoftError wraps err so that errors.Is(result, SoftError) holds while
// errors.Is and errors.As still see err. A nil err gives nil.
func NewSoftError(err error) error {
	if err == nil {
		return nil
	}
	return &softError{err: err}
}

type softError struct{ err error }

func (e *softError) Error() string        { return fmt.Sprintf("soft error: %v", e.err) }
func (e *softError) Unwrap() error        { return e.err }
func (e *softError) Is(target error) bool { return target == SoftError }

// RecordVisitor is an optional capability of a provider that can show its
// records one at a time, without building an endpoint for each: a caller
// that keeps only part of what it reads (the TXT registry parses ownership
// TXT records and drops them) then holds far less memory than a copy of the
// whole zone.
//
// VisitRecords calls visit for every record the provider holds, in the
// order Records returns them, under the same rules (context, consistency,
// names). ep is a read-only view, valid only during the call: visit must not
// modify ep, its Targets or its ProviderSpecific, nor keep ep or those
// slices after it returns (the provider reuses them for the next record);
// it copies what it keeps ([endpoint.Endpoint.DeepCopy] for a whole
// record). Strings and [endpoint.Labels] values may be kept: they are
// immutable (Labels' Set and Delete never write in place). An error from
// visit stops the walk and VisitRecords returns it unchanged; VisitRecords
// fails as Records does otherwise.
//
// Unlike the other capabilities, RecordVisitor is used only through a plain
// type assertion on the provider the caller holds, never through [As]: As
// answers from the innermost layer, which would let a caller read around a
// wrapper that changes or limits Records (a cache, a rate limiter, a
// counting or fault-injecting wrapper). Wrappers therefore do not implement
// it, and a wrapped provider is read with Records.
type RecordVisitor interface {
	VisitRecords(ctx context.Context, visit func(ep *endpoint.Endpoint) error) error
}
