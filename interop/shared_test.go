package interop

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	"sigs.k8s.io/external-dns/pkg/apis/externaldns"
	xplan "sigs.k8s.io/external-dns/plan"
	xprovider "sigs.k8s.io/external-dns/provider"
	xregistry "sigs.k8s.io/external-dns/registry"
	xtxt "sigs.k8s.io/external-dns/registry/txt"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/webhook"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// This file runs external-dns (its TXT registry and planner, over its
// webhook provider) and three zonesync owners in the TXT registry's shared
// mode over one zone: zonesync's in-memory provider, which zonesync's
// owners use directly and external-dns through zonesync's webhook server.

const (
	sharedExtOwner = "extdns"
	sharedAppName  = "app.example.com"
	sharedExtApp   = "198.51.100.10" // what external-dns asks for at app.example.com
	// sharedMarkerValue is the ownership TXT of a shared record set.
	sharedMarkerValue = `"heritage=external-dns,external-dns/owner=zonesync-shared,external-dns/shared=1"`
)

// sharedInteropSeed is the seed of the schedules: ZONESYNC_SHARED_SEED, or
// a fixed one.
func sharedInteropSeed(t *testing.T) uint64 {
	seed := uint64(20261129)
	if v := os.Getenv("ZONESYNC_SHARED_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		require.NoError(t, err, "ZONESYNC_SHARED_SEED")
		seed = s
	}
	t.Logf("seed %d (set ZONESYNC_SHARED_SEED to replay another)", seed)
	return seed
}

// isSharedName reports whether name/type belongs to the shared record set
// app.example.com/A: the record (any type at the name), its ownership TXT,
// the contributions.
func isSharedName(name string) bool {
	return name == sharedAppName || name == "a-"+sharedAppName || strings.HasPrefix(name, "_zs-")
}

// isExtName reports whether name belongs to external-dns's own records.
func isExtName(name string) bool {
	return slices.Contains([]string{"ext1.example.com", "ext2.example.com", "a-ext1.example.com", "a-ext2.example.com"}, name)
}

// changedNames returns the names of every record the changes touch.
func changedNames(c *plan.Changes) []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, l := range [][]*endpoint.Endpoint{c.Create, c.UpdateOld, c.UpdateNew, c.Delete} {
		for _, ep := range l {
			out = append(out, endpoint.CanonicalName(ep.DNSName))
		}
	}
	return out
}

// xRecorder records the changes external-dns sends its provider.
type xRecorder struct {
	xprovider.Provider
	mu   sync.Mutex
	sent []*plan.Changes
}

func (r *xRecorder) ApplyChanges(ctx context.Context, c *xplan.Changes) error {
	r.mu.Lock()
	r.sent = append(r.sent, ChangesToZonesync(c))
	r.mu.Unlock()
	return r.Provider.ApplyChanges(ctx, c)
}

// take returns the changes sent since the last call.
func (r *xRecorder) take() []*plan.Changes {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.sent
	r.sent = nil
	return out
}

// sharedExternal is the external-dns controller of the zone: its TXT
// registry, owner "extdns", over its webhook provider.
type sharedExternal struct {
	rec     *xRecorder
	reg     xregistry.Registry
	desired map[string]string // name -> target of its A records
}

func newSharedExternal(ctx context.Context, t *testing.T, zone provider.Provider) *sharedExternal {
	srv := httptest.NewServer(webhook.NewHandler(zone))
	t.Cleanup(srv.Close)
	rec := &xRecorder{Provider: externalClient(ctx, t, srv.URL)}
	reg, err := xtxt.New(&externaldns.Config{TXTOwnerID: sharedExtOwner, ManagedDNSRecordTypes: managedTypes}, rec)
	require.NoError(t, err)
	return &sharedExternal{rec: rec, reg: reg, desired: map[string]string{
		"ext1.example.com": "198.51.100.1",
		"ext2.example.com": "198.51.100.2",
		sharedAppName:      sharedExtApp,
	}}
}

