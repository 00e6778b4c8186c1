package externaldns_test

import (
	"context"
	"testing"

	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xinmemory "sigs.k8s.io/external-dns/provider/inmemory"

	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/provider/providertest"
)

func TestConformanceInMemory(t *testing.T) {
	providertest.TestProvider(t, func(t *testing.T) provider.Provider {
		p := xinmemory.NewInMemoryProvider(
			xinmemory.InMemoryInitZones([]string{"example.org"}),
			xinmemory.InMemoryWithDomain(xendpoint.NewDomainFilter([]string{"example.org"})),
		)
		return externaldns.Wrap(p, externaldns.Options{Name: "inmemory"})
	})
	_ = context.Background
}
