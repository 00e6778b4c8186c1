package batch_test

import (
	"testing"

	"github.com/zonesync/zonesync/provider/batch"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
)

// The wrapper keeps the provider contract of what it wraps.
func TestConformance(t *testing.T) {
	p := newBatch(t, inmemory.New(inmemory.Options{Zones: []string{"example.org"}}), batch.Options{MaxRecords: 10})
	providertest.TestProvider(t, p, providertest.Options{})
}
