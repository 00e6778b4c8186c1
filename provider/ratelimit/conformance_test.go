package ratelimit_test

import (
	"testing"

	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/ratelimit"
)

// The wrapper keeps the provider contract of what it wraps.
func TestConformance(t *testing.T) {
	p := newLimited(t, inmemory.New(inmemory.Options{Zones: []string{"example.org"}}), ratelimit.Options{Rate: 1000, Burst: 100})
	providertest.TestProvider(t, p, providertest.Options{})
}
