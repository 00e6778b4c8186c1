package webhook_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/webhook"
)

const media = webhook.MediaType

func newZone(t *testing.T) *inmemory.Provider {
	t.Helper()
	p := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	require.NoError(t, p.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("old.example.com", endpoint.RecordTypeA, 300, "192.0.2.1"),
	}}))
	return p
}

type request struct {
	method, path, contentType, body string
}

func serve(h http.Handler, r request) *httptest.ResponseRecorder {
	req := httptest.NewRequest(r.method, r.path, strings.NewReader(r.body))
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var (
	errProvider = errors.New("backend down")
	failing     = providertest.Funcs{
		Records: func(context.Context, provider.Provider) ([]*endpoint.Endpoint, error) { return nil, errProvider },
		ApplyChanges: func(context.Context, provider.Provider, *plan.Changes) error {
			return provider.NewSoftError(errProvider)
		},
		AdjustEndpoints: func(context.Context, provider.Provider, []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
			return nil, errProvider
		},
	}
)

// TestHandlerStatusCodes covers the status codes of external-dns's webhook
// server row by row, plus the
// stricter answers of this server (405, 415, 404).
func TestHandlerStatusCodes(t *testing.T) {
	const createApp = `{"create":[{"dnsName":"app.example.com","targets":["192.0.2.10"],"recordType":"A"}]}`
	tests := []struct {
		name     string
		failing  bool
		maxBody  int64
		req      request
		status   int
		wantCT   string
		wantBody string // exact, when set
	}{
		{"negotiate", false, 0, request{method: "GET", path: "/"}, 200, media, `{"include":[".example.com","example.com"]}` + "\n"},
		{"negotiate other method", false, 0, request{method: "POST", path: "/", contentType: media}, 405, "", ""},
		{"records", false, 0, request{method: "GET", path: "/records"}, 200, media,
			`[{"dnsName":"old.example.com","targets":["192.0.2.1"],"recordType":"A","recordTTL":300}]` + "\n"},
		{"records provider error", true, 0, request{method: "GET", path: "/records"}, 500, "", ""},
		{"apply", false, 0, request{method: "POST", path: "/records", contentType: media, body: createApp}, 204, "", ""},
		{"apply as application/json", false, 0, request{method: "POST", path: "/records", contentType: "application/json; charset=utf-8", body: createApp}, 204, "", ""},
		{"apply undecodable", false, 0, request{method: "POST", path: "/records", contentType: media, body: `{"create":[{"dnsName":`}, 400, "", ""},
		{"apply wrong type", false, 0, request{method: "POST", path: "/records", contentType: media, body: `{"create":{}}`}, 400, "", ""},
		{"apply null endpoint", false, 0, request{method: "POST", path: "/records", contentType: media, body: `{"create":[null]}`}, 400, "", ""},
		{"apply unpaired update", false, 0, request{method: "POST", path: "/records", contentType: media, body: `{"updateOld":[{"dnsName":"old.example.com"}]}`}, 400, "", ""},
		{"apply over the cap", false, 64, request{method: "POST", path: "/records", contentType: media, body: createApp}, 413, "", ""},
		{"apply provider soft error", true, 0, request{method: "POST", path: "/records", contentType: media, body: createApp}, 500, "", ""},
		{"apply wrong content type", false, 0, request{method: "POST", path: "/records", contentType: "text/plain", body: createApp}, 415, "", ""},
		{"apply no content type", false, 0, request{method: "POST", path: "/records", body: createApp}, 415, "", ""},
		{"apply other version", false, 0, request{method: "POST", path: "/records", contentType: "application/external.dns.webhook+json;version=2", body: createApp}, 415, "", ""},
		{"records other method", false, 0, request{method: "PUT", path: "/records", contentType: media, body: createApp}, 405, "", ""},
		{"records delete", false, 0, request{method: "DELETE", path: "/records"}, 405, "", ""},
		{"adjust", false, 0, request{method: "POST", path: "/adjustendpoints", contentType: media, body: `[{"dnsName":"app.example.com","targets":["192.0.2.10"],"recordType":"A"}]`}, 200, media,
			`[{"dnsName":"app.example.com","targets":["192.0.2.10"],"recordType":"A"}]` + "\n"},
		{"adjust empty", false, 0, request{method: "POST", path: "/adjustendpoints", contentType: media, body: `[]`}, 200, media, "[]\n"},
		{"adjust undecodable", false, 0, request{method: "POST", path: "/adjustendpoints", contentType: media, body: `[{]`}, 400, "", ""},
		{"adjust over the cap", false, 16, request{method: "POST", path: "/adjustendpoints", contentType: media, body: `[{"dnsName":"app.example.com"}]`}, 413, "", ""},
		{"adjust provider error", true, 0, request{method: "POST", path: "/adjustendpoints", contentType: media, body: `[]`}, 500, "", ""},
		{"adjust other method", false, 0, request{method: "GET", path: "/adjustendpoints"}, 405, "", ""},
		{"adjust wrong content type", false, 0, request{method: "POST", path: "/adjustendpoints", contentType: "application/xml", body: `[]`}, 415, "", ""},
		{"healthz", false, 0, request{method: "GET", path: "/healthz"}, 200, "text/plain; charset=utf-8", "OK"},
		{"metrics without handler", false, 0, request{method: "GET", path: "/metrics"}, 404, "", ""},
		{"unknown path", false, 0, request{method: "GET", path: "/applychanges"}, 404, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := providertest.NewRecordingProvider(newZone(t))
			var p provider.Provider = rec
			if tt.failing {
				p = providertest.Intercept(rec, failing)
			}
			var opts []webhook.ServerOptions
			if tt.maxBody > 0 {
				opts = append(opts, webhook.ServerOptions{MaxRequestBytes: tt.maxBody})
			}
			resp := serve(webhook.NewHandler(p, opts...), tt.req)
			assert.Equal(t, tt.status, resp.Code, "body %q", resp.Body.String())
			if tt.wantCT != "" {
				assert.Equal(t, tt.wantCT, resp.Header().Get("Content-Type"))
			}
			if tt.wantBody != "" {
				assert.Equal(t, tt.wantBody, resp.Body.String())
			}
			if resp.Code >= 400 {
				assert.Less(t, resp.Body.Len(), 1024, "error bodies stay small")
				assert.Contains(t, resp.Body.String(), tt.req.path, "error bodies name the route")
			}
			if resp.Code == 204 {
				assert.Empty(t, resp.Body.String())
			}
			if tt.req.method == "POST" && tt.req.path == "/records" && resp.Code != 204 && !tt.failing {
				assert.Empty(t, rec.CallsTo(providertest.MethodApplyChanges), "a refused change set applies nothing")
			}
		})
	}
}

