package source_test

import (
	"fmt"

	"github.com/zonesync/zonesync/source"
)

func ExampleEndpointsForHostname() {
	eps := source.EndpointsForHostname("app.example.com",
		[]string{"192.0.2.2", "lb.example.net", "2001:db8::1", "192.0.2.1"},
		source.EndpointMeta{TTL: 60, Resource: "service/default/app"})
	for _, ep := range eps {
		fmt.Println(ep, ep.Labels)
	}
	// Output:
	// app.example.com 60 IN A  192.0.2.1;192.0.2.2 map[resource:service/default/app]
	// app.example.com 60 IN AAAA  2001:db8::1 map[resource:service/default/app]
	// app.example.com 60 IN CNAME  lb.example.net map[resource:service/default/app]
}
