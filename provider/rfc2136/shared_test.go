package rfc2136_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/rfc2136"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// This file runs the TXT registry's shared mode (several owners publishing
// one record set, see registry/txt.SharedConfig) against a real named
// through RFC 2136.

const (
	sharedZone   = "example.com"
	sharedApp    = "app.example.com"   // the record set the owners share
	sharedMarker = "a-app.example.com" // its ownership TXT
	// sharedOther is a name in shared scope holding somebody else's record
	// without a marker: the shared owners ask for it and must never take
	// it over.
	sharedOther  = "other.example.com"
	foreignOwner = "someone-else"
)

// sharedTestSeed is the seed of the schedule: ZONESYNC_SHARED_SEED, or a
// fixed one.
func sharedTestSeed(t *testing.T) uint64 {
	seed := uint64(20261129)
	if v := os.Getenv("ZONESYNC_SHARED_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		require.NoError(t, err, "ZONESYNC_SHARED_SEED")
		seed = s
	}
	t.Logf("seed %d (set ZONESYNC_SHARED_SEED to replay another)", seed)
	return seed
}

// updateRR is one RR of the update section of an UPDATE message.
type updateRR struct {
	name, rtype string
	class       uint16 // IN: add; ANY: delete the RRset; NONE: delete the RR
}

// updateMsg is an UPDATE message that went through a [msgProxy], with the
// server's answer.
type updateMsg struct {
	rrs   []updateRR
	rcode int // -1 until answered
}

func (m updateMsg) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "UPDATE rcode=%s:", dns.RcodeToString[m.rcode])
	for _, rr := range m.rrs {
		op := map[uint16]string{dns.ClassINET: "add", dns.ClassANY: "delete-rrset", dns.ClassNONE: "delete"}[rr.class]
		fmt.Fprintf(&b, " %s %s %s;", op, rr.name, rr.rtype)
	}
	return b.String()
}

// touches reports whether the message changes anything of the shared
// record set app.example.com/A: the record, its marker or a contribution.
func (m *updateMsg) touches() bool {
	return m.has(isAppRecord) || m.has(isAppMarker) || m.has(isAppContribution)
}

func (m *updateMsg) has(f func(updateRR) bool) bool { return slices.ContainsFunc(m.rrs, f) }

func isAppRecord(rr updateRR) bool { return rr.name == sharedApp && rr.rtype == "A" }
func isAppMarker(rr updateRR) bool { return rr.name == sharedMarker && rr.rtype == "TXT" }
func isAppContribution(rr updateRR) bool {
	return rr.rtype == "TXT" && strings.HasPrefix(rr.name, "_zs-") && strings.HasSuffix(rr.name, "-a."+sharedApp)
}

// msgProxy forwards DNS over TCP to a server and records every UPDATE
// message with a non-empty update section, and the server's response
// code, before the response reaches the client.
type msgProxy struct {
	l      net.Listener
	server string
	wg     sync.WaitGroup

	mu   sync.Mutex
	msgs []*updateMsg
}

func startMsgProxy(t *testing.T, server string) *msgProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &msgProxy{l: l, server: server}
	serveConns(t, l, &p.wg, p.serve)
	return p
}

func (p *msgProxy) serve(c net.Conn) {
	defer func() { _ = c.Close() }()
	up, err := net.Dial("tcp", p.server)
	if err != nil {
		return
	}
	defer func() { _ = up.Close() }()
	var mu sync.Mutex
	pending := map[uint16]*updateMsg{}
	done := make(chan struct{})
	go func() { // server to client: answers, zone transfers
		defer close(done)
		defer func() { _ = c.Close() }()
		for {
			frame, err := readFrame(up)
			if err != nil {
				return
			}
			var m dns.Msg
			if m.Unpack(frame[2:]) == nil {
				mu.Lock()
				if u := pending[m.Id]; u != nil {
					delete(pending, m.Id)
					p.mu.Lock()
					u.rcode = m.Rcode
					p.mu.Unlock()
				}
				mu.Unlock()
			}
			if _, err := c.Write(frame); err != nil {
				return
			}
		}
	}()
	for {
		frame, err := readFrame(c)
		if err != nil {
			break
		}
		var m dns.Msg
		if m.Unpack(frame[2:]) == nil && m.Opcode == dns.OpcodeUpdate && len(m.Ns) > 0 {
			u := &updateMsg{rcode: -1}
			for _, rr := range m.Ns {
				h := rr.Header()
				u.rrs = append(u.rrs, updateRR{name: strings.ToLower(strings.TrimSuffix(h.Name, ".")), rtype: dns.TypeToString[h.Rrtype], class: h.Class})
			}
			mu.Lock()
			pending[m.Id] = u
			mu.Unlock()
			p.mu.Lock()
			p.msgs = append(p.msgs, u)
			p.mu.Unlock()
		}
		if _, err := up.Write(frame); err != nil {
			break
		}
	}
	_ = up.Close()
	<-done
}

