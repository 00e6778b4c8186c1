package inmemory_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
)

func Example() {
	ctx := context.Background()
	p := inmemory.New(inmemory.Options{
		Zones:   []string{"example.org"},
		Records: []*endpoint.Endpoint{endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1")},
	})

	err := p.ApplyChanges(ctx, &plan.Changes{
		Create: []*endpoint.Endpoint{
			endpoint.NewEndpointWithTTL("API.example.org.", endpoint.RecordTypeA, 300, "192.0.2.10", "192.0.2.11"),
		},
		UpdateOld: []*endpoint.Endpoint{endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1")},
		UpdateNew: []*endpoint.Endpoint{endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.2")},
	})
	fmt.Println("apply:", err)

	recs, _ := p.Records(ctx)
	for _, r := range recs {
		fmt.Println(r)
	}
	// Output:
	// apply: <nil>
	// api.example.org 300 IN A  192.0.2.10;192.0.2.11
	// www.example.org 0 IN A  192.0.2.2
}

// A failing change set changes nothing, and every problem is reported.
func ExampleProvider_ApplyChanges_errors() {
	ctx := context.Background()
	p := inmemory.New(inmemory.Options{Zones: []string{"example.org"}})
	err := p.ApplyChanges(ctx, &plan.Changes{
		Create: []*endpoint.Endpoint{
			endpoint.NewEndpoint("ok.example.org", endpoint.RecordTypeA, "192.0.2.1"),
			endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.1"),
		},
		Delete: []*endpoint.Endpoint{endpoint.NewEndpoint("gone.example.org", endpoint.RecordTypeA)},
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, inmemory.ErrNoZone), errors.Is(err, inmemory.ErrRecordNotFound))
	recs, _ := p.Records(ctx)
	fmt.Println(len(recs), "records")
	// Output:
	// inmemory: create www.example.com/A: record is not in any zone (zones: example.org)
	// inmemory: delete gone.example.org/A: record not found
	// true true
	// 0 records
}

func ExampleProvider_CreateZone() {
	p := inmemory.New(inmemory.Options{Zones: []string{"example.org"}})
	fmt.Println(p.CreateZone("example.net."))
	fmt.Println(p.CreateZone("EXAMPLE.org"))
	fmt.Println(p.ListZones(context.Background()))
	fmt.Println(p.GetDomainFilter().Match("www.example.net"))
	// Output:
	// <nil>
	// inmemory: creating zone "example.org": zone already exists
	// [example.net example.org] <nil>
	// true
}
