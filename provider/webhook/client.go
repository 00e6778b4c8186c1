package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// Client defaults.
const (
	// DefaultTimeout is the total time allowed for one request, response
	// body included: external-dns's read (5 s) plus write (10 s) timeout.
	DefaultTimeout = 15 * time.Second
	// DefaultMaxResponseBytes caps response bodies: 512 MiB, about twice
	// the Records body of 500k records each with its ownership TXT record.
	DefaultMaxResponseBytes = 512 << 20
	// DefaultNegotiateAttempts is how often negotiation is tried, as
	// external-dns does.
	DefaultNegotiateAttempts = 5
)

// drainBytes is how much of a response body is read before it is closed,
// so that the connection can be reused.
const drainBytes = 1 << 20

// messageBytes is how much of an error response's body goes into the error.
const messageBytes = 256

// negotiateBytes caps the negotiation answer (a domain filter), whatever
// the cap on other responses.
const negotiateBytes = 16 << 20

// ClientOption is another name of [ClientOptions], the name under which the API of
// zonesync's first release lists NewProvider's parameter.
type ClientOption = ClientOptions

// ClientOptions configures [NewProvider]. The zero value talks to the
// webhook with the defaults; every field is optional.
type ClientOptions struct {
	// HTTPClient sends the requests. The default is a client of its own
	// (with http.DefaultTransport) that does not follow redirects, so that
	// a 3xx answer fails as the protocol requires.
	HTTPClient *http.Client
	// Timeout is the total time one request may take, reading the response
	// included. Zero means [DefaultTimeout]; a negative value means no
	// limit other than the caller's context.
	Timeout time.Duration
	// MaxResponseBytes caps the response bodies the provider reads; a
	// larger body fails the call with an error that names the cap
	// ([ErrResponseTooLarge]). Zero means [DefaultMaxResponseBytes]; a
	// negative value removes the cap.
	MaxResponseBytes int64
	// NegotiateAttempts is how often negotiation is tried in all when it
	// fails with a transport error or a 5xx answer. Zero means
	// [DefaultNegotiateAttempts]; 1 (or a negative value) tries once.
	NegotiateAttempts int
	// NegotiateBackoff is the wait after the first failed attempt (zero
	// means 500 ms); each further wait is 1.5 times longer, up to
	// NegotiateMaxBackoff (zero means 5 s), and each is varied randomly by
	// ±50 %.
	NegotiateBackoff, NegotiateMaxBackoff time.Duration
	// Guarantees, when set, are what the provider behind the webhook
	// server guarantees, as the caller knows it: the webhook protocol
	// carries no guarantees, so the client cannot learn them. The
	// Provider declares them ([Provider.Guarantees]) and the core relies
	// on them: declare only what the provider behind the server truly
	// does (for example CreateFailsIfExists for a server backed by this
	// repository's rfc2136 or inmemory provider). Nil declares nothing,
	// the safe assumptions of the zero [provider.Guarantees]. The client
	// keeps a copy.
	Guarantees *provider.Guarantees
}

// mergeClientOptions folds opts into one: the non-zero fields of later
// ones override earlier ones.
func mergeClientOptions(opts []ClientOptions) ClientOptions {
	var o ClientOptions
	for _, x := range opts {
		if x.HTTPClient != nil {
			o.HTTPClient = x.HTTPClient
		}
		if x.Timeout != 0 {
			o.Timeout = x.Timeout
		}
		if x.MaxResponseBytes != 0 {
			o.MaxResponseBytes = x.MaxResponseBytes
		}
		if x.NegotiateAttempts != 0 {
			o.NegotiateAttempts = x.NegotiateAttempts
		}
		if x.NegotiateBackoff != 0 {
			o.NegotiateBackoff = x.NegotiateBackoff
		}
		if x.NegotiateMaxBackoff != 0 {
			o.NegotiateMaxBackoff = x.NegotiateMaxBackoff
		}
		if x.Guarantees != nil {
			o.Guarantees = x.Guarantees
		}
	}
	return o
}

// clientSettings are the ClientOptions in effect: defaults filled in, no
// limit stored as 0.
type clientSettings struct {
	client       *http.Client
	timeout      time.Duration
	maxResponse  int64
	attempts     int
	backoff      time.Duration
	maxBackoff   time.Duration
	randomFactor float64
	guarantees   provider.Guarantees // a copy of ClientOptions.Guarantees; zero when unset
}

