package webhook_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/webhook"
)

var benchSizes = []int{1_000, 10_000, 100_000}

// benchServer serves W(n) (n A records and n ownership TXT records, 2n
// endpoints) through the handler on a loopback listener and returns a
// client for it.
func benchServer(b *testing.B, n int) (*webhook.Provider, *httptest.Server) {
	b.Helper()
	ctx := context.Background()
	zone, err := workload.NewZone(ctx, n)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(webhook.NewHandler(zone))
	b.Cleanup(srv.Close)
	p, err := webhook.NewProvider(ctx, srv.URL, webhook.ClientOptions{HTTPClient: srv.Client(), Timeout: -1})
	if err != nil {
		b.Fatal(err)
	}
	return p, srv
}

// BenchmarkRecords is a full GET /records round trip: the handler reads
// the in-memory zone and streams it, the client decodes it. Allocations
// are those of both sides (and of the in-memory provider's copy).
func BenchmarkRecords(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			p, srv := benchServer(b, n)
			size := bodySize(b, srv.URL+"/records")
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				recs, err := p.Records(ctx)
				if err != nil || len(recs) != 2*n {
					b.Fatalf("got %d records, err %v", len(recs), err)
				}
			}
			reportPerRecord(b, n)
		})
	}
}

// BenchmarkApplyChanges is a full POST /records round trip that updates
// every A record of W(N) (alternating between two targets): the change set
// holds 2N endpoints with owner and resource labels, as the TXT registry
// sends them; the client streams it, the handler decodes it and the
// in-memory zone applies it.
func BenchmarkApplyChanges(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			p, _ := benchServer(b, n)
			sets := [2]*plan.Changes{updateAll(n, 0), updateAll(n, 1)}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := p.ApplyChanges(ctx, sets[i%2]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			reportPerRecord(b, n)
		})
	}
}

// BenchmarkDirect calls the in-memory zone of W(N) directly, with the
// same work as BenchmarkRecords and BenchmarkApplyChanges: the difference
// is what the webhook protocol costs.
func BenchmarkDirect(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		zone, err := workload.NewZone(ctx, n)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("op=Records/N=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if recs, err := zone.Records(ctx); err != nil || len(recs) != 2*n {
					b.Fatalf("got %d records, err %v", len(recs), err)
				}
			}
			reportPerRecord(b, n)
		})
		b.Run(fmt.Sprintf("op=ApplyChanges/N=%d", n), func(b *testing.B) {
			sets := [2]*plan.Changes{updateAll(n, 0), updateAll(n, 1)}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := zone.ApplyChanges(ctx, sets[i%2]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			reportPerRecord(b, n)
		})
	}
}

func updateAll(n, dir int) *plan.Changes {
	c := &plan.Changes{UpdateOld: make([]*endpoint.Endpoint, n), UpdateNew: make([]*endpoint.Endpoint, n)}
	for i := range n {
		old := workload.Current(i)
		next := workload.Current(i)
		next.Targets = endpoint.Targets{"192.0.2.1"}
		if dir == 1 {
			old, next = next, old
		}
		c.UpdateOld[i], c.UpdateNew[i] = old, next
	}
	return c
}

func reportPerRecord(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/record")
}

func bodySize(b *testing.B, url string) int64 {
	resp, err := httptestClientGet(url)
	if err != nil {
		b.Fatal(err)
	}
	return resp
}

func httptestClientGet(url string) (int64, error) {
	resp, err := httpGet(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return io.Copy(io.Discard, resp.Body)
}

// BenchmarkRecordsPeakHeap measures, for one Records round trip at
// N = 100k at a time, the peak of heap objects above what was live before
// the call (sampled every 100 µs from runtime/metrics, so the figure also
// holds garbage not yet collected), as a multiple of the JSON body's size.
//   - both: client and handler in this process, as in BenchmarkRecords;
//     the figure includes the in-memory provider's copy of the records,
//     the handler's buffers and the decoded result;
//   - client: the server sends a body encoded beforehand, so only the
//     client's side (reading and decoding, and the result) counts;
//   - server: the handler with the in-memory provider, and a client that
//     discards the body.
func BenchmarkRecordsPeakHeap(b *testing.B) {
	ctx := context.Background()
	n := 100_000
	b.Run("side=both", func(b *testing.B) {
		p, srv := benchServer(b, n)
		size := bodySize(b, srv.URL+"/records")
		peakHeap(b, size, func() any {
			recs, err := p.Records(ctx)
			if err != nil || len(recs) != 2*n {
				b.Fatalf("got %d records, err %v", len(recs), err)
			}
			return recs
		})
	})
	b.Run("side=client", func(b *testing.B) {
		_, srv := benchServer(b, n)
		resp, err := httpGet(srv.URL + "/records")
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		static := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", webhook.MediaType)
			if r.URL.Path == "/" {
				_, _ = io.WriteString(w, "{}")
				return
			}
			_, _ = w.Write(body)
		}))
		b.Cleanup(static.Close)
		p, err := webhook.NewProvider(ctx, static.URL, webhook.ClientOptions{HTTPClient: static.Client()})
		if err != nil {
			b.Fatal(err)
		}
		peakHeap(b, int64(len(body)), func() any {
			recs, err := p.Records(ctx)
			if err != nil || len(recs) != 2*n {
				b.Fatalf("got %d records, err %v", len(recs), err)
			}
			return recs
		})
	})
	b.Run("side=server", func(b *testing.B) {
		_, srv := benchServer(b, n)
		size := bodySize(b, srv.URL+"/records")
		peakHeap(b, size, func() any {
			if got := bodySize(b, srv.URL+"/records"); got != size {
				b.Fatalf("body of %d bytes, want %d", got, size)
			}
			return nil
		})
	})
}

func peakHeap(b *testing.B, size int64, call func() any) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	var worst float64
	for b.Loop() {
		runtime.GC()
		base := read()
		var peak atomic.Uint64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			t := time.NewTicker(100 * time.Microsecond)
			defer t.Stop()
			for {
				if v := read(); v > peak.Load() {
					peak.Store(v)
				}
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		}()
		result := call()
		if v := read(); v > peak.Load() {
			peak.Store(v)
		}
		close(stop)
		<-done
		worst = max(worst, float64(peak.Load()-base)/float64(size))
		runtime.KeepAlive(result)
	}
	b.ReportMetric(float64(size)/(1<<20), "JSON-MiB")
	b.ReportMetric(worst, "peak-heap/JSON")
}

func httpGet(url string) (*http.Response, error) { return http.Get(url) } //nolint:noctx // benchmark set-up
