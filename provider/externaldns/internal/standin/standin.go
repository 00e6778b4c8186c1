// Package standin holds what the local stand-ins of cloud DNS APIs share.
// Each stand-in is a package of its own under this one (clouddns,
// azuredns, cloudflare): an in-memory DNS service behind an
// net/http/httptest server that answers the HTTP requests of the cloud's
// own SDK, as external-dns's provider for that cloud sends them, so that a
// test can run whole zonesync and external-dns cycles through the real SDK
// code without a network or an account.
//
// A stand-in follows the API's documented behaviour as far as external-dns
// uses it (validation errors, batch limits, pagination); the package
// documentation of each says what it models and what it does not.
package standin

import (
	"encoding/json"
	"maps"
	"net/http"
	"sync"
)

// Counter counts requests by operation name. The zero value is ready to
// use; it is safe for concurrent use.
type Counter struct {
	mu sync.Mutex
	n  map[string]int
}

// Add counts one request of the operation op.
func (c *Counter) Add(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = make(map[string]int)
	}
	c.n[op]++
}

// Count returns how many requests of the operation op were counted.
func (c *Counter) Count(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[op]
}

// Counts returns a copy of the counts by operation; operations never
// counted are absent.
func (c *Counter) Counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.n))
	maps.Copy(out, c.n)
	return out
}

// Reset forgets every count.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n = nil
}

// WriteJSON answers with status and v encoded as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "stand-in: encoding the response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