// mark returns the number of messages recorded so far.
func (p *msgProxy) mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.msgs)
}

// since returns copies of the messages recorded after mark.
func (p *msgProxy) since(mark int) []updateMsg {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]updateMsg, 0, len(p.msgs)-mark)
	for _, m := range p.msgs[mark:] {
		out = append(out, *m)
	}
	return out
}

// violations reports what the checks after each cycle find: the first
// violation of each kind as a test error, the later ones only counted, so
// that a state that stays broken does not repeat itself every cycle. Safe
// for concurrent use.
type violations struct {
	t     *testing.T
	mu    sync.Mutex
	count map[string]int
}

func newViolations(t *testing.T) *violations {
	v := &violations{t: t, count: map[string]int{}}
	t.Cleanup(func() {
		for kind, n := range v.count {
			if n > 1 {
				t.Logf("violation %q seen %d times in all", kind, n)
			}
		}
	})
	return v
}

// errorf reports a violation of the given kind.
func (v *violations) errorf(kind, format string, args ...any) {
	v.t.Helper()
	v.mu.Lock()
	defer v.mu.Unlock()
	v.count[kind]++
	if v.count[kind] == 1 {
		v.t.Errorf(kind+": "+format, args...)
	}
}

// rfcOwner is one shared-mode owner: a Reconciler with its own rfc2136
// provider, which talks to named through a msgProxy of its own.
type rfcOwner struct {
	id     string
	pool   []string // the addresses it may ask for at app.example.com
	others []string // and at other.example.com
	src    *source.Static
	rec    *zonesync.Reconciler
	reg    *txt.Registry
	proxy  *msgProxy

	want      []string // app.example.com targets asked for now; none: it leaves
	wantOther bool     // it asks for other.example.com too
}

func newRFCOwner(t *testing.T, srv *bindtest.Server, id string, n int) *rfcOwner {
	o := &rfcOwner{id: id, src: source.NewStatic(), proxy: startMsgProxy(t, srv.Addr())}
	for i := range 4 {
		o.pool = append(o.pool, fmt.Sprintf("192.0.2.%d", n*10+i+1))
		o.others = append(o.others, fmt.Sprintf("192.0.2.%d", 100+n*10+i+1))
	}
	p := newProvider(t, srv, func(c *rfc2136.Config) { c.Server = o.proxy.l.Addr().String() })
	reg, err := txt.New(p, txt.Config{OwnerID: id, Shared: &txt.SharedConfig{}})
	require.NoError(t, err)
	o.reg = reg
	o.rec = &zonesync.Reconciler{Source: o.src, Registry: reg}
	return o
}

// mutate changes what o asks for at random: a random subset of its pool
// at app.example.com (sometimes none: it leaves), and sometimes
// other.example.com.
func (o *rfcOwner) mutate(rng *rand.Rand) {
	o.want = nil
	if rng.IntN(4) != 0 {
		for _, a := range o.pool {
			if rng.IntN(2) == 0 {
				o.want = append(o.want, a)
			}
		}
	}
	o.wantOther = rng.IntN(3) == 0
	o.publish()
}

func (o *rfcOwner) publish() {
	var eps []*endpoint.Endpoint
	if len(o.want) > 0 {
		ep := endpoint.NewEndpointWithTTL(sharedApp, endpoint.RecordTypeA, endpoint.TTL(240+60*len(o.want)), o.want...)
		ep.Labels.Set(endpoint.ResourceLabelKey, "service/default/"+o.id)
		eps = append(eps, ep)
	}
	if o.wantOther {
		eps = append(eps, endpoint.NewEndpoint(sharedOther, endpoint.RecordTypeA, o.others[:2]...))
	}
	o.src.Set(eps...)
}