func (o ClientOptions) settings() clientSettings {
	s := clientSettings{
		client: o.HTTPClient, timeout: max(o.Timeout, 0), maxResponse: max(o.MaxResponseBytes, 0),
		attempts: max(o.NegotiateAttempts, 1), backoff: o.NegotiateBackoff, maxBackoff: o.NegotiateMaxBackoff,
		randomFactor: 0.5,
	}
	if o.Guarantees != nil {
		s.guarantees = o.Guarantees.Clone()
	}
	if s.client == nil {
		s.client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if o.Timeout == 0 {
		s.timeout = DefaultTimeout
	}
	if o.MaxResponseBytes == 0 {
		s.maxResponse = DefaultMaxResponseBytes
	}
	if o.NegotiateAttempts == 0 {
		s.attempts = DefaultNegotiateAttempts
	}
	if s.backoff == 0 {
		s.backoff = 500 * time.Millisecond
	}
	if s.maxBackoff == 0 {
		s.maxBackoff = 5 * time.Second
	}
	return s
}

// Provider is a [provider.Provider] that forwards every call to a webhook
// provider over HTTP (see docs/compatibility.md). It is safe for
// concurrent use.
type Provider struct {
	opts   clientSettings
	base   string // the negotiation URL, as given
	urlRec string
	urlAdj string
	filter *endpoint.DomainFilter
}

var _ provider.Provider = (*Provider)(nil)

// NewProvider negotiates with the webhook at baseURL and returns a provider
// that talks to it. Routes are appended to baseURL's path, so
// "http://host:8888/dns" reaches "/dns/records".
//
// Negotiation (GET baseURL) is retried on transport errors and 5xx answers
// with capped, jittered exponential backoff (see
// [ClientOptions.NegotiateAttempts]);
// any other non-2xx answer, a Content-Type other than [MediaType], or a body
// that is not a domain filter fails at once. The negotiated filter is kept
// for the provider's lifetime ([Provider.GetDomainFilter]). Errors name the
// URL.
//
// opts is zero or one ClientOptions; with several, the non-zero fields of
// later ones override earlier ones.
func NewProvider(ctx context.Context, baseURL string, opts ...ClientOptions) (*Provider, error) {
	o := mergeClientOptions(opts).settings()
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("webhook provider: base URL %q: %w", baseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("webhook provider: base URL %q: want http:// or https:// and a host", baseURL)
	}
	p := &Provider{
		opts:   o,
		base:   u.String(),
		urlRec: u.JoinPath("records").String(),
		urlAdj: u.JoinPath("adjustendpoints").String(),
	}
	if err := p.negotiate(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// DomainFilter returns the filter the webhook sent at negotiation.
func (p *Provider) DomainFilter() *endpoint.DomainFilter { return p.filter }

// GetDomainFilter returns the filter the webhook sent at negotiation.
func (p *Provider) GetDomainFilter() endpoint.DomainFilterInterface { return p.filter }

var _ provider.GuaranteeDeclarer = (*Provider)(nil)

// Guarantees implements [provider.GuaranteeDeclarer]: it returns the
// guarantees given in [ClientOptions.Guarantees] (a new copy on every
// call), or the zero [provider.Guarantees] when none were given, since the
// webhook protocol does not tell what the provider behind the server
// guarantees.
func (p *Provider) Guarantees() provider.Guarantees { return p.opts.guarantees.Clone() }

var _ provider.ZoneLister = (*Provider)(nil)

// ListZones implements [provider.ZoneLister] from the filter negotiated
// with the webhook: its include entries, without leading dots, sorted and
// without duplicates. They are the names the webhook chose to announce
// (external-dns sends its domain filter, often the zone names), which may
// be finer or coarser than the server's zones; callers only use them to
// split a change set, a record with its ownership TXT, so either is
// harmless. A filter without include entries, or one made of regular
// expressions, names no zone: ListZones then fails with
// [provider.ErrZonesUnsupported] and callers apply everything in one call.
func (p *Provider) ListZones(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("webhook: listing zones: %w", err)
	}
	if p.filter == nil || p.filter.RegexInclude() != nil {
		return nil, fmt.Errorf("webhook: the negotiated domain filter names no zone: %w", provider.ErrZonesUnsupported)
	}
	var zones []string
	for _, inc := range p.filter.Include() {
		z := strings.TrimPrefix(inc, ".") // entries are A-labels
		if z != "" && !slices.Contains(zones, z) {
			zones = append(zones, z)
		}
	}
	if len(zones) == 0 {
		return nil, fmt.Errorf("webhook: the negotiated domain filter names no zone: %w", provider.ErrZonesUnsupported)
	}
	slices.Sort(zones)
	return zones, nil
}

// retryable marks negotiation failures worth another attempt.
type retryable struct{ err error }

func (r retryable) Error() string { return r.err.Error() }
func (r retryable) Unwrap() error { return r.err }

func (p *Provider) negotiate(ctx context.Context) error {
	log := logr.FromContextOrDiscard(ctx)
	wait := p.opts.backoff
	var err error
	for attempt := 1; ; attempt++ {
		err = p.negotiateOnce(ctx)
		var r retryable
		if err == nil || !errors.As(err, &r) || attempt >= p.opts.attempts || ctx.Err() != nil {
			break
		}
		d := time.Duration(float64(wait) * (1 + p.opts.randomFactor*(2*rand.Float64()-1)))
		log.V(1).Info("webhook negotiation failed, retrying", "url", p.base, "attempt", attempt, "wait", d, "error", err.Error())
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("webhook GET %s (negotiation): %w (after: %v)", p.base, ctx.Err(), err)
		case <-t.C:
		}
		wait = min(time.Duration(float64(wait)*1.5), p.opts.maxBackoff)
	}
	if err != nil {
		var r retryable
		if errors.As(err, &r) {
			// Transport errors and 5xx answers, still failing after the
			// retries: soft, the webhook may be back later.
			err = softError(r.err)
		}
		return fmt.Errorf("webhook GET %s (negotiation): %w", p.base, err)
	}
	log.V(1).Info("webhook negotiated", "url", p.base, "domainFilter", p.filter.String())
	return nil
}

func (p *Provider) negotiateOnce(ctx context.Context) error {
	ctx, cancel := p.requestContext(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", MediaType)
	resp, err := p.opts.client.Do(req)
	if err != nil {
		err = transportError(ctx, err)
		if errors.Is(err, provider.SoftError) {
			return retryable{err}
		}
		return err
	}
	defer closeBody(resp)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		err := statusError(resp)
		if resp.StatusCode >= 500 {
			return retryable{softError(err)}
		}
		return err
	}
	if ct := resp.Header.Get("Content-Type"); ct != MediaType {
		return fmt.Errorf("Content-Type %q, want %q", ct, MediaType)
	}
	var df endpoint.DomainFilter
	limit := int64(negotiateBytes)
	if p.opts.maxResponse > 0 {
		limit = min(limit, p.opts.maxResponse)
	}
	if err := json.NewDecoder(&capReader{r: resp.Body, n: limit, c: limit}).Decode(&df); err != nil {
		return bodyError(ctx, fmt.Errorf("decoding the domain filter: %w", err))
	}
	p.filter = &df
	return nil
}

// errRequestTimeout is the cause of a request context whose own timeout
// ([ClientOptions.Timeout]) ran out, as opposed to the caller's context ending.
var errRequestTimeout = errors.New("webhook request timed out")

func (p *Provider) requestContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if p.opts.timeout > 0 {
		return context.WithTimeoutCause(ctx, p.opts.timeout, fmt.Errorf("%w after %s: %w", errRequestTimeout, p.opts.timeout, context.DeadlineExceeded))
	}
	return context.WithCancel(ctx)
}

