package crd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
)

// The registry declares the guarantees of its provider, found through
// wrappers; a provider that declares none gives the safe defaults.
func TestRegistryGuarantees(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	tests := []struct {
		name string
		p    provider.Provider
		want provider.Guarantees
	}{
		{"in-memory", zone, zone.Guarantees()},
		{"a provider that declares nothing", overwriting{zone}, provider.Guarantees{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newRegistry(t, tt.p, newKube(t), testOwner)
			assert.Equal(t, tt.want, reg.Guarantees())
			assert.Equal(t, tt.want, provider.GuaranteesOf(reg))
		})
	}
}
