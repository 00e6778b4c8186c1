package rfc2136

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/miekg/dns"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/dnstxt"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// maxMsgSize bounds an UPDATE message: 64 KiB (the TCP length prefix)
// minus room for the header, the zone section and a TSIG record.
const maxMsgSize = 65535 - 1024

// change is one create, update pair or delete, as prerequisite and update
// RRs of an UPDATE message.
type change struct {
	op      string // "create a.example.org A"
	kind    int    // kindDelete, kindUpdate or kindCreate
	name    string // owner name, canonical
	prereqs []dns.RR
	updates []dns.RR
	size    int // uncompressed wire size of prereqs and updates

	// An update of a TXT RRset whose old targets have two data forms:
	// removes is the number of removals that start updates, resolve the
	// old targets in canonical form, sorted (see sender.resolveTXT).
	removes int
	resolve []string
}

// Kinds of change, in the order they are written within a message.
const (
	kindDelete = iota
	kindUpdate
	kindCreate
)

// item is one change of the input before it is built.
type item struct {
	kind     int
	ep, old  *endpoint.Endpoint // old: UpdateOld of an update
	name     string             // canonical owner name
	groupKey string             // canonical name of provider.GroupKey
}

// unit is what goes into UPDATE messages as a whole: a group of changes
// (a record with its ownership TXT and everything else at their names), or
// one of the two parts of a group that must be sent in two messages. A
// unit is never split across messages.
type unit struct {
	changes []change
	size    int
	next    *unit // the group's second part, sent after this one succeeds
	ok      bool  // applied
}

func newUnit(cs []change) *unit {
	u := &unit{changes: cs}
	for _, c := range cs {
		u.size += c.size
	}
	return u
}

// ops names every change of the unit.
func (u *unit) ops() string {
	ops := make([]string, len(u.changes))
	for i, c := range u.changes {
		ops[i] = c.op
	}
	return strings.Join(ops, ", ")
}

// ApplyChanges sends the changes as RFC 2136 UPDATE messages, grouped by
// zone (the most specific configured zone holding each name). Every change
// carries prerequisites that make it safe:
//
//   - create: the RRset does not exist and, for other types, no CNAME is
//     at the name; for a CNAME, nothing is at the name;
//   - update: the RRset is exactly UpdateOld's targets (so a change made
//     behind zonesync's back is detected); its RRs are removed and
//     UpdateNew's added. For a TXT RRset whose old targets have two data
//     forms (see "TXT data" in the package documentation) the RRset is
//     queried first and, when it reads as exactly the old targets, the
//     RRs it holds are the prerequisite and are removed;
//   - delete: the RRset exists; the endpoint's RRs are removed one by one
//     (a TXT target in each of its data forms), so targets added by
//     someone else survive.
//
// Changes form groups that are applied or rejected as a whole, in one
// UPDATE message (which a server applies atomically): a record with its
// ownership TXT (tied by [provider.GroupKey], the label
// [endpoint.OwnedRecordLabelKey] the TXT registry sets), and every change
// at the same name. So a record someone else created between zonesync's
// read and its write fails its prerequisite together with the ownership
// TXT that would have claimed it. A group that deletes RRsets at a name and
// creates others there (an A replaced by a CNAME) is sent as two messages,
// as RFC 2136 checks every prerequisite before any update: first its
// deletes, then, when they succeeded, its updates and creates; each message
// still holds a record with its TXT. A group whose changes cannot all be
// built (an invalid name or target, a set identifier, names in two zones)
// is refused whole, naming the change at fault, and nothing of it is sent.
//
// Groups are batched: MaxChangesPerUpdate changes, under 64 KiB, per
// message, cut only between groups (a larger group gets a message of its
// own). When the server rejects a batch for a failed prerequisite or with
// REFUSED (which servers also answer for a single name their policy or
// integrity checks forbid, such as an in-zone MX target without an
// address), the batch is split in halves, between groups, until the
// rejected groups are isolated: the others are applied and each change of
// a rejected group is named. (An empty UPDATE tells a zone that refuses
// everything from one that refuses some changes: only the latter is
// split.) A batch of which nothing could be applied for another reason
// (NOTAUTH, network) ends the zone's changes. A failing zone does not stop
// the others: the errors of every zone are joined. Errors name the zone,
// the changes and the response code ([RcodeError], which says what to
// check for NOTAUTH, NOTZONE and REFUSED); network failures, time-outs and
// SERVFAIL are soft ([provider.SoftError]). Set identifiers are not
// supported and fail their group. ApplyChanges does not modify changes.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("rfc2136: apply: %w", err)
	}
	if changes == nil {
		return nil
	}
	var items []item
	var errs []error
	add := func(kind int, ep, old *endpoint.Endpoint) {
		if ep == nil {
			errs = append(errs, errors.New("rfc2136: nil endpoint in changes"))
			return
		}
		key, _ := provider.GroupKey(ep)
		items = append(items, item{kind: kind, ep: ep, old: old,
			name: endpoint.CanonicalName(ep.DNSName), groupKey: key})
	}
	for _, ep := range changes.Delete {
		add(kindDelete, ep, nil)
	}
	if len(changes.UpdateOld) != len(changes.UpdateNew) {
		errs = append(errs, fmt.Errorf("rfc2136: %d UpdateOld entries for %d UpdateNew entries", len(changes.UpdateOld), len(changes.UpdateNew)))
	} else {
		for i, newEp := range changes.UpdateNew {
			add(kindUpdate, newEp, changes.UpdateOld[i])
		}
	}
	for _, ep := range changes.Create {
		add(kindCreate, ep, nil)
	}

	byZone := map[string][]*unit{}
	for _, g := range groupItems(items) {
		zone, u, err := p.buildGroup(g)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		byZone[zone] = append(byZone[zone], u)
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

// groupItems puts items into groups: the items connected by a shared name
// (their own or their group key's). Groups come in the order of their
// first item, and the items of a group in input order.
func groupItems(items []item) [][]item {
	parent := map[string]string{}
	var find func(string) string
	find = func(n string) string {
		p, ok := parent[n]
		if !ok {
			parent[n] = n
			return n
		}
		if p == n {
			return n
		}
		r := find(p)
		parent[n] = r
		return r
	}
	for _, it := range items {
		a, b := find(it.name), find(it.groupKey)
		if a != b {
			parent[b] = a
		}
	}
	index := map[string]int{}
	var out [][]item
	for _, it := range items {
		r := find(it.name)
		i, ok := index[r]
		if !ok {
			i = len(out)
			index[r] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], it)
	}
	return out
}

