package connector

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// Defaults of a [Connector].
const (
	DefaultAddress     = "localhost:8080" // as external-dns's --connector-source-server
	DefaultDialTimeout = 30 * time.Second // as external-dns
	DefaultReadTimeout = 30 * time.Second
	DefaultMaxBytes    = 32 << 20 // 32 MiB
)

// ErrTooLarge is returned (wrapped) by [Connector.Endpoints] when the
// server sends more bytes than the size limit allows.
var ErrTooLarge = errors.New("connector: response exceeds the size limit")

// Connector is a [source.Source] that reads its endpoints from a TCP server
// in the wire format of external-dns's connector source: on every Endpoints
// call it dials the server, sends nothing, reads one encoding/gob value
// holding a list of endpoints, and closes the connection. [Serve] is the
// server side.
//
// The endpoints read are converted as external-dns does: endpoints sharing
// (name, record type, set identifier, TTL) are merged into one whose
// targets are the union of theirs, sorted and without duplicates (CNAME and
// DNAME endpoints are never merged; the merged endpoint keeps the labels
// and provider-specific properties of the first); one trailing dot is
// removed from names (and from host-name targets). No annotation or
// template processing applies.
//
// Errors: a dial failure, a timeout, a malformed stream, a response over
// the size limit ([ErrTooLarge]) or one that decodes to too much memory
// ([ErrTooDense]) fail the call and name the server.
//
// Memory: a response may have at most [DefaultMaxBytes] bytes (see
// [Options.MaxBytes]) and decode to at most [MaxDecodedPerByte] bytes of
// endpoints per byte (plus 1 MiB). The stream is decoded by a gob decoder
// of this package (not encoding/gob, whose memory a peer controls: see the
// package documentation) that checks every length the server declares
// against the bytes that actually arrived before allocating for it, so the
// memory of one call is proportional to the bytes read: at most about 18
// times the size limit (576 MiB at the default), and 3 to 10 times the
// response's size for real lists. Interface-typed fields, which
// external-dns never sends, are refused. An endpoint with an invalid name,
// record type, target or TTL is left out and reported in a
// [*source.PartialError], keyed by its resource label when it has one and
// by "connector/<address>/<index>" otherwise; the others are returned.
//
// A Connector holds no connection between calls and is safe for concurrent
// use. Handlers are never called: the server cannot announce changes.
//
//zonesync:source:name=connector
//zonesync:source:category=external
//zonesync:source:description=Reads endpoints from a TCP server in external-dns's connector wire format (one gob-encoded list per connection).
//zonesync:source:resources=none
//zonesync:source:filters=none
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=false
type Connector struct {
	addr        string
	dialTimeout time.Duration
	readTimeout time.Duration
	maxBytes    int64
}

var _ source.Source = (*Connector)(nil)

// Options configures a [Connector]. The zero value uses the defaults.
type Options struct {
	// DialTimeout is how long a connection attempt may take. Zero means
	// [DefaultDialTimeout]; a negative value leaves only the context's
	// deadline.
	DialTimeout time.Duration
	// ReadTimeout is how long reading the response may take once connected.
	// Zero means [DefaultReadTimeout]; a negative value leaves only the
	// context's deadline.
	ReadTimeout time.Duration
	// MaxBytes is the most bytes a response may have; a larger response is an
	// error, never truncated. It also bounds the memory of one call (see
	// [Connector]). Zero or negative means [DefaultMaxBytes].
	MaxBytes int64
}

// New returns a source reading from the server at addr ("host:port"; empty
// means [DefaultAddress]). It fails when addr is not of that form.
func New(addr string, opts Options) (*Connector, error) {
	if addr == "" {
		addr = DefaultAddress
	}
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
		return nil, fmt.Errorf("connector: address %q is not host:port", addr)
	}
	c := &Connector{
		addr:        addr,
		dialTimeout: orDefault(opts.DialTimeout, DefaultDialTimeout),
		readTimeout: orDefault(opts.ReadTimeout, DefaultReadTimeout),
		maxBytes:    opts.MaxBytes,
	}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxBytes
	}
	return c, nil
}

// orDefault returns def for a zero d, and d otherwise (a negative d, which
// the caller treats as "no timeout", included).
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// String returns "connector <address>".
func (c *Connector) String() string { return "connector " + c.addr }

// AddEventHandler does nothing: the server cannot announce changes.
func (*Connector) AddEventHandler(context.Context, func()) {}

