package ratelimit_test

import (
	"context"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/ratelimit"
)

func Example() {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	// Cloudflare allows 1,200 requests per 5 minutes: 4 per second.
	p, err := ratelimit.New(zone, ratelimit.Options{Rate: 4, Burst: 4})
	if err != nil {
		panic(err)
	}
	err = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.com", "A", "192.0.2.1"),
	}})
	fmt.Println(err)
	recs, _ := p.Records(ctx)
	fmt.Println(len(recs))
	// Output:
	// <nil>
	// 1
}
