package prometheus_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/workload"
	zsprom "github.com/zonesync/zonesync/metrics/prometheus"
	"github.com/zonesync/zonesync/plan"
)

// steadyCycle is a cycle of W(n) in steady state: n desired endpoints, n
// current records, nothing to change.
func steadyCycle(n int) zonesync.Cycle {
	desired := make([]*endpoint.Endpoint, n)
	current := make([]*endpoint.Endpoint, n)
	for i := range n {
		desired[i], current[i] = workload.Desired(i), workload.Current(i)
	}
	p := (&plan.Plan{Current: current, Desired: desired, OwnerID: workload.Owner}).Calculate()
	return zonesync.Cycle{Plan: p, Records: n, Desired: n, Owned: n}
}

// BenchmarkCycleFinished is the cost the Observer adds to a cycle of W(N).
func BenchmarkCycleFinished(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			m, err := zsprom.New(prometheus.NewRegistry(), zsprom.Options{})
			if err != nil {
				b.Fatal(err)
			}
			c := steadyCycle(n)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				m.CycleFinished(ctx, c)
			}
		})
	}
}
