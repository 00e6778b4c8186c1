package txt_test

import (
	"context"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
)

// A create writes the ownership TXT record and, in the same provider call,
// the record after it.
func ExampleNew() {
	ctx := context.Background()
	zone := providertest.NewRecordingProvider(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}))
	reg, err := txt.New(zone, txt.Config{OwnerID: "default"})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := reg.Records(ctx); err != nil {
		fmt.Println(err)
		return
	}
	app := endpoint.NewEndpoint("app.example.com", endpoint.RecordTypeA, "192.0.2.10").
		WithLabel(endpoint.ResourceLabelKey, "service/default/app")
	if err := reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{app}}); err != nil {
		fmt.Println(err)
		return
	}
	calls := zone.CallsTo(providertest.MethodApplyChanges)
	for _, ep := range calls[0].Changes.Create {
		fmt.Println(ep.DNSName, ep.RecordType, ep.Targets[0])
	}

	recs, _ := reg.Records(ctx)
	owner, _ := recs[0].Labels.Get(endpoint.OwnerLabelKey)
	fmt.Println(recs[0].DNSName, "owner:", owner)
	// Output:
	// a-app.example.com TXT "heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"
	// app.example.com A 192.0.2.10
	// app.example.com owner: default
}

func ExampleRegistry_Records() {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: []*endpoint.Endpoint{
		endpoint.NewEndpoint("app.example.com", "A", "192.0.2.10"),
		endpoint.NewEndpoint("a-app.example.com", "TXT", `"heritage=external-dns,external-dns/owner=team-a"`),
		endpoint.NewEndpoint("manual.example.com", "A", "192.0.2.20"),
	}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "team-b"})
	if err != nil {
		fmt.Println(err)
		return
	}
	recs, err := reg.Records(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range recs {
		owner, _ := r.Labels.Get(endpoint.OwnerLabelKey)
		fmt.Printf("%s owner=%q ours=%v\n", r.DNSName, owner, r.IsOwnedBy(reg.OwnerID()))
	}
	// Output:
	// app.example.com owner="team-a" ours=false
	// manual.example.com owner="" ours=false
}
