// Command quickstart is the smallest complete zonesync program: a Reconciler
// keeps an in-memory DNS zone in step with an in-memory list of endpoints,
// tracking ownership with external-dns compatible TXT records.
//
// It runs three cycles and prints the changes of each: the first creates the
// records, the second finds nothing to do (converged), and the third, after
// the desired endpoints changed, updates one record and deletes another.
// Finally it prints the zone, ownership TXT records included. zonesync's own
// log (a line per cycle with its counts) goes to standard error.
//
// Run it from the repository root:
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// run runs the cycles, printing to w, with logger receiving zonesync's log
// (one line per cycle; main sends it to standard error).
func run(ctx context.Context, w io.Writer, logger logr.Logger) error {
	return runObserved(ctx, w, logger, nil)
}

// runObserved is run with obs as the Reconciler's Observer (nil: none),
// such as an inventory.Inventory (see inventory_test.go).
func runObserved(ctx context.Context, w io.Writer, logger logr.Logger, obs zonesync.Observer) error {
	// The DNS side: one zone, held in memory, with TXT ownership records.
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "quickstart"})
	if err != nil {
		return err
	}

	// The desired side: the records the program wants.
	src := source.NewStatic(
		endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.10", "192.0.2.11"),
		endpoint.NewEndpointWithTTL("api.example.com", endpoint.RecordTypeCNAME, 300, "www.example.com"),
		endpoint.NewEndpoint("old.example.com", endpoint.RecordTypeA, "192.0.2.99"),
	)

	// Without a Logger (and without one in ctx) zonesync logs nothing;
	// errors still come back from RunOnce.
	rec := &zonesync.Reconciler{Source: src, Registry: reg, Logger: logger, Observer: obs}

	cycle := func(title string) error {
		// RunOnce returns the cycle: its changes, what it skipped and
		// why, what happened to each record and object, and its error.
		c, err := rec.RunOnce(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", title, err)
		}
		fmt.Fprintf(w, "== %s\n%s\n\n", title, c.Changes)
		return nil
	}
	if err := cycle("cycle 1: first sync"); err != nil {
		return err
	}
	if err := cycle("cycle 2: converged"); err != nil {
		return err
	}
	// The program's wishes change: www moves, old goes away.
	src.Set(
		endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.20"),
		endpoint.NewEndpointWithTTL("api.example.com", endpoint.RecordTypeCNAME, 300, "www.example.com"),
	)
	if err := cycle("cycle 3: after the source changed"); err != nil {
		return err
	}

	records, err := zone.Records(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "== zone example.com")
	for _, r := range records {
		fmt.Fprintf(w, "%s %s %s\n", r.DNSName, r.RecordType, r.Targets)
	}
	return nil
}

func main() {
	logger := funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{})
	if err := run(context.Background(), os.Stdout, logger); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}
