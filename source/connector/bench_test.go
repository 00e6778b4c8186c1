package connector_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/connector"
)

// BenchmarkInvalidEndpoints reads 16,000 invalid endpoints that
// all carry the same resource label from a connector server and renders
// the error: the case that took 17.6 s per cycle when the causes of one
// key were nested with errors.Join.
func BenchmarkInvalidEndpoints(b *testing.B) {
	const n = 16000
	eps := make([]*endpoint.Endpoint, n)
	for i := range eps {
		eps[i] = endpoint.NewEndpoint(fmt.Sprintf("bad name %d.example.com", i), endpoint.RecordTypeA, "192.0.2.1").
			WithLabel(endpoint.ResourceLabelKey, "crd/ns/many")
	}
	addr := serve(b, func(context.Context) ([]*endpoint.Endpoint, error) { return eps, nil })
	c := mustNew(b, addr, connector.Options{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, err := c.Endpoints(ctx)
		var pe *source.PartialError
		require.True(b, errors.As(err, &pe))
		require.Len(b, pe.Failed, 1)
		_ = err.Error()
	}
}
