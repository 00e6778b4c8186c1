package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/webhook"
)

// fastRetries keeps negotiation retries quick in tests.
// fastRetries retries negotiation at once. Its timeout is far above the
// default: the tests that read bodies up to the size cap must fail on the
// cap, not on time, also under -race on a loaded machine.
var fastRetries = webhook.ClientOptions{NegotiateAttempts: 5, NegotiateBackoff: time.Millisecond, NegotiateMaxBackoff: 2 * time.Millisecond, Timeout: 3 * time.Minute}

// fakeWebhook answers negotiation correctly and every other request with
// route(w, r).
func fakeWebhook(t *testing.T, route http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", media)
			_, _ = io.WriteString(w, `{"include":["example.com"]}`)
			return
		}
		route(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestNegotiation(t *testing.T) {
	tests := []struct {
		name     string
		answers  []func(w http.ResponseWriter) // one per attempt; the last repeats
		wantErr  string
		attempts int32
	}{
		{"ok", []func(http.ResponseWriter){ok}, "", 1},
		{"other 2xx accepted", []func(http.ResponseWriter){func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", media)
			w.WriteHeader(http.StatusAccepted)
			_, _ = io.WriteString(w, `{}`)
		}}, "", 1},
		{"5xx retried", []func(http.ResponseWriter){status(503), status(500), ok}, "", 3},
		{"5xx five times fails", []func(http.ResponseWriter){status(502)}, "502 Bad Gateway", 5},
		{"transport error retried", []func(http.ResponseWriter){hangUp, ok}, "", 2},
		{"4xx not retried", []func(http.ResponseWriter){status(404), ok}, "404 Not Found", 1},
		{"3xx not followed or retried", []func(http.ResponseWriter){redirect, ok}, "302 Found", 1},
		{"wrong content type", []func(http.ResponseWriter){func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{}`)
		}}, `Content-Type "application/json"`, 1},
		{"endless filter", []func(http.ResponseWriter){func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", media)
			_, _ = io.Copy(w, io.LimitReader(&endless{prefix: "{", unit: " "}, 20<<20))
		}}, "response body too large", 1},
		{"bad filter", []func(http.ResponseWriter){func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", media)
			_, _ = io.WriteString(w, `{"include":["a"],"regexInclude":"b"}`)
		}}, "domain filter", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var attempts atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				assert.Equal(t, media, r.Header.Get("Accept"))
				n := int(attempts.Add(1))
				tt.answers[min(n, len(tt.answers))-1](w)
			}))
			defer srv.Close()
			p, err := webhook.NewProvider(context.Background(), srv.URL+"/dns", fastRetries)
			assert.Equal(t, tt.attempts, attempts.Load(), "attempts")
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.NotNil(t, p.DomainFilter())
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), srv.URL+"/dns", "the error names the URL")
		})
	}
}

func ok(w http.ResponseWriter) {
	w.Header().Set("Content-Type", media)
	_, _ = io.WriteString(w, `{"include":["example.com"]}`)
}

func status(code int) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) { http.Error(w, "try later", code) }
}

func redirect(w http.ResponseWriter) {
	w.Header().Set("Location", "/elsewhere")
	w.WriteHeader(http.StatusFound)
}

func hangUp(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

func TestNegotiationKeepsFilter(t *testing.T) {
	srv := fakeWebhook(t, nil)
	p, err := webhook.NewProvider(context.Background(), srv.URL)
	require.NoError(t, err)
	assert.True(t, p.GetDomainFilter().Match("www.example.com"))
	assert.False(t, p.GetDomainFilter().Match("example.org"))
	assert.Equal(t, []string{"example.com"}, p.DomainFilter().Include())
}

func TestNegotiationHonoursContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { status(503)(w) }))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := webhook.NewProvider(ctx, srv.URL, webhook.ClientOptions{NegotiateAttempts: 5, NegotiateBackoff: time.Hour, NegotiateMaxBackoff: time.Hour})
	require.ErrorIs(t, err, context.Canceled)
}

// TestClientStatusCodes covers the status codes external-dns's client
// accepts and how it classifies the others, for the three routes.
func TestClientStatusCodes(t *testing.T) {
	type call struct {
		name string
		want int
		do   func(ctx context.Context, p *webhook.Provider) error
	}
	calls := []call{
		{"GET /records", 200, func(ctx context.Context, p *webhook.Provider) error {
			_, err := p.Records(ctx)
			return err
		}},
		{"POST /adjustendpoints", 200, func(ctx context.Context, p *webhook.Provider) error {
			_, err := p.AdjustEndpoints(ctx, []*endpoint.Endpoint{endpoint.NewEndpoint("a.example.com", "A", "192.0.2.1")})
			return err
		}},
		{"POST /records", 204, func(ctx context.Context, p *webhook.Provider) error {
			return p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("a.example.com", "A", "192.0.2.1")}})
		}},
	}
	statuses := []struct {
		code int
		soft bool
	}{{200, false}, {201, false}, {202, false}, {204, false}, {302, false}, {400, false}, {404, false}, {405, false},
		{499, false}, {500, true}, {503, true}, {504, true}, {510, true}, {511, false}, {599, false}}
	for _, c := range calls {
		for _, st := range statuses {
			t.Run(fmt.Sprintf("%s %d", c.name, st.code), func(t *testing.T) {
				srv := fakeWebhook(t, func(w http.ResponseWriter, r *http.Request) {
					_, _ = io.Copy(io.Discard, r.Body)
					if st.code == 302 {
						w.Header().Set("Location", "/")
					}
					if st.code >= 300 {
						w.Header().Set("Content-Type", "text/plain")
						w.WriteHeader(st.code)
						_, _ = io.WriteString(w, "the server says no "+strings.Repeat("x", 1000))
						return
					}
					w.Header().Set("Content-Type", media)
					w.WriteHeader(st.code)
					if st.code != 204 {
						_, _ = io.WriteString(w, `[]`)
					}
				})
				p, err := webhook.NewProvider(context.Background(), srv.URL)
				require.NoError(t, err)
				err = c.do(context.Background(), p)
				if st.code == c.want {
					require.NoError(t, err)
					return
				}
				require.Error(t, err)
				assert.Equal(t, st.soft, errors.Is(err, provider.SoftError), "soft error: %v", err)
				method, path, _ := strings.Cut(c.name, " ")
				assert.Contains(t, err.Error(), method+" "+srv.URL+path, "names the route")
				assert.Contains(t, err.Error(), fmt.Sprintf("status %d", st.code), "names the status")
				if st.code >= 300 {
					assert.Contains(t, err.Error(), "the server says no", "carries the server's message")
					assert.Less(t, len(err.Error()), 600, "but only its start")
				}
			})
		}
	}
}

// TestClientRequests checks what the client sends: methods, paths under
// the base path, headers.
func TestClientRequests(t *testing.T) {
	type seen struct{ method, path, accept, contentType string }
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		got = append(got, seen{r.Method, r.URL.Path, r.Header.Get("Accept"), r.Header.Get("Content-Type")})
		w.Header().Set("Content-Type", media)
		switch {
		case r.URL.Path == "/dns/":
			_, _ = io.WriteString(w, `{}`)
		case r.Method == "POST" && r.URL.Path == "/dns/records":
			w.WriteHeader(204)
		default:
			_, _ = io.WriteString(w, `[]`)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	p, err := webhook.NewProvider(ctx, srv.URL+"/dns/")
	require.NoError(t, err)
	_, err = p.Records(ctx)
	require.NoError(t, err)
	_, err = p.AdjustEndpoints(context.Background(), nil)
	require.NoError(t, err)
	require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{}))
	assert.Equal(t, []seen{
		{"GET", "/dns/", media, ""},
		{"GET", "/dns/records", media, ""},
		{"POST", "/dns/adjustendpoints", media, media},
		{"POST", "/dns/records", "", media},
	}, got)
}

func TestClientRejectsBadBodies(t *testing.T) {
	for _, body := range []string{``, `{}`, `[{"dnsName":1}]`, `[{"dnsName":"a"}`, `[] junk`} {
		t.Run(body, func(t *testing.T) {
			srv := fakeWebhook(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, body) })
			p, err := webhook.NewProvider(context.Background(), srv.URL)
			require.NoError(t, err)
			_, err = p.Records(context.Background())
			require.Error(t, err)
			assert.Contains(t, err.Error(), "GET "+srv.URL+"/records: decoding records")
			assert.False(t, errors.Is(err, provider.SoftError))
		})
	}
}

func TestClientSortsRecords(t *testing.T) {
	srv := fakeWebhook(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `[{"dnsName":"b.example.com","recordType":"A"},null,{"dnsName":"a.example.com","recordType":"TXT"},{"dnsName":"a.example.com","recordType":"A"}]`)
	})
	p, err := webhook.NewProvider(context.Background(), srv.URL)
	require.NoError(t, err)
	recs, err := p.Records(context.Background())
	require.NoError(t, err)
	var keys []string
	for _, r := range recs {
		keys = append(keys, r.Key().String())
	}
	assert.Equal(t, []string{"a.example.com/A", "a.example.com/TXT", "b.example.com/A"}, keys)
}

// TestConnectionReuse counts the connections 100 calls open: one, because
// every body is drained and closed.
func TestConnectionReuse(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(webhook.NewHandler(newZone(t)))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	p, err := webhook.NewProvider(context.Background(), srv.URL, webhook.ClientOptions{HTTPClient: &http.Client{Transport: &http.Transport{}}})
	require.NoError(t, err)
	ctx := context.Background()
	for i := range 100 {
		switch i % 4 {
		case 0, 1:
			_, err = p.Records(ctx)
		case 2:
			_, err = p.AdjustEndpoints(context.Background(), []*endpoint.Endpoint{endpoint.NewEndpoint("x.example.com", "A", "192.0.2.9")})
		case 3:
			// An error answer (the record exists) is drained too.
			err = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("old.example.com", "A", "192.0.2.1")}})
			require.Error(t, err)
			err = nil
		}
		require.NoError(t, err)
	}
	assert.Equal(t, int32(1), conns.Load(), "new connections over 100 calls")
}

// blockingWebhook answers negotiation and then holds every request until
// the client gives up or the test ends.
func blockingWebhook(t *testing.T) *httptest.Server {
	release := make(chan struct{})
	srv := fakeWebhook(t, func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	return srv
}

func TestClientTimeout(t *testing.T) {
	srv := blockingWebhook(t)
	p, err := webhook.NewProvider(context.Background(), srv.URL, webhook.ClientOptions{Timeout: 20 * time.Millisecond})
	require.NoError(t, err)
	_, err = p.Records(context.Background())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	err = p.ApplyChanges(context.Background(), &plan.Changes{})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = p.AdjustEndpoints(context.Background(), nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestClientCancel(t *testing.T) {
	srv := blockingWebhook(t)
	p, err := webhook.NewProvider(context.Background(), srv.URL, webhook.ClientOptions{Timeout: -1})
	require.NoError(t, err)
	for _, do := range []func(context.Context) error{
		func(ctx context.Context) error { _, err := p.Records(ctx); return err },
		func(ctx context.Context) error { return p.ApplyChanges(ctx, &plan.Changes{}) },
		func(ctx context.Context) error { _, err := p.AdjustEndpoints(ctx, nil); return err },
	} {
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- do(ctx) }()
		cancel()
		require.ErrorIs(t, <-errc, context.Canceled)
	}
}

// endless is a reader that never ends: after prefix it repeats unit.
type endless struct {
	prefix, unit string
	off          int
}

func (e *endless) Read(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		if e.prefix != "" {
			c := copy(b[n:], e.prefix)
			e.prefix = e.prefix[c:]
			n += c
			continue
		}
		c := copy(b[n:], e.unit[e.off:])
		e.off = (e.off + c) % len(e.unit)
		n += c
	}
	return n, nil
}

// TestClientHugeBodies serves bodies that never end (or are 1 GiB long);
// the client stops at its cap and the memory it used stays near the cap.
func TestClientHugeBodies(t *testing.T) {
	bodies := map[string]func() io.Reader{
		"endless records": func() io.Reader {
			return &endless{prefix: "[", unit: `{"dnsName":"x.example.com","targets":["192.0.2.1"]},`}
		},
		"endless string":  func() io.Reader { return &endless{prefix: `[{"dnsName":"`, unit: "x"} },
		"1 GiB of spaces": func() io.Reader { return io.LimitReader(&endless{prefix: "[]", unit: " "}, 1<<30) },
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			srv := fakeWebhook(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", media)
				_, _ = io.Copy(w, body())
			})
			const maxBody = 8 << 20
			p, err := webhook.NewProvider(context.Background(), srv.URL, webhook.ClientOptions{MaxResponseBytes: maxBody, Timeout: 3 * time.Minute})
			require.NoError(t, err)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = p.Records(context.Background())
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, webhook.ErrResponseTooLarge)
			assert.Contains(t, err.Error(), "GET "+srv.URL+"/records")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8*maxBody), "bytes allocated while reading")
		})
	}
}

