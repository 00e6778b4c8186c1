// Command sharedrecords shows two clusters publishing one name together
// with the TXT registry's shared mode: each cluster's Reconciler asks for
// the address of its own load balancer, app.example.com holds both, and
// when one cluster stops asking for it, only its address goes. Every step
// prints the zone, ownership and contribution records included.
//
//	go run ./examples/sharedrecords
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/clock"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

func main() {
	if err := run(context.Background(), os.Stdout, clock.Real()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// cluster is one owner: its Reconciler and the source it reads.
type cluster struct {
	name string
	src  *source.Static
	rec  *zonesync.Reconciler
}

func newCluster(zone *inmemory.Provider, clk clock.Clock, name, address string) (*cluster, error) {
	// Shared mode for app.example.com only: every other name keeps one
	// owner, as with external-dns.
	reg, err := txt.New(zone, txt.Config{OwnerID: name, Shared: &txt.SharedConfig{Names: []string{"app.example.com"}, Clock: clk}})
	if err != nil {
		return nil, err
	}
	src := source.NewStatic(endpoint.NewEndpointWithTTL("app.example.com", endpoint.RecordTypeA, 60, address))
	return &cluster{name: name, src: src, rec: &zonesync.Reconciler{Source: src, Registry: reg}}, nil
}

// run runs the two clusters over one in-memory zone; clk stamps the
// contributions (their heartbeats).
func run(ctx context.Context, w io.Writer, clk clock.Clock) error {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	east, err := newCluster(zone, clk, "cluster-east", "192.0.2.10")
	if err != nil {
		return err
	}
	west, err := newCluster(zone, clk, "cluster-west", "198.51.100.20")
	if err != nil {
		return err
	}
	cycle := func(c *cluster) error {
		cy, err := c.rec.RunOnce(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		for _, st := range cy.RecordStatuses() {
			fmt.Fprintf(w, "%s: %s\n", c.name, st)
		}
		return nil
	}
	show := func(title string) error {
		recs, err := zone.Records(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "== %s\n", title)
		for _, r := range recs {
			fmt.Fprintf(w, "%s %s %s\n", r.DNSName, r.RecordType, strings.Join(r.Targets, " "))
		}
		fmt.Fprintln(w)
		return nil
	}

	for _, c := range []*cluster{east, west} {
		if err := cycle(c); err != nil {
			return err
		}
	}
	if err := show("both clusters contribute"); err != nil {
		return err
	}
	west.src.Set() // the west cluster no longer serves the name
	if err := cycle(west); err != nil {
		return err
	}
	if err := show("the west cluster left"); err != nil {
		return err
	}
	east.src.Set()
	if err := cycle(east); err != nil {
		return err
	}
	return show("the last cluster left")
}