// buildGroup builds the changes of a group and returns its zone and its
// first unit (with its second part, if any). Any change that cannot be
// built refuses the whole group.
func (p *Provider) buildGroup(g []item) (string, *unit, error) {
	zone, ok := p.zones.Zone(g[0].groupKey)
	cs := make([]change, 0, len(g))
	var err error
	for _, it := range g {
		var c change
		c, err = p.buildItem(it, zone, ok)
		if err != nil {
			break
		}
		cs = append(cs, c)
	}
	if err != nil {
		if len(g) > 1 {
			var others []string
			for _, it := range g {
				others = append(others, describe(verbs[it.kind], it.ep))
			}
			err = fmt.Errorf("%w (not applied, with it: the group of %s)", err, strings.Join(others, ", "))
		}
		return "", nil, err
	}
	slices.SortStableFunc(cs, func(a, b change) int { return a.kind - b.kind })
	// RFC 2136 §3.2 checks every prerequisite before any update: a create
	// at a name whose RRsets the group deletes must wait for the deletes.
	deleted := map[string]bool{}
	split := false
	for _, c := range cs {
		if c.kind == kindDelete {
			deleted[c.name] = true
		} else if c.kind == kindCreate && deleted[c.name] {
			split = true
		}
	}
	if !split {
		return zone, newUnit(cs), nil
	}
	n := 0
	for n < len(cs) && cs[n].kind == kindDelete {
		n++
	}
	first := newUnit(cs[:n:n])
	first.next = newUnit(cs[n:])
	return zone, first, nil
}

var verbs = [...]string{kindDelete: "delete", kindUpdate: "update", kindCreate: "create"}