// cycle runs one RunOnce of o and checks the UPDATE messages it sent:
// every change of the shared record set (the record, its marker, the
// contributions) went in one message, applied or refused whole. It
// returns the cycle's error and the number of applied messages that
// carried both the record and a contribution TXT.
func (o *rfcOwner) cycle(ctx context.Context, v *violations, when string) (both int, err error) {
	m := o.proxy.mark()
	_, err = o.rec.RunOnce(ctx)
	var applied, refused []updateMsg
	for _, msg := range o.proxy.since(m) {
		if !msg.touches() {
			continue
		}
		if msg.rcode == dns.RcodeSuccess {
			applied = append(applied, msg)
			if msg.has(isAppRecord) && msg.has(isAppContribution) {
				both++
			}
		} else {
			refused = append(refused, msg)
		}
	}
	if len(applied) > 1 {
		v.errorf("shared changes in several messages", "%s, %s: the changes of the shared record set went in %d applied UPDATE messages: %v",
			when, o.id, len(applied), applied)
	}
	if len(refused) > 0 && len(applied) > 0 {
		v.errorf("shared changes applied in part", "%s, %s: part of the shared record set's changes was applied while another part was refused: applied %v, refused %v",
			when, o.id, applied, refused)
	}
	return both, err
}

// rfcForeign writes records of another owner directly (not through any
// shared owner), and remembers what it wrote.
type rfcForeign struct {
	mu   sync.Mutex
	p    provider.Provider
	last map[string]*endpoint.Endpoint // name -> the A record as written
	n    int
}

func foreignTXTValue(name string) string {
	return `"heritage=external-dns,external-dns/owner=` + foreignOwner + `,external-dns/resource=service/other/` + strings.SplitN(name, ".", 2)[0] + `"`
}

// put writes the A record name with target, with its ownership TXT owned
// by someoneElse the first time.
func (w *rfcForeign) put(ctx context.Context, name, target string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	rec := endpoint.NewEndpointWithTTL(name, endpoint.RecordTypeA, 300, target)
	ch := &plan.Changes{}
	if old := w.last[name]; old != nil {
		ch.UpdateOld, ch.UpdateNew = []*endpoint.Endpoint{old}, []*endpoint.Endpoint{rec}
	} else {
		ch.Create = []*endpoint.Endpoint{rec, endpoint.NewEndpointWithTTL("a-"+name, endpoint.RecordTypeTXT, 300, foreignTXTValue(name)).
			WithLabel(endpoint.OwnedRecordLabelKey, name)}
	}
	if err := w.p.ApplyChanges(ctx, ch); err != nil {
		return fmt.Errorf("foreign write %d of %s: %w (was it changed behind the foreign writer's back?)", w.n, name, err)
	}
	w.n++
	w.last[name] = rec
	return nil
}

// step writes one change: a foreign record at foreign-N, or new targets
// at other.example.com.
func (w *rfcForeign) step(ctx context.Context, rng *rand.Rand) error {
	target := fmt.Sprintf("198.51.100.%d", 1+rng.IntN(250))
	if rng.IntN(3) == 0 {
		return w.put(ctx, sharedOther, target)
	}
	return w.put(ctx, fmt.Sprintf("foreign-%d.example.com", rng.IntN(5)), target)
}

// zoneMap reads the zone through p, by "name/type".
func zoneMap(t *testing.T, p provider.Provider) map[string]*endpoint.Endpoint {
	t.Helper()
	recs, err := p.Records(context.Background())
	require.NoError(t, err)
	out := map[string]*endpoint.Endpoint{}
	for _, r := range recs {
		out[r.DNSName+"/"+r.RecordType] = r
	}
	return out
}

