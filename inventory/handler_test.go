package inventory_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/inventory"
	"github.com/zonesync/zonesync/plan"
)

// serve runs one request through h.
func serve(t testing.TB, h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestNewHandlerRefusesInvalidOptions(t *testing.T) {
	inv, err := inventory.New(inventory.Options{})
	require.NoError(t, err)
	tests := []struct {
		name  string
		inv   *inventory.Inventory
		opts  inventory.HandlerOptions
		field string
	}{
		{"nil inventory", nil, inventory.HandlerOptions{}, "Inventory"},
		{"negative page", inv, inventory.HandlerOptions{PageSize: -1}, "PageSize"},
		{"negative max", inv, inventory.HandlerOptions{MaxPageSize: -1}, "MaxPageSize"},
		{"page above max", inv, inventory.HandlerOptions{PageSize: 20, MaxPageSize: 10}, "PageSize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := inventory.NewHandler(tt.inv, tt.opts)
			require.ErrorIs(t, err, inventory.ErrInvalidOptions)
			assert.Contains(t, err.Error(), tt.field)
		})
	}
}

// TestJSONSchema pins the JSON response, field by field: the schema the
// package documentation gives.
func TestJSONSchema(t *testing.T) {
	h := newHarness(t, inventory.Options{Groups: inventory.GroupMapping{ByNamespace: map[string]string{"default": "web"}}})
	h.rec.Verifier = &fakeVerifier{}
	h.src.set(nil,
		ep("www.example.com", "service/default/web", "192.0.2.1"),
		ep("api.example.com", "ingress/shop/api", "192.0.2.2").WithSetIdentifier("eu"),
	)
	h.cycle(t)
	handler, err := inventory.NewHandler(h.inv, inventory.HandlerOptions{})
	require.NoError(t, err)

	rec := serve(t, handler, "/inventory?limit=1", "Accept", "application/json")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.JSONEq(t, `{
	  "generation": 1,
	  "lastCycle": {"start": "2026-11-29T08:01:00Z", "end": "2026-11-29T08:01:00Z", "succeeded": true, "error": "",
	    "dryRun": false, "applied": true, "planned": true, "creates": 2, "updates": 0, "deletes": 0, "skipped": 0},
	  "runningSince": null,
	  "total": 2, "offset": 0, "limit": 1,
	  "next": "?limit=1&offset=1",
	  "names": [{
	    "name": "api.example.com", "displayName": "api.example.com",
	    "recordType": "A", "setIdentifier": "eu", "targets": ["192.0.2.2"], "ttl": 0,
	    "resource": "ingress/shop/api", "sourceType": "ingress", "namespace": "shop", "object": "api",
	    "owner": "test", "groups": null, "desired": true,
	    "outcome": {"state": "applied", "reason": "", "message": "", "at": "2026-11-29T08:01:00Z"},
	    "verification": {"status": "sync", "seen": ["192.0.2.2"], "error": "", "checkedAt": "2026-11-29T08:01:00Z"}
	  }]
	}`, rec.Body.String())

	// The next page, by the link; format=json wins over Accept.
	rec = serve(t, handler, "/inventory?limit=1&offset=1&format=json", "Accept", "text/html")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var page struct {
		Next  string           `json:"next"`
		Names []inventory.View `json:"names"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &page))
	assert.Equal(t, "", page.Next)
	require.Len(t, page.Names, 1)
	assert.Equal(t, "www.example.com", page.Names[0].Name)
	assert.Equal(t, []string{"web"}, page.Names[0].Groups)

	// An empty page has "names": [].
	rec = serve(t, handler, "/?format=json&status=failed")
	assert.Contains(t, rec.Body.String(), `"names":[]`)

	// Errors are JSON too.
	rec = serve(t, handler, "/?format=json&status=bogus")
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	var e map[string]string
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
	assert.Contains(t, e["error"], "bogus")
}

func TestHandlerPageSizeIsBounded(t *testing.T) {
	h := newHarness(t, inventory.Options{})
	var eps []*endpoint.Endpoint
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		eps = append(eps, ep(n+".example.com", "service/default/"+n, "192.0.2.1"))
	}
	h.src.set(nil, eps...)
	h.cycle(t)
	handler, err := inventory.NewHandler(h.inv, inventory.HandlerOptions{PageSize: 2, MaxPageSize: 3})
	require.NoError(t, err)
	tests := []struct {
		target string
		limit  int
		names  int
	}{
		{"/?format=json", 2, 2},
		{"/?format=json&limit=1", 1, 1},
		{"/?format=json&limit=1000", 3, 3},
		{"/?format=json&limit=3&offset=3", 3, 2},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			var page struct {
				Limit int              `json:"limit"`
				Names []inventory.View `json:"names"`
			}
			rec := serve(t, handler, tt.target)
			require.Equal(t, http.StatusOK, rec.Code)
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &page))
			assert.Equal(t, tt.limit, page.Limit)
			assert.Len(t, page.Names, tt.names)
		})
	}
}

func TestHandlerETag(t *testing.T) {
	h := newHarness(t, inventory.Options{})
	h.src.set(nil, ep("www.example.com", "service/default/web", "192.0.2.1"))
	h.cycle(t)
	handler, err := inventory.NewHandler(h.inv, inventory.HandlerOptions{})
	require.NoError(t, err)

	first := serve(t, handler, "/?format=json")
	etag := first.Header().Get("ETag")
	require.NotEmpty(t, etag)
	assert.Equal(t, "no-cache", first.Header().Get("Cache-Control"))

	again := serve(t, handler, "/?format=json", "If-None-Match", etag)
	assert.Equal(t, http.StatusNotModified, again.Code)
	assert.Empty(t, again.Body.String())
	assert.Equal(t, http.StatusNotModified, serve(t, handler, "/?format=json", "If-None-Match", `"x", W/`+etag).Code)

	// Another query, another format or another cycle: another tag.
	assert.NotEqual(t, etag, serve(t, handler, "/?format=json&status=applied").Header().Get("ETag"))
	assert.NotEqual(t, etag, serve(t, handler, "/").Header().Get("ETag"))
	h.cycle(t)
	rec := serve(t, handler, "/?format=json", "If-None-Match", etag)
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.NotEqual(t, etag, rec.Header().Get("ETag"))
}

func TestHandlerRequests(t *testing.T) {
	inv, err := inventory.New(inventory.Options{})
	require.NoError(t, err)
	handler, err := inventory.NewHandler(inv, inventory.HandlerOptions{})
	require.NoError(t, err)

	req := httptest.NewRequest(http.MethodPost, "/", nil)
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, "GET, HEAD", rec.Header().Get("Allow"))

	req = httptest.NewRequest(http.MethodHead, "/", nil)
	rec = httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Empty(t, rec.Body.String())

	rec = serve(t, handler, "/?limit=-1")
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, "text/plain; charset=utf-8", rec.Header().Get("Content-Type"))

	// Before any cycle: an empty page that says so.
	rec = serve(t, handler, "/")
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "text/html; charset=utf-8", rec.Header().Get("Content-Type"))
	assert.Contains(t, rec.Body.String(), "No cycle yet.")
	assert.Contains(t, rec.Header().Get("Content-Security-Policy"), "default-src 'none'")

	tests := []struct{ accept, want string }{
		{"", "text/html; charset=utf-8"},
		{"application/json", "application/json"},
		{"text/html,application/json", "text/html; charset=utf-8"},
		{"application/json;q=0.9, text/html;q=0.8", "application/json"},
		{"*/*", "text/html; charset=utf-8"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, serve(t, handler, "/", "Accept", tt.accept).Header().Get("Content-Type"), tt.accept)
	}
}

// hostile is markup that must come out as text.
var hostile = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(2)>`,
	`javascript:alert(3)`,
	`</td></tr></table><h1>owned</h1>`,
}

// TestHTMLEscapesHostileText feeds names, resource labels, label values
// (as groups), owners and messages holding markup to the page, and checks
// that each comes out escaped.
func TestHTMLEscapesHostileText(t *testing.T) {
	inv, err := inventory.New(inventory.Options{Groups: inventory.GroupMapping{LabelKeys: []string{"team"}}})
	require.NoError(t, err)
	var desired []*endpoint.Endpoint
	for i, s := range hostile {
		e := endpoint.NewEndpoint(s+".example.com", endpoint.RecordTypeA, s)
		e.WithLabel(endpoint.ResourceLabelKey, "service/"+s+"/"+s)
		e.WithLabel("team", s)
		e.WithLabel(endpoint.OwnerLabelKey, s)
		e.SetIdentifier = s
		_ = i
		desired = append(desired, e)
	}
	// A plan built directly: no validation stands between the names and
	// the page.
	p := (&plan.Plan{Desired: desired, OwnerID: "test"}).Calculate()
	inv.CycleFinished(context.Background(), zonesync.Cycle{Plan: p, Changes: p.Changes, Start: t0, Duration: time.Second, DryRun: true,
		Err: &testError{hostile[0]}})
	require.Len(t, inv.List(inventory.Filter{}).Views, len(hostile))

	handler, err := inventory.NewHandler(inv, inventory.HandlerOptions{})
	require.NoError(t, err)
	for _, target := range []string{"/", "/?name=" + strings.ReplaceAll(hostile[1], " ", "+"), "/?group=" + hostile[2]} {
		rec := serve(t, handler, target)
		require.Equal(t, http.StatusOK, rec.Code, target)
		body := rec.Body.String()
		for _, s := range hostile {
			if strings.ContainsAny(s, `<>"`) {
				assert.NotContains(t, body, s, "raw markup on the page")
			}
		}
		assert.NotContains(t, body, "<script")
		assert.NotContains(t, body, "<img")
		assert.NotContains(t, body, "<h1>owned")
		assert.NotContains(t, body, `href="javascript`)
		assert.Equal(t, 1, strings.Count(body, "</table>"), "the table is not closed early")
		assert.Contains(t, body, html.EscapeString(hostile[0]))
	}
	// The filter by a hostile group still finds its record.
	page := inv.List(inventory.Filter{Group: hostile[2]})
	assert.Equal(t, 1, page.Total)
}

type testError struct{ s string }

func (e *testError) Error() string { return e.s }