// cycle runs one external-dns cycle and returns its planned changes and
// what it sent the provider.
func (x *sharedExternal) cycle(ctx context.Context, t *testing.T) (planned *plan.Changes, sent []*plan.Changes) {
	t.Helper()
	var desired []*xendpoint.Endpoint
	for name, target := range x.desired {
		desired = append(desired, xendpoint.NewEndpoint(name, "A", target).WithLabel(xendpoint.ResourceLabelKey, "service/default/"+strings.SplitN(name, ".", 2)[0]))
	}
	changes, err := externalCycle(ctx, x.reg, desired, sharedExtOwner, "")
	require.NoError(t, err, "external-dns cycle")
	return ChangesToZonesync(changes), x.rec.take()
}

// ownerOf returns the owner external-dns's registry reads for name/A.
func (x *sharedExternal) ownerOf(ctx context.Context, t *testing.T, name string) (string, bool) {
	t.Helper()
	recs, err := x.reg.Records(ctx)
	require.NoError(t, err)
	for _, r := range recs {
		if r.DNSName == name && r.RecordType == "A" {
			return r.Labels[xendpoint.OwnerLabelKey], true
		}
	}
	return "", false
}

// sharedZonesync is one zonesync owner in shared mode.
type sharedZonesync struct {
	id      string
	pool    []string
	want    []string // at app.example.com; none: it asks for nothing there
	ext1    bool     // it asks for ext1.example.com too
	src     *source.Static
	rec     *zonesync.Reconciler
	mu      sync.Mutex
	sentLog []*plan.Changes
}

func newSharedZonesync(t *testing.T, zone provider.Provider, id string, n int) *sharedZonesync {
	o := &sharedZonesync{id: id, src: source.NewStatic()}
	for i := range 4 {
		o.pool = append(o.pool, fmt.Sprintf("192.0.2.%d", n*10+i+1))
	}
	p := providertest.Intercept(zone, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			o.mu.Lock()
			o.sentLog = append(o.sentLog, &plan.Changes{Create: endpoint.DeepCopyAll(c.Create), UpdateOld: endpoint.DeepCopyAll(c.UpdateOld),
				UpdateNew: endpoint.DeepCopyAll(c.UpdateNew), Delete: endpoint.DeepCopyAll(c.Delete)})
			o.mu.Unlock()
			return next.ApplyChanges(ctx, c)
		},
	})
	reg, err := txt.New(p, txt.Config{OwnerID: id, Shared: &txt.SharedConfig{}})
	require.NoError(t, err)
	o.rec = &zonesync.Reconciler{Source: o.src, Registry: reg}
	return o
}

func (o *sharedZonesync) publish() {
	var eps []*endpoint.Endpoint
	if len(o.want) > 0 {
		eps = append(eps, endpoint.NewEndpoint(sharedAppName, "A", o.want...).WithLabel(endpoint.ResourceLabelKey, "service/default/"+o.id))
	}
	if o.ext1 {
		eps = append(eps, endpoint.NewEndpoint("ext1.example.com", "A", o.pool[0]).WithLabel(endpoint.ResourceLabelKey, "service/default/"+o.id))
	}
	o.src.Set(eps...)
}

// cycle runs one RunOnce; it returns the cycle and the changes sent to the
// provider.
func (o *sharedZonesync) cycle(ctx context.Context, t *testing.T) (zonesync.Cycle, []*plan.Changes) {
	t.Helper()
	c, err := o.rec.RunOnce(ctx)
	require.NoError(t, err, "cycle of %s", o.id)
	o.mu.Lock()
	defer o.mu.Unlock()
	sent := o.sentLog
	o.sentLog = nil
	return c, sent
}

// skipOf returns the skip of the cycle's plan for name, or nil.
func skipOf(c zonesync.Cycle, name string) *plan.Skip {
	if c.Plan == nil {
		return nil
	}
	for i, s := range c.Plan.Skipped {
		if s.Endpoint != nil && s.Endpoint.DNSName == name {
			return &c.Plan.Skipped[i]
		}
	}
	return nil
}

// sharedZoneState reads the zone by "name/type".
func sharedZoneState(ctx context.Context, t *testing.T, zone provider.Provider) map[string]endpoint.Targets {
	t.Helper()
	recs, err := zone.Records(ctx)
	require.NoError(t, err)
	out := map[string]endpoint.Targets{}
	for _, r := range recs {
		ts := slices.Clone(r.Targets)
		slices.Sort(ts)
		out[r.DNSName+"/"+r.RecordType] = ts
	}
	return out
}

