package prometheus

import (
	"context"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// Dedup returns [source.NewDedup] of inner that also sets
// external_dns_source_deduplicated_endpoints: after each Endpoints call,
// the endpoints it dropped as duplicates, by record type and source kind
// (the kind part of the resource label).
func (m *Metrics) Dedup(inner source.Source) source.Source {
	return &countingDedup{Dedup: source.NewDedup(&dedupInput{Source: inner}), m: m}
}

type countingDedup struct {
	*source.Dedup
	m *Metrics
}

// dedupCountsKey is the context key under which Endpoints leaves the
// counts the input of the Dedup fills in.
type dedupCountsKey struct{}

type typeAndSource struct{ typ, src string }

func (d *countingDedup) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	in := map[typeAndSource]int{}
	eps, err := d.Dedup.Endpoints(context.WithValue(ctx, dedupCountsKey{}, in))
	if eps == nil && err != nil {
		return eps, err // nothing read: the gauge keeps its last value
	}
	for _, e := range eps {
		if e != nil {
			in[typeAndSource{e.RecordType, sourceType(e)}]--
		}
	}
	d.m.mu.Lock()
	defer d.m.mu.Unlock()
	d.m.deduplicated.Reset()
	for k, n := range in {
		if n > 0 {
			d.m.deduplicated.WithLabelValues(k.typ, k.src).Set(float64(n))
		}
	}
	return eps, err
}

// dedupInput sits below the Dedup and counts what it is given.
type dedupInput struct {
	source.Source
}

func (s *dedupInput) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := s.Source.Endpoints(ctx)
	if counts, ok := ctx.Value(dedupCountsKey{}).(map[typeAndSource]int); ok {
		for _, e := range eps {
			if e != nil {
				counts[typeAndSource{e.RecordType, sourceType(e)}]++
			}
		}
	}
	return eps, err
}

func (s *dedupInput) HasSynced() bool { return source.HasSynced(s.Source) }
