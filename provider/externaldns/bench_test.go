package externaldns_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xplan "sigs.k8s.io/external-dns/plan"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/registry/txt"
)

// BenchmarkAdapter measures what the adapter adds around an external-dns
// provider at W(N) (internal/workload: N A records and their N ownership
// TXT records, 2N endpoints). The provider is a fake that answers at once,
// so only the adapter is measured:
//
//   - Convert: the 2N records, in the order a provider built them,
//     converted from external-dns's form to zonesync's and back
//     (FromExternalDNS, ToExternalDNS).
//   - Records: Provider.Records, which also puts names in zonesync's form
//     and sorts them (the fake returns them in a shuffled order, as
//     map-backed providers do).
//   - ApplyUpdateAll: Provider.ApplyChanges of a change set that updates
//     every A record as the TXT registry sends it: N old and N new
//     endpoints, each with its owner and resource labels.
//
// Compare with BenchmarkRunOnceSteady, zonesync's own cycle over the same
// W(N), run in the same process.
func BenchmarkAdapter(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		records := make([]*xendpoint.Endpoint, 0, 2*n)
		for i := range n {
			records = append(records,
				xendpoint.NewEndpoint(workload.Name(i), endpoint.RecordTypeA, workload.Target(i)),
				xendpoint.NewEndpoint("a-"+workload.Name(i), endpoint.RecordTypeTXT, workload.TXTValue(i)))
		}
		// Records answers in a shuffled order, as map-backed providers do.
		shuffled := slices.Clone(records)
		rand.New(rand.NewPCG(1, uint64(n))).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		ctx := context.Background()
		b.Run("Convert/N="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				z := externaldns.FromExternalDNS(records)
				if x := externaldns.ToExternalDNS(z); len(x) != 2*n {
					b.Fatalf("%d endpoints", len(x))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(4*n), "ns/conversion")
		})
		b.Run("Records/N="+strconv.Itoa(n), func(b *testing.B) {
			p := externaldns.Wrap(&fake{records: func(context.Context) ([]*xendpoint.Endpoint, error) { return shuffled, nil }})
			b.ReportAllocs()
			for b.Loop() {
				if eps, err := p.Records(ctx); err != nil || len(eps) != 2*n {
					b.Fatalf("Records: %d endpoints, %v", len(eps), err)
				}
			}
		})
		b.Run("ApplyUpdateAll/N="+strconv.Itoa(n), func(b *testing.B) {
			changes := &plan.Changes{UpdateOld: make([]*endpoint.Endpoint, n), UpdateNew: make([]*endpoint.Endpoint, n)}
			for i := range n {
				changes.UpdateOld[i] = workload.Current(i)
				changes.UpdateNew[i] = workload.Current(i)
				changes.UpdateNew[i].Targets = endpoint.Targets{"192.0.2.1"}
			}
			p := externaldns.Wrap(&fake{apply: func(context.Context, *xplan.Changes) error { return nil }})
			b.ReportAllocs()
			for b.Loop() {
				if err := p.ApplyChanges(ctx, changes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunOnceSteady is zonesync's own steady cycle over W(N) with the
// in-memory provider (the root module's benchmark of the same name), run
// here so that the adapter's overhead is compared on the same machine in
// the same run.
func BenchmarkRunOnceSteady(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			ctx := context.Background()
			zone, err := workload.NewZone(ctx, n)
			if err != nil {
				b.Fatal(err)
			}
			reg, err := txt.New(zone, txt.Config{OwnerID: workload.Owner})
			if err != nil {
				b.Fatal(err)
			}
			rec := &zonesync.Reconciler{Source: workload.NewSource(n), Registry: reg}
			if cyc, err := rec.RunOnce(ctx); err != nil || cyc.Changes.HasChanges() {
				b.Fatalf("workload not in steady state: %v, %v", err, cyc.Changes)
			}
			b.ReportAllocs()
			for b.Loop() {
				cyc, err := rec.RunOnce(ctx)
				changes := cyc.Changes
				if err != nil || changes.HasChanges() {
					b.Fatalf("steady cycle: %v, %v", err, changes)
				}
			}
		})
	}
}
