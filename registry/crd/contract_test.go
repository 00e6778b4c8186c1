package crd_test

import (
	"sync"
	"testing"

	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/registrytest"
)

// The CRD registry keeps the registry contract over the fake API server:
// every registry the checker builds over one provider shares one store of
// DNSRecords, as instances of one cluster do.
func TestRegistryContract(t *testing.T) {
	var mu sync.Mutex
	stores := map[provider.Provider]*kube{}
	registrytest.TestRegistry(t, func(p provider.Provider, ownerID string) (registry.Registry, error) {
		mu.Lock()
		k := stores[p]
		if k == nil {
			k = newKube(t)
			stores[p] = k
		}
		mu.Unlock()
		return newRegistry(t, p, k, ownerID), nil
	}, registrytest.Options{OwnershipOutsideProvider: true, PerZone: true})
}
