package rfc2136

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"github.com/miekg/dns"

	"github.com/zonesync/zonesync/endpoint"
)

// Records transfers every configured zone (AXFR, TSIG-signed when a key is
// set) and returns its records as endpoints, sorted by (DNSName,
// SetIdentifier, RecordType), each with its targets sorted. RRs with the same name and type form one
// endpoint with one target per RR and the smallest of their TTLs. Names
// are lower case without a trailing dot. SOA records, each zone's own apex
// NS records and types the provider does not manage are left out, and so
// are records a transfer returns that belong to another configured zone
// (delegations to it and their glue).
//
// A record whose owner name or host-name target holds a byte that miekg/dns
// shows escaped (a dot or backslash inside a label, a byte outside
// printable ASCII, zone-file syntax) is skipped and logged (at V(0) on the
// context's logger): it has no faithful form as an endpoint, and in its
// unescaped form it would pass for another record.
//
// When any zone cannot be transferred, Records returns no records and the
// errors of the failing zones joined; network failures and time-outs are
// soft errors ([provider.SoftError]).
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rfc2136: records: %w", err)
	}
	log := logr.FromContextOrDiscard(ctx)
	var out []*endpoint.Endpoint
	var errs []error
	for _, zone := range p.zoneList {
		eps, err := p.zoneRecords(ctx, zone)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		log.V(1).Info("rfc2136: zone transferred", "zone", zone, "records", len(eps))
		out = append(out, eps...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, ep := range out {
		if len(ep.Targets) > 1 {
			slices.Sort(ep.Targets) // the transfer's order is the server's
		}
	}
	slices.SortFunc(out, endpoint.Compare)
	return out, nil
}

// zoneRecords transfers one zone and groups its RRs into endpoints.
func (p *Provider) zoneRecords(ctx context.Context, zone string) ([]*endpoint.Endpoint, error) {
	rrs, err := p.transfer(ctx, zone)
	if err != nil {
		return nil, err
	}
	log := logr.FromContextOrDiscard(ctx)
	type key struct{ name, typ string }
	index := make(map[key]*endpoint.Endpoint, len(rrs))
	var out []*endpoint.Endpoint
	for _, rr := range rrs {
		h := rr.Header()
		if h.Class != dns.ClassINET {
			continue
		}
		name := endpoint.ToALabel(h.Name)
		if h.Rrtype == dns.TypeNS && name == zone {
			continue // the zone's own name servers
		}
		if z, ok := p.zones.Zone(name); !ok || z != zone {
			continue // a delegation to another configured zone, or glue
		}
		typ, target, ok := fromRR(rr)
		if !ok {
			continue
		}
		if !representable(rr) {
			// Its name or host target has an escape: returned in
			// presentation form it would name another record (the
			// unescaped name) that a desired record could match.
			log.Info("rfc2136: record skipped: its name or target holds characters an endpoint cannot represent",
				"zone", zone, "type", typ, "record", rr.String())
			continue
		}
		ttl := endpoint.TTL(h.Ttl)
		k := key{name, typ}
		if ep := index[k]; ep != nil {
			ep.Targets = append(ep.Targets, target)
			ep.RecordTTL = min(ep.RecordTTL, ttl)
			continue
		}
		ep := &endpoint.Endpoint{DNSName: name, RecordType: typ, RecordTTL: ttl, Targets: endpoint.Targets{target}}
		index[k] = ep
		out = append(out, ep)
	}
	return out, nil
}

// transfer runs an AXFR of zone and returns its RRs. ctx cancels it: the
// connection is closed, which ends the transfer.
func (p *Provider) transfer(ctx context.Context, zone string) ([]dns.RR, error) {
	const op = "transfer"
	dctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	conn, err := p.client("tcp").DialContext(dctx, p.server)
	if err != nil {
		return nil, netErr(ctx, zone, op, err)
	}
	// miekg/dns reports a NOTAUTH answer only as "bad authentication":
	// keep the first answer to tell a rejected key from a zone the server
	// does not serve.
	first := &firstMsgConn{Conn: conn.Conn}
	conn.Conn = first
	stop := context.AfterFunc(dctx, func() { _ = conn.Close() })
	defer stop()
	if d, ok := dctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}

	m := new(dns.Msg)
	m.SetAxfr(dns.Fqdn(zone))
	p.sign(m)
	t := &dns.Transfer{Conn: conn, ReadTimeout: p.timeout}
	if p.keyName != "" {
		t.TsigSecret = map[string]string{p.keyName: p.secret}
	}
	env, err := t.In(m, p.server)
	if err != nil {
		_ = conn.Close()
		return nil, netErr(ctx, zone, op, err)
	}
	var rrs []dns.RR
	var firstErr error
	for e := range env { // always drained: the transfer goroutine ends with the channel
		if firstErr != nil {
			continue
		}
		if e.Error != nil {
			firstErr = e.Error
			_ = conn.Close()
			continue
		}
		rrs = append(rrs, e.RR...)
	}
	if firstErr != nil {
		if r := first.msg(); r != nil && r.Rcode != dns.RcodeSuccess {
			return nil, wrapRcodeErr(responseErr(zone, op, r, p.keyName != ""))
		}
		if rcode, ok := xfrRcode(firstErr); ok {
			return nil, wrapRcodeErr(&RcodeError{Zone: zone, Op: op, Rcode: rcode})
		}
		if ctx.Err() == nil && dctx.Err() != nil {
			firstErr = fmt.Errorf("timed out after %s: %w", p.timeout, context.DeadlineExceeded)
		}
		return nil, netErr(ctx, zone, op, firstErr)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rfc2136: zone %s: %s: %w", zone, op, err)
	}
	return rrs, nil
}

// xfrRcode extracts the response code of miekg/dns's "bad xfr rcode: N"
// error, the only form in which a refused transfer is reported.
func xfrRcode(err error) (int, bool) {
	var de *dns.Error
	if !errors.As(err, &de) {
		return 0, false
	}
	const marker = "bad xfr rcode: "
	msg := de.Error()
	i := strings.Index(msg, marker)
	if i < 0 {
		return 0, false
	}
	n, convErr := strconv.Atoi(strings.TrimSpace(msg[i+len(marker):]))
	if convErr != nil {
		return 0, false
	}
	return n, true
}

// firstMsgConn is a TCP connection that keeps the bytes of the first DNS
// message it reads (after the two-byte length).
type firstMsgConn struct {
	net.Conn
	mu  sync.Mutex
	buf []byte
}

func (c *firstMsgConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	want := 2
	if len(c.buf) >= 2 {
		want += int(c.buf[0])<<8 | int(c.buf[1])
	}
	for i := 0; i < n && len(c.buf) < want; i++ {
		c.buf = append(c.buf, p[i])
		if len(c.buf) == 2 {
			want += int(c.buf[0])<<8 | int(c.buf[1])
		}
	}
	return n, err
}

// msg returns the first message, or nil when none was read whole.
func (c *firstMsgConn) msg() *dns.Msg {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.buf) < 2 || len(c.buf) < 2+(int(c.buf[0])<<8|int(c.buf[1])) {
		return nil
	}
	m := new(dns.Msg)
	if m.Unpack(c.buf[2:]) != nil {
		return nil
	}
	return m
}