// TestClientOversizeChanges streams a change set larger than the server's
// cap: the answer is 413, a hard error, and nothing is applied.
func TestClientOversizeChanges(t *testing.T) {
	zone := newZone(t)
	srv := httptest.NewServer(webhook.NewHandler(zone, webhook.ServerOptions{MaxRequestBytes: 64 << 10}))
	defer srv.Close()
	p, err := webhook.NewProvider(context.Background(), srv.URL)
	require.NoError(t, err)
	c := &plan.Changes{}
	for i := range 10_000 {
		c.Create = append(c.Create, endpoint.NewEndpoint(fmt.Sprintf("n%d.example.com", i), "A", "192.0.2.1"))
	}
	err = p.ApplyChanges(context.Background(), c)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "413")
	// The call is over: the body's encoder no longer reads the changes
	// (the race detector would see it).
	for _, ep := range c.Create {
		ep.DNSName = "changed.example.com"
	}
	assert.False(t, errors.Is(err, provider.SoftError))
	recs, err := zone.Records(context.Background())
	require.NoError(t, err)
	assert.Len(t, recs, 1, "nothing applied")
}

// TestClientRecordsCanonicalNames: the client is where a webhook's records
// enter zonesync, so it puts their names in the one form (a webhook may
// spell them in upper case, with a trailing dot, or in Unicode).
func TestClientRecordsCanonicalNames(t *testing.T) {
	srv := fakeWebhook(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", media)
		_, _ = io.WriteString(w, `[{"dnsName":"App.Example.COM.","recordType":"A","targets":["192.0.2.1"]},`+
			`{"dnsName":"bücher.example.com","recordType":"A","targets":["192.0.2.2"]},`+
			`{"dnsName":"b.example.com","recordType":"A","targets":["192.0.2.3"]}]`)
	})
	p, err := webhook.NewProvider(t.Context(), srv.URL, fastRetries)
	require.NoError(t, err)
	recs, err := p.Records(t.Context())
	require.NoError(t, err)
	var names []string
	for _, r := range recs {
		names = append(names, r.DNSName)
	}
	assert.Equal(t, []string{"app.example.com", "b.example.com", "xn--bcher-kva.example.com"}, names)
}
