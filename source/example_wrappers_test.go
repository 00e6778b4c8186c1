package source_test

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// hostsSource is a source of one's own: A records from a map of names to
// IPv4 addresses. It never changes, so it ignores handlers.
type hostsSource struct{ hosts map[string]string }

var _ source.Source = hostsSource{}

func (s hostsSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	eps := make([]*endpoint.Endpoint, 0, len(s.hosts)) // a new slice on every call
	for _, name := range slices.Sorted(maps.Keys(s.hosts)) {
		eps = append(eps, endpoint.NewEndpoint(name, endpoint.RecordTypeA, s.hosts[name]))
	}
	return eps, nil
}

func (hostsSource) AddEventHandler(context.Context, func()) {}

func printEndpoints(src source.Source) {
	eps, err := src.Endpoints(context.Background())
	if err != nil {
		fmt.Println("error:", err)
	}
	for _, ep := range eps {
		fmt.Println(ep.DNSName, ep.RecordTTL, ep.RecordType, ep.Targets)
	}
}

// Example_customSource shows a source of one's own, combined with a static
// one and put through the usual wrappers.
func Example_customSource() {
	hosts := hostsSource{hosts: map[string]string{
		"db.example.com":  "10.0.0.5",
		"web.example.com": "192.0.2.10",
	}}
	extra := source.NewStatic(endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeA, "192.0.2.10"))

	var src source.Source = source.NewMulti([]source.Source{hosts, extra}, source.MultiOptions{})
	src = source.NewDedup(src) // web.example.com appears twice
	src = source.NewTargetFilter(src, source.TargetFilterOptions{Exclude: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	src = source.NewPostProcessor(src, source.PostProcessorOptions{DefaultTTL: 300})
	printEndpoints(src)
	// Output:
	// web.example.com 300 A 192.0.2.10
}

func ExampleMulti() {
	a := source.NewStatic(endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1"))
	b := source.NewStatic(endpoint.NewEndpoint("b.example.com", endpoint.RecordTypeCNAME, "a.example.com"))
	printEndpoints(source.NewMulti([]source.Source{b, a}, source.MultiOptions{}))
	// Output:
	// b.example.com 0 CNAME a.example.com
	// a.example.com 0 A 192.0.2.1
}

func ExamplePTR() {
	src := source.NewStatic(
		endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeA, "192.0.2.10"),
		endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.10"),
		endpoint.NewEndpoint("other.example.com", endpoint.RecordTypeA, "198.51.100.1"),
	)
	// Only the reverse zone 2.0.192.in-addr.arpa is managed.
	reverse := endpoint.NewDomainFilter([]string{"2.0.192.in-addr.arpa"})
	printEndpoints(source.NewPTR(src, source.PTROptions{ReverseZones: reverse}))
	// Output:
	// other.example.com 0 A 198.51.100.1
	// web.example.com 0 A 192.0.2.10
	// www.example.com 0 A 192.0.2.10
	// 10.2.0.192.in-addr.arpa 0 PTR web.example.com;www.example.com
}

func ExampleNAT64() {
	src := source.NewStatic(endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeAAAA, "64:ff9b::c000:20a"))
	n, err := source.NewNAT64(src, source.NAT64Options{Prefixes: []netip.Prefix{netip.MustParsePrefix("64:ff9b::/96")}})
	if err != nil {
		fmt.Println(err)
		return
	}
	printEndpoints(n)
	// Output:
	// web.example.com 0 AAAA 64:ff9b::c000:20a
	// web.example.com 0 A 192.0.2.10
}

func ExampleDefaultTargets() {
	src := source.NewStatic(
		&endpoint.Endpoint{DNSName: "internal.example.com", RecordType: endpoint.RecordTypeA},
		endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeA, "192.0.2.10"),
	)
	printEndpoints(source.NewDefaultTargets(src, source.DefaultTargetsOptions{Targets: []string{"198.51.100.1", "lb.example.net"}}))
	// Output:
	// internal.example.com 0 A 198.51.100.1
	// internal.example.com 0 CNAME lb.example.net
	// web.example.com 0 A 192.0.2.10
}

func ExamplePostProcessor() {
	src := source.NewStatic(
		endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeA, "192.0.2.10").
			WithProviderSpecific("aws/evaluate-target-health", "true").
			WithProviderSpecific("webhook/weight", "10"),
	)
	pp := source.NewPostProcessor(src, source.PostProcessorOptions{MinTTL: 60, Provider: "webhook"})
	eps, _ := pp.Endpoints(context.Background())
	fmt.Println(eps[0].RecordTTL, eps[0].ProviderSpecific)
	// Output:
	// 60 [{webhook/weight 10}]
}
