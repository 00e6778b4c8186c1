package webhook_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/provider/webhook"
)

// assertPrintable fails when s holds a control character or another
// character that is not printable.
func assertPrintable(t *testing.T, what, s string) {
	t.Helper()
	for i, r := range s {
		if unicode.IsControl(r) || !unicode.IsPrint(r) && r != ' ' {
			t.Errorf("%s: raw %q at offset %d: %q", what, r, i, s)
			return
		}
	}
}

// TestServerErrorTextPrintable (issue 33, finding 6): what a client sends
// (a path holding percent-encoded line breaks, NUL and a terminal escape,
// a body holding raw control characters) reaches the server's error
// answers and log lines escaped.
func TestServerErrorTextPrintable(t *testing.T) {
	tests := []struct {
		name, method, target, body string
		status                     int
	}{
		{"unknown path", "GET", "/x%0aFORGED%0d%00%1b%5B31m", "", http.StatusNotFound},
		{"method on an unknown path", "POST", "/x%0aFORGED%1b%5B31m", "[]", http.StatusNotFound},
		{"control characters in a JSON string", "POST", "/records", "{\"create\":[{\"dnsName\":\"a\x1b[31m\nFORGED\"}]}", http.StatusBadRequest},
		{"control characters after the value", "POST", "/adjustendpoints", "[]\x00\nFORGED", http.StatusBadRequest},
		{"invalid UTF-8 outside strings", "POST", "/adjustendpoints", "[\xff\xfe]", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var lines []string
			log := funcr.New(func(prefix, args string) {
				mu.Lock()
				defer mu.Unlock()
				lines = append(lines, prefix+" "+args)
			}, funcr.Options{Verbosity: 10})
			req := httptest.NewRequest(tt.method, tt.target, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", media)
			req = req.WithContext(logr.NewContext(req.Context(), log))
			rec := httptest.NewRecorder()
			webhook.NewHandler(newZone(t)).ServeHTTP(rec, req)
			assert.Equal(t, tt.status, rec.Code, rec.Body.String())
			body := strings.TrimSuffix(rec.Body.String(), "\n")
			assertPrintable(t, "answer", body)
			mu.Lock()
			defer mu.Unlock()
			require.NotEmpty(t, lines, "the refusal is logged")
			for _, l := range lines {
				assertPrintable(t, "log line", l)
			}
		})
	}
}

// TestClientStatusPrintable (issue 33, finding 6): a webhook server's
// reason phrase is the server's text; the client's error shows it escaped.
func TestClientStatusPrintable(t *testing.T) {
	srv := fakeWebhook(t, func(w http.ResponseWriter, _ *http.Request) {
		// Write a status line of our own: net/http writes only its own
		// reason phrases.
		conn, buf, err := w.(http.Hijacker).Hijack()
		if !assert.NoError(t, err) {
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 418 Teapot\x1b[31m\x00FORGED\r\nContent-Length: 4\r\nConnection: close\r\n\r\noops")
		_ = buf.Flush()
	})
	p, err := webhook.NewProvider(context.Background(), srv.URL, fastRetries)
	require.NoError(t, err)
	_, err = p.Records(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "418")
	assertPrintable(t, "error", err.Error())
}