// Endpoints dials the server and returns the endpoints it sends; see
// [Connector] for conversion and errors.
func (c *Connector) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	d := net.Dialer{Timeout: c.dialTimeout}
	conn, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return nil, fmt.Errorf("connector %s: %w", c.addr, err)
	}
	defer conn.Close()
	if c.readTimeout > 0 {
		if err := conn.SetReadDeadline(time.Now().Add(c.readTimeout)); err != nil {
			return nil, fmt.Errorf("connector %s: %w", c.addr, err)
		}
	}
	// Unblock the read when ctx ends first.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetReadDeadline(time.Now()) })
	defer stop()

	wire, err := decodeList(conn, c.maxBytes)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("connector %s: %w", c.addr, ctxErr)
		}
		return nil, fmt.Errorf("connector %s: %w", c.addr, err)
	}
	eps, failed := convert(c.addr, wire)
	logr.FromContextOrDiscard(ctx).V(1).Info("connector: endpoints read", "server", c.addr, "received", len(wire), "endpoints", len(eps))
	return eps, failed.OrNil()
}

// wireEndpoint mirrors, field for field, the endpoint external-dns puts on
// the wire; gob matches fields by name. [Serve] encodes it; the client
// decodes with a decoder of its own (decodeList).
type wireEndpoint struct {
	DNSName          string
	Targets          []string
	RecordType       string
	SetIdentifier    string
	RecordTTL        int64
	Labels           map[string]string
	ProviderSpecific []wireProperty
}

type wireProperty struct {
	Name, Value string
}

// convert validates and converts the wire endpoints and merges those
// sharing (name, type, set identifier, TTL), CNAME and DNAME aside.
func convert(addr string, wire []*endpoint.Endpoint) ([]*endpoint.Endpoint, *source.PartialError) {
	type mergeKey struct {
		name, recordType, setID string
		ttl                     int64
	}
	var failed *source.PartialError
	out := make([]*endpoint.Endpoint, 0, len(wire))
	merged := map[mergeKey]*endpoint.Endpoint{}
	for i, w := range wire {
		// NewEndpointWithTTL removes the trailing dots.
		ep := endpoint.NewEndpointWithTTL(w.DNSName, w.RecordType, w.RecordTTL, w.Targets...)
		ep.SetIdentifier = w.SetIdentifier
		ep.Labels = w.Labels
		ep.ProviderSpecific = w.ProviderSpecific
		if len(ep.ProviderSpecific) == 0 {
			ep.ProviderSpecific = nil
		}
		wire[i] = nil // the decoded endpoint is garbage from here on
		if err := validate(ep); err != nil {
			key, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
			if key == "" {
				key = fmt.Sprintf("connector/%s/%d", addr, i)
			}
			failed = failed.Add(key, fmt.Errorf("endpoint %d (%s): %w", i, ep.Key(), err))
			continue
		}
		if ep.RecordType == endpoint.RecordTypeCNAME || ep.RecordType == endpoint.RecordTypeDNAME {
			out = append(out, ep)
			continue
		}
		k := mergeKey{ep.DNSName, ep.RecordType, ep.SetIdentifier, int64(ep.RecordTTL)}
		if first, ok := merged[k]; ok {
			first.Targets = append(first.Targets, ep.Targets...)
			continue
		}
		merged[k] = ep
		out = append(out, ep)
	}
	for _, ep := range out {
		if len(ep.Targets) > 1 {
			slices.Sort(ep.Targets)
			ep.Targets = slices.Compact(ep.Targets)
		}
	}
	return out, failed
}

// validate checks what a connector endpoint needs: a valid name, a record
// type, valid targets for it (for a TXT record, none that reads as an
// ownership record, [endpoint.CheckNotOwnershipText], as
// [endpoint.Endpoint.ValidateDesired] refuses) and a TTL that is not
// negative. An endpoint without targets is accepted (a default-targets
// wrapper may fill it).
func validate(ep *endpoint.Endpoint) error {
	var errs []error
	badTargets := 0
	if err := endpoint.ValidateRecordName(ep.RecordType, ep.DNSName); err != nil {
		errs = append(errs, fmt.Errorf("dnsName: %w", err))
	}
	if ep.RecordType == "" {
		errs = append(errs, errors.New("record type is empty"))
	}
	for i, t := range ep.Targets {
		err := ep.CheckTarget(t)
		if err == nil && ep.RecordType == endpoint.RecordTypeTXT {
			err = endpoint.CheckNotOwnershipText(t, nil)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("targets[%d]: %w", i, err))
			// Checking (and building errors for) every target of a hostile list is not
			// worth it: the endpoint is refused.
			if badTargets++; badTargets == source.MaxCausesPerKey && i < len(ep.Targets)-1 {
				errs = append(errs, fmt.Errorf("targets[%d:] not checked", i+1))
				break
			}
		}
	}
	if ep.RecordTTL < 0 {
		errs = append(errs, fmt.Errorf("recordTTL %d is negative", ep.RecordTTL))
	}
	return errors.Join(errs...)
}