// pick returns the entries of z whose name f selects.
func pickNames(z map[string]endpoint.Targets, f func(string) bool) map[string]endpoint.Targets {
	out := map[string]endpoint.Targets{}
	for k, v := range z {
		if f(k[:strings.IndexByte(k, '/')]) {
			out[k] = v
		}
	}
	return out
}

// contributions returns the contributions to app.example.com/A in z, by
// owner: their targets, sorted.
func contributions(z map[string]endpoint.Targets) map[string][]string {
	out := map[string][]string{}
	for k, v := range z {
		if !strings.HasPrefix(k, "_zs-") || !strings.HasSuffix(k, "-a."+sharedAppName+"/TXT") {
			continue
		}
		fields := map[string]string{}
		for _, f := range strings.Split(strings.Trim(v[0], `"`), ",") {
			if key, val, ok := strings.Cut(f, "="); ok {
				fields[key] = val
			}
		}
		ts := strings.Split(fields["external-dns/shared-targets"], ";")
		slices.Sort(ts)
		out[fields["external-dns/shared-owner"]] = ts
	}
	return out
}

// checkConvergedShared asserts that app.example.com/A is shared and holds
// exactly the union of what the owners ask for, with one contribution
// each.
func checkConvergedShared(ctx context.Context, t *testing.T, zone provider.Provider, owners []*sharedZonesync, when string) {
	t.Helper()
	z := sharedZoneState(ctx, t, zone)
	var union endpoint.Targets
	live := map[string][]string{}
	for _, o := range owners {
		if len(o.want) > 0 {
			ts := slices.Clone(o.want)
			slices.Sort(ts)
			live[o.id] = ts
			union = append(union, o.want...)
		}
	}
	slices.Sort(union)
	assert.Equal(t, live, contributions(z), "%s: one contribution per owner asking", when)
	if len(live) == 0 {
		assert.Empty(t, pickNames(z, isSharedName), "%s: nobody asks for %s, nothing shared may be left", when, sharedAppName)
		return
	}
	assert.Equal(t, union, z[sharedAppName+"/A"], "%s: %s holds the union of what the owners ask for", when, sharedAppName)
	assert.Equal(t, endpoint.Targets{sharedMarkerValue}, z["a-"+sharedAppName+"/TXT"], "%s: the marker of %s", when, sharedAppName)
}

// TestSharedRecordsBesideExternalDNS: a zone that external-dns manages
// beside three shared-mode owners. external-dns's records are never
// touched by the owners, and external-dns never touches the shared ones
// (it reads them as owned by "zonesync-shared"), though both ask for
// app.example.com; a record external-dns created first stays its own until
// it deletes it, and the owners then create it shared.
func TestSharedRecordsBesideExternalDNS(t *testing.T) {
	seed := sharedInteropSeed(t)
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context, t *testing.T, rng *rand.Rand)
	}{
		{"shared first", sharedFirst},
		{"external-dns first", externalDNSFirst},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t.Context(), t, rand.New(rand.NewPCG(seed, 1)))
		})
	}
}

func newSharedZone(ctx context.Context, t *testing.T) (*inmemory.Provider, *sharedExternal, []*sharedZonesync) {
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	x := newSharedExternal(ctx, t, zone)
	var owners []*sharedZonesync
	for i, id := range []string{"c1", "c2", "c3"} {
		owners = append(owners, newSharedZonesync(t, zone, id, i))
	}
	return zone, x, owners
}

// assertNotTouching fails when changes touch a name f selects.
func assertNotTouching(t *testing.T, sent []*plan.Changes, f func(string) bool, who, what, when string) {
	t.Helper()
	for _, c := range sent {
		for _, n := range changedNames(c) {
			assert.False(t, f(n), "%s: %s changed %s, %s:\n%v", when, who, n, what, c)
		}
	}
}

