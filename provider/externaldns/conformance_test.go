package externaldns_test

import (
	"testing"

	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xinmemory "sigs.k8s.io/external-dns/provider/inmemory"

	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/provider/providertest"
)

func TestConformanceInMemory(t *testing.T) {
	p := xinmemory.NewInMemoryProvider(
		xinmemory.InMemoryInitZones([]string{"example.org"}),
		xinmemory.InMemoryWithDomain(xendpoint.NewDomainFilter([]string{"example.org"})),
	)
	providertest.TestProvider(t, externaldns.Wrap(p, externaldns.Options{Name: "inmemory"}), providertest.Options{})
}