// softError marks err soft unless it already is.
func softError(err error) error {
	if errors.Is(err, provider.SoftError) {
		return err
	}
	return provider.NewSoftError(err)
}

// transportError classifies a failure to exchange a request with the
// webhook (ctx is the request's context). When the caller's context ended
// (cancelled, or its own deadline passed) the error wraps ctx's error and
// is not soft: the caller gave up. Otherwise a failure of the network or of
// the server's process — connection refused or reset, the connection
// closed early (EOF), a time-out, this request's own timeout — is a
// [provider.SoftError]: a restarting sidecar is back at a later cycle. Other
// failures (a TLS certificate the client does not trust, an unsupported
// URL) are plain errors.
func transportError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		cause := context.Cause(ctx)
		if errors.Is(cause, errRequestTimeout) {
			return provider.NewSoftError(fmt.Errorf("%w (%w)", cause, err))
		}
		if errors.Is(err, ctx.Err()) {
			return err
		}
		return fmt.Errorf("%w (%w)", ctx.Err(), err)
	}
	if isTransient(err) {
		return provider.NewSoftError(err)
	}
	return err
}

// isTransient reports network failures and time-outs.
func isTransient(err error) bool {
	for _, target := range []error{io.EOF, io.ErrUnexpectedEOF, syscall.ECONNRESET, syscall.ECONNREFUSED,
		syscall.ECONNABORTED, syscall.EPIPE, syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH,
		os.ErrDeadlineExceeded, context.DeadlineExceeded, net.ErrClosed} {
		if errors.Is(err, target) {
			return true
		}
	}
	// *url.Error is a net.Error itself; look at what it wraps.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// bodyError classifies an error met while decoding a response body: a
// failure to read it ([transportError]) is soft, a body that does not
// decode, is over the size cap ([ErrResponseTooLarge]) or decodes to too
// much memory ([ErrBodyTooDense]) is not: the same server would send the
// same body again, and a larger cap is a decision for whoever configures
// the client.
func bodyError(ctx context.Context, err error) error {
	var syn *syntaxError
	if errors.Is(err, ErrResponseTooLarge) || errors.Is(err, ErrBodyTooDense) || errors.As(err, &syn) {
		return err
	}
	return transportError(ctx, err)
}

// ErrResponseTooLarge is returned (wrapped) when a response body exceeds
// the cap set with [ClientOptions.MaxResponseBytes].
var ErrResponseTooLarge = errors.New("response body too large")

// capReader fails, instead of stopping silently, once more than n bytes
// are read.
type capReader struct {
	r io.Reader
	n int64 // bytes still allowed
	c int64
}

func (c *capReader) Read(b []byte) (int, error) {
	if c.n < 0 {
		return 0, fmt.Errorf("%w: over %d bytes", ErrResponseTooLarge, c.c)
	}
	if int64(len(b)) > c.n+1 {
		b = b[:c.n+1]
	}
	n, err := c.r.Read(b)
	c.n -= int64(n)
	if c.n < 0 {
		return n - 1, fmt.Errorf("%w: over %d bytes", ErrResponseTooLarge, c.c)
	}
	return n, err
}

func (p *Provider) limit(r io.Reader) io.Reader {
	if p.opts.maxResponse <= 0 {
		return r
	}
	return &capReader{r: r, n: p.opts.maxResponse, c: p.opts.maxResponse}
}

// closeBody drains up to drainBytes of the body, so that the connection
// can carry the next request, and closes it.
func closeBody(resp *http.Response) {
	_, _ = io.CopyN(io.Discard, resp.Body, drainBytes)
	_ = resp.Body.Close()
}

// statusError describes an unexpected status, with the start of the
// server's message; 500–510 are soft errors, as in external-dns.
func statusError(resp *http.Response) error {
	buf := make([]byte, messageBytes)
	n, _ := io.ReadFull(resp.Body, buf)
	msg := strings.TrimSpace(strings.ToValidUTF8(string(buf[:n]), "\ufffd"))
	var err error
	status := endpoint.Printable(resp.Status) // the server's reason phrase may hold any byte
	if msg != "" {
		err = fmt.Errorf("status %s: %q", status, msg)
	} else {
		err = fmt.Errorf("status %s", status)
	}
	if resp.StatusCode >= 500 && resp.StatusCode <= 510 {
		return provider.NewSoftError(err)
	}
	return err
}

// do sends one request and checks the status; the caller closes the body
// with closeBody. Errors name the method and URL.
func (p *Provider) do(ctx context.Context, method, url string, body io.Reader, accept bool, want int) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		if c, ok := body.(io.Closer); ok {
			_ = c.Close()
		}
		return nil, fmt.Errorf("webhook %s %s: %w", method, url, err)
	}
	if accept {
		req.Header.Set("Accept", MediaType)
	}
	if body != nil {
		req.Header.Set("Content-Type", MediaType)
	}
	resp, err := p.opts.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("webhook %s %s: %w", method, url, transportError(ctx, err))
	}
	if resp.StatusCode != want {
		err := statusError(resp)
		closeBody(resp)
		return nil, fmt.Errorf("webhook %s %s: %w", method, url, err)
	}
	return resp, nil
}

