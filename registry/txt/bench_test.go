package txt_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
)

// benchZone builds W(n), the realistic workload of SPEC.md "Performance":
// n names svc-<i>.bench.example.com with one A target each and their typed
// ownership TXT, owned by "bench", every TXT carrying its own resource
// label service/default/svc-<i> as real sources write — so no two values
// are alike.
func benchZone(n int) *inmemory.Provider {
	eps := make([]*endpoint.Endpoint, 0, 2*n)
	for i := range n {
		name := fmt.Sprintf("svc-%d.bench.example.com", i)
		eps = append(eps,
			endpoint.NewEndpoint(name, endpoint.RecordTypeA, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)),
			endpoint.NewEndpoint("a-"+name, endpoint.RecordTypeTXT,
				fmt.Sprintf(`"heritage=external-dns,external-dns/owner=bench,external-dns/resource=service/default/svc-%d"`, i)),
		)
	}
	return inmemory.New(inmemory.WithZone("example.com"), inmemory.WithRecords(eps...))
}

var benchSizes = []int{1_000, 10_000, 100_000}

// BenchmarkRecords measures Registry.Records over W(N); allocs/op include
// the in-memory provider's Records (see BenchmarkProviderRecords).
func BenchmarkRecords(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			zone := benchZone(n)
			reg, err := txt.New(zone, txt.Config{OwnerID: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			recs, err := reg.Records(ctx)
			if err != nil || len(recs) != n || !recs[0].IsOwnedBy("bench") ||
				recs[0].Labels[endpoint.ResourceLabelKey] != "service/default/"+strings.TrimSuffix(recs[0].DNSName, ".bench.example.com") {
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
			zone := benchZone(n)
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
