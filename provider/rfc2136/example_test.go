package rfc2136_test

import (
	"fmt"

	"github.com/zonesync/zonesync/provider/rfc2136"
)

// New checks the configuration without contacting the server; the
// provider's domain filter covers the configured zones.
func ExampleNew() {
	p, err := rfc2136.New(rfc2136.Config{
		Server: "192.0.2.53",
		Zones:  []string{"Example.ORG.", "example.net"},
		TSIG:   &rfc2136.TSIG{KeyName: "zonesync", Algorithm: "hmac-sha256", Secret: "c2VjcmV0"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Zones())
	f := p.GetDomainFilter()
	fmt.Println(f.Match("www.example.org"), f.Match("example.net"), f.Match("example.com"))

	_, err = rfc2136.New(rfc2136.Config{Server: "192.0.2.53", Zones: []string{"example.org"},
		TSIG: &rfc2136.TSIG{KeyName: "k", Algorithm: "hmac-md5", Secret: "c2VjcmV0"}})
	fmt.Println(err)
	// Output:
	// [example.net example.org]
	// true true false
	// rfc2136: invalid configuration: Config.TSIG.Algorithm "hmac-md5" is not supported: use hmac-sha256 or hmac-sha512, the algorithm of the server's key statement
}
