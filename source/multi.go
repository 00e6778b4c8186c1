package source

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/zonesync/zonesync/endpoint"
)

// Multi is a [Source] that combines several sources: it asks all of them
// concurrently and returns their endpoints concatenated in the order the
// sources were given (the endpoints of each source in the order it returned
// them), so the result is deterministic whatever order the calls finish in.
//
// Errors:
//   - A [*PartialError] from one or more sources is merged into one
//     *PartialError (see [PartialError.Merge]) returned together with all
//     the endpoints, as a single source would.
//   - Any other error from a source fails the whole call: Endpoints returns
//     no endpoints and an error naming each failing source by position and
//     description, e.g. "source 2 (connector localhost:8080): ...". The
//     endpoints of the healthy sources are deliberately not returned: a
//     list with one source missing would look to the planner like that
//     source's records are no longer wanted, and it would delete them.
//
// Multi is ready ([Syncer]) only when every source it holds is, and
// AddEventHandler registers the handler on every source.
//
//zonesync:source:name=multi
//zonesync:source:category=wrapper
//zonesync:source:description=Combines several sources, asked concurrently; results in source order, partial errors merged, ready when all are.
//zonesync:source:resources=none
//zonesync:source:filters=none
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=true
type Multi struct {
	sources []Source
	limit   int
}

var (
	_ Source = (*Multi)(nil)
	_ Syncer = (*Multi)(nil)
)

// MultiOptions configures a [Multi]. The zero value asks every source at
// once.
type MultiOptions struct {
	// MaxConcurrent bounds how many sources are asked at once; zero or
	// negative means no bound.
	MaxConcurrent int
}

// NewMulti returns a source combining sources. Nil entries are skipped, and
// error messages number the sources that remain from 0.
func NewMulti(sources []Source, opts MultiOptions) *Multi {
	m := &Multi{limit: opts.MaxConcurrent}
	for _, s := range sources {
		if s != nil {
			m.sources = append(m.sources, s)
		}
	}
	return m
}

// Endpoints asks every source and concatenates the results in source order;
// see [Multi] for the handling of errors.
func (m *Multi) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	type result struct {
		eps           []*endpoint.Endpoint
		partial, hard error
	}
	results := make([]result, len(m.sources))
	var g errgroup.Group
	if m.limit > 0 {
		g.SetLimit(m.limit)
	}
	for i, s := range m.sources {
		g.Go(func() error {
			eps, partial, hard := innerEndpoints(ctx, s)
			results[i] = result{eps: eps, partial: partial, hard: hard}
			return nil // every source runs to its end; errors are gathered below
		})
	}
	_ = g.Wait()

	var hard []error
	var merged *PartialError
	n := 0
	for i, r := range results {
		if r.hard != nil {
			hard = append(hard, fmt.Errorf("source %d (%s): %w", i, describe(m.sources[i]), r.hard))
			continue
		}
		if r.partial != nil {
			var pe *PartialError
			errors.As(r.partial, &pe)
			merged = merged.Merge(pe)
		}
		n += len(r.eps)
	}
	if len(hard) > 0 {
		return nil, errors.Join(hard...)
	}
	out := make([]*endpoint.Endpoint, 0, n)
	for _, r := range results {
		out = append(out, r.eps...)
	}
	return out, merged.OrNil()
}

// AddEventHandler registers handler on every source.
func (m *Multi) AddEventHandler(ctx context.Context, handler func()) {
	for _, s := range m.sources {
		s.AddEventHandler(ctx, handler)
	}
}

// HasSynced reports whether every source is ready.
func (m *Multi) HasSynced() bool {
	for _, s := range m.sources {
		if !HasSynced(s) {
			return false
		}
	}
	return true
}

// String describes the combination, e.g. "multi of 3 sources".
func (m *Multi) String() string { return fmt.Sprintf("multi of %d sources", len(m.sources)) }

// describe names a source in error messages: its String method when it has
// one, its Go type otherwise.
func describe(s Source) string {
	if st, ok := s.(fmt.Stringer); ok {
		return st.String()
	}
	return fmt.Sprintf("%T", s)
}
