package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// MediaType is the media type and protocol version of every webhook
// exchange, exactly as external-dns writes and checks it.
const MediaType = "application/external.dns.webhook+json;version=1"

// DefaultMaxRequestBytes is the default cap on request bodies the server reads
// (32 MiB, as external-dns).
const DefaultMaxRequestBytes = 32 << 20

// DefaultMaxConcurrentRequests is how many requests the handler of
// [NewHandler] serves at once unless [ServerOptions.MaxConcurrentRequests]
// says otherwise. external-dns sends one request at a time, a zonesync client
// may apply zones in parallel (the conformance suite sends 8 at once); the
// cap bounds the server's memory to that many requests, each bounded by
// the body cap and [MaxDecodedBytesPerByte], and the bodies read at once
// to that many times the body cap.
const DefaultMaxConcurrentRequests = 16

// Routes, relative to the base URL.
const (
	routeRecords = "/records"
	routeAdjust  = "/adjustendpoints"
	routeHealth  = "/healthz"
	routeMetrics = "/metrics"
)

// maxErrorBody bounds the error message a handler writes.
const maxErrorBody = 512

// ServerOption is another name of [ServerOptions], the name under which the API of
// zonesync's first release lists NewHandler's parameter.
type ServerOption = ServerOptions

// ServerOptions configures [NewHandler]. The zero value serves with the
// defaults; every field is optional.
type ServerOptions struct {
	// MaxRequestBytes caps the request bodies the handler reads; a larger
	// body is refused with 413. Zero means [DefaultMaxRequestBytes]; a
	// negative value removes the cap.
	MaxRequestBytes int64
	// MaxConcurrentRequests caps how many requests the handler serves at
	// once. A request beyond the cap is answered with 503 Service
	// Unavailable, a Retry-After of one second and a one-line body (a
	// webhook client treats 503 as a soft error and retries at its next
	// cycle); GET /healthz is never refused. A POST to /records or
	// /adjustendpoints takes its place only once its whole body is read,
	// so that clients sending their bodies slowly do not keep the others
	// out; meanwhile the bodies being read or served share a budget of
	// MaxConcurrentRequests times MaxRequestBytes (plus one byte each), and
	// a POST whose body would go over it is answered 503 too. Other
	// requests are refused without their body being read. Zero means
	// [DefaultMaxConcurrentRequests]; a negative value removes the cap and
	// the budget (so does removing the body cap).
	MaxConcurrentRequests int
	// MetricsHandler, when set, serves GET /metrics (for example a
	// Prometheus handler). Without it /metrics is not found.
	MetricsHandler http.Handler
}

// mergeServerOptions folds opts into one: the non-zero fields of later
// ones override earlier ones.
func mergeServerOptions(opts []ServerOptions) ServerOptions {
	var o ServerOptions
	for _, x := range opts {
		if x.MaxRequestBytes != 0 {
			o.MaxRequestBytes = x.MaxRequestBytes
		}
		if x.MaxConcurrentRequests != 0 {
			o.MaxConcurrentRequests = x.MaxConcurrentRequests
		}
		if x.MetricsHandler != nil {
			o.MetricsHandler = x.MetricsHandler
		}
	}
	return o
}

// serverSettings are the ServerOptions in effect: defaults filled in, no
// cap stored as 0.
type serverSettings struct {
	maxBody       int64
	maxConcurrent int
	metrics       http.Handler
}

func (o ServerOptions) settings() serverSettings {
	s := serverSettings{maxBody: o.MaxRequestBytes, maxConcurrent: o.MaxConcurrentRequests, metrics: o.MetricsHandler}
	switch {
	case s.maxBody == 0:
		s.maxBody = DefaultMaxRequestBytes
	case s.maxBody < 0:
		s.maxBody = 0
	}
	switch {
	case s.maxConcurrent == 0:
		s.maxConcurrent = DefaultMaxConcurrentRequests
	case s.maxConcurrent < 0:
		s.maxConcurrent = 0
	}
	return s
}

