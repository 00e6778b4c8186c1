package inmemory_test

import (
	"testing"

	"github.com/zonesync/zonesync/blueprint/blueprinttest"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
)

func TestConformance(t *testing.T) {
	blueprinttest.TestProvider(t, func(t *testing.T) provider.Provider {
		return inmemory.New(inmemory.WithZone("example.org"))
	})
}

func TestConformanceNestedZones(t *testing.T) {
	blueprinttest.TestProvider(t, func(t *testing.T) provider.Provider {
		return inmemory.New(inmemory.WithZone("example.org"), inmemory.WithZone("sub.example.org"))
	}, blueprinttest.WithZone("sub.example.org"), blueprinttest.WithConcurrency(32))
}
