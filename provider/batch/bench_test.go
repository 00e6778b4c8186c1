package batch_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/batch"
)

// discard accepts every change set and keeps nothing: the benchmark
// measures the wrapper alone.
type discard struct{ provider.BaseProvider }

func (discard) Records(context.Context) ([]*endpoint.Endpoint, error) { return nil, nil }
func (discard) ApplyChanges(context.Context, *plan.Changes) error     { return nil }

// churnChanges is what the TXT registry hands its provider for a 30% churn
// of W(n): n/10 creates, updates and deletes, each with its ownership TXT
// change appended after the records.
func churnChanges(n int) *plan.Changes {
	c := &plan.Changes{}
	txt := func(i int) *endpoint.Endpoint {
		return endpoint.NewEndpoint("a-"+workload.Name(i), endpoint.RecordTypeTXT, workload.TXTValue(i)).
			WithLabel(endpoint.OwnedRecordLabelKey, workload.Name(i))
	}
	var tc, to, tn, td []*endpoint.Endpoint
	for i := range n / 10 {
		cr, up, de := n+i, 10*i+1, 10*i
		c.Create = append(c.Create, workload.Current(cr))
		tc = append(tc, txt(cr))
		c.UpdateOld = append(c.UpdateOld, workload.Current(up))
		nw := workload.Current(up)
		nw.Targets = endpoint.Targets{workload.Target(up + 3*n)}
		c.UpdateNew = append(c.UpdateNew, nw)
		to, tn = append(to, txt(up)), append(tn, txt(up))
		c.Delete = append(c.Delete, workload.Current(de))
		td = append(td, txt(de))
	}
	c.Create = append(c.Create, tc...)
	c.UpdateOld = append(c.UpdateOld, to...)
	c.UpdateNew = append(c.UpdateNew, tn...)
	c.Delete = append(c.Delete, td...)
	return c
}

// BenchmarkApplyChanges measures the wrapper's own cost (grouping, packing
// into batches with the Route 53 limits) on the change set of a 30% churn
// of W(N), over a provider that does nothing.
func BenchmarkApplyChanges(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			changes := churnChanges(n)
			p := newBatch(b, discard{}, batch.Options{})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := p.ApplyChanges(ctx, changes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSplitByZone measures cutting the same change set by zone, as
// the TXT registry does over a provider that lists its zones.
func BenchmarkSplitByZone(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			changes := churnChanges(n)
			m := provider.NewZoneMatcher(workload.Zone, "example.com", "example.org")
			b.ReportAllocs()
			for b.Loop() {
				provider.SplitByZone(changes, m)
			}
		})
	}
}
