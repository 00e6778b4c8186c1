package interop

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	"sigs.k8s.io/external-dns/pkg/apis/externaldns"
	xplan "sigs.k8s.io/external-dns/plan"
	xprovider "sigs.k8s.io/external-dns/provider"
	xinmemory "sigs.k8s.io/external-dns/provider/inmemory"
	xwebhook "sigs.k8s.io/external-dns/provider/webhook"
	xapi "sigs.k8s.io/external-dns/provider/webhook/api"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/webhook"
)

// webhookZone is the zone of the webhook tests: one record of each kind
// the TXT tests use, with TTLs, set identifiers and provider-specific
// properties, which the webhook carries and the TXT registry does not.
func webhookZone() []*endpoint.Endpoint {
	return []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("a.example.com", "A", 300, "192.0.2.1", "192.0.2.2"),
		endpoint.NewEndpoint("aaaa.example.com", "AAAA", "2001:db8::1"),
		endpoint.NewEndpoint("www.example.com", "CNAME", "a.example.com"),
		endpoint.NewEndpoint("mx.example.com", "MX", "10 mail.example.com"),
		endpoint.NewEndpoint("_sip._tcp.example.com", "SRV", "10 5 5060 sip.example.com."),
		endpoint.NewEndpoint("txt.example.com", "TXT", `"v=spf1 -all"`, `"a \"quoted\" value"`),
		endpoint.NewEndpoint("w.example.com", "A", "192.0.2.3").WithSetIdentifier("eu").
			WithProviderSpecific("aws/weight", "10"),
		endpoint.NewEndpoint("*.apps.example.com", "A", "192.0.2.4"),
		endpoint.NewEndpoint("xn--bcher-kva.example.com", "A", "192.0.2.5"),
	}
}

// externalClient negotiates with a webhook server through external-dns's
// webhook provider.
func externalClient(ctx context.Context, t testing.TB, url string) xprovider.Provider {
	t.Helper()
	p, err := xwebhook.New(ctx, &externaldns.Config{
		WebhookProviderURL:          url,
		WebhookProviderReadTimeout:  2 * time.Minute,
		WebhookProviderWriteTimeout: 2 * time.Minute,
	}, nil)
	require.NoError(t, err)
	return p
}

// externalServer serves an external-dns provider with external-dns's
// webhook server handlers, routed as its StartHTTPApi routes them.
func externalServer(t testing.TB, p xprovider.Provider) *httptest.Server {
	t.Helper()
	s := &xapi.WebhookServer{Provider: p}
	m := http.NewServeMux()
	m.HandleFunc("/", s.NegotiateHandler)
	m.HandleFunc(xapi.UrlRecords, s.RecordsHandler)
	m.HandleFunc(xapi.UrlAdjustEndpoints, s.AdjustEndpointsHandler)
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	return srv
}

// TestWebhookExternalDNSClientZonesyncServer drives webhook.NewHandler over
// zonesync's in-memory provider with external-dns's webhook client.
func TestWebhookExternalDNSClientZonesyncServer(t *testing.T) {
	ctx := context.Background()
	zp := inmemory.New(inmemory.Options{Zones: []string{testZone}, DomainFilter: endpoint.NewDomainFilterWithExclusions([]string{testZone}, []string{"internal.example.com"})})
	require.NoError(t, zp.ApplyChanges(ctx, &plan.Changes{Create: webhookZone()}))
	srv := httptest.NewServer(webhook.NewHandler(zp))
	t.Cleanup(srv.Close)
	xc := externalClient(ctx, t, srv.URL)

	// Negotiate: the filter external-dns decoded matches what ours matches.
	df := xc.GetDomainFilter()
	for _, name := range []string{"a.example.com", "example.com", "x.internal.example.com", "example.org"} {
		require.Equal(t, zp.GetDomainFilter().Match(name), df.Match(name), "negotiated filter on %s", name)
	}

	// Records.
	got, err := xc.Records(ctx)
	require.NoError(t, err)
	want, err := zp.Records(ctx)
	require.NoError(t, err)
	require.Equal(t, endpointLines(want), endpointLines(ToZonesyncAll(got)))

	// Adjust.
	in := []*xendpoint.Endpoint{xendpoint.NewEndpoint("New.Example.com", "A", "192.0.2.9"), xendpoint.NewEndpoint("c.example.com", "CNAME", "a.example.com.")}
	adj, err := xc.AdjustEndpoints(in)
	require.NoError(t, err)
	wantAdj, err := zp.AdjustEndpoints(ctx, ToZonesyncAll(in))
	require.NoError(t, err)
	require.Equal(t, endpointLines(wantAdj), endpointLines(ToZonesyncAll(adj)))

	// Apply.
	changes := &xplan.Changes{
		Create:    []*xendpoint.Endpoint{xendpoint.NewEndpoint("new.example.com", "A", "192.0.2.9")},
		UpdateOld: []*xendpoint.Endpoint{FromZonesync(webhookZone()[0])},
		UpdateNew: []*xendpoint.Endpoint{xendpoint.NewEndpointWithTTL("a.example.com", "A", 600, "192.0.2.7")},
		Delete:    []*xendpoint.Endpoint{FromZonesync(webhookZone()[2])},
	}
	require.NoError(t, xc.ApplyChanges(ctx, changes))
	after, err := zp.Records(ctx)
	require.NoError(t, err)
	wantAfter := append(webhookZone()[1:2], webhookZone()[3:]...)
	wantAfter = append(wantAfter,
		endpoint.NewEndpoint("new.example.com", "A", "192.0.2.9"),
		endpoint.NewEndpointWithTTL("a.example.com", "A", 600, "192.0.2.7"))
	require.Equal(t, endpointLines(wantAfter), endpointLines(after))
}

