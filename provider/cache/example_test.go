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
	p := cache.New(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), cache.Options{TTL: time.Minute})
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
