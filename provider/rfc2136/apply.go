package rfc2136

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	"github.com/miekg/dns"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// maxMsgSize bounds an UPDATE message: 64 KiB (the TCP length prefix)
// minus room for the header, the zone section and a TSIG record.
const maxMsgSize = 65535 - 1024

// change is one create, update pair or delete, as prerequisite and update
// RRs of an UPDATE message.
type change struct {
	op      string // "create a.example.org A"
	prereqs []dns.RR
	updates []dns.RR
	size    int // uncompressed wire size of prereqs and updates
}

// phases of a zone's changes, sent in this order so that a delete or an
// update is done before a create that needs its name (A replaced by a CNAME).
const (
	phaseDelete = iota
	phaseUpdate
	phaseCreate
	phases
)

// zoneChanges holds a zone's changes by phase.
type zoneChanges [phases][]change

// ApplyChanges sends the changes as RFC 2136 UPDATE messages, grouped by
// zone (the most specific configured zone holding each name) and batched
// (MaxChangesPerUpdate changes, under 64 KiB, per message). Deletes go
// first, then updates, then creates. Every change carries prerequisites
// that make it safe:
//
//   - create: the RRset does not exist and, for other types, no CNAME is
//     at the name; for a CNAME, nothing is at the name;
//   - update: the RRset is exactly UpdateOld's targets (so a change made
//     behind zonesync's back is detected); its RRs are removed and
//     UpdateNew's added;
//   - delete: the RRset exists; the endpoint's RRs are removed one by one,
//     so targets added by someone else survive.
//
// When the server rejects a batch for a failed prerequisite or with
// REFUSED (which servers also answer for a single name their policy or
// integrity checks forbid, such as an in-zone MX target without an
// address), the batch is split in halves until the rejected changes are
// isolated: the others are applied and each rejected one is named. (An
// empty UPDATE tells a zone that refuses everything from one that refuses
// some changes: only the latter is split.) A batch
// of which nothing could be applied for another reason (NOTAUTH, network)
// ends the zone's changes. A failing zone does
// not stop the others: the errors of every zone are joined. Errors name the
// zone, the change and the response code ([RcodeError]); network failures,
// time-outs and SERVFAIL are soft ([provider.SoftError]). Set identifiers
// are not supported and fail the change. ApplyChanges does not modify
// changes.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("rfc2136: apply: %w", err)
	}
	if changes == nil {
		return nil
	}
	byZone := map[string]*zoneChanges{}
	var errs []error
	add := func(ph int, ep *endpoint.Endpoint, build func(zone string) (change, error)) {
		if ep == nil {
			errs = append(errs, errors.New("rfc2136: nil endpoint in changes"))
			return
		}
		zone, ok := p.zones.Zone(ep.DNSName)
		if !ok {
			errs = append(errs, fmt.Errorf("rfc2136: record %s: no configured zone (%v) holds the name", ep.Key(), p.zoneList))
			return
		}
		if ep.SetIdentifier != "" {
			errs = append(errs, fmt.Errorf("rfc2136: zone %s: record %s: set identifiers are not supported", zone, ep.Key()))
			return
		}
		c, err := build(zone)
		if err != nil {
			errs = append(errs, fmt.Errorf("rfc2136: zone %s: %w", zone, err))
			return
		}
		zc := byZone[zone]
		if zc == nil {
			zc = &zoneChanges{}
			byZone[zone] = zc
		}
		zc[ph] = append(zc[ph], c)
	}
	for _, ep := range changes.Delete {
		add(phaseDelete, ep, func(string) (change, error) { return p.deleteChange(ep) })
	}
	if len(changes.UpdateOld) != len(changes.UpdateNew) {
		errs = append(errs, fmt.Errorf("rfc2136: %d UpdateOld entries for %d UpdateNew entries", len(changes.UpdateOld), len(changes.UpdateNew)))
	} else {
		for i, newEp := range changes.UpdateNew {
			oldEp := changes.UpdateOld[i]
			add(phaseUpdate, newEp, func(string) (change, error) { return p.updateChange(oldEp, newEp) })
		}
	}
	for _, ep := range changes.Create {
		add(phaseCreate, ep, func(string) (change, error) { return p.createChange(ep) })
	}

	zones := make([]string, 0, len(byZone))
	for z := range byZone {
		zones = append(zones, z)
	}
	sort.Strings(zones)
	for _, zone := range zones {
		if err := p.applyZone(ctx, zone, byZone[zone]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func describe(verb string, ep *endpoint.Endpoint) string {
	name := endpoint.CanonicalDNSName(ep.DNSName)
	if checkLabels(name) != nil {
		name = strconv.Quote(name) // escapes, control bytes: shown as they are
	}
	return verb + " " + name + " " + ep.RecordType
}

func (p *Provider) createChange(ep *endpoint.Endpoint) (change, error) {
	c := change{op: describe("create", ep)}
	ins, err := toRRs(ep, p.ttl(ep))
	if err != nil {
		return c, fmt.Errorf("%s: %w", c.op, err)
	}
	h := ins[0].Header()
	if h.Rrtype == dns.TypeCNAME {
		c.prereqs = []dns.RR{&dns.ANY{Hdr: dns.RR_Header{Name: h.Name, Rrtype: dns.TypeANY, Class: dns.ClassNONE}}}
	} else {
		c.prereqs = []dns.RR{
			&dns.ANY{Hdr: dns.RR_Header{Name: h.Name, Rrtype: h.Rrtype, Class: dns.ClassNONE}},
			&dns.ANY{Hdr: dns.RR_Header{Name: h.Name, Rrtype: dns.TypeCNAME, Class: dns.ClassNONE}},
		}
	}
	c.updates = ins
	c.size = wireSize(c)
	return c, nil
}

func (p *Provider) updateChange(oldEp, newEp *endpoint.Endpoint) (change, error) {
	if newEp == nil || oldEp == nil {
		return change{}, errors.New("nil endpoint in an update pair")
	}
	c := change{op: describe("update", newEp)}
	if endpoint.CanonicalDNSName(oldEp.DNSName) != endpoint.CanonicalDNSName(newEp.DNSName) || oldEp.RecordType != newEp.RecordType {
		return c, fmt.Errorf("%s: UpdateOld is %s: an update cannot change the name or type", c.op, oldEp.Key())
	}
	if oldEp.SetIdentifier != "" {
		return c, fmt.Errorf("%s: set identifiers are not supported", c.op)
	}
	// Prerequisite: the RRset is exactly the old targets (TTL 0, class IN,
	// RFC 2136 §2.4.2). Removal: each old RR (class NONE).
	exists, err := toRRs(oldEp, 0)
	if err != nil {
		return c, fmt.Errorf("%s: old record: %w", c.op, err)
	}
	remove, _ := toRRs(oldEp, 0)
	for _, rr := range remove {
		rr.Header().Class = dns.ClassNONE
	}
	ins, err := toRRs(newEp, p.ttl(newEp))
	if err != nil {
		return c, fmt.Errorf("%s: %w", c.op, err)
	}
	c.prereqs = exists
	c.updates = append(remove, ins...)
	c.size = wireSize(c)
	return c, nil
}

func (p *Provider) deleteChange(ep *endpoint.Endpoint) (change, error) {
	c := change{op: describe("delete", ep)}
	remove, err := toRRs(ep, 0)
	if err != nil {
		return c, fmt.Errorf("%s: %w", c.op, err)
	}
	for _, rr := range remove {
		rr.Header().Class = dns.ClassNONE
	}
	h := remove[0].Header()
	c.prereqs = []dns.RR{&dns.ANY{Hdr: dns.RR_Header{Name: h.Name, Rrtype: h.Rrtype, Class: dns.ClassANY}}}
	c.updates = remove
	c.size = wireSize(c)
	return c, nil
}

func wireSize(c change) int {
	n := 0
	for _, rr := range c.prereqs {
		n += dns.Len(rr)
	}
	for _, rr := range c.updates {
		n += dns.Len(rr)
	}
	return n
}

// batches cuts cs into messages of at most max changes and maxMsgSize
// bytes (a single larger change gets a message of its own).
func batches(cs []change, maxChanges int) [][]change {
	var out [][]change
	start, size := 0, 0
	for i, c := range cs {
		if i > start && (i-start >= maxChanges || size+c.size > maxMsgSize) {
			out = append(out, cs[start:i])
			start, size = i, 0
		}
		size += c.size
	}
	if start < len(cs) {
		out = append(out, cs[start:])
	}
	return out
}

// sender sends a zone's UPDATE messages, over one TCP connection opened on
// first use.
type sender struct {
	p    *Provider
	zone string
	conn *dns.Conn

	probed, refused bool // result of refusesAll
}

// refusesAll reports whether the server refuses every update of the zone
// from us (no right to update it), rather than some of the changes: it
// sends an empty UPDATE once, which a server that lets us update the zone
// accepts.
func (s *sender) refusesAll(ctx context.Context) bool {
	if !s.probed {
		m := new(dns.Msg)
		m.SetUpdate(dns.Fqdn(s.zone))
		rcode, err := s.exchange(ctx, m, "empty update")
		s.probed, s.refused = true, err == nil && rcode == dns.RcodeRefused
	}
	return s.refused
}

func (s *sender) close() {
	if s.conn != nil {
		_ = s.conn.Close()
		s.conn = nil
	}
}

// exchange sends m and returns the response code.
func (s *sender) exchange(ctx context.Context, m *dns.Msg, op string) (int, error) {
	s.p.sign(m)
	if s.p.udp && m.Len() <= dns.MinMsgSize {
		r, _, err := s.p.client("udp").ExchangeContext(ctx, m, s.p.server)
		if err == nil && !r.Truncated {
			return r.Rcode, nil
		}
		if err != nil && (r == nil || r.Rcode == dns.RcodeSuccess) {
			return 0, netErr(ctx, s.zone, op, err)
		}
		if err != nil {
			return r.Rcode, nil
		}
		s.p.sign(m) // truncated: again over TCP, freshly signed
	}
	c := s.p.client("tcp")
	if s.conn == nil {
		conn, err := c.DialContext(ctx, s.p.server)
		if err != nil {
			return 0, netErr(ctx, s.zone, op, err)
		}
		s.conn = conn
	}
	stop := context.AfterFunc(ctx, func() { _ = s.conn.SetDeadline(time.Unix(1, 0)) })
	// A fresh dns.Conn on the same socket for every message: a dns.Conn
	// remembers the last request's TSIG MAC (for multi-message transfers)
	// and would sign the next, unrelated UPDATE with it.
	r, _, err := c.ExchangeWithConnContext(ctx, m, &dns.Conn{Conn: s.conn.Conn})
	stop()
	if err != nil {
		s.close() // the stream may hold a late answer: start afresh
		if r != nil && r.Rcode != dns.RcodeSuccess {
			return r.Rcode, nil // e.g. NOTAUTH with an unsigned answer
		}
		return 0, netErr(ctx, s.zone, op, err)
	}
	return r.Rcode, nil
}

// applyZone sends one zone's changes, phase by phase.
func (p *Provider) applyZone(ctx context.Context, zone string, zc *zoneChanges) error {
	log := logr.FromContextOrDiscard(ctx).WithValues("zone", zone)
	s := &sender{p: p, zone: zone}
	defer s.close()
	var errs []error
	for _, cs := range zc {
		for _, batch := range batches(cs, p.maxChanges) {
			applied, batchErrs := s.sendSplitting(ctx, batch)
			if applied > 0 {
				log.V(1).Info("rfc2136: update applied", "changes", applied, "first", batch[0].op)
			}
			errs = append(errs, batchErrs...)
			if applied == 0 && len(batchErrs) > 0 && !isPrereqErr(batchErrs[len(batchErrs)-1]) {
				// Nothing of the batch went through, for a reason
				// other than the data (refused, not authorised,
				// network): the zone's other messages would fail
				// alike.
				return errors.Join(errs...)
			}
		}
	}
	return errors.Join(errs...)
}

// sendSplitting sends batch as one message. When the server rejects it for
// a reason that may concern only some of its changes (a prerequisite, or
// REFUSED, which a server also answers for one name its policy or its
// integrity checks forbid), it sends each half the same way, so that the
// acceptable changes are applied and each rejected one is named; unless an
// empty UPDATE is refused too, which means the whole zone is. It returns
// the number of changes applied and the errors.
func (s *sender) sendSplitting(ctx context.Context, batch []change) (int, []error) {
	err := s.send(ctx, batch)
	if err == nil {
		return len(batch), nil
	}
	var rc *RcodeError
	if len(batch) == 1 || !errors.As(err, &rc) || !(isPrerequisite(rc.Rcode) || rc.Rcode == dns.RcodeRefused) {
		return 0, []error{err}
	}
	if rc.Rcode == dns.RcodeRefused && s.refusesAll(ctx) {
		return 0, []error{err}
	}
	half := len(batch) / 2
	n1, errs1 := s.sendSplitting(ctx, batch[:half])
	n2, errs2 := s.sendSplitting(ctx, batch[half:])
	return n1 + n2, append(errs1, errs2...)
}

func isPrereqErr(err error) bool {
	var rc *RcodeError
	return errors.As(err, &rc) && isPrerequisite(rc.Rcode)
}

// send sends one batch as one UPDATE message.
func (s *sender) send(ctx context.Context, batch []change) error {
	op := batch[0].op
	if len(batch) > 1 {
		op = fmt.Sprintf("%s and %d more changes", op, len(batch)-1)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("rfc2136: zone %s: %s: %w", s.zone, op, err)
	}
	m := new(dns.Msg)
	m.SetUpdate(dns.Fqdn(s.zone))
	m.Compress = true
	np, nu := 0, 0
	for _, c := range batch {
		np += len(c.prereqs)
		nu += len(c.updates)
	}
	m.Answer = make([]dns.RR, 0, np)
	m.Ns = make([]dns.RR, 0, nu)
	for _, c := range batch {
		m.Answer = append(m.Answer, c.prereqs...)
		m.Ns = append(m.Ns, c.updates...)
	}
	rcode, err := s.exchange(ctx, m, op)
	if err != nil {
		return err
	}
	if rcode != dns.RcodeSuccess {
		return rcodeErr(s.zone, op, rcode)
	}
	return nil
}
