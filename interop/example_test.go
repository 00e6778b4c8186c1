package interop_test

import (
	"fmt"

	xendpoint "sigs.k8s.io/external-dns/endpoint"

	"github.com/zonesync/zonesync/interop"
)

// An external-dns endpoint converted to zonesync and back keeps every
// field, and Key names its record set the same way on both sides.
func ExampleToZonesync() {
	x := xendpoint.NewEndpointWithTTL("Bücher.example.com", "A", 300, "192.0.2.1").
		WithSetIdentifier("eu").WithLabel("owner", "team-a")
	z := interop.ToZonesync(x)
	back := interop.FromZonesync(z)
	owner, _ := z.Labels.Get("owner")
	fmt.Println(z.DNSName, z.RecordType, z.RecordTTL, z.Targets, z.SetIdentifier, owner)
	fmt.Println(back.DNSName == x.DNSName, back.Labels["owner"])
	fmt.Println(interop.Key(z.DNSName, z.SetIdentifier, z.RecordType))
	// Output:
	// Bücher.example.com A 300 192.0.2.1 eu team-a
	// true team-a
	// xn--bcher-kva.example.com "eu" A
}
