package registrytest_test

import (
	"context"
	"fmt"

	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/noop"
	"github.com/zonesync/zonesync/registry/registrytest"
	"github.com/zonesync/zonesync/registry/txt"
)

// A registry author checks an implementation against the contract; in a
// test, registrytest.TestRegistry(t, newRegistry) reports each rule as a
// subtest.
func ExampleCheckRegistry() {
	newTXT := func(p provider.Provider, ownerID string) (registry.Registry, error) {
		return txt.New(p, txt.Config{OwnerID: ownerID, Prefix: "own-"})
	}
	fmt.Println("txt:", registrytest.CheckRegistry(context.Background(), newTXT))

	// The no-op registry records no ownership and hands every change set
	// to the provider in one call: it is checked for what it promises.
	newNoop := func(p provider.Provider, _ string) (registry.Registry, error) {
		return noop.New(p), nil
	}
	err := registrytest.CheckRegistry(context.Background(), newNoop,
		registrytest.Options{NoOwnership: true, OneApplyCall: true})
	fmt.Println("noop:", err)
	// Output:
	// txt: <nil>
	// noop: <nil>
}
