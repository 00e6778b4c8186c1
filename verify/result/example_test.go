package result_test

import (
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/verify/result"
)

func ExampleResult() {
	r := result.Result{
		Endpoint: endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1"),
		Status:   result.NotSync,
		Seen:     []string{"192.0.2.7"},
	}
	fmt.Printf("%s %s: %s, seen %v\n", r.Endpoint.DNSName, r.Endpoint.RecordType, r.Status, r.Seen)
	// Output: www.example.org A: notsync, seen [192.0.2.7]
}
