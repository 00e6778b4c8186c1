package txt_test

import (
	"context"
	"fmt"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// Two clusters publish app.example.com together: each Reconciler asks for
// the address of its own load balancer, the record holds both, and when one
// cluster stops asking only its address goes.
func ExampleSharedConfig() {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})

	cluster := func(owner, address string) (*zonesync.Reconciler, *source.Static) {
		reg, err := txt.New(zone, txt.Config{OwnerID: owner, Shared: &txt.SharedConfig{Names: []string{"app.example.com"}}})
		if err != nil {
			panic(err)
		}
		src := source.NewStatic(endpoint.NewEndpoint("app.example.com", endpoint.RecordTypeA, address))
		return &zonesync.Reconciler{Source: src, Registry: reg}, src
	}
	east, _ := cluster("cluster-east", "192.0.2.10")
	west, westSource := cluster("cluster-west", "198.51.100.20")

	show := func(when string) {
		recs, _ := zone.Records(ctx)
		for _, r := range recs {
			if r.RecordType == endpoint.RecordTypeA {
				fmt.Printf("%s: %s %v\n", when, r.DNSName, r.Targets)
			}
		}
	}
	for _, r := range []*zonesync.Reconciler{east, west} {
		if _, err := r.RunOnce(ctx); err != nil {
			panic(err)
		}
	}
	show("both")
	c, _ := east.RunOnce(ctx)
	fmt.Println(c.RecordStatuses()[0].Message)

	westSource.Set() // the west cluster stops asking
	if _, err := west.RunOnce(ctx); err != nil {
		panic(err)
	}
	show("east only")
	// Output:
	// both: app.example.com 192.0.2.10;198.51.100.20
	// contributed, shared with 2 owners
	// east only: app.example.com 192.0.2.10
}
