package txt_test

import (
	"context"
	"fmt"
	"maps"

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
	zone := providertest.NewRecordingProvider(inmemory.New(inmemory.WithZone("example.com")))
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

func ExampleNamer() {
	n, err := txt.NewNamer("extdns-%{record_type}.", "", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n.TXTName("example.com", "A"))
	name, recordType, ok := n.ParseTXTName("extdns-cname.www.example.com")
	fmt.Println(name, recordType, ok)

	var plain txt.Namer // no prefix, suffix or wildcard replacement
	fmt.Println(plain.TXTName("app.example.com", "AAAA"))
	fmt.Println(plain.ParseTXTName("app.example.com")) // legacy untyped
	// Output:
	// extdns-a.example.com
	// www.example.com CNAME true
	// aaaa-app.example.com
	// app.example.com  true
}

func ExampleRegistry_Records() {
	zone := inmemory.New(inmemory.WithZone("example.com"), inmemory.WithRecords(
		endpoint.NewEndpoint("app.example.com", "A", "192.0.2.10"),
		endpoint.NewEndpoint("a-app.example.com", "TXT", `"heritage=external-dns,external-dns/owner=team-a"`),
		endpoint.NewEndpoint("manual.example.com", "A", "192.0.2.20"),
	))
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

func ExampleRegistry_OwnershipTXT() {
	reg, err := txt.New(inmemory.New(inmemory.WithZone("example.com")), txt.Config{
		OwnerID: "default", Prefix: "txt-", WildcardReplacement: "any",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := endpoint.NewEndpoint("*.apps.example.com", "A", "192.0.2.20").WithLabel(endpoint.OwnerLabelKey, "default")
	own, err := reg.OwnershipTXT(rec)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(own.DNSName, own.Targets[0], maps.Collect(own.Labels.All()))
	// Output:
	// txt-a-any.apps.example.com "heritage=external-dns,external-dns/owner=default" map[ownedRecord:*.apps.example.com]
}
