package source_test

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/noop"
	"github.com/zonesync/zonesync/source"
)

// swStub is a configurable Source for wrapper tests: it returns copies of eps
// with err, reports synced, and counts handler registrations.
type swStub struct {
	eps      []*endpoint.Endpoint
	err      error
	synced   bool
	handlers atomic.Int32
	block    chan struct{} // when set, Endpoints waits for it to close
}

func (s *swStub) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if s.block != nil {
		select {
		case <-s.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var out []*endpoint.Endpoint
	if s.err == nil || swIsPartial(s.err) {
		out = endpoint.DeepCopyAll(s.eps)
	}
	return out, s.err
}

func (s *swStub) AddEventHandler(_ context.Context, h func()) {
	s.handlers.Add(1)
	h()
}

func (s *swStub) HasSynced() bool { return s.synced }

func (s *swStub) String() string { return "stub" }

func swIsPartial(err error) bool {
	var pe *source.PartialError
	return errors.As(err, &pe)
}

func swA(name string, targets ...string) *endpoint.Endpoint {
	return endpoint.NewEndpoint(name, endpoint.RecordTypeA, targets...)
}

func swNames(eps []*endpoint.Endpoint) []string {
	out := make([]string, len(eps))
	for i, ep := range eps {
		out[i] = ep.DNSName + " " + ep.RecordType + " " + ep.Targets.String()
	}
	return out
}

// wrappers builds every wrapper of the package around inner, each
// configured so that it does some work.
func swWrappers(t *testing.T, inner source.Source) map[string]source.Source {
	t.Helper()
	nat, err := source.NewNAT64(inner, source.NAT64Options{Prefixes: []netip.Prefix{netip.MustParsePrefix("64:ff9b::/96")}})
	require.NoError(t, err)
	return map[string]source.Source{
		"Multi":          source.NewMulti([]source.Source{inner}, source.MultiOptions{}),
		"Dedup":          source.NewDedup(inner),
		"TargetFilter":   source.NewTargetFilter(inner, source.TargetFilterOptions{Include: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}}),
		"NAT64":          nat,
		"PTR":            source.NewPTR(inner, source.PTROptions{}),
		"DefaultTargets": source.NewDefaultTargets(inner, source.DefaultTargetsOptions{Targets: []string{"198.51.100.1"}}),
		"PostProcessor":  source.NewPostProcessor(inner, source.PostProcessorOptions{MinTTL: 60}),
	}
}

// TestWrappersDelegateReadinessAndEvents guards the Reconciler's readiness
// check: a wrapper around a source that is not synced must not look ready.
func TestWrappersDelegateReadinessAndEvents(t *testing.T) {
	for _, synced := range []bool{false, true} {
		inner := &swStub{synced: synced}
		for name, w := range swWrappers(t, inner) {
			t.Run(name, func(t *testing.T) {
				assert.Equal(t, synced, source.HasSynced(w), "HasSynced of %s over a source with HasSynced()=%v", name, synced)
				before := inner.handlers.Load()
				fired := 0
				w.AddEventHandler(context.Background(), func() { fired++ })
				assert.Equal(t, before+1, inner.handlers.Load(), "handler registered on the inner source")
				assert.Equal(t, 1, fired)
			})
		}
	}
}

// TestWrappersPassPartialErrors checks that every wrapper returns the
// endpoints together with the inner source's *PartialError, and fails with
// no endpoints on any other error.
func TestWrappersPassPartialErrors(t *testing.T) {
	pe := (&source.PartialError{}).Add("service/ns/bad", errors.New("bad ttl"))
	inner := &swStub{eps: []*endpoint.Endpoint{swA("ok.example.com", "192.0.2.1")}, err: pe, synced: true}
	for name, w := range swWrappers(t, inner) {
		t.Run(name+"/partial", func(t *testing.T) {
			eps, err := w.Endpoints(context.Background())
			var got *source.PartialError
			require.ErrorAs(t, err, &got)
			assert.Contains(t, got.Failed, "service/ns/bad")
			require.NotEmpty(t, eps)
			assert.Equal(t, "ok.example.com", eps[0].DNSName)
		})
	}
	hard := errors.New("apiserver down")
	inner2 := &swStub{eps: []*endpoint.Endpoint{swA("ok.example.com", "192.0.2.1")}, err: hard, synced: true}
	for name, w := range swWrappers(t, inner2) {
		t.Run(name+"/hard", func(t *testing.T) {
			eps, err := w.Endpoints(context.Background())
			require.ErrorIs(t, err, hard)
			assert.False(t, swIsPartial(err))
			assert.Nil(t, eps)
		})
	}
}

