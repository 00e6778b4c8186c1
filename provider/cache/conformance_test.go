package cache_test

import (
	"testing"
	"time"

	"github.com/zonesync/zonesync/provider/cache"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
)

// The wrapper keeps the provider contract of what it wraps.
func TestConformance(t *testing.T) {
	p := newCache(t, inmemory.New(inmemory.Options{Zones: []string{"example.org"}}), cache.Options{TTL: time.Hour})
	providertest.TestProvider(t, p, providertest.Options{})
}