// Records fetches the webhook's records (GET /records, exactly 200). Names
// are put in zonesync's form ([endpoint.ToALabel]: lower-case A-labels, no
// trailing dot) whatever spelling the webhook used, and the result is
// sorted by (DNSName, SetIdentifier, RecordType) whatever order it used.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	ctx, cancel := p.requestContext(ctx)
	defer cancel()
	resp, err := p.do(ctx, http.MethodGet, p.urlRec, nil, true, http.StatusOK)
	if err != nil {
		return nil, err
	}
	defer closeBody(resp)
	eps, err := decodeEndpoints(p.limit(resp.Body))
	if err != nil {
		return nil, fmt.Errorf("webhook GET %s: decoding records: %w", p.urlRec, bodyError(ctx, err))
	}
	eps = slices.DeleteFunc(eps, func(ep *endpoint.Endpoint) bool { return ep == nil })
	// A boundary of the library: names come back in the one form zonesync
	// holds them in, whatever the server wrote (upper case, a trailing
	// dot, Unicode).
	for _, ep := range eps {
		ep.DNSName = endpoint.ToALabel(ep.DNSName)
	}
	if !slices.IsSortedFunc(eps, endpoint.Compare) {
		slices.SortStableFunc(eps, endpoint.Compare)
	}
	return eps, nil
}

