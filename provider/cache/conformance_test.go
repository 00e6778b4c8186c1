package cache_test

import (
	"testing"
	"time"

	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/cache"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
)

// The wrapper keeps the provider contract of what it wraps.
func TestConformance(t *testing.T) {
	providertest.TestProvider(t, func(t *testing.T) provider.Provider {
		return cache.New(inmemory.New(inmemory.Options{Zones: []string{"example.org"}}), cache.Options{TTL: time.Hour})
	})
}
