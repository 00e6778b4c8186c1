package main

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/webhook"
)

func TestServesTheWebhookProtocol(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, ln, "", []string{"example.org"}) }()

	p, err := webhook.NewProvider(context.Background(), "http://"+ln.Addr().String())
	require.NoError(t, err)
	assert.True(t, p.GetDomainFilter().Match("www.example.org"))
	require.NoError(t, p.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1"),
	}}))
	recs, err := p.Records(context.Background())
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, "www.example.org", recs[0].DNSName)

	cancel()
	require.NoError(t, <-done)
}

func TestNeedsAZone(t *testing.T) {
	assert.Error(t, run(context.Background(), nil, "127.0.0.1:0", nil))
}
