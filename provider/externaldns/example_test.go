package externaldns_test

import (
	"context"
	"fmt"

	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xinmemory "sigs.k8s.io/external-dns/provider/inmemory"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// A zonesync Reconciler with the TXT registry, writing through an
// external-dns provider in-process. The provider here is external-dns's
// in-memory one, so the example runs offline; with aws.New, google.New,
// azure.New or cloudflare.New (and their flags) in its place the same
// program manages Route 53, Cloud DNS, Azure DNS or Cloudflare.
func Example() {
	ctx := context.Background()

	cfg, err := externaldns.ParseFlags([]string{"--provider=inmemory", "--inmemory-zone=example.org"})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := externaldns.New(ctx, xinmemory.New, cfg, xendpoint.NewDomainFilter([]string{"example.org"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	reg, err := txt.New(p, txt.Config{OwnerID: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	src := source.NewStatic(endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.1"))
	r := &zonesync.Reconciler{Source: src, Registry: reg}

	cyc, err := r.RunOnce(ctx)
	changes := cyc.Changes
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("first cycle creates:", len(changes.Create))
	cyc, err = r.RunOnce(ctx)
	changes = cyc.Changes
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("second cycle changes anything:", changes.HasChanges())

	// The zone holds the record and, beside it, the registry's ownership
	// record.

	recs, err := p.Records(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ep := range recs {
		fmt.Println(ep.DNSName, ep.RecordType)
	}
	// Output:
	// first cycle creates: 1
	// second cycle changes anything: false
	// a-www.example.org TXT
	// www.example.org A
}

// ParseFlags takes the provider flags an external-dns deployment runs with
// and fills every other field with its flag's default.
func ExampleParseFlags() {
	cfg, err := externaldns.ParseFlags([]string{
		"--provider=aws",
		"--aws-zone-type=public",
		"--aws-zone-tags=team=dns",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("provider:", cfg.Provider)
	fmt.Println("zone type:", cfg.AWSZoneType)
	fmt.Println("zone tags:", cfg.AWSZoneTagFilter)
	fmt.Println("batch change size (default):", cfg.AWSBatchChangeSize)

	_, err = externaldns.ParseFlags([]string{"--provider=aws", "--help"})
	fmt.Println("--help refused:", err != nil)
	// Output:
	// provider: aws
	// zone type: public
	// zone tags: [team=dns]
	// batch change size (default): 1000
	// --help refused: true
}

// New calls an external-dns provider package's constructor with a Config
// and a domain filter, and wraps what it returns.
func ExampleNew() {
	ctx := context.Background()
	cfg, err := externaldns.ParseFlags([]string{"--provider=inmemory", "--inmemory-zone=example.org"})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := externaldns.New(ctx, xinmemory.New, cfg, xendpoint.NewDomainFilter([]string{"example.org"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("name:", p.Name())

	err = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("WWW.Example.org.", endpoint.RecordTypeA, 300, "192.0.2.1"),
	}})
	fmt.Println("apply:", err)
	recs, err := p.Records(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ep := range recs {
		fmt.Println(ep)
	}

	// external-dns's records cache is refused: it registers global metrics.
	cfg.ProviderCacheTime = 60e9
	_, err = externaldns.New(ctx, xinmemory.New, cfg, nil)
	fmt.Println("provider cache refused:", err != nil)
	// Output:
	// name: inmemory
	// apply: <nil>
	// www.example.org 300 IN A  192.0.2.1
	// provider cache refused: true
}

// Wrap adapts an external-dns provider that is already constructed, here
// external-dns's in-memory provider built with its own options.
func ExampleWrap() {
	ctx := context.Background()
	x := xinmemory.NewInMemoryProvider(xinmemory.InMemoryInitZones([]string{"example.org"}))
	p := externaldns.Wrap(x, externaldns.Options{Name: "memory"})

	err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeCNAME, 60, "web.example.net").
			WithSetIdentifier("blue").
			WithProviderSpecific("weight", "10"),
	}})
	fmt.Println("apply:", err)

	recs, err := p.Records(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ep := range recs {
		fmt.Println(ep.DNSName, ep.RecordType, ep.Targets, ep.SetIdentifier, ep.ProviderSpecific)
	}
	// Output:
	// apply: <nil>
	// www.example.org CNAME web.example.net blue [{weight 10}]
}
