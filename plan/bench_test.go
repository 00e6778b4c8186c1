package plan_test

import (
	"fmt"
	"testing"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/plan"
)

// benchCurrent returns W(n) (internal/workload) as the registry reports it:
// n owned A records with their resource labels.
func benchCurrent(n int) []*endpoint.Endpoint {
	cur := make([]*endpoint.Endpoint, n)
	for i := range cur {
		cur[i] = workload.Current(i)
	}
	return cur
}

// benchDesired returns what a source reports for W(n): separate endpoint
// objects without owner label. With churn, 10% of the names are removed,
// 10% get a new target and 10% new names are added.
func benchDesired(n int, churn bool) []*endpoint.Endpoint {
	des := make([]*endpoint.Endpoint, 0, n+n/10)
	for i := range n {
		e := workload.Desired(i)
		if churn {
			switch i % 10 {
			case 0:
				continue // removed
			case 1:
				e.Targets = endpoint.Targets{workload.Target(i + 3*n)} // changed
			}
		}
		des = append(des, e)
	}
	if churn {
		for i := n; i < n+n/10; i++ {
			des = append(des, workload.Desired(i))
		}
	}
	return des
}

func benchmarkCalculate(b *testing.B, churn bool) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			p := &plan.Plan{
				Current: benchCurrent(n),
				Desired: benchDesired(n, churn),
				OwnerID: "bench",
			}
			b.ReportAllocs()
			var res *plan.Plan
			for b.Loop() {
				res = p.Calculate()
			}
			want := 0
			if churn {
				want = 3 * n / 10
			}
			c := res.Changes
			if got := len(c.Create) + len(c.UpdateNew) + len(c.Delete); got != want {
				b.Fatalf("got %d changes, want %d", got, want)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/record")
		})
	}
}

// BenchmarkCalculateSteady measures Calculate on W(N) with desired = current.
func BenchmarkCalculateSteady(b *testing.B) { benchmarkCalculate(b, false) }

// BenchmarkCalculateChurn measures Calculate on W(N) with 10% new, 10%
// changed and 10% removed names.
func BenchmarkCalculateChurn(b *testing.B) { benchmarkCalculate(b, true) }
