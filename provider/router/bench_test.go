package router_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/router"
)

// benchZones are the three routes' zones: two in one parent/child pair, so
// that routing follows delegation, and one apart.
var benchZones = []string{"bench.example.com", "int.bench.example.com", "bench.example.org"}

// benchRouter returns a router over three in-memory routes holding n
// names between them (svc-<i>.<zone>, i mod 3 choosing the zone), each an
// A record with its ownership TXT, and the A records.
func benchRouter(b *testing.B, n int) (*router.Router, []*endpoint.Endpoint) {
	b.Helper()
	per := make([][]*endpoint.Endpoint, len(benchZones))
	var as []*endpoint.Endpoint
	for i := range n {
		z := i % len(benchZones)
		name := "svc-" + strconv.Itoa(i) + "." + benchZones[z]
		a := endpoint.NewEndpoint(name, endpoint.RecordTypeA, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
		per[z] = append(per[z], a,
			endpoint.NewEndpoint("a-"+name, endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=bench,external-dns/resource=service/default/svc"`))
		as = append(as, a)
	}
	routes := make([]router.Route, len(benchZones))
	for z, zone := range benchZones {
		p := inmemory.New(inmemory.Options{Zones: []string{zone}, Records: per[z]})
		if err := p.Err(); err != nil {
			b.Fatal(err)
		}
		routes[z] = router.Route{Name: "route-" + strconv.Itoa(z), Provider: p, Zones: []string{zone}}
	}
	r, err := router.New(routes, router.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return r, as
}

var benchSizes = []int{1_000, 10_000, 100_000}

// BenchmarkRecords reads the union of three routes (2n records).
func BenchmarkRecords(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("names=%d/routes=3", n), func(b *testing.B) {
			r, _ := benchRouter(b, n)
			b.ReportAllocs()
			for b.Loop() {
				recs, err := r.Records(ctx)
				if err != nil || len(recs) != 2*n {
					b.Fatalf("got %d records, err %v", len(recs), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*n), "ns/record")
		})
	}
}

// BenchmarkApplyChanges updates every A record of the three routes in one
// change set (n updates, split into three zones), alternating between two
// targets.
func BenchmarkApplyChanges(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("names=%d/routes=3", n), func(b *testing.B) {
			r, as := benchRouter(b, n)
			sets := [2]*plan.Changes{{}, {}}
			for _, a := range as {
				other := a.DeepCopy()
				other.Targets = endpoint.Targets{"192.0.2.1"}
				sets[0].UpdateOld = append(sets[0].UpdateOld, a)
				sets[0].UpdateNew = append(sets[0].UpdateNew, other)
				sets[1].UpdateOld = append(sets[1].UpdateOld, other)
				sets[1].UpdateNew = append(sets[1].UpdateNew, a)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := r.ApplyChanges(ctx, sets[i%2]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/change")
		})
	}
}