// check asserts that every foreign record, and its ownership TXT, is as
// the foreign writer last wrote it; that nothing shared was written at
// other.example.com; and that the shared record set has its marker
// exactly when it exists. It returns the zone.
func (w *rfcForeign) check(t *testing.T, v *violations, when string) map[string]*endpoint.Endpoint {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	z := zoneMap(t, w.p)
	for name, want := range w.last {
		have := z[name+"/A"]
		switch {
		case have == nil:
			v.errorf("foreign record deleted", "%s: foreign record %s was deleted", when, name)
		case !have.Targets.Same(want.Targets) || have.RecordTTL != want.RecordTTL:
			v.errorf("foreign record changed", "%s: foreign record %s holds %v TTL %d, its writer wrote %v TTL %d",
				when, name, have.Targets, have.RecordTTL, want.Targets, want.RecordTTL)
		}
		own := z["a-"+name+"/TXT"]
		switch {
		case own == nil:
			v.errorf("foreign ownership TXT deleted", "%s: the ownership TXT of foreign record %s is gone", when, name)
		case !slices.Equal(own.Targets, endpoint.Targets{foreignTXTValue(name)}):
			v.errorf("foreign ownership TXT changed", "%s: the ownership TXT of foreign record %s holds %v", when, name, own.Targets)
		}
	}
	for k := range z {
		if strings.HasPrefix(k, "_zs-") && strings.HasSuffix(k, "."+sharedOther+"/TXT") {
			v.errorf("contribution beside a foreign record", "%s: a contribution %s was written beside somebody else's record", when, k)
		}
	}
	rec, marker := z[sharedApp+"/A"], z[sharedMarker+"/TXT"]
	// A record without its marker is allowed only in the window the
	// registry documents: the last owner left on a read that missed
	// another's join, and RFC 2136 deleted only the records it read. Every
	// target left is then one a contribution asks for, and that owner's
	// next cycle writes the marker again (checked when the runs converge).
	if rec != nil && marker == nil && coveredByContributions(rec, z) {
		return z
	}
	if (rec != nil) != (marker != nil) {
		v.errorf("record and marker apart", "%s: %s present: %v (%v), its marker TXT present: %v (contributions: %v)",
			when, sharedApp, rec != nil, targetsOf(rec), marker != nil, contributionsIn(z))
	}
	if marker != nil && !strings.Contains(marker.Targets[0], "external-dns/owner="+txt.SharedOwnerID) {
		v.errorf("marker changed", "%s: the marker of %s holds %v", when, sharedApp, marker.Targets)
	}
	return z
}

// coveredByContributions reports whether every target of rec is asked for
// by a contribution in z.
func coveredByContributions(rec *endpoint.Endpoint, z map[string]*endpoint.Endpoint) bool {
	asked := map[string]bool{}
	for _, ts := range contributionsIn(z) {
		for _, t := range ts {
			asked[t] = true
		}
	}
	for _, t := range rec.Targets {
		if !asked[t] {
			return false
		}
	}
	return len(rec.Targets) > 0
}

// contributionsIn returns the contributions to app.example.com/A in z, by
// owner: their targets.
func contributionsIn(z map[string]*endpoint.Endpoint) map[string][]string {
	out := map[string][]string{}
	for k, r := range z {
		if !strings.HasPrefix(k, "_zs-") || !strings.HasSuffix(k, "-a."+sharedApp+"/TXT") {
			continue
		}
		fields := map[string]string{}
		for _, f := range strings.Split(strings.Trim(r.Targets[0], `"`), ",") {
			if kv, v, ok := strings.Cut(f, "="); ok {
				fields[kv] = v
			}
		}
		owner := fields["external-dns/shared-owner"]
		if owner == "" {
			owner = "?" + k
		}
		out[owner] = strings.Split(fields["external-dns/shared-targets"], ";")
	}
	return out
}

