package zonesync_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/clock/clocktest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// sharedSeed is the seed of the shared-records schedules:
// ZONESYNC_SHARED_SEED, or a fixed one.
func sharedSeed(t *testing.T) uint64 {
	seed := uint64(20261129)
	if v := os.Getenv("ZONESYNC_SHARED_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		require.NoError(t, err, "ZONESYNC_SHARED_SEED")
		seed = s
	}
	t.Logf("seed %d (set ZONESYNC_SHARED_SEED to replay another)", seed)
	return seed
}

// sharedOwner is one of the owners of the shared-records tests: a
// Reconciler over its own view of the zone, and what it asks for.
type sharedOwner struct {
	id     string
	pool   map[string][]string // name/type -> the targets it may ask for
	src    *source.Static
	rec    *zonesync.Reconciler
	reg    *txt.Registry
	want   map[string][]string // name/type -> what it asks for now (absent: nothing)
	faulty atomic.Bool
}

// sharedNames are the record sets the owners share: name, type.
var sharedNames = [][2]string{
	{"app.example.com", endpoint.RecordTypeA},
	{"app.example.com", endpoint.RecordTypeAAAA},
	{"alias.example.com", endpoint.RecordTypeCNAME},
	{"mail.example.com", endpoint.RecordTypeMX},
	// Names in shared scope that hold somebody else's record (or nobody's):
	// asked for, never taken.
	{"taken.example.com", endpoint.RecordTypeA},
	{"bare.example.com", endpoint.RecordTypeA},
}

func newSharedOwner(t *testing.T, p provider.Provider, id string, n int, rng *rand.Rand, cfg txt.SharedConfig) *sharedOwner {
	o := &sharedOwner{id: id, pool: map[string][]string{}, want: map[string][]string{}, src: source.NewStatic()}
	for i := range 4 {
		o.pool["app.example.com/A"] = append(o.pool["app.example.com/A"], fmt.Sprintf("192.0.2.%d", n*10+i+1))
		o.pool["app.example.com/AAAA"] = append(o.pool["app.example.com/AAAA"], fmt.Sprintf("2001:db8::%d:%d", n, i+1))
		o.pool["mail.example.com/MX"] = append(o.pool["mail.example.com/MX"], fmt.Sprintf("%d mx%d.%s.example.net", 10*(i+1), i, id))
		o.pool["taken.example.com/A"] = append(o.pool["taken.example.com/A"], fmt.Sprintf("192.0.2.%d", 100+n*10+i))
		o.pool["bare.example.com/A"] = append(o.pool["bare.example.com/A"], fmt.Sprintf("192.0.2.%d", 150+n*10+i))
	}
	o.pool["alias.example.com/CNAME"] = []string{"lb.example.net"}
	view := p
	if rng != nil {
		view = switchable(p, providertest.FailAfterApplyRandomly(providertest.FailRandomly(p, 0.1, rng, nil), 0.1, rng, nil), &o.faulty)
	}
	reg, err := txt.New(view, txt.Config{OwnerID: id, Shared: &cfg, ManagedRecordTypes: []string{"A", "AAAA", "CNAME", "MX"}})
	require.NoError(t, err)
	o.reg = reg
	o.rec = &zonesync.Reconciler{Source: o.src, Registry: reg, Clock: cfg.Clock}
	return o
}

// switchable sends calls to faulty while on is set, else to normal.
func switchable(normal, faulty provider.Provider, on *atomic.Bool) provider.Provider {
	pick := func() provider.Provider {
		if on.Load() {
			return faulty
		}
		return normal
	}
	return providertest.Intercept(normal, providertest.Funcs{
		Records: func(ctx context.Context, _ provider.Provider) ([]*endpoint.Endpoint, error) {
			return pick().Records(ctx)
		},
		ApplyChanges: func(ctx context.Context, _ provider.Provider, changes *plan.Changes) error {
			return pick().ApplyChanges(ctx, changes)
		},
	})
}

// mutate changes what o asks for at random: per record set, nothing or a
// random subset of its pool.
func (o *sharedOwner) mutate(rng *rand.Rand) {
	for _, nt := range sharedNames {
		key := nt[0] + "/" + nt[1]
		if rng.IntN(3) != 0 {
			continue
		}
		var ts []string
		if rng.IntN(4) != 0 {
			for _, t := range o.pool[key] {
				if rng.IntN(2) == 0 {
					ts = append(ts, t)
				}
			}
		}
		if len(ts) == 0 {
			delete(o.want, key)
			continue
		}
		o.want[key] = ts
	}
	o.publish()
}

