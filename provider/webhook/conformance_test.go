package webhook_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/webhook"
)

// TestConformance runs the conformance suite on client → handler →
// inmemory: the protocol loses nothing a provider must keep.
func TestConformance(t *testing.T) {
	srv := httptest.NewServer(webhook.NewHandler(inmemory.New(inmemory.Options{Zones: []string{"example.org"}})))
	t.Cleanup(srv.Close)
	p, err := webhook.NewProvider(context.Background(), srv.URL+"/", webhook.ClientOptions{HTTPClient: srv.Client()})
	require.NoError(t, err)
	providertest.TestProvider(t, p, providertest.Options{})
}