// TestWebhookZonesyncClientExternalDNSServer drives external-dns's webhook
// server over its in-memory provider with zonesync's webhook client.
func TestWebhookZonesyncClientExternalDNSServer(t *testing.T) {
	ctx := context.Background()
	xp := xinmemory.NewInMemoryProvider(xinmemory.InMemoryWithDomain(xendpoint.NewDomainFilterWithExclusions([]string{testZone}, []string{"internal.example.com"})))
	require.NoError(t, xp.CreateZone(testZone))
	require.NoError(t, xp.ApplyChanges(ctx, &xplan.Changes{Create: FromZonesyncAll(webhookZone())}))
	srv := externalServer(t, xp)
	zc, err := webhook.NewProvider(ctx, srv.URL)
	require.NoError(t, err)

	df := zc.GetDomainFilter()
	for _, name := range []string{"a.example.com", "example.com", "x.internal.example.com", "example.org"} {
		require.Equal(t, xp.GetDomainFilter().Match(name), df.Match(name), "negotiated filter on %s", name)
	}

	got, err := zc.Records(ctx)
	require.NoError(t, err)
	want, err := xp.Records(ctx)
	require.NoError(t, err)
	require.Equal(t, endpointLines(ToZonesyncAll(want)), endpointLines(got))

	in := []*endpoint.Endpoint{endpoint.NewEndpoint("new.example.com", "A", "192.0.2.9").WithSetIdentifier("x")}
	adj, err := zc.AdjustEndpoints(ctx, in)
	require.NoError(t, err)
	wantAdj, err := xp.AdjustEndpoints(FromZonesyncAll(in))
	require.NoError(t, err)
	require.Equal(t, endpointLines(ToZonesyncAll(wantAdj)), endpointLines(adj))

	changes := &plan.Changes{
		Create:    []*endpoint.Endpoint{endpoint.NewEndpoint("new.example.com", "A", "192.0.2.9")},
		UpdateOld: []*endpoint.Endpoint{webhookZone()[0]},
		UpdateNew: []*endpoint.Endpoint{endpoint.NewEndpointWithTTL("a.example.com", "A", 600, "192.0.2.7")},
		Delete:    []*endpoint.Endpoint{webhookZone()[2]},
	}
	require.NoError(t, zc.ApplyChanges(ctx, changes))
	after, err := xp.Records(ctx)
	require.NoError(t, err)
	wantAfter := append(webhookZone()[1:2], webhookZone()[3:]...)
	wantAfter = append(wantAfter,
		endpoint.NewEndpoint("new.example.com", "A", "192.0.2.9"),
		endpoint.NewEndpointWithTTL("a.example.com", "A", 600, "192.0.2.7"))
	require.Equal(t, endpointLines(wantAfter), endpointLines(ToZonesyncAll(after)))
}

// webhookLargeRecords is the size of the large webhook tests, in records.
const webhookLargeRecords = 100_000

// TestWebhookLarge sends 100,000 records each way: external-dns's client
// reads them from zonesync's server, and zonesync's client from
// external-dns's server; both also apply them.
func TestWebhookLarge(t *testing.T) {
	ctx := context.Background()
	zone := WorkloadZonesync(webhookLargeRecords / 2)
	want := endpointLines(zone)

	t.Run("external-dns client, zonesync server", func(t *testing.T) {
		zp := inmemory.New(inmemory.Options{Zones: []string{WorkloadZone}})
		srv := httptest.NewServer(webhook.NewHandler(zp, webhook.ServerOptions{MaxRequestBytes: -1}))
		t.Cleanup(srv.Close)
		xc := externalClient(ctx, t, srv.URL)
		require.NoError(t, xc.ApplyChanges(ctx, &xplan.Changes{Create: FromZonesyncAll(zone)}))
		got, err := xc.Records(ctx)
		require.NoError(t, err)
		require.Len(t, got, webhookLargeRecords)
		require.Equal(t, want, endpointLines(ToZonesyncAll(got)))
	})
	t.Run("zonesync client, external-dns server", func(t *testing.T) {
		xp := xinmemory.NewInMemoryProvider()
		require.NoError(t, xp.CreateZone(WorkloadZone))
		srv := externalServer(t, xp)
		zc, err := webhook.NewProvider(ctx, srv.URL, webhook.ClientOptions{MaxResponseBytes: -1})
		require.NoError(t, err)
		require.NoError(t, zc.ApplyChanges(ctx, &plan.Changes{Create: zone}))
		got, err := zc.Records(ctx)
		require.NoError(t, err)
		require.Len(t, got, webhookLargeRecords)
		require.Equal(t, want, endpointLines(got))
	})
}