// publish hands what o asks for to its source.
func (o *sharedOwner) publish() {
	var eps []*endpoint.Endpoint
	for key, ts := range o.want {
		name, typ, _ := strings.Cut(key, "/")
		ep := endpoint.NewEndpointWithTTL(name, typ, endpoint.TTL(300+60*len(o.id)), ts...)
		ep.Labels.Set(endpoint.ResourceLabelKey, "service/default/"+o.id)
		eps = append(eps, ep)
	}
	o.src.Set(eps...)
}

// foreignWriter writes records of another owner in the zone, directly, and
// remembers what it wrote.
type foreignWriter struct {
	mu   sync.Mutex
	p    provider.Provider
	last map[string]*endpoint.Endpoint // name/type -> as written
	n    int
}

func (w *foreignWriter) put(ctx context.Context, t *testing.T, ep *endpoint.Endpoint, withOwner bool) {
	t.Helper()
	key := ep.DNSName + "/" + ep.RecordType
	ch := &plan.Changes{}
	if old := w.last[key]; old != nil {
		ch.UpdateOld, ch.UpdateNew = []*endpoint.Endpoint{old}, []*endpoint.Endpoint{ep}
	} else {
		ch.Create = []*endpoint.Endpoint{ep}
		if withOwner {
			ch.Create = append(ch.Create, endpoint.NewEndpoint(strings.ToLower(ep.RecordType)+"-"+ep.DNSName, endpoint.RecordTypeTXT,
				`"heritage=external-dns,external-dns/owner=someone-else,external-dns/resource=service/other/x"`))
		}
	}
	require.NoError(t, w.p.ApplyChanges(ctx, ch))
	w.last[key] = ep
}

// step writes one change: a new foreign record, or new targets for one
// written before.
func (w *foreignWriter) step(ctx context.Context, t *testing.T, rng *rand.Rand) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	target := fmt.Sprintf("198.51.100.%d", 1+rng.IntN(250))
	switch rng.IntN(3) {
	case 0:
		w.put(ctx, t, endpoint.NewEndpoint(fmt.Sprintf("foreign-%d.example.com", rng.IntN(5)), endpoint.RecordTypeA, target), true)
	case 1:
		w.put(ctx, t, endpoint.NewEndpoint("taken.example.com", endpoint.RecordTypeA, target), true)
	default:
		w.put(ctx, t, endpoint.NewEndpoint("bare.example.com", endpoint.RecordTypeA, target), false)
	}
}

// check asserts that every foreign record is as last written.
func (w *foreignWriter) check(ctx context.Context, t *testing.T, when string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	recs, err := w.p.Records(ctx)
	require.NoError(t, err)
	got := map[string]*endpoint.Endpoint{}
	for _, r := range recs {
		got[r.DNSName+"/"+r.RecordType] = r
	}
	for key, want := range w.last {
		have := got[key]
		require.NotNil(t, have, "%s: foreign record %s was deleted", when, key)
		require.True(t, have.Targets.Same(want.Targets), "%s: foreign record %s holds %v, its writer wrote %v", when, key, have.Targets, want.Targets)
		if _, owned := got[strings.ToLower(want.RecordType)+"-"+key[:strings.IndexByte(key, '/')]+"/TXT"]; key != "bare.example.com/A" {
			require.True(t, owned, "%s: the ownership TXT of foreign record %s is gone", when, key)
		}
	}
	require.Nil(t, got["a-bare.example.com/TXT"], "%s: an ownership TXT was written beside the unowned record bare.example.com", when)
}

// zoneTXT returns the TXT records of the zone by name.
func zoneRecords(ctx context.Context, t *testing.T, p provider.Provider) map[string]*endpoint.Endpoint {
	t.Helper()
	recs, err := p.Records(ctx)
	require.NoError(t, err)
	out := map[string]*endpoint.Endpoint{}
	for _, r := range recs {
		out[r.DNSName+"/"+r.RecordType] = r
	}
	return out
}

