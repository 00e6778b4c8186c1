package cache_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/cache"
	"github.com/zonesync/zonesync/provider/inmemory"
)

func Example() {
	ctx := context.Background()
	p, err := cache.New(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), cache.Options{TTL: time.Minute})
	if err != nil {
		panic(err)
	}
	recs, _ := p.Records(ctx) // read from the provider, then cached
	fmt.Println(len(recs))
	_ = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.com", "A", "192.0.2.1"),
	}})
	recs, _ = p.Records(ctx) // the apply dropped the cache
	fmt.Println(len(recs))
	// Output:
	// 0
	// 1
}

// Invalidate drops what the cache holds, for a caller that knows the zone
// changed behind the wrapper's back.
func ExampleProvider_Invalidate() {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	p, err := cache.New(zone, cache.Options{TTL: time.Hour})
	if err != nil {
		panic(err)
	}
	recs, _ := p.Records(ctx) // cached for an hour
	fmt.Println(len(recs))
	_ = zone.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.com", "A", "192.0.2.1"),
	}}) // not through the cache
	recs, _ = p.Records(ctx)
	fmt.Println(len(recs))
	p.Invalidate()
	recs, _ = p.Records(ctx)
	fmt.Println(len(recs))
	// Output:
	// 0
	// 0
	// 1
}
