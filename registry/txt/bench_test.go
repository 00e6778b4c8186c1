package txt_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
)

// benchZone builds W(n), the realistic workload of SPEC.md "Performance"
// (internal/workload): n names with one A target each and their typed
// ownership TXT, owned by "bench", every TXT carrying its own resource label.
func benchZone(tb testing.TB, n int) *inmemory.Provider {
	tb.Helper()
	p, err := workload.NewZone(context.Background(), n)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

var benchSizes = []int{1_000, 10_000, 100_000}

// BenchmarkRecords measures Registry.Records over W(N); allocs/op include
// the in-memory provider's Records (see BenchmarkProviderRecords).
func BenchmarkRecords(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			zone := benchZone(b, n)
			reg, err := txt.New(zone, txt.Config{OwnerID: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			recs, err := reg.Records(ctx)
			if err != nil || len(recs) != n || !recs[0].IsOwnedBy("bench") ||
				labelValue(recs[0].Labels, endpoint.ResourceLabelKey) != "service/default/"+strings.TrimSuffix(recs[0].DNSName, ".bench.example.com") {
				b.Fatalf("unexpected result: %d records, %v", len(recs), err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := reg.Records(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/record")
		})
	}
}

// BenchmarkProviderRecords measures the in-memory provider's Records over
// W(N) alone: the share of BenchmarkRecords that is not the registry's.
func BenchmarkProviderRecords(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			zone := benchZone(b, n)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := zone.Records(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApply measures Registry.ApplyChanges over W(N) after one read:
// every iteration deletes 1% of the records (and their ownership TXT) or
// creates them again, alternately, through the zone state that the read
// left and every ApplyChanges keeps up to date.
func BenchmarkApply(b *testing.B) {
	for _, n := range []int{100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			zone := benchZone(b, n)
			reg, err := txt.New(zone, txt.Config{OwnerID: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			recs, err := reg.Records(ctx)
			if err != nil || len(recs) != n {
				b.Fatalf("unexpected result: %d records, %v", len(recs), err)
			}
			k := n / 100
			changed := endpoint.DeepCopyAll(recs[:k])
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ch := &plan.Changes{Delete: endpoint.DeepCopyAll(changed)}
				if i%2 == 1 {
					ch = &plan.Changes{Create: endpoint.DeepCopyAll(changed)}
				}
				if err := reg.ApplyChanges(ctx, ch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(k), "ns/change")
		})
	}
}

// BenchmarkRecordsShared measures Registry.Records of an owner in shared
// mode for every name over W(N) with N/10 shared record sets added, each
// with three contributions (c1, c2, c3: a record, its ownership TXT and
// three contribution TXT records): the cost of shared mode over
// BenchmarkRecords.
func BenchmarkRecordsShared(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			ctx := context.Background()
			zone := benchZone(b, n)
			regs := make([]*txt.Registry, 3)
			for i := range regs {
				r, err := txt.New(zone, txt.Config{OwnerID: fmt.Sprintf("c%d", i+1), Shared: &txt.SharedConfig{}})
				if err != nil {
					b.Fatal(err)
				}
				regs[i] = r
				var create []*endpoint.Endpoint
				for j := range n / 10 {
					create = append(create, endpoint.NewEndpoint(fmt.Sprintf("s%d.bench.example.com", j), endpoint.RecordTypeA, fmt.Sprintf("10.%d.%d.%d", i, j/256%256, j%256)))
				}
				if _, err := r.Records(ctx); err != nil {
					b.Fatal(err)
				}
				if err := r.ApplyChanges(ctx, &plan.Changes{Create: create}); err != nil {
					b.Fatal(err)
				}
			}
			reg := regs[0]
			recs, err := reg.Records(ctx)
			if err != nil || len(recs) != n+n/10 || len(reg.SharedRecords()) != n/10 || reg.SharedRecords()[0].Live() != 3 {
				b.Fatalf("unexpected result: %d records, %d shared, %v", len(recs), len(reg.SharedRecords()), err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := reg.Records(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n+n/10), "ns/record")
		})
	}
}
