package inmemory_test

import (
	"testing"

	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
)

func TestConformance(t *testing.T) {
	providertest.TestProvider(t, func(t *testing.T) provider.Provider {
		return inmemory.New(inmemory.Options{Zones: []string{"example.org"}})
	})
}

func TestConformanceNestedZones(t *testing.T) {
	providertest.TestProvider(t, func(t *testing.T) provider.Provider {
		return inmemory.New(inmemory.Options{Zones: []string{"example.org", "sub.example.org"}})
	}, providertest.Options{Zone: "sub.example.org", Concurrency: 32})
}
