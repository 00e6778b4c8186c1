package source_test

import (
	"context"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

func ExampleStatic() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	src := source.NewStatic(
		endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeA, "192.0.2.10"),
		endpoint.NewEndpoint("api.example.com", endpoint.RecordTypeCNAME, "web.example.com"),
	)
	// A Reconciler's Run registers a handler like this one; it calls
	// ScheduleRunOnce.
	src.AddEventHandler(ctx, func() { fmt.Println("event: endpoints changed") })

	print := func() {
		eps, err := src.Endpoints(ctx)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		for _, ep := range eps {
			fmt.Println(ep.DNSName, ep.RecordType, ep.Targets)
		}
	}
	print()
	src.Set(endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeA, "192.0.2.11"))
	print()
	// Output:
	// api.example.com CNAME web.example.com
	// web.example.com A 192.0.2.10
	// event: endpoints changed
	// web.example.com A 192.0.2.11
}