// Defaults of [Serve].
const (
	// DefaultMaxConns is how many connections Serve answers at once. Each holds
	// the gob encoding of one list of endpoints while it is written, so the
	// server's memory is bounded by this many encodings.
	DefaultMaxConns = 16
	// DefaultWriteTimeout is how long writing one answer may take; a client
	// that does not read is dropped after it.
	DefaultWriteTimeout = 30 * time.Second
)

// ServeOptions configures [Serve]. The zero value uses the defaults.
type ServeOptions struct {
	// MaxConns is how many connections are answered at once; a connection
	// accepted beyond it is closed at once, unanswered (its client sees a
	// decoding error and tries again at its next cycle). Zero or negative means
	// [DefaultMaxConns].
	MaxConns int
	// WriteTimeout is how long writing one answer may take; a client that reads
	// slower is dropped. Zero or negative means [DefaultWriteTimeout].
	WriteTimeout time.Duration
}

// Serve is the server side of [Connector]: it accepts connections on l
// until ctx is done and answers each one, in its own goroutine, by calling
// list, writing the endpoints it returns as one gob value in the wire
// format external-dns's connector source reads, and closing the connection.
// When list fails, the connection is closed without writing (the client
// sees a decoding error) and the error is logged through the logger in ctx.
//
// Resources are bounded against clients that connect and never read: at
// most [ServeOptions.MaxConns] connections are answered at once (the others
// are closed as soon as they are accepted), and writing one answer may take
// at most [ServeOptions.WriteTimeout]. Each answer holds the gob encoding
// of the list while it is written, so the memory of the server is at most
// that many encodings.
//
// Serve closes l when ctx is done, waits for the connections in progress
// and returns nil; any other Accept error is returned after the same wait.
func Serve(ctx context.Context, l net.Listener, list func(ctx context.Context) ([]*endpoint.Endpoint, error), opts ServeOptions) error {
	o := opts
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	log := logr.FromContextOrDiscard(ctx)
	stop := context.AfterFunc(ctx, func() { _ = l.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, o.MaxConns)
	for {
		conn, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("connector server %s: accept: %w", l.Addr(), err)
		}
		select {
		case slots <- struct{}{}:
		default:
			log.V(1).Info("connector server: too many connections, closing one unanswered", "remote", conn.RemoteAddr().String(), "max", o.MaxConns)
			_ = conn.Close()
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			defer conn.Close()
			if err := serveConn(ctx, conn, list, o.WriteTimeout); err != nil {
				log.Error(err, "connector server: answering a connection", "remote", conn.RemoteAddr().String())
			}
		})
	}
}

func serveConn(ctx context.Context, conn net.Conn, list func(ctx context.Context) ([]*endpoint.Endpoint, error), writeTimeout time.Duration) error {
	eps, err := list(ctx)
	if err != nil {
		return fmt.Errorf("listing endpoints: %w", err)
	}
	wire := toWire(eps)
	// Encode first, so that the write timeout measures the client's reading and
	// not the server's encoding (gob buffers a whole value before writing it
	// anyway).
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(wire); err != nil {
		return fmt.Errorf("encoding %d endpoints: %w", len(wire), err)
	}
	if err := conn.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return err
	}
	if _, err := conn.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing %d endpoints: %w", len(wire), err)
	}
	return nil
}

// toWire converts eps (nil entries left out) to their wire form.
func toWire(eps []*endpoint.Endpoint) []wireEndpoint {
	wire := make([]wireEndpoint, 0, len(eps))
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		w := wireEndpoint{
			DNSName:       ep.DNSName,
			Targets:       ep.Targets,
			RecordType:    ep.RecordType,
			SetIdentifier: ep.SetIdentifier,
			RecordTTL:     int64(ep.RecordTTL),
		}
		if ep.Labels.Len() > 0 {
			w.Labels = maps.Collect(ep.Labels.All())
		}
		for _, p := range ep.ProviderSpecific {
			w.ProviderSpecific = append(w.ProviderSpecific, wireProperty{Name: p.Name, Value: p.Value})
		}
		wire = append(wire, w)
	}
	return wire
}
