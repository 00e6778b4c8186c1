package rfc2136_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/rfc2136"
)

// The zones capability answers from the configuration, without a server.
func TestListZones(t *testing.T) {
	p, err := rfc2136.New(rfc2136.Config{Server: "192.0.2.53", Zones: []string{"B.example.", "a.example"}})
	require.NoError(t, err)
	zones, ok, err := provider.ZonesOf(context.Background(), p)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, []string{"a.example", "b.example"}, zones)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = p.ListZones(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}
