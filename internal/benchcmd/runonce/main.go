// Command runonce seeds the benchmark workload W(N) — N names
// svc-<i>.bench.example.com with one A target each, all owned by "bench"
// in the TXT registry over the in-memory provider, desired = current — and
// runs one steady-state Reconciler cycle, so that the peak memory of a
// cycle can be measured from outside:
//
//	/usr/bin/time -v go run ./internal/benchcmd/runonce            # N = 100000
//	/usr/bin/time -v go run ./internal/benchcmd/runonce -n 10000
//
// ("Maximum resident set size" is the peak RSS; building with go build first
// and timing the binary keeps the compiler out of the measurement.) It
// prints the cycle's duration and changes and, on Linux, the process's own
// peak RSS (VmHWM).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
)

// workloadSource is the desired side of W(n): like a real source, it builds
// its endpoints from its own state (here: just n) on every call instead of
// keeping and copying a list.
type workloadSource struct{ n int }

func (s workloadSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	eps := make([]*endpoint.Endpoint, s.n)
	for i := range s.n {
		eps[i] = endpoint.NewEndpoint(workloadName(i), endpoint.RecordTypeA, workloadTarget(i))
	}
	return eps, nil
}

func (workloadSource) AddEventHandler(context.Context, func()) {}

func workloadName(i int) string { return "svc-" + strconv.Itoa(i) + ".bench.example.com" }

func workloadTarget(i int) string {
	return "10." + strconv.Itoa(i>>16&255) + "." + strconv.Itoa(i>>8&255) + "." + strconv.Itoa(i&255)
}

// workload builds W(n) and a Reconciler over it. The zone is filled in
// batches so that building it does not raise the peak memory above that of
// the cycle being measured: each batch is read back (so the provider merges
// it into its sorted storage) and collected before the next.
func workload(ctx context.Context, n int) (*zonesync.Reconciler, error) {
	p := inmemory.New(inmemory.WithZone("bench.example.com"))
	const batch = 5_000
	for lo := 0; lo < n; lo += batch {
		seed := make([]*endpoint.Endpoint, 0, 2*batch)
		for i := lo; i < min(lo+batch, n); i++ {
			name := workloadName(i)
			seed = append(seed,
				endpoint.NewEndpoint(name, endpoint.RecordTypeA, workloadTarget(i)),
				endpoint.NewEndpoint("a-"+name, endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=bench"`))
		}
		if err := p.ApplyChanges(ctx, &plan.Changes{Create: seed}); err != nil {
			return nil, fmt.Errorf("seeding the zone: %w", err)
		}
		if _, err := p.Records(ctx); err != nil {
			return nil, fmt.Errorf("reading the seeded zone: %w", err)
		}
		runtime.GC()
	}
	reg, err := txt.New(p, txt.Config{OwnerID: "bench"})
	if err != nil {
		return nil, err
	}
	return &zonesync.Reconciler{Source: workloadSource{n: n}, Registry: reg}, nil
}

func run(ctx context.Context, w io.Writer, args []string) error {
	fs := flag.NewFlagSet("runonce", flag.ContinueOnError)
	fs.SetOutput(w)
	n := fs.Int("n", 100_000, "number of names in the workload")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 {
		return fmt.Errorf("-n must be positive, got %d", *n)
	}
	rec, err := workload(ctx, *n)
	if err != nil {
		return err
	}
	// Drop the set-up garbage so the peak is the cycle's.
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(w, "live heap after set-up: %d MiB\n", ms.HeapAlloc>>20)
	if hwm, ok := peakRSS(); ok {
		fmt.Fprintf(w, "peak RSS after set-up (VmHWM): %s\n", hwm)
	}
	start := time.Now()
	changes, err := rec.RunOnce(ctx)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	fmt.Fprintf(w, "W(%d) steady-state cycle: %v, changes: %d creates, %d updates, %d deletes\n",
		*n, elapsed.Round(time.Millisecond), len(changes.Create), len(changes.UpdateNew), len(changes.Delete))
	if hwm, ok := peakRSS(); ok {
		fmt.Fprintf(w, "peak RSS (VmHWM): %s\n", hwm)
	}
	return nil
}

// peakRSS reads VmHWM from /proc/self/status (Linux only).
func peakRSS() (string, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

func main() {
	if err := run(context.Background(), os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "runonce:", err)
		os.Exit(1)
	}
}
