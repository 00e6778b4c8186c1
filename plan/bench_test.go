package plan_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// benchTarget returns the A target of name i in workload W(N).
func benchTarget(i int) string {
	return "10." + strconv.Itoa(i>>16&0xff) + "." + strconv.Itoa(i>>8&0xff) + "." + strconv.Itoa(i&0xff)
}

func benchName(i int) string { return fmt.Sprintf("svc-%d.bench.example.com", i) }

func benchResource(i int) string { return fmt.Sprintf("service/default/svc-%d", i) }

// benchCurrent returns W(n) as the registry reports it: n owned A records.
func benchCurrent(n int) []*endpoint.Endpoint {
	cur := make([]*endpoint.Endpoint, n)
	for i := range cur {
		cur[i] = endpoint.NewEndpoint(benchName(i), endpoint.RecordTypeA, benchTarget(i)).
			WithLabel(endpoint.OwnerLabelKey, "bench").
			WithLabel(endpoint.ResourceLabelKey, benchResource(i))
	}
	return cur
}

// benchDesired returns what a source reports for W(n): separate endpoint
// objects without owner label. With churn, 10% of the names are removed,
// 10% get a new target and 10% new names are added.
func benchDesired(n int, churn bool) []*endpoint.Endpoint {
	des := make([]*endpoint.Endpoint, 0, n+n/10)
	for i := range n {
		target := benchTarget(i)
		if churn {
			switch i % 10 {
			case 0:
				continue // removed
			case 1:
				target = benchTarget(i + 3*n) // changed
			}
		}
		des = append(des, endpoint.NewEndpoint(benchName(i), endpoint.RecordTypeA, target).
			WithLabel(endpoint.ResourceLabelKey, benchResource(i)))
	}
	if churn {
		for i := n; i < n+n/10; i++ {
			des = append(des, endpoint.NewEndpoint(benchName(i), endpoint.RecordTypeA, benchTarget(i)).
				WithLabel(endpoint.ResourceLabelKey, benchResource(i)))
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