// buildItem builds one change of a group of the zone (ok false: no
// configured zone holds the group).
func (p *Provider) buildItem(it item, zone string, ok bool) (change, error) {
	ep := it.ep
	z, own := p.zones.Zone(ep.DNSName)
	switch {
	case !own:
		return change{}, fmt.Errorf("rfc2136: record %s: no configured zone (%v) holds the name", ep.Key(), p.zoneList)
	case !ok:
		return change{}, fmt.Errorf("rfc2136: record %s: no configured zone (%v) holds %q, the record it belongs to", ep.Key(), p.zoneList, it.groupKey)
	case z != zone:
		return change{}, fmt.Errorf("rfc2136: zone %s: record %s: its group (%q, in zone %s) lies in another zone: a record and its ownership TXT must be in one zone to be applied together", z, ep.Key(), it.groupKey, zone)
	case ep.SetIdentifier != "":
		return change{}, fmt.Errorf("rfc2136: zone %s: record %s: set identifiers are not supported", zone, ep.Key())
	}
	var c change
	var err error
	switch it.kind {
	case kindDelete:
		c, err = p.deleteChange(ep)
	case kindUpdate:
		c, err = p.updateChange(it.old, ep)
	default:
		c, err = p.createChange(ep)
	}
	if err != nil {
		return c, fmt.Errorf("rfc2136: zone %s: %w", zone, err)
	}
	c.kind, c.name = it.kind, it.name
	return c, nil
}