func TestHandlerAppliesDecodedChanges(t *testing.T) {
	zone := newZone(t)
	body := `{"Create":[{"dnsName":"app.example.com","targets":["192.0.2.10"],"recordType":"A","recordTTL":60}],` +
		`"UpdateOld":[{"dnsName":"old.example.com","targets":["192.0.2.1"],"recordType":"A","recordTTL":300}],` +
		`"UpdateNew":[{"dnsName":"old.example.com","targets":["192.0.2.2"],"recordType":"A","recordTTL":300}]}`
	resp := serve(webhook.NewHandler(zone), request{method: "POST", path: "/records", contentType: media, body: body})
	require.Equal(t, 204, resp.Code, resp.Body.String())
	recs, err := zone.Records(context.Background())
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Equal(t, "app.example.com", recs[0].DNSName)
	assert.Equal(t, endpoint.Targets{"192.0.2.2"}, recs[1].Targets, "pre-v0.17 upper-case keys are understood")
}

func TestHandlerNilRecordsEncodeAsNull(t *testing.T) {
	p := providertest.Intercept(newZone(t), providertest.Funcs{
		Records: func(context.Context, provider.Provider) ([]*endpoint.Endpoint, error) { return nil, nil },
	})
	resp := serve(webhook.NewHandler(p), request{method: "GET", path: "/records"})
	assert.Equal(t, 200, resp.Code)
	assert.Equal(t, "null\n", resp.Body.String())
}

type ctxKey struct{}

func TestHandlerPassesRequestContext(t *testing.T) {
	var got any
	p := providertest.Intercept(newZone(t), providertest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			got = ctx.Value(ctxKey{})
			return next.Records(ctx)
		},
	})
	req := httptest.NewRequest("GET", "/records", nil)
	req = req.WithContext(context.WithValue(req.Context(), ctxKey{}, "marker"))
	webhook.NewHandler(p).ServeHTTP(httptest.NewRecorder(), req)
	assert.Equal(t, "marker", got)
}

func TestHandlerMetrics(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "zonesync_up 1\n") })
	h := webhook.NewHandler(newZone(t), webhook.ServerOptions{MetricsHandler: metrics})
	resp := serve(h, request{method: "GET", path: "/metrics"})
	assert.Equal(t, 200, resp.Code)
	assert.Equal(t, "zonesync_up 1\n", resp.Body.String())
	assert.Equal(t, 405, serve(h, request{method: "POST", path: "/metrics", contentType: media}).Code)
}

func TestServeShutsDownWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- webhook.Serve(ctx, webhook.NewHandler(newZone(t)), webhook.ServeConfig{Listener: ln}) }()

	p, err := webhook.NewProvider(context.Background(), "http://"+ln.Addr().String())
	require.NoError(t, err)
	recs, err := p.Records(context.Background())
	require.NoError(t, err)
	assert.Len(t, recs, 1)

	cancel()
	require.NoError(t, <-done)
	_, err = p.Records(context.Background())
	assert.Error(t, err, "the server is gone after shutdown")
}

// TestServeLogsThroughContext: Serve hands the logger of its context to
// every request, and the handler logs provider failures with the route.
func TestServeLogsThroughContext(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	log := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, prefix+" "+args)
	}, funcr.Options{})
	ctx, cancel := context.WithCancel(logr.NewContext(context.Background(), log))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		done <- webhook.Serve(ctx, webhook.NewHandler(providertest.Intercept(newZone(t), failing)), webhook.ServeConfig{Listener: ln})
	}()
	p, err := webhook.NewProvider(context.Background(), "http://"+ln.Addr().String())
	require.NoError(t, err)
	_, err = p.Records(context.Background())
	require.ErrorIs(t, err, provider.SoftError)
	assert.Contains(t, err.Error(), "backend down", "the server's message reaches the client")
	cancel()
	require.NoError(t, <-done)

	mu.Lock()
	defer mu.Unlock()
	joined := strings.Join(lines, "\n")
	assert.Contains(t, joined, `"msg"="webhook request failed"`)
	assert.Contains(t, joined, `"path"="/records"`)
	assert.Contains(t, joined, `"status"=500`)
}

func TestServeReportsListenErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	err = webhook.Serve(context.Background(), webhook.NewHandler(newZone(t)), webhook.ServeConfig{Address: ln.Addr().String()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), ln.Addr().String(), "names the address")
}
