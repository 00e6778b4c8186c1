package webhook_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
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

// clientCalls are the three calls of the client after negotiation.
var clientCalls = []struct {
	name string
	do   func(context.Context, *webhook.Provider) error
}{
	{"Records", func(ctx context.Context, p *webhook.Provider) error { _, err := p.Records(ctx); return err }},
	{"ApplyChanges", func(ctx context.Context, p *webhook.Provider) error {
		return p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("a.example.com", "A", "192.0.2.1")}})
	}},
	{"AdjustEndpoints", func(ctx context.Context, p *webhook.Provider) error {
		_, err := p.AdjustEndpoints(ctx, []*endpoint.Endpoint{endpoint.NewEndpoint("a.example.com", "A", "192.0.2.1")})
		return err
	}},
}

// restartable is a webhook on a fixed loopback address that can be
// stopped and started again, as a sidecar restarts.
type restartable struct {
	t     *testing.T
	addr  string
	route http.HandlerFunc
	srv   *httptest.Server
}

func newRestartable(t *testing.T, route http.HandlerFunc) *restartable {
	r := &restartable{t: t, addr: "127.0.0.1:0", route: route}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *restartable) start() {
	l, err := net.Listen("tcp", r.addr)
	require.NoError(r.t, err)
	r.addr = l.Addr().String()
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/" {
			ok(w)
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		r.route(w, req)
	}))
	r.srv.Listener = l
	r.srv.Start()
}

func (r *restartable) stop() {
	if r.srv != nil {
		r.srv.CloseClientConnections()
		r.srv.Close()
		r.srv = nil
	}
}

// okRoute answers every call as a healthy webhook would.
func okRoute(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", media)
	if r.Method == http.MethodPost && r.URL.Path == "/records" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	_, _ = io.WriteString(w, `[]`)
}

// TestClientTransportErrorsAreSoft checks that a webhook that goes away,
// hangs up, breaks off a response or does not answer in time gives soft
// errors, so that a Reconciler retries at its next cycle, and that the
// client works again once the webhook is back.
func TestClientTransportErrorsAreSoft(t *testing.T) {
	faults := []struct {
		name  string
		route http.HandlerFunc
		stop  bool // the webhook is down (connection refused)
		is    error
	}{
		{name: "connection refused", stop: true, is: nil},
		{name: "hang up before answering", route: func(w http.ResponseWriter, _ *http.Request) { hangUp(w) }},
		{name: "hang up inside the body", route: func(w http.ResponseWriter, r *http.Request) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			status := "200 OK"
			if r.Method == http.MethodPost && r.URL.Path == "/records" {
				status = "204 No Content" // no body: the client sees a complete answer
			}
			_, _ = buf.WriteString("HTTP/1.1 " + status + "\r\nContent-Type: " + media + "\r\nContent-Length: 1000\r\n\r\n")
			if status == "200 OK" {
				_, _ = buf.WriteString(`[{"dnsName":"a.exa`)
			}
			_ = buf.Flush()
		}},
		{name: "reset", route: func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // close with RST
			}
			_ = conn.Close()
		}},
		{name: "no answer in time", route: func(_ http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}, is: context.DeadlineExceeded},
	}
	for _, f := range faults {
		for _, c := range clientCalls {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				var route atomic.Pointer[http.HandlerFunc]
				set := func(h http.HandlerFunc) { route.Store(&h) }
				set(okRoute)
				w := newRestartable(t, func(w http.ResponseWriter, r *http.Request) { (*route.Load())(w, r) })
				p, err := webhook.NewProvider(context.Background(), "http://"+w.addr, webhook.ClientOptions{Timeout: 200 * time.Millisecond})
				require.NoError(t, err)
				require.NoError(t, c.do(context.Background(), p))

				if f.stop {
					w.stop()
				} else {
					set(f.route)
				}
				err = c.do(context.Background(), p)
				if f.name == "hang up inside the body" && c.name == "ApplyChanges" {
					// 204 carries no body: nothing was broken off.
					require.NoError(t, err)
					return
				}
				require.Error(t, err)
				assert.True(t, errors.Is(err, provider.SoftError), "soft: %v", err)
				if f.is != nil {
					assert.ErrorIs(t, err, f.is)
				}
				assert.Contains(t, err.Error(), "http://"+w.addr, "names the URL")

				// The webhook is back: the same provider works again.
				if f.stop {
					w.start()
				}
				set(okRoute)
				require.NoError(t, c.do(context.Background(), p))
			})
		}
	}
}

// TestClientCallerContextIsNotSoft checks that the end of the caller's
// context (cancelled, or its own deadline) is reported as such and is not
// soft: the caller gave up, the webhook did not fail.
func TestClientCallerContextIsNotSoft(t *testing.T) {
	srv := blockingWebhook(t)
	p, err := webhook.NewProvider(context.Background(), srv.URL, webhook.ClientOptions{Timeout: time.Minute})
	require.NoError(t, err)
	for _, c := range clientCalls {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
			defer cancel()
			err := c.do(ctx, p)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			assert.False(t, errors.Is(err, provider.SoftError), "not soft: %v", err)

			ctx, cancel = context.WithCancel(context.Background())
			go func() { time.Sleep(10 * time.Millisecond); cancel() }()
			err = c.do(ctx, p)
			require.ErrorIs(t, err, context.Canceled)
			assert.False(t, errors.Is(err, provider.SoftError), "not soft: %v", err)
		})
	}
}

// TestClientUntrustedCertificateIsHard: a configuration error stays hard.
func TestClientUntrustedCertificateIsHard(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { ok(w) }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake failures are expected
	srv.StartTLS()
	defer srv.Close()
	_, err := webhook.NewProvider(context.Background(), srv.URL, fastRetries)
	require.Error(t, err)
	assert.False(t, errors.Is(err, provider.SoftError), "not soft: %v", err)
}

// TestNegotiationSoftness: negotiation that still fails after its retries
// with transport errors or 5xx answers is soft; 4xx is not.
func TestNegotiationSoftness(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer func(http.ResponseWriter)
		soft   bool
	}{
		{"503", status(503), true},
		{"599", status(599), true},
		{"hang up", hangUp, true},
		{"404", status(404), false},
		{"400", status(400), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { tt.answer(w) }))
			defer srv.Close()
			_, err := webhook.NewProvider(context.Background(), srv.URL, fastRetries)
			require.Error(t, err)
			assert.Equal(t, tt.soft, errors.Is(err, provider.SoftError), "soft: %v", err)
		})
	}
	t.Run("nobody listening", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close())
		_, err = webhook.NewProvider(context.Background(), "http://"+addr, fastRetries)
		require.Error(t, err)
		assert.True(t, errors.Is(err, provider.SoftError), "soft: %v", err)
	})
}
