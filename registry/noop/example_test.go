package noop_test

import (
	"context"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/noop"
)

// The no-op registry writes records without ownership TXT records, and an
// empty owner id lets a plan manage every record.
func ExampleNew() {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg := noop.New(zone)

	app := endpoint.NewEndpoint("app.example.com", endpoint.RecordTypeA, "192.0.2.10")
	if err := reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{app}}); err != nil {
		fmt.Println(err)
		return
	}
	recs, err := reg.Records(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range recs {
		fmt.Println(r.DNSName, r.RecordType, r.Targets[0], r.Labels.Len())
	}
	fmt.Printf("owner id: %q\n", reg.OwnerID())
	// Output:
	// app.example.com A 192.0.2.10 0
	// owner id: ""
}