// TestSharedRecordsOverRFC2136 runs three Reconcilers with three owner ids
// sharing app.example.com/A over one zone on BIND through RFC 2136, with
// what each asks for changing at random, in interleaved cycles (some two
// at once), while a foreign writer races them. After every cycle: no
// foreign record is touched, the record set has its marker exactly when it
// exists, and every cycle sent the changes of the shared record set (the
// record, its marker TXT, the contribution TXT) in one UPDATE message.
// After the changes stop, two clean cycles of every owner converge to the
// union of what the live owners ask for with one contribution each; and
// when all leave, nothing shared is left.
func TestSharedRecordsOverRFC2136(t *testing.T) {
	begin := time.Now()
	ctx := t.Context()
	seed := sharedTestSeed(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	v := newViolations(t)
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{sharedZone}})
	direct := newProvider(t, srv)

	w := &rfcForeign{p: direct, last: map[string]*endpoint.Endpoint{}}
	require.NoError(t, w.put(ctx, sharedOther, "198.51.100.254"))
	require.NoError(t, w.put(ctx, "foreign-0.example.com", "198.51.100.253"))

	owners := []*rfcOwner{newRFCOwner(t, srv, "c1", 1), newRFCOwner(t, srv, "c2", 2), newRFCOwner(t, srv, "c3", 3)}
	for _, o := range owners {
		o.mutate(rng)
	}

	stop := make(chan struct{})
	var writer errgroup.Group
	writer.Go(func() error { // the foreign writer races with the cycles
		wr := rand.New(rand.NewPCG(seed, 99))
		for {
			select {
			case <-stop:
				return nil
			case <-time.After(time.Duration(wr.IntN(3000)) * time.Microsecond):
				if err := w.step(ctx, wr); err != nil {
					return err
				}
			}
		}
	})

	const cycles = 100
	var both, pairs int
	var pairErrs []string
	for i := range cycles {
		when := fmt.Sprintf("cycle %d (seed %d)", i, seed)
		for _, o := range owners {
			if rng.IntN(3) == 0 {
				o.mutate(rng)
			}
		}
		a := owners[rng.IntN(len(owners))]
		if rng.IntN(4) == 0 { // two owners at once
			pairs++
			b := owners[(slices.Index(owners, a)+1+rng.IntN(2))%len(owners)]
			var mu sync.Mutex
			var g sync.WaitGroup
			for _, o := range []*rfcOwner{a, b} {
				g.Go(func() {
					n, err := o.cycle(ctx, v, when)
					mu.Lock()
					defer mu.Unlock()
					both += n
					if err != nil {
						// Two owners writing at once: one may lose a
						// prerequisite to the other; its next cycle
						// repairs.
						pairErrs = append(pairErrs, fmt.Sprintf("%s, %s: %v", when, o.id, err))
					}
				})
			}
			g.Wait()
		} else {
			n, err := a.cycle(ctx, v, when)
			both += n
			if err != nil {
				v.errorf("cycle alone failed", "%s: %s alone: %v", when, a.id, err)
			}
		}
		w.check(t, v, when)
	}
	close(stop)
	require.NoError(t, writer.Wait(), "the foreign writer")
	t.Logf("%d cycles (%d of two owners at once, %d of those with an error), %d foreign writes, %d applied messages carried the record and a contribution together",
		cycles, pairs, len(pairErrs), w.n, both)
	for i, e := range pairErrs {
		if i == 5 {
			t.Logf("... and %d more", len(pairErrs)-5)
			break
		}
		t.Logf("concurrent cycle error: %s", e)
	}
	assert.Positive(t, both, "no UPDATE message carried the record with a contribution TXT")

	// The changes stop; one owner asks for other.example.com, somebody
	// else's.
	owners[0].wantOther = true
	owners[0].publish()
	converge := func(when string) {
		t.Helper()
		for round := range 2 {
			for _, o := range owners {
				_, err := o.cycle(ctx, v, fmt.Sprintf("%s, clean round %d", when, round))
				require.NoError(t, err, "%s: clean cycle of %s", when, o.id)
			}
		}
	}
	converge("after the changes")
	c, err := owners[0].rec.RunOnce(ctx)
	require.NoError(t, err)
	assert.False(t, c.HasChanges(), "a converged owner plans nothing: %v", c.Changes)
	skipped := false
	for _, s := range c.Plan.Skipped {
		if s.Endpoint.DNSName == sharedOther {
			skipped = true
			assert.Equal(t, plan.SkipForeignOwner, s.Reason, "the create at %s", sharedOther)
			assert.Equal(t, foreignOwner, s.Owner)
		}
	}
	assert.True(t, skipped, "the desired %s is reported skipped", sharedOther)

	z := w.check(t, v, "after the clean cycles")
	var union endpoint.Targets
	live := map[string][]string{}
	for _, o := range owners {
		if len(o.want) > 0 {
			live[o.id] = o.want
			union = append(union, o.want...)
		}
	}
	t.Logf("the live owners ask for %v", live)
	got := contributionsIn(z)
	require.Len(t, got, len(live), "one contribution per live owner: %v", got)
	for id, want := range live {
		assert.ElementsMatch(t, want, got[id], "the contribution of %s", id)
	}
	if len(live) > 0 {
		rec := z[sharedApp+"/A"]
		require.NotNil(t, rec, "%s is missing; the owners ask for %v", sharedApp, union)
		assert.True(t, rec.Targets.Same(union), "%s holds %v, the union of what the owners ask is %v", sharedApp, rec.Targets, union)
	} else {
		assert.Nil(t, z[sharedApp+"/A"])
	}

	// Everybody leaves.
	for _, o := range owners {
		o.want, o.wantOther = nil, false
		o.publish()
	}
	converge("after every owner left")
	z = w.check(t, v, "after every owner left")
	assert.Nil(t, z[sharedApp+"/A"], "the record is left after every owner left")
	assert.Nil(t, z[sharedMarker+"/TXT"], "the marker TXT is left after every owner left")
	for k := range z {
		assert.False(t, strings.HasPrefix(k, "_zs-"), "contribution %s left after every owner left", k)
	}
	t.Logf("took %v", time.Since(begin).Round(time.Millisecond))
}

