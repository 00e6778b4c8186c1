package rfc2136_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/rfc2136"
)

// newProvider returns a provider for srv's zones signed with srv's first
// key, with the options applied to its Config.
func newProvider(t *testing.T, srv *bindtest.Server, opts ...func(*rfc2136.Config)) *rfc2136.Provider {
	t.Helper()
	k := srv.Key()
	cfg := rfc2136.Config{
		Server: srv.Addr(),
		Zones:  srv.Zones(),
		TSIG:   &rfc2136.TSIG{KeyName: k.Name, Algorithm: k.Algorithm, Secret: k.Secret},
	}
	for _, o := range opts {
		o(&cfg)
	}
	p, err := rfc2136.New(cfg)
	require.NoError(t, err)
	return p
}

func TestConformance(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.org"}})
	providertest.TestProvider(t, newProvider(t, srv), providertest.Options{Zone: "example.org", NoSetIdentifier: true})
}

func TestConformanceUDPSmallBatches(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.net"}})
	p := newProvider(t, srv, func(c *rfc2136.Config) {
		c.UDPUpdates = true
		c.MaxChangesPerUpdate = 1
		k := srv.Keys()[1]
		c.TSIG = &rfc2136.TSIG{KeyName: k.Name, Algorithm: k.Algorithm, Secret: k.Secret}
	})
	providertest.TestProvider(t, p, providertest.Options{Zone: "example.net", NoSetIdentifier: true})
}
