// Command runonce seeds the benchmark workload W(N) of internal/workload — N
// names svc-<i>.bench.example.com with one A target each, all owned by
// "bench" in the TXT registry over the in-memory provider, each ownership TXT
// with its own resource label, desired = current — and
// runs one steady-state Reconciler cycle, so that the peak memory of a
// cycle can be measured from outside:
//
//	/usr/bin/time -v go run ./internal/benchcmd/runonce            # N = 100000
//	/usr/bin/time -v go run ./internal/benchcmd/runonce -n 10000
//	go run ./internal/benchcmd/runonce -memprofile /tmp/heap.out
//
// (-memprofile writes a heap profile after the cycle: its inuse figures are
// the live heap at the last collection, which ran during the cycle.)
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
	"runtime/pprof"
	"strings"
	"time"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/registry/txt"
)

// newReconciler builds W(n) and a Reconciler over it.
func newReconciler(ctx context.Context, n int) (*zonesync.Reconciler, error) {
	p, err := workload.NewZone(ctx, n)
	if err != nil {
		return nil, err
	}
	reg, err := txt.New(p, txt.Config{OwnerID: workload.Owner})
	if err != nil {
		return nil, err
	}
	return &zonesync.Reconciler{Source: workload.NewSource(n), Registry: reg}, nil
}

func run(ctx context.Context, w io.Writer, args []string) error {
	fs := flag.NewFlagSet("runonce", flag.ContinueOnError)
	fs.SetOutput(w)
	n := fs.Int("n", 100_000, "number of names in the workload")
	memProfile := fs.String("memprofile", "", "write a heap profile to this file after the cycle")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 {
		return fmt.Errorf("-n must be positive, got %d", *n)
	}
	rec, err := newReconciler(ctx, *n)
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
	cyc, err := rec.RunOnce(ctx)
	changes := cyc.Changes
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	fmt.Fprintf(w, "W(%d) steady-state cycle: %v, changes: %d creates, %d updates, %d deletes\n",
		*n, elapsed.Round(time.Millisecond), len(changes.Create), len(changes.UpdateNew), len(changes.Delete))
	if hwm, ok := peakRSS(); ok {
		fmt.Fprintf(w, "peak RSS (VmHWM): %s\n", hwm)
	}
	if *memProfile != "" {
		return writeHeapProfile(*memProfile)
	}
	return nil
}

// writeHeapProfile writes the heap profile to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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
