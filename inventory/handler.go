package inventory

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html/template"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/verify/result"
)

// Defaults of the [HandlerOptions] fields.
const (
	DefaultPageSize = 100
	DefaultMaxPage  = 500
)

// HandlerOptions configures [NewHandler]. The zero value is useful.
type HandlerOptions struct {
	// PageSize is the number of records of a page when the request sets
	// no limit; zero means [DefaultPageSize].
	PageSize int
	// MaxPageSize bounds the limit a request may ask for (a larger one is
	// lowered to it); zero means [DefaultMaxPage]. It must not be below
	// PageSize.
	MaxPageSize int
	// Title heads the page; "" means "DNS inventory".
	Title string
}

// Handler serves an [Inventory] as JSON and as an HTML page; see the
// package documentation ("Handler").
type Handler struct {
	inv  *Inventory
	opts HandlerOptions
	page *template.Template
}

var _ http.Handler = (*Handler)(nil)

//go:embed page.html.tmpl
var pageTemplate string

// NewHandler returns the handler of inv. It fails, with an error wrapping
// [ErrInvalidOptions], for a nil inv, a negative page size, or a PageSize
// above MaxPageSize.
func NewHandler(inv *Inventory, opts HandlerOptions) (*Handler, error) {
	switch {
	case inv == nil:
		return nil, fmt.Errorf("inventory: %w: the Inventory is nil", ErrInvalidOptions)
	case opts.PageSize < 0:
		return nil, fmt.Errorf("inventory: %w: HandlerOptions.PageSize is negative (%d)", ErrInvalidOptions, opts.PageSize)
	case opts.MaxPageSize < 0:
		return nil, fmt.Errorf("inventory: %w: HandlerOptions.MaxPageSize is negative (%d)", ErrInvalidOptions, opts.MaxPageSize)
	}
	if opts.PageSize == 0 {
		opts.PageSize = DefaultPageSize
		if opts.MaxPageSize > 0 {
			opts.PageSize = min(DefaultPageSize, opts.MaxPageSize)
		}
	}
	if opts.MaxPageSize == 0 {
		opts.MaxPageSize = max(DefaultMaxPage, opts.PageSize)
	}
	if opts.PageSize > opts.MaxPageSize {
		return nil, fmt.Errorf("inventory: %w: HandlerOptions.PageSize (%d) is above MaxPageSize (%d)", ErrInvalidOptions, opts.PageSize, opts.MaxPageSize)
	}
	if opts.Title == "" {
		opts.Title = "DNS inventory"
	}
	t, err := template.New("page").Funcs(template.FuncMap{
		"badge": badgeClass,
		"when":  formatTime,
	}).Parse(pageTemplate)
	if err != nil {
		return nil, fmt.Errorf("inventory: parsing the page template: %w", err)
	}
	return &Handler{inv: inv, opts: opts, page: t}, nil
}

// jsonPage is the JSON response (documented in doc.go, "JSON").
type jsonPage struct {
	Generation   uint64        `json:"generation"`
	LastCycle    *CycleSummary `json:"lastCycle"`
	RunningSince *time.Time    `json:"runningSince"`
	Total        int           `json:"total"`
	Offset       int           `json:"offset"`
	Limit        int           `json:"limit"`
	Next         string        `json:"next"`
	Names        []View        `json:"names"`
}

type jsonError struct {
	Error string `json:"error"`
}

