package provider_test

import (
	"errors"
	"fmt"

	"github.com/zonesync/zonesync/provider"
)

// A provider that knows its zones scopes the plan to them.
func ExampleDomainFilterFromZones() {
	f := provider.DomainFilterFromZones([]string{"api.example.com.", "prod.myapp.io"})
	fmt.Println(f.Include())
	fmt.Println(f.Match("www.api.example.com"), f.Match("staging.myapp.io"))
	// Output:
	// [.api.example.com .prod.myapp.io api.example.com prod.myapp.io]
	// true false
}

// When the zone list cannot be read, the filter matches everything and the
// user's own filter stays in charge.
func ExampleDomainFilterFromZoneLister() {
	ok := provider.DomainFilterFromZoneLister(func() ([]string, error) {
		return []string{"example.org"}, nil
	})
	failed := provider.DomainFilterFromZoneLister(func() ([]string, error) {
		return nil, errors.New("zone API unavailable")
	})
	fmt.Println(ok.Match("www.example.net"), failed.Match("www.example.net"))
	// Output:
	// false true
}

// The most specific zone holds a name.
func ExampleZoneMatcher() {
	m := provider.NewZoneMatcher("example.org", "eu.example.org.")
	for _, name := range []string{"www.example.org", "API.EU.example.org.", "myexample.org"} {
		zone, ok := m.Zone(name)
		fmt.Printf("%s -> %q %v\n", name, zone, ok)
	}
	// Output:
	// www.example.org -> "example.org" true
	// API.EU.example.org. -> "eu.example.org" true
	// myexample.org -> "" false
}

// Transient failures are marked so that callers retry.
func ExampleNewSoftError() {
	err := fmt.Errorf("listing zone example.org: %w", provider.NewSoftError(errors.New("HTTP 503")))
	fmt.Println(err)
	fmt.Println(errors.Is(err, provider.SoftError))
	// Output:
	// listing zone example.org: soft error: HTTP 503
	// true
}
