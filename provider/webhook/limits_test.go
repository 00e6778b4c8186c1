package webhook_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/webhook"
)

// TestServerConcurrencyCap holds as many requests in the provider as the
// cap allows: the next one is answered 503 at once with a short body and a
// Retry-After, health checks still pass, and once the held requests finish
// the server serves again. A webhook client sees the 503 as soft.
func TestServerConcurrencyCap(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts []webhook.ServerOptions
		max  int
	}{
		{"default", nil, webhook.DefaultMaxConcurrentRequests},
		{"option", []webhook.ServerOptions{webhook.ServerOptions{MaxConcurrentRequests: 2}}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			entered := make(chan struct{}, 100)
			release := make(chan struct{})
			p := providertest.Intercept(newZone(t), providertest.Funcs{
				Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
					entered <- struct{}{}
					<-release
					return next.Records(ctx)
				},
			})
			srv := httptest.NewServer(webhook.NewHandler(p, tt.opts...))
			defer srv.Close()

			var wg sync.WaitGroup
			for range tt.max {
				wg.Go(func() {
					resp, err := http.Get(srv.URL + "/records")
					if assert.NoError(t, err) {
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						assert.Equal(t, http.StatusOK, resp.StatusCode)
					}
				})
			}
			for range tt.max {
				<-entered
			}

			// Without a cap these would wait for the held requests.
			probe := &http.Client{Timeout: 5 * time.Second}
			for _, path := range []string{"/records", "/", "/adjustendpoints"} {
				resp, err := probe.Get(srv.URL + path)
				require.NoError(t, err)
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, path)
				assert.Equal(t, "1", resp.Header.Get("Retry-After"))
				assert.Less(t, len(body), 100, "a short body")
			}
			resp, err := http.Get(srv.URL + "/healthz")
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode, "health checks are never refused")

			// A webhook client's negotiation is refused too; after its
			// retries the error is soft.
			_, err = webhook.NewProvider(context.Background(), srv.URL, fastRetries)
			require.Error(t, err)
			assert.True(t, errors.Is(err, provider.SoftError), "soft: %v", err)

			close(release)
			wg.Wait()
			resp, err = http.Get(srv.URL + "/records")
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode, "served again")
		})
	}
}

func TestServerConcurrencyUncapped(t *testing.T) {
	const n = 20
	entered := make(chan struct{}, n)
	release := make(chan struct{})
	p := providertest.Intercept(newZone(t), providertest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			entered <- struct{}{}
			<-release
			return next.Records(ctx)
		},
	})
	h := webhook.NewHandler(p, webhook.ServerOptions{MaxConcurrentRequests: -1})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { assert.Equal(t, http.StatusOK, serve(h, request{method: "GET", path: "/records"}).Code) })
	}
	for range n {
		<-entered
	}
	close(release)
	wg.Wait()
}

// TestServerDenseBodies posts bodies just under the size cap made of values
// that are cheap to send and dear to decode: the server refuses them with
// 413 and allocates at most MaxDecodedBytesPerByte times what it read.
func TestServerDenseBodies(t *testing.T) {
	const capBytes = 8 << 20
	for name, body := range map[string]string{
		"adjust: empty endpoints": "[" + strings.Repeat("{},", capBytes/3-10) + "{}]",
		"apply: empty targets":    `{"create":[{"targets":[` + strings.Repeat(`"",`, capBytes/3-20) + `""]}]}`,
		"adjust: many labels":     `[{"labels":{` + manyLabels(200_000) + `}}]`,
	} {
		t.Run(name, func(t *testing.T) {
			h := webhook.NewHandler(newZone(t), webhook.ServerOptions{MaxRequestBytes: capBytes})
			path := "/adjustendpoints"
			if strings.HasPrefix(name, "apply") {
				path = "/records"
			}
			require.Less(t, len(body), capBytes)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			rec := serve(h, request{method: "POST", path: path, contentType: media, body: body})
			runtime.ReadMemStats(&after)
			assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code, rec.Body.String())
			assert.Contains(t, rec.Body.String(), "too much memory")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(webhook.MaxDecodedBytesPerByte*capBytes/4), "allocated while decoding")
		})
	}
	t.Run("a real body of the same size is accepted", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("[")
		for i := 0; b.Len() < capBytes-200; i++ {
			fmt.Fprintf(&b, `{"dnsName":"host-%d.example.com","targets":["192.0.2.1"],"recordType":"A","labels":{"owner":"default"}},`, i)
		}
		b.WriteString("{}]")
		h := webhook.NewHandler(newZone(t), webhook.ServerOptions{MaxRequestBytes: capBytes})
		rec := serve(h, request{method: "POST", path: "/adjustendpoints", contentType: media, body: b.String()})
		assert.Equal(t, http.StatusOK, rec.Code)
	})
}

// TestClientDenseBodies serves endless bodies of values that are cheap to
// send and dear to decode (empty objects, empty strings, tiny label maps):
// the client stops long before its size cap, with a hard error, and the
// memory it allocated stays within MaxDecodedBytesPerByte times what it
// read (here: well under the 64 MiB the test allows, for a cap of 64 MiB
// that would have let it allocate gigabytes).
func TestClientDenseBodies(t *testing.T) {
	bodies := map[string]string{
		"empty endpoints": `{},`,
		"empty targets":   `"",`,
		"tiny labels":     `{"labels":{"a":""}},`,
		"empty props":     `{},`,
	}
	prefixes := map[string]string{
		"empty endpoints": "[",
		"empty targets":   `[{"targets":[`,
		"tiny labels":     "[",
		"empty props":     `[{"providerSpecific":[`,
	}
	for name, unit := range bodies {
		t.Run(name, func(t *testing.T) {
			srv := fakeWebhook(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", media)
				bw := bufio.NewWriterSize(w, 64<<10)
				_, _ = io.Copy(bw, &endless{prefix: prefixes[name], unit: unit})
			})
			const maxBody = 64 << 20
			p, err := webhook.NewProvider(context.Background(), srv.URL, webhook.ClientOptions{MaxResponseBytes: maxBody})
			require.NoError(t, err)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = p.Records(context.Background())
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, webhook.ErrBodyTooDense)
			assert.False(t, errors.Is(err, provider.SoftError), "a misbehaving server is not transient: %v", err)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated while reading")
		})
	}
}

// manyLabels returns n distinct labels with empty values, as the inside
// of a JSON object.
func manyLabels(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":""`, i)
	}
	return b.String()
}

// TestServerLabelsPerEndpoint: an endpoint may carry hundreds of labels,
// not thousands (each label is counted as if it copied those before it).
func TestServerLabelsPerEndpoint(t *testing.T) {
	h := webhook.NewHandler(newZone(t))
	rec := serve(h, request{method: "POST", path: "/adjustendpoints", contentType: media,
		body: `[{"dnsName":"a.example.org","labels":{` + manyLabels(200) + `}}]`})
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	rec = serve(h, request{method: "POST", path: "/adjustendpoints", contentType: media,
		body: `[{"dnsName":"a.example.org","labels":{` + manyLabels(20_000) + `}}]`})
	assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	assert.Contains(t, rec.Body.String(), "too much memory")
}