// ServeHTTP answers GET and HEAD requests; see the package documentation.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr := w.Header()
	hdr.Set("Vary", "Accept")
	hdr.Set("X-Content-Type-Options", "nosniff")
	values := r.URL.Query()
	q, err := ParseQuery(values)
	format := q.Format
	if err != nil && values.Get(ParamFormat) == FormatJSON {
		format = FormatJSON // answer a bad query in the format asked for
	}
	if format == "" {
		format = negotiate(r.Header.Get("Accept"))
	}
	if err != nil {
		if format == FormatJSON {
			writeJSON(w, http.StatusBadRequest, jsonError{Error: err.Error()})
		} else {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
		return
	}
	if q.Limit == 0 {
		q.Limit = h.opts.PageSize
	}
	q.Limit = min(q.Limit, h.opts.MaxPageSize)

	snap := h.inv.snap.Load()
	running, isRunning := h.inv.Running()
	etag := h.etag(snap.gen, format, q, isRunning)
	hdr.Set("ETag", etag)
	hdr.Set("Cache-Control", "no-cache")
	if matchETag(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	page := snap.list(q.Filter)
	var next, prev string
	if q.Offset+len(page.Views) < page.Total {
		nq := q
		nq.Offset = q.Offset + q.Limit
		next = nq.URL()
	}
	if q.Offset > 0 {
		pq := q
		pq.Offset = max(q.Offset-q.Limit, 0)
		prev = pq.URL()
	}
	var runningSince *time.Time
	if isRunning {
		runningSince = &running
	}

	if format == FormatJSON {
		views := page.Views
		if views == nil {
			views = []View{}
		}
		writeJSON(w, http.StatusOK, jsonPage{
			Generation: snap.gen, LastCycle: snap.last, RunningSince: runningSince,
			Total: page.Total, Offset: page.Offset, Limit: page.Limit, Next: next, Names: views,
		})
		return
	}
	jq := q
	jq.Format = FormatJSON
	data := pageData{
		Title: h.opts.Title, Last: snap.last, RunningSince: runningSince,
		Query: q, Page: page, Stats: snap.stats,
		Groups: snap.stats.Groups(), SourceTypes: snap.stats.SourceTypes(),
		OutcomeStates: Statuses()[:7], VerifyStatuses: Statuses()[7:],
		First: page.Offset + 1, Last1: page.Offset + len(page.Views),
		Next: next, Prev: prev, JSON: jq.URL(),
	}
	var buf bytes.Buffer
	if err := h.page.Execute(&buf, data); err != nil {
		http.Error(w, "rendering the page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	// No script, no outside asset: the page needs only its inline style.
	hdr.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
	hdr.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

// etag is the entity tag of a response: the inventory's instance and
// generation, the format, the query and whether a cycle runs (the page
// says so). A snapshot never changes, so equal tags mean equal bodies.
func (h *Handler) etag(gen uint64, format string, q Query, running bool) string {
	f := fnv.New64a()
	q.Format = format
	_, _ = f.Write([]byte(q.Values().Encode()))
	r := "i"
	if running {
		r = "r"
	}
	return fmt.Sprintf(`"%s-%d-%s-%x"`, h.inv.nonce, gen, r, f.Sum64())
}

// matchETag reports whether an If-None-Match header holds etag (weak
// comparison, as RFC 9110 asks for If-None-Match) or "*".
func matchETag(header, etag string) bool {
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || strings.TrimPrefix(part, "W/") == etag {
			return true
		}
	}
	return false
}

// negotiate picks the format from an Accept header: JSON when it names
// application/json before (or without) text/html, else HTML.
func negotiate(accept string) string {
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "application/json":
			return FormatJSON
		case "text/html", "application/xhtml+xml":
			return FormatHTML
		}
	}
	return FormatHTML
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	body = append(body, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// pageData is what the page template reads.
type pageData struct {
	Title          string
	Last           *CycleSummary
	RunningSince   *time.Time
	Query          Query
	Page           Page
	Stats          Stats
	Groups         []string
	SourceTypes    []string
	OutcomeStates  []string
	VerifyStatuses []string
	First, Last1   int
	Next, Prev     string
	JSON           string
}

// badgeClass returns the CSS class of a status badge: one of a fixed set,
// whatever the input.
func badgeClass(status any) string {
	var s string
	switch v := status.(type) {
	case zonesync.RecordState:
		s = string(v)
	case result.Status:
		s = string(v)
	case string:
		s = v
	}
	switch s {
	case string(zonesync.RecordApplied), string(zonesync.RecordUnchanged), string(result.Sync):
		return "ok"
	case string(zonesync.RecordPending), string(zonesync.RecordSkipped), string(result.NotSync), Unverified:
		return "warn"
	case string(zonesync.RecordRejected), string(zonesync.RecordFailed), string(zonesync.RecordInvalid), string(result.NotAvailable):
		return "bad"
	}
	return "none"
}

// formatTime prints a time for the page, in UTC to the second.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}
