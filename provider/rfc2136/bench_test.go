package rfc2136_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/rfc2136"
	"github.com/zonesync/zonesync/registry/txt"
)

const benchRecords = 10_000

// BenchmarkApply creates the 10,000 A records of W(10k) with their
// ownership TXT (20,000 RRs) through the TXT registry and the rfc2136
// provider in a real named, for several batch sizes, and deletes them
// again outside the timer. records/s counts A records (each with its TXT).
func BenchmarkApply(b *testing.B) {
	srv := bindtest.Start(b, bindtest.Config{Zones: []string{workload.Zone}})
	desired := make([]*endpoint.Endpoint, benchRecords)
	for i := range desired {
		desired[i] = workload.Desired(i)
	}
	for _, batch := range []int{50, rfc2136.DefaultMaxChangesPerUpdate, 1000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			p := newBenchProvider(b, srv, batch)
			reg, err := txt.New(p, txt.Config{OwnerID: workload.Owner})
			require.NoError(b, err)
			ctx := b.Context()
			var applied time.Duration
			for b.Loop() {
				start := time.Now()
				require.NoError(b, reg.ApplyChanges(ctx, &plan.Changes{Create: endpoint.DeepCopyAll(desired)}))
				applied += time.Since(start)

				b.StopTimer()
				current, err := reg.Records(ctx)
				require.NoError(b, err)
				var owned []*endpoint.Endpoint
				for _, e := range current {
					if e.RecordType == endpoint.RecordTypeA && e.IsOwnedBy(workload.Owner) {
						owned = append(owned, e)
					}
				}
				require.Len(b, owned, benchRecords)
				require.NoError(b, reg.ApplyChanges(ctx, &plan.Changes{Delete: owned}))
				b.StartTimer()
			}
			b.ReportMetric(float64(benchRecords)*float64(b.N)/applied.Seconds(), "records/s")
			b.ReportMetric(float64(2*benchRecords)*float64(b.N)/applied.Seconds(), "RRs/s")
		})
	}
}

// BenchmarkRecords reads a zone of 20,000 RRs (W(10k): 10,000 A records and
// their 10,000 ownership TXT) by AXFR and builds the endpoints.
func BenchmarkRecords(b *testing.B) {
	srv := bindtest.Start(b, bindtest.Config{Zones: []string{workload.Zone}})
	p := newBenchProvider(b, srv, rfc2136.DefaultMaxChangesPerUpdate)
	reg, err := txt.New(p, txt.Config{OwnerID: workload.Owner})
	require.NoError(b, err)
	desired := make([]*endpoint.Endpoint, benchRecords)
	for i := range desired {
		desired[i] = workload.Desired(i)
	}
	require.NoError(b, reg.ApplyChanges(b.Context(), &plan.Changes{Create: desired}))
	for b.Loop() {
		recs, err := p.Records(b.Context())
		require.NoError(b, err)
		if len(recs) < 2*benchRecords {
			b.Fatalf("read %d records, want at least %d", len(recs), 2*benchRecords)
		}
	}
}

func newBenchProvider(b *testing.B, srv *bindtest.Server, batch int) *rfc2136.Provider {
	k := srv.Key()
	p, err := rfc2136.New(rfc2136.Config{
		Server:              srv.Addr(),
		Zones:               srv.Zones(),
		TSIG:                &rfc2136.TSIG{KeyName: k.Name, Algorithm: k.Algorithm, Secret: k.Secret},
		MaxChangesPerUpdate: batch,
		Timeout:             time.Minute,
	})
	require.NoError(b, err)
	return p
}