// ApplyChanges sends the changes (POST /records, exactly 204). The body is
// encoded while it is sent, so no copy of a large change set is held in
// memory. It is not retried: whether a failed call applied anything is for
// the next Records to tell.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	ctx, cancel := p.requestContext(ctx)
	defer cancel()
	if changes == nil {
		changes = &plan.Changes{}
	}
	body := streamBody(func(e *encoder) error { return e.changes(changes) })
	defer body.wait()
	resp, err := p.do(ctx, http.MethodPost, p.urlRec, body, false, http.StatusNoContent)
	if err != nil {
		return err
	}
	closeBody(resp)
	return nil
}

// AdjustEndpoints posts eps to the webhook (POST /adjustendpoints,
// exactly 200) and returns its answer. eps is not modified. The request
// ends with ctx or after the request timeout, whichever comes first.
func (p *Provider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	ctx, cancel := p.requestContext(ctx)
	defer cancel()
	body := streamBody(func(e *encoder) error { return e.endpointList(eps) })
	defer body.wait()
	resp, err := p.do(ctx, http.MethodPost, p.urlAdj, body, true, http.StatusOK)
	if err != nil {
		return nil, err
	}
	defer closeBody(resp)
	out, err := decodeEndpoints(p.limit(resp.Body))
	if err != nil {
		return nil, fmt.Errorf("webhook POST %s: decoding endpoints: %w", p.urlAdj, bodyError(ctx, err))
	}
	return slices.DeleteFunc(out, func(ep *endpoint.Endpoint) bool { return ep == nil }), nil
}

// errAbandoned stops a request body's encoder once the call is over.
var errAbandoned = errors.New("request finished before its body was sent")

// pipeBody is a request body encoded by a goroutine while the transport
// reads it.
type pipeBody struct {
	*io.PipeReader
	done chan struct{}
}

// wait stops the encoder if it is still running (the server answered
// before reading the whole body) and waits for it, so that the caller's
// endpoints are no longer read once the call returns.
func (b *pipeBody) wait() {
	_ = b.CloseWithError(errAbandoned)
	<-b.done
}

// streamBody returns a request body that encode writes while the transport
// reads it, ending with a newline as encoding/json's Encoder does.
func streamBody(encode func(*encoder) error) *pipeBody {
	pr, pw := io.Pipe()
	b := &pipeBody{PipeReader: pr, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		e := newEncoder(pw)
		err := encode(e)
		if err == nil {
			err = e.finish()
		}
		_ = pw.CloseWithError(err)
	}()
	return b
}
