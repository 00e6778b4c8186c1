package inmemory_test

import (
	"testing"

	"github.com/zonesync/zonesync/blueprint"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
)

func TestConformance(t *testing.T) {
	blueprint.TestProvider(t, func(t *testing.T) provider.Provider {
		return inmemory.New(inmemory.WithZone("example.org"))
	})
}

func TestConformanceNestedZones(t *testing.T) {
	blueprint.TestProvider(t, func(t *testing.T) provider.Provider {
		return inmemory.New(inmemory.WithZone("example.org"), inmemory.WithZone("sub.example.org"))
	}, blueprint.WithZone("sub.example.org"), blueprint.WithConcurrency(32))
}
