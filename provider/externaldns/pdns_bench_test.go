package externaldns_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/sirupsen/logrus"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/externaldns/internal/pdnstest"
	"github.com/zonesync/zonesync/registry/txt"
)

// quietLogrus silences external-dns's logrus output (an Info line per
// change from the pdns provider) for a test or benchmark, and restores it
// after.
func quietLogrus(b testing.TB) {
	out, level := logrus.StandardLogger().Out, logrus.GetLevel()
	logrus.SetOutput(io.Discard)
	logrus.SetLevel(logrus.WarnLevel)
	b.Cleanup(func() {
		logrus.SetOutput(out)
		logrus.SetLevel(level)
	})
}

// benchServer configures the PowerDNS of the benchmarks: external-dns's
// pdns provider sends all the changes to a zone in one PATCH, and at 10,000
// records with their TXT records that body (about 3 MB) is over PowerDNS's
// default limit of 2 MB.
func benchServer() pdnstest.Config { return pdnstest.Config{MaxBodyMB: 64} }

// BenchmarkPDNSApply measures records applied per second through the
// adapter into a real PowerDNS: one ApplyChanges creating the n A records
// of W(n) with their n ownership TXT records (2n RRsets), which external-dns's
// pdns provider sends as one PATCH of the zone. The zone is deleted and made
// again between iterations, outside the timer. records/s counts A records,
// each with its TXT; rrsets/s counts both.
func BenchmarkPDNSApply(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			quietLogrus(b)
			srv := pdnstest.Start(b, benchServer())
			srv.CreateZone(workload.Zone)
			p := newPDNS(b, srv, workload.Zone)
			create := make([]*endpoint.Endpoint, 0, 2*n)
			for i := range n {
				create = append(create,
					endpoint.NewEndpointWithTTL(workload.Name(i), endpoint.RecordTypeA, 300, workload.Target(i)),
					endpoint.NewEndpointWithTTL("a-"+workload.Name(i), endpoint.RecordTypeTXT, 300, workload.TXTValue(i)))
			}
			changes := &plan.Changes{Create: create}
			b.ResetTimer()
			for i := range b.N {
				if i > 0 {
					b.StopTimer()
					srv.DeleteZone(workload.Zone)
					srv.CreateZone(workload.Zone)
					b.StartTimer()
				}
				if err := p.ApplyChanges(b.Context(), changes); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(n*b.N)/sec, "records/s")
			b.ReportMetric(float64(2*n*b.N)/sec, "rrsets/s")
			got := srv.RRsets(workload.Zone)
			require.Len(b, got, 2*n+2, "the zone holds the records, their TXT, SOA and NS")
		})
	}
}

// BenchmarkPDNSReconcile10k measures one full Reconciler cycle (source,
// TXT registry, plan, apply) over external-dns's pdns provider at W(10k):
// the first sync into an empty zone (10,000 A records and their 10,000
// ownership TXT records), and the steady state (the zone holds them all,
// the cycle plans nothing). Each iteration is one cycle; ns/op is the time
// per cycle.
func BenchmarkPDNSReconcile10k(b *testing.B) {
	const n = 10_000
	newReconciler := func(b *testing.B, srv *pdnstest.Server) *zonesync.Reconciler {
		reg, err := txt.New(newPDNS(b, srv, workload.Zone), txt.Config{OwnerID: workload.Owner})
		require.NoError(b, err)
		return &zonesync.Reconciler{Source: workload.NewSource(n), Registry: reg}
	}

	b.Run("first-sync", func(b *testing.B) {
		firstSync(b, n, newReconciler)
	})

	b.Run("steady-state", func(b *testing.B) {
		quietLogrus(b)
		srv := pdnstest.Start(b, benchServer())
		srv.CreateZone(workload.Zone)
		r := newReconciler(b, srv)
		cyc, err := r.RunOnce(b.Context())
		changes := cyc.Changes
		require.NoError(b, err)
		require.Len(b, changes.Create, n)
		b.ResetTimer()
		for range b.N {
			cyc, err := r.RunOnce(b.Context())
			changes := cyc.Changes
			if err != nil {
				b.Fatal(err)
			}
			if changes.HasChanges() {
				b.Fatalf("the steady state planned changes: %d creates, %d updates, %d deletes",
					len(changes.Create), len(changes.UpdateNew), len(changes.Delete))
			}
		}
	})
}

// firstSync times the first cycle of a Reconciler from newReconciler into
// a fresh, empty zone, b.N times.
func firstSync(b *testing.B, n int, newReconciler func(*testing.B, *pdnstest.Server) *zonesync.Reconciler) {
	quietLogrus(b)
	srv := pdnstest.Start(b, benchServer())
	for range b.N {
		b.StopTimer()
		srv.CreateZone(workload.Zone)
		r := newReconciler(b, srv)
		b.StartTimer()
		cyc, err := r.RunOnce(b.Context())
		changes := cyc.Changes
		b.StopTimer()
		require.NoError(b, err)
		require.Len(b, changes.Create, n)
		require.Len(b, srv.RRsets(workload.Zone), 2*n+2)
		srv.DeleteZone(workload.Zone)
		b.StartTimer()
	}
}