// checkConverged asserts that each shared record set holds exactly the
// union of what the owners ask for, with one contribution per owner asking,
// and that nothing shared is left where nobody asks.
func checkConverged(ctx context.Context, t *testing.T, p provider.Provider, owners []*sharedOwner) {
	t.Helper()
	got := zoneRecords(ctx, t, p)
	for _, nt := range sharedNames[:4] {
		key := nt[0] + "/" + nt[1]
		var union endpoint.Targets
		asking := 0
		for _, o := range owners {
			if ts := o.want[key]; len(ts) > 0 {
				asking++
				for _, tg := range ts {
					if !slices.ContainsFunc(union, func(u string) bool { return endpoint.CanonicalTarget(u) == endpoint.CanonicalTarget(tg) }) {
						union = append(union, tg)
					}
				}
			}
		}
		contribs := 0
		for k, r := range got {
			if strings.HasPrefix(k, "_zs-") && strings.HasSuffix(k, "-"+strings.ToLower(nt[1])+"."+nt[0]+"/TXT") {
				contribs++
				require.Contains(t, r.Targets[0], "shared-record="+nt[0], "contribution %s", k)
			}
		}
		rec := got[key]
		marker := got[strings.ToLower(nt[1])+"-"+nt[0]+"/TXT"]
		if asking == 0 {
			assert.Nil(t, rec, "%s: nobody asks for it, it is still there", key)
			assert.Nil(t, marker, "%s: nobody asks for it, its ownership TXT is still there", key)
			assert.Zero(t, contribs, "%s: nobody asks for it, contributions remain", key)
			continue
		}
		require.NotNil(t, rec, "%s is missing; the owners ask for %v", key, union)
		if nt[1] == endpoint.RecordTypeCNAME {
			union = endpoint.Targets{"lb.example.net"}
		}
		assert.True(t, rec.Targets.Same(union), "%s holds %v, the union of what the owners ask is %v", key, rec.Targets, union)
		assert.NotNil(t, marker, "%s has no ownership TXT", key)
		assert.Equal(t, asking, contribs, "%s: contributions", key)
	}
	// The records of somebody else, and of nobody, in shared scope.
	for _, key := range []string{"taken.example.com/A", "bare.example.com/A"} {
		for k := range got {
			require.False(t, strings.HasPrefix(k, "_zs-") && strings.Contains(k, strings.TrimSuffix(key, "/A")), "%s: a contribution %s was written beside a record that is not shared", key, k)
		}
	}
}

// TestSharedRecordsInMemory runs three owners sharing record sets over one
// in-memory zone for a few hundred cycles — interleaved, sometimes two at
// once, with failed calls and lost responses, and a foreign writer racing
// them — and checks after every cycle that no foreign record is touched,
// then that two clean cycles of each owner converge to the union of what
// the owners ask for, and that the last owner leaving removes everything.
func TestSharedRecordsInMemory(t *testing.T) {
	ctx := context.Background()
	seed := sharedSeed(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	p := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	w := &foreignWriter{p: p, last: map[string]*endpoint.Endpoint{}}
	w.put(ctx, t, endpoint.NewEndpoint("taken.example.com", endpoint.RecordTypeA, "198.51.100.200"), true)
	w.put(ctx, t, endpoint.NewEndpoint("bare.example.com", endpoint.RecordTypeA, "198.51.100.201"), false)

	var owners []*sharedOwner
	for i, id := range []string{"c1", "c2", "c3"} {
		owners = append(owners, newSharedOwner(t, p, id, i+1, rand.New(rand.NewPCG(seed, uint64(i+2))), txt.SharedConfig{}))
	}
	for _, o := range owners {
		o.faulty.Store(true)
	}
	stop := make(chan struct{})
	writerDone := make(chan struct{})
	go func() { // the foreign writer races with the cycles
		defer close(writerDone)
		wr := rand.New(rand.NewPCG(seed, 99))
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(wr.IntN(300)) * time.Microsecond):
				w.step(ctx, t, wr)
			}
		}
	}()
	const cycles = 300
	var failed int
	for i := range cycles {
		for _, o := range owners {
			if rng.IntN(4) == 0 {
				o.mutate(rng)
			}
		}
		a := owners[rng.IntN(len(owners))]
		if rng.IntN(5) == 0 { // two owners at once
			b := owners[(slices.Index(owners, a)+1+rng.IntN(2))%len(owners)]
			var g errgroup.Group
			for _, o := range []*sharedOwner{a, b} {
				g.Go(func() error { _, err := o.rec.RunOnce(ctx); return err })
			}
			if g.Wait() != nil {
				failed++
			}
		} else if _, err := a.rec.RunOnce(ctx); err != nil {
			failed++
		}
		w.check(ctx, t, fmt.Sprintf("cycle %d", i))
	}
	close(stop)
	<-writerDone
	t.Logf("%d cycles, %d failed under injected faults, %d foreign writes", cycles, failed, w.n)

	for _, o := range owners {
		o.faulty.Store(false)
	}
	for range 2 {
		for _, o := range owners {
			_, err := o.rec.RunOnce(ctx)
			require.NoError(t, err, "clean cycle of %s", o.id)
		}
	}
	checkConverged(ctx, t, p, owners)
	w.check(ctx, t, "after the clean cycles")

	// Everybody leaves.
	for _, o := range owners {
		o.want = map[string][]string{}
		o.publish()
	}
	for range 2 {
		for _, o := range owners {
			_, err := o.rec.RunOnce(ctx)
			require.NoError(t, err, "clean cycle of %s", o.id)
		}
	}
	checkConverged(ctx, t, p, owners)
	got := zoneRecords(ctx, t, p)
	for k := range got {
		assert.False(t, strings.HasPrefix(k, "_zs-"), "contribution %s left after every owner left", k)
	}
	w.check(ctx, t, "after every owner left")
}

