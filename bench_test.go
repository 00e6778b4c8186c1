package zonesync_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/registry/txt"
)

// benchReconciler builds W(n) (internal/workload) and a Reconciler over it.
func benchReconciler(tb testing.TB, n int) *zonesync.Reconciler {
	tb.Helper()
	p, err := workload.NewZone(context.Background(), n)
	if err != nil {
		tb.Fatal(err)
	}
	reg, err := txt.New(p, txt.Config{OwnerID: workload.Owner})
	if err != nil {
		tb.Fatal(err)
	}
	return &zonesync.Reconciler{Source: workload.NewSource(n), Registry: reg}
}

// BenchmarkRunOnceSteady measures one full cycle of W(N) in steady state
// (desired = current): read the registry, read the source, plan, nothing to
// apply.
func BenchmarkRunOnceSteady(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			rec := benchReconciler(b, n)
			ctx := context.Background()
			if cyc, err := rec.RunOnce(ctx); err != nil || cyc.Changes.HasChanges() {
				b.Fatalf("workload not in steady state: %v, %v", err, cyc.Changes)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				cyc, err := rec.RunOnce(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if cyc.Changes.HasChanges() {
					b.Fatal("steady state produced changes")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/record")
		})
	}
}
