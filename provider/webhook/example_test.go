package webhook_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/webhook"
)

// A provider served over the webhook protocol, and a client using it. In a
// real deployment the server runs with webhook.Serve in a sidecar, and the
// client is external-dns (--provider=webhook) or a zonesync Reconciler.
func Example() {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.org"}})
	srv := httptest.NewServer(webhook.NewHandler(zone))
	defer srv.Close()

	p, err := webhook.NewProvider(ctx, srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("domain filter:", p.DomainFilter())

	err = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.1"),
	}})
	fmt.Println("apply:", err)

	recs, _ := p.Records(ctx)
	for _, r := range recs {
		fmt.Println(r)
	}

	err = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.1"),
	}})
	fmt.Println("outside the zone:", err != nil)
	// Output:
	// domain filter: {"include":[".example.org","example.org"]}
	// apply: <nil>
	// www.example.org 300 IN A  192.0.2.1
	// outside the zone: true
}

// Settings are plain structs whose zero value gives the defaults: here a
// handler that accepts bodies of at most 1 MiB and serves four requests at
// once, and a client that waits at most five seconds for each answer.
func ExampleNewHandler_options() {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.org"}})
	srv := httptest.NewServer(webhook.NewHandler(zone, webhook.ServerOptions{
		MaxRequestBytes:       1 << 20,
		MaxConcurrentRequests: 4,
	}))
	defer srv.Close()

	p, err := webhook.NewProvider(ctx, srv.URL, webhook.ClientOptions{Timeout: 5 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	recs, err := p.Records(ctx)
	fmt.Println(len(recs), err)
	// Output:
	// 0 <nil>
}
