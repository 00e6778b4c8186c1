package router_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/router"
)

// Two services, one of them holding a sub-zone delegated from the other's
// zone: each name goes to its most specific zone.
func Example() {
	ctx := context.Background()
	public := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	internal := inmemory.New(inmemory.Options{Zones: []string{"int.example.com"}})
	r, err := router.New([]router.Route{
		{Name: "public", Provider: public, Zones: []string{"example.com"}},
		{Name: "internal", Provider: internal}, // zones listed by the provider
	}, router.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = r.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.1"),
		endpoint.NewEndpoint("db.int.example.com", endpoint.RecordTypeA, "10.0.0.1"),
	}})
	fmt.Println("apply:", err)

	pub, _ := public.Records(ctx)
	in, _ := internal.Records(ctx)
	fmt.Println("public holds", len(pub), "record(s), internal holds", len(in))
	all, _ := r.Records(ctx)
	for _, ep := range all {
		fmt.Println(ep)
	}

	// A name no route holds is refused, and named.
	err = r.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.9"),
	}})
	fmt.Println(errors.Is(err, router.ErrNoRoute), len(provider.FailedZones(err)))
	fmt.Println(err)
	// Output:
	// apply: <nil>
	// public holds 1 record(s), internal holds 1
	// db.int.example.com 0 IN A  10.0.0.1
	// www.example.com 0 IN A  192.0.2.1
	// true 1
	// changes outside every zone: no route holds the name: www.example.org/A
}