func describe(verb string, ep *endpoint.Endpoint) string {
	name := endpoint.CanonicalName(ep.DNSName)
	if checkName(name, true) != nil {
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
	if endpoint.CanonicalName(oldEp.DNSName) != endpoint.CanonicalName(newEp.DNSName) || oldEp.RecordType != newEp.RecordType {
		return c, fmt.Errorf("%s: UpdateOld is %s: an update cannot change the name or type", c.op, oldEp.Key())
	}
	if oldEp.SetIdentifier != "" {
		return c, fmt.Errorf("%s: set identifiers are not supported", c.op)
	}
	// Prerequisite: the RRset is exactly the old targets (TTL 0, class IN,
	// RFC 2136 §2.4.2). Removal: each old RR (class NONE), in every data
	// form that reads as its target (see removals).
	exists, err := toRRs(oldEp, 0)
	if err != nil {
		return c, fmt.Errorf("%s: old record: %w", c.op, err)
	}
	remove, ambiguous := removals(oldEp, exists)
	ins, err := toRRs(newEp, p.ttl(newEp))
	if err != nil {
		return c, fmt.Errorf("%s: %w", c.op, err)
	}
	c.prereqs = exists
	c.updates = append(remove, ins...)
	c.removes = len(remove)
	if ambiguous {
		// Which data form the server holds is known only by asking it:
		// see sender.resolveTXT.
		c.resolve = make([]string, len(oldEp.Targets))
		for i, t := range oldEp.Targets {
			c.resolve[i] = dnstxt.Canonical(t)
		}
		slices.Sort(c.resolve)
	}
	c.size = wireSize(c)
	return c, nil
}

// removals returns the RRs (class NONE) that remove the RRs of rrs, built
// from ep. A TXT target is removed in every data form that reads as it
// (dnstxt.Forms: "X" with the quotes as data, written by zonesync before
// it followed external-dns, and X), since the server needs the exact data
// and removing an absent RR does nothing; ambiguous reports whether any
// target has more than one form.
func removals(ep *endpoint.Endpoint, rrs []dns.RR) (remove []dns.RR, ambiguous bool) {
	h := *rrs[0].Header()
	h.Class, h.Ttl = dns.ClassNONE, 0
	if h.Rrtype != dns.TypeTXT {
		remove = make([]dns.RR, len(rrs))
		for i, rr := range rrs {
			remove[i] = dns.Copy(rr)
			*remove[i].Header() = h
		}
		return remove, false
	}
	seen := make(map[string]bool, 2*len(ep.Targets))
	for _, t := range ep.Targets {
		forms := dnstxt.Forms(t)
		ambiguous = ambiguous || len(forms) > 1
		for _, v := range forms {
			if !seen[v] {
				seen[v] = true
				remove = append(remove, txtRR(h, v))
			}
		}
	}
	return remove, ambiguous
}

func (p *Provider) deleteChange(ep *endpoint.Endpoint) (change, error) {
	c := change{op: describe("delete", ep)}
	rrs, err := toRRs(ep, 0)
	if err != nil {
		return c, fmt.Errorf("%s: %w", c.op, err)
	}
	remove, _ := removals(ep, rrs)
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

// batches cuts units into messages of at most max changes and maxMsgSize
// bytes, between units (a larger unit gets a message of its own).
func batches(units []*unit, maxChanges int) [][]*unit {
	var out [][]*unit
	start, n, size := 0, 0, 0
	for i, u := range units {
		if i > start && (n+len(u.changes) > maxChanges || size+u.size > maxMsgSize) {
			out = append(out, units[start:i])
			start, n, size = i, 0, 0
		}
		n += len(u.changes)
		size += u.size
	}
	if start < len(units) {
		out = append(out, units[start:])
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
		r, err := s.exchange(ctx, m, "empty update")
		s.probed, s.refused = true, err == nil && r.Rcode == dns.RcodeRefused
	}
	return s.refused
}

func (s *sender) close() {
	if s.conn != nil {
		_ = s.conn.Close()
		s.conn = nil
	}
}

// exchange sends m and returns the response. A response whose TSIG does
// not verify is returned without error when its response code is not
// NOERROR (a server answers NOTAUTH, with the TSIG error, to a request
// whose signature it rejects).
func (s *sender) exchange(ctx context.Context, m *dns.Msg, op string) (*dns.Msg, error) {
	s.p.sign(m)
	if s.p.udp && m.Len() <= dns.MinMsgSize {
		r, _, err := s.p.client("udp").ExchangeContext(ctx, m, s.p.server)
		if err == nil && !r.Truncated {
			return r, nil
		}
		if err != nil && (r == nil || r.Rcode == dns.RcodeSuccess) {
			return nil, netErr(ctx, s.zone, op, err)
		}
		if err != nil {
			return r, nil
		}
		s.p.sign(m) // truncated: again over TCP, freshly signed
	}
	c := s.p.client("tcp")
	if s.conn == nil {
		conn, err := c.DialContext(ctx, s.p.server)
		if err != nil {
			return nil, netErr(ctx, s.zone, op, err)
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
			return r, nil // e.g. NOTAUTH with a TSIG error
		}
		return nil, netErr(ctx, s.zone, op, err)
	}
	return r, nil
}

// applyZone sends one zone's units: first every group's first (or only)
// part, then the second parts of the groups whose first part was applied.
func (p *Provider) applyZone(ctx context.Context, zone string, units []*unit) error {
	log := logr.FromContextOrDiscard(ctx).WithValues("zone", zone)
	s := &sender{p: p, zone: zone}
	defer s.close()
	var errs []error
	sendAll := func(units []*unit) bool {
		for _, u := range units {
			if err := s.resolveUnit(ctx, u); err != nil {
				errs = append(errs, err)
				return false
			}
		}
		for _, batch := range batches(units, p.maxChanges) {
			applied, batchErrs := s.sendSplitting(ctx, batch)
			if applied > 0 {
				log.V(1).Info("rfc2136: update applied", "changes", applied, "first", batch[0].changes[0].op)
			}
			errs = append(errs, batchErrs...)
			if applied == 0 && len(batchErrs) > 0 && !s.dataErr(ctx, batchErrs[len(batchErrs)-1]) {
				// Nothing of the batch went through, for a reason
				// other than the data (refused, not authorised,
				// network): the zone's other messages would fail
				// alike.
				return false
			}
		}
		return true
	}
	if !sendAll(units) {
		return errors.Join(errs...)
	}
	var second []*unit
	for _, u := range units {
		switch {
		case u.next == nil:
		case u.ok:
			second = append(second, u.next)
		default:
			errs = append(errs, fmt.Errorf("rfc2136: zone %s: %s: not sent: the deletes of the group were not applied", zone, u.next.ops()))
		}
	}
	sendAll(second)
	return errors.Join(errs...)
}

// dataErr reports whether err concerns the data of the changes rather than
// the zone as a whole: a failed prerequisite, or REFUSED while the zone
// accepts other updates.
func (s *sender) dataErr(ctx context.Context, err error) bool {
	var rc *RcodeError
	if !errors.As(err, &rc) {
		return false
	}
	return isPrerequisite(rc.Rcode) || rc.Rcode == dns.RcodeRefused && !s.refusesAll(ctx)
}

// sendSplitting sends batch as one message. When the server rejects it for
// a reason that may concern only some of its groups (a prerequisite, or
// REFUSED, which a server also answers for one name its policy or its
// integrity checks forbid), it sends each half (cut between units) the
// same way, so that the acceptable groups are applied and each rejected
// one is named; unless an empty UPDATE is refused too, which means the
// whole zone is. It returns the number of changes applied and the errors.
func (s *sender) sendSplitting(ctx context.Context, batch []*unit) (int, []error) {
	err := s.send(ctx, batch)
	if err == nil {
		n := 0
		for _, u := range batch {
			u.ok = true
			n += len(u.changes)
		}
		return n, nil
	}
	var rc *RcodeError
	if len(batch) == 1 || !errors.As(err, &rc) || !s.dataErr(ctx, err) {
		return 0, []error{err}
	}
	half := len(batch) / 2
	n1, errs1 := s.sendSplitting(ctx, batch[:half])
	n2, errs2 := s.sendSplitting(ctx, batch[half:])
	return n1 + n2, append(errs1, errs2...)
}

// send sends one batch as one UPDATE message.
func (s *sender) send(ctx context.Context, batch []*unit) error {
	var op string
	nc := 0
	for _, u := range batch {
		nc += len(u.changes)
	}
	if len(batch) == 1 {
		op = batch[0].ops()
	} else {
		op = fmt.Sprintf("%s and %d more changes", batch[0].changes[0].op, nc-1)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("rfc2136: zone %s: %s: %w", s.zone, op, err)
	}
	m := new(dns.Msg)
	m.SetUpdate(dns.Fqdn(s.zone))
	m.Compress = true
	np, nu := 0, 0
	for _, u := range batch {
		for _, c := range u.changes {
			np += len(c.prereqs)
			nu += len(c.updates)
		}
	}
	m.Answer = make([]dns.RR, 0, np)
	m.Ns = make([]dns.RR, 0, nu)
	for _, u := range batch {
		for _, c := range u.changes {
			m.Answer = append(m.Answer, c.prereqs...)
			m.Ns = append(m.Ns, c.updates...)
		}
	}
	r, err := s.exchange(ctx, m, op)
	if err != nil {
		return err
	}
	if r.Rcode != dns.RcodeSuccess {
		e := responseErr(s.zone, op, r, s.p.keyName != "")
		if r.Rcode == dns.RcodeRefused {
			e.ZoneRefused = s.refusesAll(ctx)
		}
		return wrapRcodeErr(e)
	}
	return nil
}

// resolveUnit resolves the TXT updates of u (see resolveTXT) and updates
// its size.
func (s *sender) resolveUnit(ctx context.Context, u *unit) error {
	changed := false
	for i := range u.changes {
		if u.changes[i].resolve == nil {
			continue
		}
		if err := s.resolveTXT(ctx, &u.changes[i]); err != nil {
			return err
		}
		changed = true
	}
	if changed {
		u.size = 0
		for _, c := range u.changes {
			u.size += c.size
		}
	}
	return nil
}

// resolveTXT makes the prerequisite and the removals of an update of a TXT
// RRset whose old targets each read from two data forms (X and "X") match
// the data the server holds: it asks the server for the RRset and, when
// what it holds reads as exactly the old targets, uses those RRs, data as
// stored, as the prerequisite and removes them. Otherwise the change keeps
// the prerequisite built from the targets (their current data form),
// which fails, as it must, when the RRset differs. The server checks the
// prerequisite again when it applies the update, so a change made between
// the query and the update still fails it.
func (s *sender) resolveTXT(ctx context.Context, c *change) error {
	name := c.prereqs[0].Header().Name
	m := new(dns.Msg)
	m.SetQuestion(name, dns.TypeTXT)
	m.RecursionDesired = false
	r, err := s.exchange(ctx, m, c.op+": query of the TXT RRset")
	if err != nil {
		return err
	}
	var stored []dns.RR
	var targets []string
	for _, rr := range r.Answer {
		h := rr.Header()
		if txt, ok := rr.(*dns.TXT); ok && h.Class == dns.ClassINET && strings.EqualFold(h.Name, name) {
			stored = append(stored, txt)
			targets = append(targets, dnstxt.Target(txt.Txt...))
		}
	}
	slices.Sort(targets)
	if r.Rcode != dns.RcodeSuccess || !slices.Equal(targets, c.resolve) {
		logr.FromContextOrDiscard(ctx).V(1).Info("rfc2136: TXT RRset not as read; the update's prerequisite will fail",
			"zone", s.zone, "change", c.op, "rcode", dns.RcodeToString[r.Rcode], "held", targets)
		c.resolve = nil
		return nil
	}
	prereqs := make([]dns.RR, len(stored))
	remove := make([]dns.RR, len(stored))
	for i, rr := range stored {
		prereqs[i] = dns.Copy(rr)
		h := prereqs[i].Header()
		h.Name, h.Ttl, h.Class = name, 0, dns.ClassINET
		remove[i] = dns.Copy(prereqs[i])
		remove[i].Header().Class = dns.ClassNONE
	}
	c.prereqs = prereqs
	c.updates = append(remove, c.updates[c.removes:]...)
	c.removes = len(remove)
	c.resolve = nil
	c.size = wireSize(*c)
	return nil
}