// sharedFirst: the owners create app.example.com shared before
// external-dns asks for it; then external-dns and the owners run in
// random order while what the owners ask for changes.
func sharedFirst(ctx context.Context, t *testing.T, rng *rand.Rand) {
	zone, x, owners := newSharedZone(ctx, t)
	c1 := owners[0]
	randomWant := func(o *sharedZonesync) {
		o.want = nil
		for _, a := range o.pool {
			if rng.IntN(2) == 0 {
				o.want = append(o.want, a)
			}
		}
		if o == c1 && len(o.want) == 0 { // one owner always asks: the record set stays shared
			o.want = o.pool[:1]
		}
		o.publish()
	}
	for _, o := range owners {
		randomWant(o)
	}
	_, sent := c1.cycle(ctx, t)
	assertNotTouching(t, sent, isExtName, c1.id, "external-dns's", "first cycle")
	planned, xsent := x.cycle(ctx, t)
	assert.ElementsMatch(t, []string{"ext1.example.com", "ext2.example.com"}, changedNames(planned), "external-dns creates its own records only")
	assertNotTouching(t, xsent, isSharedName, "external-dns", "a shared record", "first cycle")
	ext := pickNames(sharedZoneState(ctx, t, zone), isExtName)
	require.Len(t, ext, 4, "external-dns's records and their ownership TXT: %v", ext)
	c1.ext1 = true // now asks for external-dns's record too
	c1.publish()

	actors := []string{"extdns", "c1", "c2", "c3"}
	for i := range 60 {
		when := fmt.Sprintf("step %d", i)
		if rng.IntN(3) == 0 {
			randomWant(owners[rng.IntN(len(owners))])
		}
		if rng.IntN(10) == 0 { // external-dns's own records change too
			x.desired["ext2.example.com"] = fmt.Sprintf("198.51.100.%d", 2+rng.IntN(50))
		}
		switch actor := actors[rng.IntN(len(actors))]; actor {
		case "extdns":
			planned, xsent := x.cycle(ctx, t)
			for _, n := range changedNames(planned) {
				assert.Equal(t, "ext2.example.com", n, "%s: external-dns planned a change of %s:\n%v", when, n, planned)
			}
			assertNotTouching(t, xsent, isSharedName, "external-dns", "a shared record", when)
			owner, ok := x.ownerOf(ctx, t, sharedAppName)
			assert.True(t, ok, "%s: external-dns sees no %s", when, sharedAppName)
			assert.Equal(t, txt.SharedOwnerID, owner, "%s: the owner external-dns reads for %s", when, sharedAppName)
			ext = pickNames(sharedZoneState(ctx, t, zone), isExtName) // what external-dns wrote last
		default:
			o := owners[slices.Index(actors, actor)-1]
			c, sent := o.cycle(ctx, t)
			assertNotTouching(t, sent, isExtName, o.id, "external-dns's", when)
			if o.ext1 {
				s := skipOf(c, "ext1.example.com")
				if assert.NotNil(t, s, "%s: the desired ext1.example.com of %s is reported skipped", when, o.id) {
					assert.Equal(t, plan.SkipForeignOwner, s.Reason, "%s", when)
					assert.Equal(t, sharedExtOwner, s.Owner, "%s", when)
				}
			}
		}
		z := sharedZoneState(ctx, t, zone)
		assert.Equal(t, ext, pickNames(z, isExtName), "%s: external-dns's records are as it wrote them", when)
		assert.Equal(t, endpoint.Targets{sharedMarkerValue}, z["a-"+sharedAppName+"/TXT"], "%s: the marker of %s", when, sharedAppName)
		for _, a := range z[sharedAppName+"/A"] {
			assert.NotEqual(t, sharedExtApp, a, "%s: external-dns's target is in the shared record", when)
		}
	}

	// Two clean rounds: the union; external-dns plans nothing at all.
	for range 2 {
		for _, o := range owners {
			o.cycle(ctx, t)
		}
	}
	checkConvergedShared(ctx, t, zone, owners, "after the clean rounds")
	// external-dns catches up with a change of ext2 it has not made yet,
	// then plans nothing at all.
	planned, xsent = x.cycle(ctx, t)
	for _, n := range changedNames(planned) {
		assert.Equal(t, "ext2.example.com", n, "external-dns planned a change of %s:\n%v", n, planned)
	}
	assertNotTouching(t, xsent, isSharedName, "external-dns", "a shared record", "after the clean rounds")
	ext = pickNames(sharedZoneState(ctx, t, zone), isExtName)
	planned, xsent = x.cycle(ctx, t)
	assert.False(t, planned.HasChanges(), "external-dns plans nothing: %v", planned)
	assert.Empty(t, xsent)
	for _, o := range owners {
		c, sent := o.cycle(ctx, t)
		assert.False(t, c.HasChanges(), "%s plans nothing: %v", o.id, c.Changes)
		assert.Empty(t, sent, "%s sends nothing", o.id)
	}
	assert.Equal(t, ext, pickNames(sharedZoneState(ctx, t, zone), isExtName), "external-dns's records are as it wrote them")
}

