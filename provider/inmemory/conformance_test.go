package inmemory_test

import (
	"testing"

	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
)

func TestConformance(t *testing.T) {
	p := inmemory.New(inmemory.Options{Zones: []string{"example.org"}})
	providertest.TestProvider(t, p, providertest.Options{})
}

func TestConformanceNestedZones(t *testing.T) {
	p := inmemory.New(inmemory.Options{Zones: []string{"example.org", "sub.example.org"}})
	providertest.TestProvider(t, p, providertest.Options{Zone: "sub.example.org", Concurrency: 32})
}