func TestMultiOrderAndErrors(t *testing.T) {
	ctx := context.Background()
	slow := &swStub{eps: []*endpoint.Endpoint{swA("first.example.com", "192.0.2.1")}, block: make(chan struct{}), synced: true}
	fast := &swStub{eps: []*endpoint.Endpoint{swA("second.example.com", "192.0.2.2"), swA("third.example.com", "192.0.2.3")}, synced: true}
	m := source.NewMulti([]source.Source{slow, nil, fast}, source.MultiOptions{})
	var wg sync.WaitGroup
	var got []*endpoint.Endpoint
	var err error
	wg.Go(func() { got, err = m.Endpoints(ctx) })
	close(slow.block) // the first source finishes last
	wg.Wait()
	require.NoError(t, err)
	assert.Equal(t, []string{"first.example.com A 192.0.2.1", "second.example.com A 192.0.2.2", "third.example.com A 192.0.2.3"}, swNames(got))

	t.Run("partial errors merge", func(t *testing.T) {
		p1 := &swStub{eps: []*endpoint.Endpoint{swA("a.example.com", "192.0.2.1")}, err: (&source.PartialError{}).Add("service/ns/x", errors.New("x")), synced: true}
		p2 := &swStub{eps: []*endpoint.Endpoint{swA("b.example.com", "192.0.2.2")}, err: (&source.PartialError{}).Add("ingress/ns/y", errors.New("y")), synced: true}
		eps, err := source.NewMulti([]source.Source{p1, p2}, source.MultiOptions{}).Endpoints(ctx)
		var pe *source.PartialError
		require.ErrorAs(t, err, &pe)
		assert.Len(t, pe.Failed, 2)
		assert.Len(t, eps, 2)
	})
	t.Run("hard error names the source and returns nothing", func(t *testing.T) {
		boom := errors.New("connection refused")
		eps, err := source.NewMulti([]source.Source{fast, &swStub{err: boom, synced: true}}, source.MultiOptions{}).Endpoints(ctx)
		require.ErrorIs(t, err, boom)
		assert.Contains(t, err.Error(), "source 1 (stub): connection refused")
		assert.Nil(t, eps)
	})
	t.Run("readiness needs all", func(t *testing.T) {
		assert.False(t, source.HasSynced(source.NewMulti([]source.Source{fast, &swStub{}}, source.MultiOptions{})))
		assert.True(t, source.HasSynced(source.NewMulti([]source.Source{fast, source.NewStatic()}, source.MultiOptions{})))
	})
	t.Run("limit", func(t *testing.T) {
		eps, err := source.NewMulti([]source.Source{fast, fast, fast}, source.MultiOptions{MaxConcurrent: 1}).Endpoints(ctx)
		require.NoError(t, err)
		assert.Len(t, eps, 6)
	})
}

// BenchmarkPipeline measures the external-dns wrapper chain over W(N):
// Multi of the workload source, Dedup, TargetFilter (every target kept),
// PTR (no reverse zone managed) and PostProcessor (default TTL, provider
// filter). Subtract BenchmarkWorkloadSource for the wrappers' own cost.
func BenchmarkPipeline(b *testing.B) {
	benchWorkload(b, func(n int) source.Source {
		var src source.Source = source.NewMulti([]source.Source{workload.NewSource(n)}, source.MultiOptions{})
		src = source.NewDedup(src)
		src = source.NewTargetFilter(src, source.TargetFilterOptions{Include: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
		src = source.NewPTR(src, source.PTROptions{ReverseZones: endpoint.NewDomainFilter([]string{"in-addr.example"})})
		return source.NewPostProcessor(src, source.PostProcessorOptions{DefaultTTL: 300, Provider: "webhook"})
	})
}

// TestWrappedNotReadySourceStopsReconciler runs a real Reconciler over each
// wrapper around a source that has not synced: no cycle may plan.
func TestWrappedNotReadySourceStopsReconciler(t *testing.T) {
	inner := &swStub{eps: []*endpoint.Endpoint{swA("web.example.com", "192.0.2.1")}}
	for name, w := range swWrappers(t, inner) {
		t.Run(name, func(t *testing.T) {
			p := inmemory.New()
			require.NoError(t, p.CreateZone("example.com"))
			r := &zonesync.Reconciler{Source: w, Registry: noop.New(p)}
			_, err := r.RunOnce(context.Background())
			require.ErrorIs(t, err, zonesync.ErrSourceNotReady)
			recs, err := p.Records(context.Background())
			require.NoError(t, err)
			assert.Empty(t, recs)
		})
	}
}