// externalDNSFirst: external-dns creates app.example.com its own way
// before the owners ask for it. The owners never take it over; once
// external-dns deletes it, they create it shared, and external-dns asking
// for it again changes nothing.
func externalDNSFirst(ctx context.Context, t *testing.T, rng *rand.Rand) {
	zone, x, owners := newSharedZone(ctx, t)
	planned, _ := x.cycle(ctx, t)
	assert.ElementsMatch(t, []string{"ext1.example.com", "ext2.example.com", sharedAppName}, changedNames(planned))
	theirs := pickNames(sharedZoneState(ctx, t, zone), func(n string) bool { return isExtName(n) || isSharedName(n) })
	require.Len(t, theirs, 6, "external-dns's records and their ownership TXT: %v", theirs)
	require.Equal(t, endpoint.Targets{sharedExtApp}, theirs[sharedAppName+"/A"])

	for _, o := range owners {
		o.want = o.pool[:1+rng.IntN(len(o.pool))]
		o.publish()
	}
	for round := range 2 {
		for _, o := range owners {
			when := fmt.Sprintf("round %d, %s", round, o.id)
			c, sent := o.cycle(ctx, t)
			assert.Empty(t, sent, "%s: an owner sent changes beside external-dns's %s", when, sharedAppName)
			s := skipOf(c, sharedAppName)
			if assert.NotNil(t, s, "%s: the desired %s is reported skipped", when, sharedAppName) {
				assert.Equal(t, plan.SkipForeignOwner, s.Reason, "%s", when)
				assert.Equal(t, sharedExtOwner, s.Owner, "%s", when)
			}
			assert.Empty(t, c.Shared, "%s: no shared record set", when)
			assert.Equal(t, theirs, pickNames(sharedZoneState(ctx, t, zone), func(n string) bool { return isExtName(n) || isSharedName(n) }),
				"%s: external-dns's records are as it wrote them, and nothing shared was added", when)
		}
	}
	owner, _ := x.ownerOf(ctx, t, sharedAppName)
	assert.Equal(t, sharedExtOwner, owner)

	// external-dns no longer asks for it: it deletes it, with its TXT.
	delete(x.desired, sharedAppName)
	planned, _ = x.cycle(ctx, t)
	assert.Equal(t, []string{sharedAppName}, changedNames(planned))
	assert.Empty(t, pickNames(sharedZoneState(ctx, t, zone), isSharedName))

	// The owners create it shared.
	for round := range 2 {
		for _, o := range owners {
			_, sent := o.cycle(ctx, t)
			assertNotTouching(t, sent, isExtName, o.id, "external-dns's", fmt.Sprintf("round %d", round))
		}
	}
	checkConvergedShared(ctx, t, zone, owners, "after external-dns deleted it")

	// external-dns asks for it again: it reads it as somebody else's and
	// changes nothing.
	x.desired[sharedAppName] = sharedExtApp
	planned, xsent := x.cycle(ctx, t)
	assert.False(t, planned.HasChanges(), "external-dns plans nothing: %v", planned)
	assert.Empty(t, xsent)
	owner, _ = x.ownerOf(ctx, t, sharedAppName)
	assert.Equal(t, txt.SharedOwnerID, owner)
	checkConvergedShared(ctx, t, zone, owners, "after external-dns asked for it again")

	// Every owner leaves: nothing shared is left, and external-dns, which
	// still asks for it, creates it its own way.
	for _, o := range owners {
		o.want = nil
		o.publish()
	}
	for range 2 {
		for _, o := range owners {
			o.cycle(ctx, t)
		}
	}
	checkConvergedShared(ctx, t, zone, owners, "after every owner left")
	planned, _ = x.cycle(ctx, t)
	assert.Equal(t, []string{sharedAppName}, changedNames(planned))
	z := sharedZoneState(ctx, t, zone)
	assert.Equal(t, endpoint.Targets{sharedExtApp}, z[sharedAppName+"/A"])
	owner, _ = x.ownerOf(ctx, t, sharedAppName)
	assert.Equal(t, sharedExtOwner, owner)
}