type handler struct {
	p    provider.Provider
	opts serverSettings
	mux  *http.ServeMux
	busy chan struct{} // one token per request being served; nil: no cap
	// budget bounds the bytes of request bodies held at once (see
	// readBody): as many bodies of the size cap as requests served at
	// once. nil: no bound, when either cap is removed.
	budget *byteBudget
}

// NewHandler returns an http.Handler that serves p over the external-dns
// webhook protocol (see docs/compatibility.md):
//
//   - GET / answers the negotiation: p's domain filter as JSON with
//     Content-Type [MediaType];
//   - GET /records returns p.Records (200, a JSON array);
//   - POST /records decodes a change set and applies it (204);
//   - POST /adjustendpoints returns p.AdjustEndpoints of the posted list
//     (200);
//   - GET /healthz answers 200 "OK";
//   - GET /metrics is served by [ServerOptions.MetricsHandler], if set.
//
// A provider error gives 500 (a [provider.SoftError] too), a body that does
// not decode (or holds a nil endpoint, or unpaired updates) 400, a body over
// the cap or one that decodes to too much memory ([ErrBodyTooDense]) 413, a
// request beyond the concurrency cap, or a POST whose body would go over
// the bytes of bodies held at once, 503 (see
// [ServerOptions.MaxConcurrentRequests]), a method a route does not serve
// 405, a POST whose Content-Type is neither [MediaType] nor
// application/json 415, and any other path 404. Error bodies are one short
// line of text. A POST's body is read whole before its request takes a
// concurrency slot, and the whole change set is decoded before
// ApplyChanges is called, so a body that fails to decode never applies
// anything. Requests are logged through
// logr.FromContextOrDiscard(r.Context()); the request context is passed to
// the provider.
//
// opts is zero or one ServerOptions; with several, the non-zero fields of
// later ones override earlier ones.
//
// To serve the protocol under a path prefix, wrap the handler in
// [http.StripPrefix].
func NewHandler(p provider.Provider, opts ...ServerOptions) http.Handler {
	h := &handler{p: p, opts: mergeServerOptions(opts).settings()}
	if h.opts.maxConcurrent > 0 {
		h.busy = make(chan struct{}, h.opts.maxConcurrent)
		if h.opts.maxBody > 0 {
			h.budget = newByteBudget(int64(h.opts.maxConcurrent) * (h.opts.maxBody + 1))
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", h.negotiate)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, r, http.StatusNotFound, errors.New("no such route"))
	})
	mux.HandleFunc(routeRecords, h.records)
	mux.HandleFunc(routeAdjust, h.adjust)
	mux.HandleFunc(routeHealth, h.health)
	if h.opts.metrics != nil {
		mux.HandleFunc(routeMetrics, h.metrics)
	}
	h.mux = mux
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A POST takes its slot in the route that serves it, once its body is
	// in memory (see apply and adjust), so that a client sending its body
	// slowly holds no slot meanwhile; a POST to any other route is answered
	// at once, without reading the body. Every other request takes its slot
	// here; GET /healthz takes none.
	if r.Method != http.MethodPost && r.URL.Path != routeHealth {
		release, ok := h.acquire(w, r)
		if !ok {
			return
		}
		defer release()
	}
	h.mux.ServeHTTP(w, r)
}

// acquire takes one of the handler's concurrency slots and returns the
// function that gives it back. When every slot is taken it answers the
// request 503 and returns false.
func (h *handler) acquire(w http.ResponseWriter, r *http.Request) (func(), bool) {
	if h.busy == nil {
		return func() {}, true
	}
	select {
	case h.busy <- struct{}{}:
		return func() { <-h.busy }, true
	default:
		busy(w, r, "too many at once", "max", h.opts.maxConcurrent)
		return nil, false
	}
}

// busy answers 503 with a Retry-After of one second and a one-line body.
func busy(w http.ResponseWriter, r *http.Request, why string, kv ...any) {
	logr.FromContextOrDiscard(r.Context()).V(1).Info("webhook request refused: "+why, append([]any{"method", r.Method, "path", r.URL.Path}, kv...)...)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Retry-After", "1")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte("too many concurrent requests, retry later\n"))
}

