package inmemory

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// benchProvider returns a provider holding n A records
// svc-<i>.bench.example.com and n ownership TXT records, like the TXT
// registry's workload.
func benchProvider(n int) *Provider {
	eps := make([]*endpoint.Endpoint, 0, 2*n)
	for i := range n {
		name := "svc-" + strconv.Itoa(i) + ".bench.example.com"
		eps = append(eps,
			endpoint.NewEndpoint(name, endpoint.RecordTypeA, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)),
			endpoint.NewEndpoint("a-"+name, endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=bench,external-dns/resource=service/default/svc"`),
		)
	}
	return New(Options{Zones: []string{"bench.example.com"}, Records: eps})
}

var benchSizes = []int{1_000, 10_000, 100_000}

func BenchmarkRecords(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("names=%d", n), func(b *testing.B) {
			p := benchProvider(n)
			if _, err := p.Records(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				recs, err := p.Records(ctx)
				if err != nil || len(recs) != 2*n {
					b.Fatalf("got %d records, err %v", len(recs), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*n), "ns/record")
		})
	}
}

// BenchmarkApplyChanges updates 1% of the names (at least one) per call,
// alternating between two targets; the thenRecords variant also reads the
// records after each call, so the cost of merging the changes into the
// sorted snapshot is included.
func BenchmarkApplyChanges(b *testing.B) {
	for _, n := range benchSizes {
		k := max(n/100, 1)
		b.Run(fmt.Sprintf("names=%d/changes=%d", n, k), func(b *testing.B) { benchApply(b, n, k, false) })
		b.Run(fmt.Sprintf("names=%d/changes=%d/thenRecords", n, k), func(b *testing.B) { benchApply(b, n, k, true) })
	}
}

// benchApply updates k of n names per iteration, flipping their target
// between two values, and with thenRecords reads the records after each
// apply.
func benchApply(b *testing.B, n, k int, thenRecords bool) {
	ctx := context.Background()
	p := benchProvider(n)
	olds := make([][]*endpoint.Endpoint, 2)
	for v := range olds {
		olds[v] = make([]*endpoint.Endpoint, k)
		for i := range k {
			name := "svc-" + strconv.Itoa(i*(n/k)) + ".bench.example.com"
			olds[v][i] = endpoint.NewEndpoint(name, endpoint.RecordTypeA, fmt.Sprintf("192.0.2.%d", v+1))
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	v := 0
	for b.Loop() {
		c := &plan.Changes{UpdateOld: olds[v], UpdateNew: olds[1-v]}
		if err := p.ApplyChanges(ctx, c); err != nil {
			b.Fatal(err)
		}
		if thenRecords {
			if _, err := p.Records(ctx); err != nil {
				b.Fatal(err)
			}
		}
		v = 1 - v
	}
}
