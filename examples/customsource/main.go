// Command customsource shows a Source of one's own: hostsSource turns a
// map of host names to IPv4 addresses into A records. Implementing the two
// methods of source.Source is all it takes; ownership, conflict resolution,
// policies and the provider come from zonesync.
//
// Run it from the repository root:
//
//	go run ./examples/customsource
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// hostsSource is a static source: name -> IPv4 address.
type hostsSource struct{ hosts map[string]string }

var _ source.Source = hostsSource{}

// Endpoints returns one A record per host, in a new slice sorted by name.
func (s hostsSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	eps := make([]*endpoint.Endpoint, 0, len(s.hosts))
	for _, name := range slices.Sorted(maps.Keys(s.hosts)) {
		ep := endpoint.NewEndpoint(name, endpoint.RecordTypeA, s.hosts[name])
		if err := ep.ValidateDesired(); err != nil {
			return nil, fmt.Errorf("hosts entry %s: %w", name, err)
		}
		eps = append(eps, ep)
	}
	return eps, nil
}

// AddEventHandler never calls handler: the map does not change.
func (hostsSource) AddEventHandler(context.Context, func()) {}

func run(ctx context.Context, w io.Writer) error {
	zone := inmemory.New(inmemory.Options{Zones: []string{"home.example"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "hosts"})
	if err != nil {
		return err
	}
	rec := &zonesync.Reconciler{
		Source: hostsSource{hosts: map[string]string{
			"nas.home.example":     "192.168.1.10",
			"printer.home.example": "192.168.1.20",
			"router.home.example":  "192.168.1.1",
		}},
		Registry: reg,
	}
	c, err := rec.RunOnce(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s\n\n", c.Changes)
	records, err := zone.Records(ctx)
	if err != nil {
		return err
	}
	for _, r := range records {
		fmt.Fprintf(w, "%s %s %s\n", r.DNSName, r.RecordType, r.Targets)
	}
	return nil
}

func main() {
	// zonesync logs through the logr.Logger in the context (here to slog's
	// text format on standard error); without one it logs nothing.
	ctx := logr.NewContext(context.Background(), logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, nil)))
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "customsource:", err)
		os.Exit(1)
	}
}