// gatedRegistry tells when Records returned, and holds ApplyChanges until
// gate closes.
type gatedRegistry struct {
	*txt.Registry
	read chan<- struct{}
	gate <-chan struct{}
}

func (g gatedRegistry) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	defer close(g.read)
	return g.Registry.Records(ctx)
}

func (g gatedRegistry) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	<-g.gate
	return g.Registry.ApplyChanges(ctx, changes)
}

// TestSharedRecordsOverRFC2136LastOwnerLeavesWhileAnotherJoins replays, in
// a fixed order, a race the random schedule can hit: c1, the only owner of
// app.example.com/A, leaves while c2 joins. Both read the zone; c2 applies
// first (its contribution, and the record with c1's and c2's targets);
// then c1 applies its leaving, planned from a read where it was alone: it
// deletes the record set and its marker, which on RFC 2136 leaves c2's
// target without its marker. A clean cycle of each must converge to c2's
// targets, shared.
func TestSharedRecordsOverRFC2136LastOwnerLeavesWhileAnotherJoins(t *testing.T) {
	ctx := t.Context()
	v := newViolations(t)
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{sharedZone}})
	direct := newProvider(t, srv)
	c1, c2 := newRFCOwner(t, srv, "c1", 1), newRFCOwner(t, srv, "c2", 2)
	c1.want = c1.pool[:1]
	c1.publish()
	_, err := c1.cycle(ctx, v, "c1 joins")
	require.NoError(t, err)

	c1.want = nil
	c1.publish()
	c2.want = c2.pool[:1]
	c2.publish()
	read, gate := make(chan struct{}), make(chan struct{})
	c1.rec.Registry = gatedRegistry{Registry: c1.reg, read: read, gate: gate}
	var g errgroup.Group
	g.Go(func() error { _, err := c1.cycle(ctx, v, "c1 leaves"); return err })
	<-read // c1 has read the zone where it is alone
	_, err = c2.cycle(ctx, v, "c2 joins")
	require.NoError(t, err)
	close(gate)
	t.Logf("c1's leaving, applied after c2 joined: %v", g.Wait())
	c1.rec.Registry = c1.reg

	z := zoneMap(t, direct)
	t.Logf("after the race: %s holds %v, marker %v, contributions %v", sharedApp, targetsOf(z[sharedApp+"/A"]), z[sharedMarker+"/TXT"] != nil, contributionsIn(z))
	// RFC 2136 deletes the records c1 read, one by one: c2's target stays,
	// without the marker c1 deleted. That is the window the registry's
	// documentation names; c2's next cycle adopts the record (every target
	// is one a live contribution asks for) and writes the marker again.

	for round := range 2 {
		for _, o := range []*rfcOwner{c1, c2} {
			_, err := o.cycle(ctx, v, fmt.Sprintf("clean round %d", round))
			assert.NoError(t, err, "clean cycle of %s", o.id)
		}
	}
	z = zoneMap(t, direct)
	rec := z[sharedApp+"/A"]
	require.NotNil(t, rec, "%s is gone; c2 asks for %v", sharedApp, c2.want)
	assert.Equal(t, c2.want, []string(rec.Targets), "%s", sharedApp)
	assert.NotNil(t, z[sharedMarker+"/TXT"], "%s has no marker: nobody owns it, it is never changed again", sharedApp)
	assert.Equal(t, map[string][]string{"c2": c2.want}, contributionsIn(z), "the contributions")

	// c2 leaves: nothing shared may be left.
	c2.want = nil
	c2.publish()
	_, err = c2.cycle(ctx, v, "c2 leaves")
	assert.NoError(t, err)
	z = zoneMap(t, direct)
	assert.Nil(t, z[sharedApp+"/A"], "%s is left after every owner left", sharedApp)
}

func targetsOf(ep *endpoint.Endpoint) endpoint.Targets {
	if ep == nil {
		return nil
	}
	return ep.Targets
}
