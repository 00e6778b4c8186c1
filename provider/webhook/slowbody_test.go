package webhook_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/webhook"
)

// firstRead signals started the first time its body is read.
type firstRead struct {
	io.ReadCloser
	once    sync.Once
	started chan<- struct{}
}

func (f *firstRead) Read(p []byte) (int, error) {
	f.once.Do(func() { f.started <- struct{}{} })
	return f.ReadCloser.Read(p)
}

// signalReads wraps h: every POST body signals started when h first reads
// it.
func signalReads(h http.Handler, started chan<- struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.Body = &firstRead{ReadCloser: r.Body, started: started}
		}
		h.ServeHTTP(w, r)
	})
}

// startPost opens a connection of its own to srv and sends a POST of body
// to path, with its Content-Length, but only the first send bytes of the
// body.
func startPost(t *testing.T, srv *httptest.Server, path, body string, send int) net.Conn {
	t.Helper()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s",
		path, u.Host, media, len(body), body[:send])
	require.NoError(t, err)
	return conn
}

// answer sends rest on conn and reads the response, its body included.
func answer(t *testing.T, conn net.Conn, rest string) (*http.Response, string) {
	t.Helper()
	_, err := io.WriteString(conn, rest)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func waitFor(t *testing.T, ch <-chan struct{}, n int, what string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for i := range n {
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("%s: %d of %d", what, i, n)
		}
	}
}

// TestServerSlowBodiesHoldNoSlot sends as many POST bodies as the server
// serves requests at once, each stopped after its first byte as a client
// sending it slowly would, and waits until the handler reads every one.
// Other requests, reads and writes alike, are still served at once (they
// were refused 503 while the slow bodies held every slot); the slow
// requests are applied once their bodies are complete.
func TestServerSlowBodiesHoldNoSlot(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts []webhook.ServerOptions
		max  int
	}{
		{"default cap", nil, webhook.DefaultMaxConcurrentRequests},
		{"cap of 2", []webhook.ServerOptions{{MaxConcurrentRequests: 2}}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			zone := newZone(t)
			started := make(chan struct{}, tt.max+10)
			srv := httptest.NewServer(signalReads(webhook.NewHandler(zone, tt.opts...), started))
			t.Cleanup(srv.Close)

			conns := make([]net.Conn, tt.max)
			bodies := make([]string, tt.max)
			for i := range tt.max {
				bodies[i] = fmt.Sprintf(`{"create":[{"dnsName":"slow-%d.example.com","targets":["192.0.2.1"],"recordType":"A"}]}`, i)
				conns[i] = startPost(t, srv, "/records", bodies[i], 1)
			}
			waitFor(t, started, tt.max, "slow bodies being read")

			probe := &http.Client{Timeout: 10 * time.Second}
			resp, err := probe.Get(srv.URL + "/records")
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode, "GET /records while slow bodies are read")

			client, err := webhook.NewProvider(context.Background(), srv.URL, webhook.ClientOptions{HTTPClient: probe})
			require.NoError(t, err, "negotiation while slow bodies are read")
			require.NoError(t, client.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{
				endpoint.NewEndpoint("fast.example.com", endpoint.RecordTypeA, "192.0.2.2"),
			}}), "a fast POST while slow bodies are read")

			for i, conn := range conns {
				resp, body := answer(t, conn, bodies[i][1:])
				assert.Equal(t, http.StatusNoContent, resp.StatusCode, body)
			}
			recs, err := zone.Records(context.Background())
			require.NoError(t, err)
			var names []string
			for _, r := range recs {
				names = append(names, r.DNSName)
			}
			assert.Contains(t, names, "fast.example.com")
			for i := range tt.max {
				assert.Contains(t, names, fmt.Sprintf("slow-%d.example.com", i))
			}
		})
	}
}

// TestServerBodyBudget: the bodies held at once are bounded although they
// no longer hold concurrency slots while they are read. With two slots and
// a 64 KiB cap, two bodies of almost 64 KiB that are still arriving use
// the whole budget: a third POST is answered 503 (a GET, which reads no
// body, is served); once they are complete and served, the budget is free
// again.
func TestServerBodyBudget(t *testing.T) {
	const capBytes = 64 << 10
	zone := newZone(t)
	srv := httptest.NewServer(webhook.NewHandler(zone, webhook.ServerOptions{MaxConcurrentRequests: 2, MaxRequestBytes: capBytes}))
	t.Cleanup(srv.Close)

	list := `[{"dnsName":"app.example.com","targets":["192.0.2.10"],"recordType":"A"}]`
	body := strings.Repeat(" ", capBytes-1-len(list)) + list
	conns := []net.Conn{
		startPost(t, srv, "/adjustendpoints", body, len(body)-1),
		startPost(t, srv, "/adjustendpoints", body, len(body)-1),
	}

	probe := &http.Client{Timeout: 10 * time.Second}
	post := func() (int, string) {
		resp, err := probe.Post(srv.URL+"/adjustendpoints", media, strings.NewReader(list))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// The server reads the two bodies in the background: ask until it has.
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, msg := post()
		if code == http.StatusServiceUnavailable {
			break
		}
		require.Equal(t, http.StatusOK, code, msg)
		require.True(t, time.Now().Before(deadline), "a third body is still read once two nearly full ones are held")
		time.Sleep(10 * time.Millisecond)
	}

	resp, err := probe.Get(srv.URL + "/records")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a GET reads no body")

	for _, conn := range conns {
		resp, got := answer(t, conn, body[len(body)-1:])
		assert.Equal(t, http.StatusOK, resp.StatusCode, got)
		assert.Contains(t, got, "app.example.com")
	}
	// The handler gives its share back after it wrote the answer, which
	// the client may read first: ask until the budget is back.
	deadline = time.Now().Add(30 * time.Second)
	for {
		code, msg := post()
		if code == http.StatusOK {
			break
		}
		require.Equal(t, http.StatusServiceUnavailable, code, msg)
		require.True(t, time.Now().Before(deadline), "the budget is given back: %s", msg)
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServerDeclaredBodyOverCap: a Content-Length over the cap is answered
// 413 before any of the body is read, so the client does not have to send
// it (nor the server wait for it).
func TestServerDeclaredBodyOverCap(t *testing.T) {
	srv := httptest.NewServer(webhook.NewHandler(newZone(t), webhook.ServerOptions{MaxRequestBytes: 1 << 10}))
	t.Cleanup(srv.Close)
	for _, path := range []string{"/records", "/adjustendpoints"} {
		t.Run(path, func(t *testing.T) {
			conn := startPost(t, srv, path, strings.Repeat(" ", 1<<20), 0)
			resp, body := answer(t, conn, "")
			assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, body)
			assert.Contains(t, body, "too large")
			assert.True(t, resp.Close, "the connection is not reused: the body was not read")
		})
	}
}
