package webhook_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/webhook"
)

// TestClientGuarantees: the client declares exactly the guarantees given
// in ClientOptions.Guarantees, and nothing (the safe zero value) without
// them; the core finds them through wrappers, and what it is given is a
// copy that neither the caller's options nor a previous answer can change.
func TestClientGuarantees(t *testing.T) {
	declared := provider.Guarantees{
		CreateFailsIfExists: true,
		KeepsSetIdentifiers: true,
		RecordTypes:         []string{"A", "AAAA", "TXT"},
		ProviderSpecific:    []string{"webhook/"},
	}
	tests := []struct {
		name string
		opts []webhook.ClientOptions
		want provider.Guarantees
	}{
		{"no options: nothing declared", nil, provider.Guarantees{}},
		{"options without guarantees: nothing declared", []webhook.ClientOptions{{Timeout: time.Minute}}, provider.Guarantees{}},
		{"declared", []webhook.ClientOptions{{Guarantees: &declared}}, declared},
		{"declared, a later option without them keeps them", []webhook.ClientOptions{{Guarantees: &declared}, {Timeout: time.Minute}}, declared},
		{"a later declaration overrides", []webhook.ClientOptions{{Guarantees: &declared}, {Guarantees: &provider.Guarantees{KeepsSetIdentifiers: true}}},
			provider.Guarantees{KeepsSetIdentifiers: true}},
	}
	srv := httptest.NewServer(webhook.NewHandler(newZone(t)))
	t.Cleanup(srv.Close)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := webhook.NewProvider(context.Background(), srv.URL, tt.opts...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.Guarantees())
			assert.Equal(t, tt.want, provider.GuaranteesOf(p))
			wrapped := providertest.NewRecordingProvider(p)
			assert.Equal(t, tt.want, provider.GuaranteesOf(wrapped), "found through a wrapper")

			withSetID := endpoint.NewEndpoint("app.example.com", endpoint.RecordTypeA, "192.0.2.1")
			withSetID.SetIdentifier = "eu"
			if tt.want.KeepsSetIdentifiers {
				assert.NoError(t, provider.GuaranteesOf(p).Check(withSetID))
			} else {
				assert.ErrorIs(t, provider.GuaranteesOf(p).Check(withSetID), provider.ErrUnsupported, "refused unless declared")
			}
		})
	}

	t.Run("copies", func(t *testing.T) {
		mine := declared.Clone()
		p, err := webhook.NewProvider(context.Background(), srv.URL, webhook.ClientOptions{Guarantees: &mine})
		require.NoError(t, err)
		mine.RecordTypes[0] = "CNAME"
		mine.KeepsSetIdentifiers = false
		got := p.Guarantees()
		assert.Equal(t, declared, got, "the caller's options changed after NewProvider")
		got.RecordTypes[0] = "MX"
		got.ProviderSpecific = append(got.ProviderSpecific[:0], "x")
		assert.Equal(t, declared, p.Guarantees(), "a previous answer changed")
	})
}