// TestSharedRecordsConcurrentWritersConverge shows the bound on lost
// targets: two owners applying at the same time each write the union they
// read, so the second write drops the first owner's new target; the next
// cycle of the owner whose target was lost restores it.
func TestSharedRecordsConcurrentWritersConverge(t *testing.T) {
	ctx := context.Background()
	p := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	c1 := newSharedOwner(t, p, "c1", 1, nil, txt.SharedConfig{})
	c2 := newSharedOwner(t, p, "c2", 2, nil, txt.SharedConfig{})
	c1.want["app.example.com/A"] = []string{"192.0.2.11"}
	c1.publish()
	_, err := c1.rec.RunOnce(ctx)
	require.NoError(t, err)

	// Both read the zone, then both apply: the registry applies from the
	// read of its own cycle.
	c1.want["app.example.com/A"] = []string{"192.0.2.11", "192.0.2.12"}
	c1.publish()
	c2.want["app.example.com/A"] = []string{"192.0.2.21"}
	c2.publish()
	gate := make(chan struct{})
	var reading sync.WaitGroup
	reading.Add(2)
	for _, o := range []*sharedOwner{c1, c2} {
		o.rec.Registry = gatedRegistry{Registry: o.reg, reading: &reading, gate: gate}
	}
	var g errgroup.Group
	for _, o := range []*sharedOwner{c1, c2} {
		g.Go(func() error { _, err := o.rec.RunOnce(ctx); return err })
	}
	reading.Wait()
	close(gate)
	require.NoError(t, g.Wait())
	got := zoneRecords(ctx, t, p)["app.example.com/A"]
	require.NotNil(t, got)
	t.Logf("after the concurrent writes: %v", got.Targets)
	require.Less(t, len(got.Targets), 3, "one write was expected to lose the other's new target")

	// One more cycle of each: the union again.
	for _, o := range []*sharedOwner{c1, c2} {
		o.rec.Registry = o.reg
		_, err := o.rec.RunOnce(ctx)
		require.NoError(t, err)
	}
	checkConverged(ctx, t, p, []*sharedOwner{c1, c2})
}

// gatedRegistry holds ApplyChanges until gate closes, after both owners
// read.
type gatedRegistry struct {
	*txt.Registry
	reading *sync.WaitGroup
	gate    chan struct{}
}

func (g gatedRegistry) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	defer g.reading.Done()
	return g.Registry.Records(ctx)
}

func (g gatedRegistry) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	<-g.gate
	return g.Registry.ApplyChanges(ctx, changes)
}

