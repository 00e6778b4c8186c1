package zonesync_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/batch"
	"github.com/zonesync/zonesync/registry/txt"
)

// churnSource flips between W(N) and W(N) with churn (10% removed, 10%
// retargeted, 10% new names): every cycle over it applies a churn of the
// same size, one way or back.
type churnSource struct {
	n       int
	churned bool
}

func (s *churnSource) Endpoints(context.Context) ([]*endpoint.Endpoint, error) {
	eps := make([]*endpoint.Endpoint, 0, s.n+s.n/10)
	for i := range s.n {
		e := workload.Desired(i)
		if s.churned {
			switch i % 10 {
			case 0:
				continue
			case 1:
				e.Targets = endpoint.Targets{workload.Target(i + 3*s.n)}
			}
		}
		eps = append(eps, e)
	}
	if s.churned {
		for i := s.n; i < s.n+s.n/10; i++ {
			eps = append(eps, workload.Desired(i))
		}
	}
	return eps, nil
}

func (*churnSource) AddEventHandler(context.Context, func()) {}

// oneCall hides the zone list of a provider: the registry applies
// everything in one call, as before per-zone apply.
type oneCall struct{ provider.Provider }

// BenchmarkRunOnceChurn measures a cycle of W(N) that applies a 30% churn
// (10% creates, 10% updates, 10% deletes, with their TXT records): in one
// provider call ("one-call"), split by zone ("per-zone", the default over
// a provider that lists its zones) and split by zone then batched with the
// Route 53 limits ("per-zone+batch"). Besides wall-clock time it reports
// the process's CPU time per cycle (cpu-ms/op, garbage collection
// included), steadier on a shared machine.
func BenchmarkRunOnceChurn(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, mode := range []string{"one-call", "per-zone", "per-zone+batch"} {
			b.Run("N="+strconv.Itoa(n)+"/"+mode, func(b *testing.B) {
				ctx := context.Background()
				zone, err := workload.NewZone(ctx, n)
				if err != nil {
					b.Fatal(err)
				}
				var p provider.Provider = zone
				switch mode {
				case "one-call":
					p = oneCall{zone}
				case "per-zone+batch":
					if p, err = batch.New(zone, batch.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				reg, err := txt.New(p, txt.Config{OwnerID: workload.Owner})
				if err != nil {
					b.Fatal(err)
				}
				src := &churnSource{n: n}
				rec := &zonesync.Reconciler{Source: src, Registry: reg}
				check := func(c zonesync.Cycle, err error) {
					if err != nil {
						b.Fatal(err)
					}
					changes := c.Changes
					if len(changes.Create) != n/10 || len(changes.UpdateNew) != n/10 || len(changes.Delete) != n/10 {
						b.Fatalf("not a 30%% churn: %d creates, %d updates, %d deletes", len(changes.Create), len(changes.UpdateNew), len(changes.Delete))
					}
				}
				if _, err := rec.RunOnce(ctx); err != nil { // reads the TXT state
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				for b.Loop() {
					src.churned = !src.churned
					check(rec.RunOnce(ctx))
				}
				if cpu := cpuTime() - cpu0; cpu > 0 {
					b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
				}
			})
		}
	}
}
