package webhook_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/webhook"
)

// FuzzHandler sends arbitrary methods, paths, content types and bodies to
// the handler: it must never panic, must answer 2xx only to requests a webhook
// client could have sent, with a body that encoding/json decodes, and must
// call ApplyChanges only with a change set decoded in full.
func FuzzHandler(f *testing.F) {
	f.Add("GET", "/", "", []byte(nil))
	f.Add("GET", "/records", "", []byte(nil))
	f.Add("POST", "/records", webhook.MediaType, []byte(`{"create":[{"dnsName":"a.example.org","targets":["192.0.2.1"],"recordType":"A"}]}`))
	f.Add("POST", "/records", "application/json", []byte(`{"Delete":[{"dnsName":"old.example.org","targets":["192.0.2.1"],"recordType":"A"}]}`))
	f.Add("POST", "/adjustendpoints", webhook.MediaType, []byte(`[{"dnsName":"a.example.org","recordType":"A"}]`))
	f.Add("PATCH", "/adjustendpoints", "text/plain", []byte(`[`))
	f.Add("GET", "/healthz", "", []byte(nil))
	f.Fuzz(func(t *testing.T, method, path, contentType string, body []byte) {
		zone := inmemory.New(inmemory.Options{Zones: []string{"example.org"}})
		if err := zone.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{
			endpoint.NewEndpoint("old.example.org", "A", "192.0.2.1"),
		}}); err != nil {
			t.Fatal(err)
		}
		rec := providertest.NewRecordingProvider(zone)
		h := webhook.NewHandler(rec, webhook.ServerOptions{MaxRequestBytes: 1 << 16})
		req, err := http.NewRequest(method, "http://127.0.0.1:8888"+path, bytes.NewReader(body))
		if err != nil {
			return // not a request an HTTP server could receive
		}
		req.Header.Set("Content-Type", contentType)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code < 200 || w.Code > 299 {
			// The provider sees a change set only when the whole body
			// decoded; then a failure can only be the provider's (500).
			if applied := rec.CallsTo(providertest.MethodApplyChanges); len(applied) > 0 {
				var c plan.Changes
				if w.Code != http.StatusInternalServerError || jsonUnmarshal(body, &c) != nil {
					t.Fatalf("%s %s answered %d after passing %q to the provider", method, path, w.Code, body)
				}
			}
			return
		}
		var changes plan.Changes
		var eps []*endpoint.Endpoint
		route := req.Method + " " + req.URL.Path
		switch route {
		case "GET /", "HEAD /", "GET /healthz", "HEAD /healthz", "GET /records", "HEAD /records":
		case "POST /records", "POST /adjustendpoints":
			// Only bodies encoding/json accepts get 2xx.
			var err error
			if route == "POST /records" {
				err = jsonUnmarshal(body, &changes)
			} else {
				err = jsonUnmarshal(body, &eps)
			}
			if err != nil {
				t.Fatalf("%s answered %d to a body encoding/json rejects (%v): %q", route, w.Code, err, body)
			}
		default:
			t.Fatalf("%s %q answered %d", method, path, w.Code)
		}
	})
}