// TestSharedRecordsDeadOwner stops one owner and checks that the others
// remove its targets once its contribution has not been refreshed for
// ExpireAfter, and not before; and that the removal counts for the safety
// threshold.
func TestSharedRecordsDeadOwner(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	clk := clocktest.New(start)
	p := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	cfg := txt.SharedConfig{ExpireAfter: 20 * time.Minute, Clock: clk}
	c1 := newSharedOwner(t, p, "c1", 1, nil, cfg)
	c2 := newSharedOwner(t, p, "c2", 2, nil, cfg)
	c3 := newSharedOwner(t, p, "c3", 3, nil, txt.SharedConfig{Clock: clk}) // no expiry of its own
	for _, o := range []*sharedOwner{c1, c2, c3} {
		o.want["app.example.com/A"] = o.pool["app.example.com/A"][:1]
		o.publish()
		_, err := o.rec.RunOnce(ctx)
		require.NoError(t, err)
	}
	checkConverged(ctx, t, p, []*sharedOwner{c1, c2, c3})

	// c3 stops; c1 and c2 run every minute (their heartbeats keep them
	// alive).
	deadline := start.Add(cfg.ExpireAfter)
	for clk.Now().Before(deadline) {
		clk.Advance(time.Minute)
		for _, o := range []*sharedOwner{c1, c2} {
			_, err := o.rec.RunOnce(ctx)
			require.NoError(t, err)
		}
		got := zoneRecords(ctx, t, p)["app.example.com/A"]
		require.NotNil(t, got)
		require.Contains(t, got.Targets, "192.0.2.31", "at %v, %v after c3's last write, its target is gone before ExpireAfter", clk.Now(), clk.Now().Sub(start))
	}
	clk.Advance(time.Second)
	c, err := c1.rec.RunOnce(ctx)
	require.NoError(t, err)
	require.Len(t, c.Shared, 1)
	require.Equal(t, 2, c.Shared[0].Live())
	checkConverged(ctx, t, p, []*sharedOwner{c1, c2})
	recs := zoneRecords(ctx, t, p)
	for k := range recs {
		require.NotContains(t, recs[k].Targets[0], "shared-owner=c3", "the dead owner's contribution %s is left", k)
	}

	// The safety threshold counts expired contributions as deletes: c1
	// shares 12 names with c4, which dies; expiring all 12 at once (12 of
	// 24 records c1 may change) is refused.
	p2 := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	clk.Set(start)
	d1 := newSharedOwner(t, p2, "c1", 1, nil, cfg)
	d4 := newSharedOwner(t, p2, "c4", 4, nil, txt.SharedConfig{Clock: clk})
	for _, o := range []*sharedOwner{d1, d4} {
		var eps []*endpoint.Endpoint
		for i := range 12 {
			eps = append(eps, endpoint.NewEndpoint(fmt.Sprintf("s%02d.example.com", i), endpoint.RecordTypeA, o.pool["app.example.com/A"][0]))
		}
		o.src.Set(eps...)
		_, err := o.rec.RunOnce(ctx)
		require.NoError(t, err)
	}
	clk.Advance(cfg.ExpireAfter + time.Minute)
	pv, err := d1.rec.Preview(ctx)
	require.NoError(t, err)
	require.NotNil(t, pv.Unsafe, "expiring 12 contributions at once must be refused:\n%s", pv)
	assert.Equal(t, 12, pv.Unsafe.Deletes)
	assert.Contains(t, pv.String(), "expired: removed by this owner")
	_, err = d1.rec.RunOnce(ctx)
	require.ErrorIs(t, err, zonesync.ErrUnsafePlan)
	for _, r := range zoneRecords(ctx, t, p2) {
		if r.RecordType == endpoint.RecordTypeA {
			require.Len(t, r.Targets, 2, "%s lost a target although the threshold refused", r.DNSName)
		}
	}
	d1.rec.Safety.Disabled = true
	_, err = d1.rec.RunOnce(ctx)
	require.NoError(t, err)
	for _, r := range zoneRecords(ctx, t, p2) {
		if r.RecordType == endpoint.RecordTypeA {
			require.Equal(t, endpoint.Targets{"192.0.2.11"}, r.Targets, "%s", r.DNSName)
		}
	}
}

// TestSharedRecordsStatusesAndPreview checks what an owner is told about a
// shared record set: its record status says how many owners share it, and
// the preview lists every contribution.
func TestSharedRecordsStatusesAndPreview(t *testing.T) {
	ctx := context.Background()
	p := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	c1 := newSharedOwner(t, p, "c1", 1, nil, txt.SharedConfig{})
	c2 := newSharedOwner(t, p, "c2", 2, nil, txt.SharedConfig{})
	for _, o := range []*sharedOwner{c1, c2} {
		o.want["app.example.com/A"] = o.pool["app.example.com/A"][:2]
		o.publish()
		_, err := o.rec.RunOnce(ctx)
		require.NoError(t, err)
	}
	c, err := c1.rec.RunOnce(ctx)
	require.NoError(t, err)
	st := c.RecordStatuses()
	require.Len(t, st, 1)
	assert.Equal(t, zonesync.RecordUnchanged, st[0].State)
	assert.Equal(t, "contributed, shared with 2 owners", st[0].Message)

	pv, err := c2.rec.Preview(ctx)
	require.NoError(t, err)
	out := pv.String()
	assert.Contains(t, out, "shared: app.example.com/A, 2 live contribution(s), holds 192.0.2.11;192.0.2.12;192.0.2.21;192.0.2.22")
	assert.Contains(t, out, "  c1: 192.0.2.11;192.0.2.12 ttl 420")
	assert.Contains(t, out, "  c2: 192.0.2.21;192.0.2.22 ttl 420")
	require.NoError(t, errors.Join(nil))
}