// filterJSON renders the domain filter for the negotiation; filters other
// than *endpoint.DomainFilter are sent as {} (match all), since the
// protocol has no way to describe them.
func filterJSON(f endpoint.DomainFilterInterface) []byte {
	if df, ok := f.(*endpoint.DomainFilter); ok && df != nil {
		if b, err := json.Marshal(df); err == nil {
			return append(b, '\n')
		}
	}
	return []byte("{}\n")
}

// fail writes a short plain-text error and logs it. The path is the
// client's (decoded: "%0a" is a line feed), so control characters in it
// are escaped ([endpoint.Printable]).
func fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	msg := fmt.Sprintf("%s %s: %s", r.Method, endpoint.Printable(r.URL.Path), endpoint.Printable(err.Error()))
	if len(msg) > maxErrorBody {
		msg = strings.ToValidUTF8(msg[:maxErrorBody], "") // not cut inside a character
	}
	log := logr.FromContextOrDiscard(r.Context())
	if status >= http.StatusInternalServerError {
		log.Error(err, "webhook request failed", "method", r.Method, "path", r.URL.Path, "status", status)
	} else {
		log.V(1).Info("webhook request refused", "method", r.Method, "path", r.URL.Path, "status", status, "reason", err.Error())
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg + "\n"))
}

func methodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	fail(w, r, http.StatusMethodNotAllowed, fmt.Errorf("method not allowed, use %s", allow))
}

// jsonBody checks a POST's Content-Type: the media type (version 1), or
// application/json.
func jsonBody(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == MediaType {
		return nil
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err == nil {
		switch mt {
		case "application/json":
			return nil
		case "application/external.dns.webhook+json":
			if v, ok := params["version"]; ok && v == "1" {
				return nil
			}
		}
	}
	return fmt.Errorf("unsupported Content-Type %q, want %q or application/json", ct, MediaType)
}

// body limits the request body to the cap.
func (h *handler) body(w http.ResponseWriter, r *http.Request) {
	if h.opts.maxBody > 0 {
		r.Body = http.MaxBytesReader(w, r.Body, h.opts.maxBody)
	}
}

// readAndAcquire reads a POST's body into memory ([handler.readBody]; what
// names the body in errors: "changes", "endpoints") and then takes a
// concurrency slot. It answers the
// request itself and returns false when the body is over the cap (413),
// cannot be read (400), or the bytes of bodies held or the slots are used
// up (503). Otherwise the caller decodes the returned body and calls the
// returned function when done, which gives back the slot and the body's
// bytes.
func (h *handler) readAndAcquire(w http.ResponseWriter, r *http.Request, what string) (io.Reader, func(), bool) {
	h.body(w, r)
	body, giveBytes, err := h.readBody(r)
	switch {
	case errors.Is(err, errBodyBudget):
		busy(w, r, "too many request bytes held at once", "maxBytes", int64(h.opts.maxConcurrent)*(h.opts.maxBody+1))
		return nil, nil, false
	case err != nil:
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			// The rest of the body is not read: the connection cannot
			// carry another request.
			w.Header().Set("Connection", "close")
		}
		fail(w, r, decodeStatus(err), fmt.Errorf("reading %s: %w", what, err))
		return nil, nil, false
	}
	giveSlot, ok := h.acquire(w, r)
	if !ok {
		giveBytes()
		return nil, nil, false
	}
	return body, func() { giveSlot(); giveBytes() }, true
}

// decodeStatus classifies a body decoding error: 413 over the cap or
// decoding to too much memory ([ErrBodyTooDense]), else 400.
func decodeStatus(err error) int {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) || errors.Is(err, ErrBodyTooDense) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

func (h *handler) negotiate(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, r, "GET")
		return
	}
	// Asked on every negotiation: a provider may learn its zones late.
	filter := filterJSON(h.p.GetDomainFilter())
	w.Header().Set("Content-Type", MediaType)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(filter)
}

func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, r, "GET")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("OK"))
}

