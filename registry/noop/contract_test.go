package noop_test

import (
	"testing"

	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/noop"
	"github.com/zonesync/zonesync/registry/registrytest"
)

// The no-op registry keeps the contract of a registry without ownership.
func TestRegistryContract(t *testing.T) {
	registrytest.TestRegistry(t, func(p provider.Provider, _ string) (registry.Registry, error) {
		return noop.New(p), nil
	}, registrytest.Options{NoOwnership: true})
}
