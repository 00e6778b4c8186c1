package batch_test

import (
	"context"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/batch"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
)

func Example() {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	rec := providertest.NewRecordingProvider(zone)
	p, err := batch.New(rec, batch.Options{MaxRecords: 2})
	if err != nil {
		panic(err)
	}

	err = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("a.example.com", "A", "192.0.2.1"),
		endpoint.NewEndpoint("b.example.com", "A", "192.0.2.2"),
		endpoint.NewEndpoint("c.example.com", "A", "192.0.2.3"),
		endpoint.NewEndpoint("d.elsewhere.net", "A", "192.0.2.4"), // in no zone: refused
	}})
	fmt.Println("calls:", len(rec.CallsTo(providertest.MethodApplyChanges)))
	for _, r := range provider.Rejected(err) {
		fmt.Println("rejected:", r.Action, r.Endpoint.Key())
	}
	recs, _ := zone.Records(ctx)
	fmt.Println("applied:", len(recs))
	// Output:
	// calls: 4
	// rejected: create d.elsewhere.net/A
	// applied: 3
}
