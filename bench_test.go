package zonesync_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// workload builds W(n): n names svc-<i>.bench.example.com with one A target
// each, all owned by "bench" through the TXT registry over the in-memory
// provider, and a source that desires exactly those records.
func workload(tb testing.TB, n int) *zonesync.Reconciler {
	tb.Helper()
	seed := make([]*endpoint.Endpoint, 0, 2*n)
	desired := make([]*endpoint.Endpoint, 0, n)
	for i := range n {
		name := "svc-" + strconv.Itoa(i) + ".bench.example.com"
		target := "10." + strconv.Itoa(i>>16&255) + "." + strconv.Itoa(i>>8&255) + "." + strconv.Itoa(i&255)
		seed = append(seed,
			endpoint.NewEndpoint(name, endpoint.RecordTypeA, target),
			endpoint.NewEndpoint("a-"+name, endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=bench"`))
		desired = append(desired, endpoint.NewEndpoint(name, endpoint.RecordTypeA, target))
	}
	p := inmemory.New(inmemory.WithZone("bench.example.com"), inmemory.WithRecords(seed...))
	reg, err := txt.New(p, txt.Config{OwnerID: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	return &zonesync.Reconciler{Source: source.NewInMemory(desired...), Registry: reg}
}

// BenchmarkRunOnceSteady measures one full cycle of W(N) in steady state
// (desired = current): read the registry, read the source, plan, nothing to
// apply.
func BenchmarkRunOnceSteady(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			rec := workload(b, n)
			ctx := context.Background()
			if changes, err := rec.RunOnce(ctx); err != nil || changes.HasChanges() {
				b.Fatalf("workload not in steady state: %v, %v", err, changes)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				changes, err := rec.RunOnce(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if changes.HasChanges() {
					b.Fatal("steady state produced changes")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/record")
		})
	}
}
