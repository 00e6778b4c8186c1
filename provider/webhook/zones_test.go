package webhook_test

import (
	"context"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/webhook"
)

// The client lists the zones of the filter it negotiated.
func TestListZonesFromTheNegotiatedFilter(t *testing.T) {
	tests := []struct {
		name   string
		filter endpoint.DomainFilterInterface // nil: the zones' filter
		want   []string                       // nil: no zones
	}{
		{"zones of the server", nil, []string{"a.example", "b.example"}},
		{"regular expression", endpoint.NewRegexDomainFilter(regexp.MustCompile(`example$`), nil), nil},
		{"empty filter", &endpoint.DomainFilter{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p provider.Provider = inmemory.New(inmemory.Options{Zones: []string{"b.example", "A.example."}})
			if tt.filter != nil {
				p = providertest.Intercept(p, providertest.Funcs{
					GetDomainFilter: func(provider.Provider) endpoint.DomainFilterInterface { return tt.filter },
				})
			}
			srv := httptest.NewServer(webhook.NewHandler(p))
			defer srv.Close()
			client, err := webhook.NewProvider(context.Background(), srv.URL)
			require.NoError(t, err)
			zones, ok, err := provider.ZonesOf(context.Background(), client)
			require.NoError(t, err)
			assert.Equal(t, tt.want != nil, ok)
			assert.Equal(t, tt.want, zones)
		})
	}
}
