package webhook_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/webhook"
)

// A worked exchange between external-dns and a webhook (negotiation,
// records, changes), byte for byte. Bodies written by
// a streaming encoder end with one newline.
const (
	exNegotiate = `{"include":["example.com"]}`
	exRecords   = `[{"dnsName":"old.example.com","targets":["192.0.2.1"],"recordType":"A","recordTTL":300},{"dnsName":"a-old.example.com","targets":["\"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/old\""],"recordType":"TXT","recordTTL":300}]`
	exAdjustIn  = `[{"dnsName":"app.example.com","targets":["192.0.2.10"],"recordType":"A","labels":{"resource":"service/default/app"},"providerSpecific":[{"name":"webhook/priority","value":"10"}]}]`
	exAdjustOut = `[{"dnsName":"app.example.com","targets":["192.0.2.10"],"recordType":"A","recordTTL":300,"labels":{"resource":"service/default/app"},"providerSpecific":[{"name":"webhook/priority","value":"10"}]}]`
	exApply     = `{"create":[{"dnsName":"app.example.com","targets":["192.0.2.10"],"recordType":"A","recordTTL":300,"labels":{"owner":"default","resource":"service/default/app"},"providerSpecific":[{"name":"webhook/priority","value":"10"}]},{"dnsName":"a-app.example.com","targets":["\"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app\""],"recordType":"TXT","labels":{"ownedRecord":"app.example.com"},"providerSpecific":[{"name":"webhook/priority","value":"10"}]}],"delete":[{"dnsName":"old.example.com","targets":["192.0.2.1"],"recordType":"A","recordTTL":300,"labels":{"owner":"default","resource":"service/default/old"}},{"dnsName":"a-old.example.com","targets":["\"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/old\""],"recordType":"TXT","labels":{"ownedRecord":"old.example.com"}}]}`
)

const (
	oldTXT = `"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/old"`
	appTXT = `"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"`
)

func exRecordsValue() []*endpoint.Endpoint {
	return []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("old.example.com", "A", 300, "192.0.2.1"),
		endpoint.NewEndpointWithTTL("a-old.example.com", "TXT", 300, oldTXT),
	}
}

func exDesired() *endpoint.Endpoint {
	return endpoint.NewEndpoint("app.example.com", "A", "192.0.2.10").
		WithLabel("resource", "service/default/app").WithProviderSpecific("webhook/priority", "10")
}

func exChanges() *plan.Changes {
	app := endpoint.NewEndpointWithTTL("app.example.com", "A", 300, "192.0.2.10").
		WithLabel("owner", "default").WithLabel("resource", "service/default/app").WithProviderSpecific("webhook/priority", "10")
	appTXTEp := endpoint.NewEndpoint("a-app.example.com", "TXT", appTXT).
		WithLabel("ownedRecord", "app.example.com").WithProviderSpecific("webhook/priority", "10")
	old := endpoint.NewEndpointWithTTL("old.example.com", "A", 300, "192.0.2.1").
		WithLabel("owner", "default").WithLabel("resource", "service/default/old")
	oldTXTEp := endpoint.NewEndpoint("a-old.example.com", "TXT", oldTXT).WithLabel("ownedRecord", "old.example.com")
	return &plan.Changes{Create: []*endpoint.Endpoint{app, appTXTEp}, Delete: []*endpoint.Endpoint{old, oldTXTEp}}
}

// TestWorkedExchangeClient plays the server of §2.6 and checks every byte
// the client sends, and what it makes of the answers.
func TestWorkedExchangeClient(t *testing.T) {
	type seen struct{ method, path, accept, contentType, body string }
	var (
		mu  sync.Mutex
		got []seen
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Method, r.URL.Path, r.Header.Get("Accept"), r.Header.Get("Content-Type"), string(body)})
		mu.Unlock()
		switch r.Method + " " + r.URL.Path {
		case "GET /":
			w.Header().Set("Content-Type", media)
			_, _ = io.WriteString(w, exNegotiate)
		case "GET /records":
			w.Header().Set("Content-Type", media)
			_, _ = io.WriteString(w, exRecords)
		case "POST /adjustendpoints":
			w.Header().Set("Content-Type", media)
			_, _ = io.WriteString(w, exAdjustOut)
		case "POST /records":
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()

	ctx := context.Background()
	p, err := webhook.NewProvider(ctx, srv.URL)
	require.NoError(t, err)
	assert.Equal(t, []string{"example.com"}, p.DomainFilter().Include())

	recs, err := p.Records(ctx)
	require.NoError(t, err)
	want := exRecordsValue()
	assert.Equal(t, []*endpoint.Endpoint{want[1], want[0]}, recs, "sorted by name")

	adjusted, err := p.AdjustEndpoints(context.Background(), []*endpoint.Endpoint{exDesired()})
	require.NoError(t, err)
	wantAdjusted := exDesired()
	wantAdjusted.RecordTTL = 300
	assert.Equal(t, []*endpoint.Endpoint{wantAdjusted}, adjusted)

	require.NoError(t, p.ApplyChanges(ctx, exChanges()))

	assert.Equal(t, []seen{
		{"GET", "/", media, "", ""},
		{"GET", "/records", media, "", ""},
		{"POST", "/adjustendpoints", media, media, exAdjustIn + "\n"},
		{"POST", "/records", "", media, exApply + "\n"},
	}, got)
}

// TestWorkedExchangeServer sends the requests of §2.6 to the handler and
// checks every byte of the answers and what reaches the provider.
func TestWorkedExchangeServer(t *testing.T) {
	zone := providertest.NewRecordingProvider(providertest.Intercept(newZone(t), providertest.Funcs{
		Records:      func(context.Context, provider.Provider) ([]*endpoint.Endpoint, error) { return exRecordsValue(), nil },
		ApplyChanges: func(context.Context, provider.Provider, *plan.Changes) error { return nil },
		AdjustEndpoints: func(_ context.Context, _ provider.Provider, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
			out := endpoint.DeepCopyAll(eps)
			for _, ep := range out {
				ep.RecordTTL = 300
			}
			return out, nil
		},
		GetDomainFilter: func(provider.Provider) endpoint.DomainFilterInterface {
			return endpoint.NewDomainFilter([]string{"example.com"})
		},
	}))
	h := webhook.NewHandler(zone)

	for _, ex := range []struct {
		req         request
		status      int
		contentType string
		body        string
	}{
		{request{method: "GET", path: "/"}, 200, media, exNegotiate + "\n"},
		{request{method: "GET", path: "/records"}, 200, media, exRecords + "\n"},
		{request{method: "POST", path: "/adjustendpoints", contentType: media, body: exAdjustIn}, 200, media, exAdjustOut + "\n"},
		{request{method: "POST", path: "/records", contentType: media, body: exApply}, 204, "", ""},
	} {
		resp := serve(h, ex.req)
		assert.Equal(t, ex.status, resp.Code, ex.req.method+" "+ex.req.path)
		assert.Equal(t, ex.contentType, resp.Header().Get("Content-Type"), ex.req.method+" "+ex.req.path)
		assert.Equal(t, ex.body, resp.Body.String(), ex.req.method+" "+ex.req.path)
	}
	applied := zone.CallsTo(providertest.MethodApplyChanges)
	require.Len(t, applied, 1)
	assert.Equal(t, exChanges(), applied[0].Changes)
	adjusted := zone.CallsTo(providertest.MethodAdjustEndpoints)
	require.Len(t, adjusted, 1)
	assert.Equal(t, []*endpoint.Endpoint{exDesired()}, adjusted[0].Endpoints)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
