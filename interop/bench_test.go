package interop

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"sigs.k8s.io/external-dns/pkg/apis/externaldns"
	xplan "sigs.k8s.io/external-dns/plan"
	xinmemory "sigs.k8s.io/external-dns/provider/inmemory"
	xtxt "sigs.k8s.io/external-dns/registry/txt"

	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/webhook"
	"github.com/zonesync/zonesync/registry/txt"
)

// benchSizes are the sizes N of W(N) in the side-by-side benchmarks.
var benchSizes = []int{1_000, 10_000, 100_000}

// Each benchmark runs external-dns and zonesync on the same W(N), as
// sub-benchmarks N=<n>/external-dns and N=<n>/zonesync, so that one run
// gives both columns (docs/benchmarks.md, "Side by side with
// external-dns").

// BenchmarkPlanCalculate: the steady-state plan of W(N) (nothing to change).
func BenchmarkPlanCalculate(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("N=%d/external-dns", n), func(b *testing.B) {
			p := &xplan.Plan{
				Current:        WorkloadCurrentExternalDNS(n),
				Desired:        WorkloadDesiredExternalDNS(n),
				OwnerID:        WorkloadOwner,
				ManagedRecords: []string{"A", "AAAA", "CNAME"},
			}
			b.ReportAllocs()
			var res *xplan.Plan
			for b.Loop() {
				res = p.Calculate()
			}
			if res.Changes.HasChanges() {
				b.Fatalf("steady state planned changes: %d creates", len(res.Changes.Create))
			}
		})
		b.Run(fmt.Sprintf("N=%d/zonesync", n), func(b *testing.B) {
			p := &plan.Plan{
				Current:  WorkloadCurrentZonesync(n),
				Desired:  WorkloadDesiredZonesync(n),
				OwnerID:  WorkloadOwner,
				Resolver: plan.PerResource{},
			}
			b.ReportAllocs()
			var res *plan.Plan
			for b.Loop() {
				res = p.Calculate()
			}
			if !emptyChanges(res.Changes) {
				b.Fatalf("steady state planned changes:\n%s", formatChanges(res.Changes))
			}
		})
	}
}

func benchExternalZone(b *testing.B, n int) *xinmemory.InMemoryProvider {
	b.Helper()
	p := xinmemory.NewInMemoryProvider()
	if err := p.CreateZone(WorkloadZone); err != nil {
		b.Fatal(err)
	}
	if err := p.ApplyChanges(context.Background(), &xplan.Changes{Create: WorkloadExternalDNS(n)}); err != nil {
		b.Fatal(err)
	}
	return p
}

func benchZonesyncZone(b *testing.B, n int) *inmemory.Provider {
	b.Helper()
	p := inmemory.New(inmemory.Options{Zones: []string{WorkloadZone}})
	if err := p.ApplyChanges(context.Background(), &plan.Changes{Create: WorkloadZonesync(n)}); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkTXTRecords: the TXT registry's Records over its own in-memory
// provider holding W(N) (2N records), no cache.
func BenchmarkTXTRecords(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("N=%d/external-dns", n), func(b *testing.B) {
			reg, err := xtxt.New(&externaldns.Config{TXTOwnerID: WorkloadOwner, ManagedDNSRecordTypes: []string{"A", "AAAA", "CNAME"}}, benchExternalZone(b, n))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				recs, err := reg.Records(ctx)
				if err != nil || len(recs) != n {
					b.Fatalf("%d records, %v", len(recs), err)
				}
			}
		})
		b.Run(fmt.Sprintf("N=%d/zonesync", n), func(b *testing.B) {
			reg, err := txt.New(benchZonesyncZone(b, n), txt.Config{OwnerID: WorkloadOwner})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				recs, err := reg.Records(ctx)
				if err != nil || len(recs) != n {
					b.Fatalf("%d records, %v", len(recs), err)
				}
			}
		})
	}
}

// BenchmarkWebhookRecords: one Records round trip of the webhook client
// through the webhook server of the same project, over loopback HTTP, to
// an in-memory provider holding W(N) (2N records).
func BenchmarkWebhookRecords(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("N=%d/external-dns", n), func(b *testing.B) {
			srv := externalServer(b, benchExternalZone(b, n))
			c := externalClient(ctx, b, srv.URL)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				recs, err := c.Records(ctx)
				if err != nil || len(recs) != 2*n {
					b.Fatalf("%d records, %v", len(recs), err)
				}
			}
		})
		b.Run(fmt.Sprintf("N=%d/zonesync", n), func(b *testing.B) {
			srv := httptest.NewServer(webhook.NewHandler(benchZonesyncZone(b, n)))
			b.Cleanup(srv.Close)
			c, err := webhook.NewProvider(ctx, srv.URL, webhook.ClientOptions{MaxResponseBytes: -1})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				recs, err := c.Records(ctx)
				if err != nil || len(recs) != 2*n {
					b.Fatalf("%d records, %v", len(recs), err)
				}
			}
		})
	}
}