func (h *handler) metrics(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, r, "GET")
		return
	}
	h.opts.metrics.ServeHTTP(w, r)
}

func (h *handler) records(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		eps, err := h.p.Records(r.Context())
		if err != nil {
			fail(w, r, http.StatusInternalServerError, fmt.Errorf("provider records: %w", err))
			return
		}
		logr.FromContextOrDiscard(r.Context()).V(1).Info("webhook records", "count", len(eps))
		writeEndpoints(w, r, eps)
	case http.MethodPost:
		h.apply(w, r)
	default:
		methodNotAllowed(w, r, "GET, POST")
	}
}

func (h *handler) apply(w http.ResponseWriter, r *http.Request) {
	if err := jsonBody(r); err != nil {
		fail(w, r, http.StatusUnsupportedMediaType, err)
		return
	}
	body, release, ok := h.readAndAcquire(w, r, "changes")
	if !ok {
		return
	}
	defer release()
	changes, err := decodeChanges(body)
	if err != nil {
		fail(w, r, decodeStatus(err), fmt.Errorf("decoding changes: %w", err))
		return
	}
	if err := checkChanges(changes); err != nil {
		fail(w, r, http.StatusBadRequest, err)
		return
	}
	log := logr.FromContextOrDiscard(r.Context())
	log.V(1).Info("webhook apply changes", "create", len(changes.Create), "update", len(changes.UpdateNew), "delete", len(changes.Delete))
	if err := h.p.ApplyChanges(r.Context(), changes); err != nil {
		fail(w, r, http.StatusInternalServerError, fmt.Errorf("provider apply changes: %w", err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// checkChanges refuses change sets no provider can apply sensibly: nil
// endpoints and update lists of different lengths.
func checkChanges(c *plan.Changes) error {
	if len(c.UpdateOld) != len(c.UpdateNew) {
		return fmt.Errorf("changes: updateOld has %d endpoints and updateNew %d, they must pair up", len(c.UpdateOld), len(c.UpdateNew))
	}
	for _, part := range []struct {
		name string
		eps  []*endpoint.Endpoint
	}{{"create", c.Create}, {"updateOld", c.UpdateOld}, {"updateNew", c.UpdateNew}, {"delete", c.Delete}} {
		if err := checkEndpoints(part.name, part.eps); err != nil {
			return err
		}
	}
	return nil
}

func checkEndpoints(list string, eps []*endpoint.Endpoint) error {
	for i, ep := range eps {
		if ep == nil {
			return fmt.Errorf("%s[%d]: null endpoint", list, i)
		}
	}
	return nil
}

func (h *handler) adjust(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, r, "POST")
		return
	}
	if err := jsonBody(r); err != nil {
		fail(w, r, http.StatusUnsupportedMediaType, err)
		return
	}
	body, release, ok := h.readAndAcquire(w, r, "endpoints")
	if !ok {
		return
	}
	defer release()
	eps, err := decodeEndpoints(body)
	if err == nil {
		err = checkEndpoints("endpoints", eps)
	}
	if err != nil {
		fail(w, r, decodeStatus(err), fmt.Errorf("decoding endpoints: %w", err))
		return
	}
	out, err := h.p.AdjustEndpoints(r.Context(), eps)
	if err != nil {
		fail(w, r, http.StatusInternalServerError, fmt.Errorf("provider adjust endpoints: %w", err))
		return
	}
	writeEndpoints(w, r, out)
}

// writeEndpoints streams eps as a JSON array (200), ending with a newline
// as encoding/json's Encoder does.
func writeEndpoints(w http.ResponseWriter, r *http.Request, eps []*endpoint.Endpoint) {
	w.Header().Set("Content-Type", MediaType)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	e := newEncoder(w)
	err := e.endpointList(eps)
	if err == nil {
		err = e.finish()
	}
	if err != nil {
		// The status line is out: all that is left is to log and stop.
		logr.FromContextOrDiscard(r.Context()).Error(err, "webhook response not written", "method", r.Method, "path", r.URL.Path)
	}
}
