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
// test, registrytest.TestRegistry(t, newRegistry, opts) runs the same
// checks and reports each violation with t.Error.
func ExampleCheckRegistry() {
	newTXT := func(p provider.Provider, ownerID string) (registry.Registry, error) {
		return txt.New(p, txt.Config{OwnerID: ownerID, Prefix: "own-"})
	}
	// The TXT registry also declares that it applies one zone per call.
	fmt.Println("txt:", registrytest.CheckRegistry(context.Background(), newTXT, registrytest.Options{PerZone: true}))

	// The no-op registry records no ownership: it is checked for what it
	// promises instead.
	newNoop := func(p provider.Provider, _ string) (registry.Registry, error) {
		return noop.New(p), nil
	}
	err := registrytest.CheckRegistry(context.Background(), newNoop,
		registrytest.Options{NoOwnership: true})
	fmt.Println("noop:", err)
	// Output:
	// txt: <nil>
	// noop: <nil>
}
