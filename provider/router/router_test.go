package router_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/router"
	"github.com/zonesync/zonesync/registry/noop"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

func mem(t testing.TB, zones ...string) *inmemory.Provider {
	t.Helper()
	p := inmemory.New(inmemory.Options{Zones: zones})
	require.NoError(t, p.Err())
	return p
}

// noLister is a provider that does not list zones.
type noLister struct{ provider.BaseProvider }

func (noLister) Records(context.Context) ([]*endpoint.Endpoint, error) { return nil, nil }
func (noLister) ApplyChanges(context.Context, *plan.Changes) error     { return nil }

// declaring is an in-memory provider that declares other guarantees (and
// is the innermost layer: no Unwrap).
type declaring struct {
	*inmemory.Provider
	g provider.Guarantees
}

func (d declaring) Guarantees() provider.Guarantees { return d.g.Clone() }

func TestNewRefuses(t *testing.T) {
	a := mem(t, "example.com")
	tests := []struct {
		name   string
		routes []router.Route
		opts   router.Options
		want   string
		also   error
	}{
		{"no routes", nil, router.Options{}, "no routes", nil},
		{"empty name", []router.Route{{Provider: a, Zones: []string{"example.com"}}}, router.Options{}, "routes[0].Name is empty", nil},
		{"duplicate name", []router.Route{{Name: "a", Provider: a}, {Name: "a", Provider: a}}, router.Options{}, `routes[1].Name "a" is the name of another route`, nil},
		{"nil provider", []router.Route{{Name: "a"}}, router.Options{}, `route "a": Provider is nil`, nil},
		{"blank zone", []router.Route{{Name: "a", Provider: a, Zones: []string{" "}}}, router.Options{}, `route "a": Zones holds a blank zone`, nil},
		{"no zones, no listing", []router.Route{{Name: "a", Provider: noLister{}}}, router.Options{}, `route "a": Zones is empty and the provider`, nil},
		{"zone claimed twice", []router.Route{
			{Name: "a", Provider: a, Zones: []string{"Example.com."}},
			{Name: "b", Provider: mem(t, "example.com"), Zones: []string{"example.com"}},
		}, router.Options{}, `zone example.com: zone claimed by two routes: "a" and "b"`, router.ErrZoneConflict},
		{"negative concurrency", []router.Route{{Name: "a", Provider: a}}, router.Options{Concurrency: -1}, "Concurrency -1 is negative", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := router.New(tt.routes, tt.opts)
			require.Error(t, err)
			assert.Nil(t, r)
			assert.ErrorIs(t, err, router.ErrInvalidOptions)
			if tt.also != nil {
				assert.ErrorIs(t, err, tt.also)
			}
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestConformance(t *testing.T) {
	tests := []struct {
		name string
		zone string
		new  func(t *testing.T) provider.Provider
	}{
		{"declared zones", "example.org", func(t *testing.T) provider.Provider {
			r, err := router.New([]router.Route{
				{Name: "a", Provider: mem(t, "example.org"), Zones: []string{"example.org"}},
				{Name: "b", Provider: mem(t, "example.net"), Zones: []string{"example.net"}},
			}, router.Options{})
			require.NoError(t, err)
			return r
		}},
		{"listed zones, delegated sub-zone", "sub.example.org", func(t *testing.T) provider.Provider {
			r, err := router.New([]router.Route{
				{Name: "parent", Provider: mem(t, "example.org")},
				{Name: "child", Provider: mem(t, "sub.example.org")},
				{Name: "other", Provider: mem(t, "example.net")},
			}, router.Options{Concurrency: 2})
			require.NoError(t, err)
			return r
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			providertest.TestProvider(t, tt.new(t), providertest.Options{Zone: tt.zone, Concurrency: 16})
		})
	}
}

// TestMostSpecificZone: a sub-zone delegated to another provider takes the
// names below it, in both directions, and a provider's records outside its
// route's zones are not read.
func TestMostSpecificZone(t *testing.T) {
	ctx := context.Background()
	// The parent's provider also holds a stale copy of the sub-zone.
	parent := mem(t, "example.com", "int.example.com")
	child := mem(t, "int.example.com")
	require.NoError(t, parent.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("stale.int.example.com", endpoint.RecordTypeA, "192.0.2.99"),
	}}))
	r, err := router.New([]router.Route{
		{Name: "route53", Provider: parent, Zones: []string{"example.com"}},
		{Name: "bind", Provider: child, Zones: []string{"INT.example.com."}},
	}, router.Options{})
	require.NoError(t, err)

	zones, err := r.ListZones(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"example.com", "int.example.com"}, zones)

	creates := []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.1"),
		endpoint.NewEndpoint("int.example.com", endpoint.RecordTypeTXT, "apex of the sub-zone"),
		endpoint.NewEndpoint("a.b.int.example.com", endpoint.RecordTypeA, "10.0.0.2"),
		endpoint.NewEndpoint("xint.example.com", endpoint.RecordTypeA, "192.0.2.3"),
	}
	require.NoError(t, r.ApplyChanges(ctx, &plan.Changes{Create: creates}))

	names := func(p provider.Provider) []string {
		recs, err := p.Records(ctx)
		require.NoError(t, err)
		var out []string
		for _, ep := range recs {
			out = append(out, ep.DNSName+"/"+ep.RecordType)
		}
		return out
	}
	assert.Equal(t, []string{"stale.int.example.com/A", "www.example.com/A", "xint.example.com/A"}, names(parent))
	assert.Equal(t, []string{"a.b.int.example.com/A", "int.example.com/TXT"}, names(child))
	assert.Equal(t, []string{"a.b.int.example.com/A", "int.example.com/TXT", "www.example.com/A", "xint.example.com/A"}, names(r),
		"the router reads each name from its most specific zone's route, and not the parent's stale copy")

	f := r.GetDomainFilter()
	for name, want := range map[string]bool{
		"www.example.com": true, "x.int.example.com": true, "example.com": true, "www.example.org": false, "example.co": false,
	} {
		assert.Equal(t, want, f.Match(name), name)
	}
}

// TestFailedRouteFailsItsZones: a route that fails fails exactly its zones
// (per-zone errors), and the other routes' zones are applied.
func TestFailedRouteFailsItsZones(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("route down")
	good := mem(t, "example.com", "example.net")
	bad := mem(t, "example.org", "sub.example.com")
	r, err := router.New([]router.Route{
		{Name: "good", Provider: good},
		{Name: "bad", Provider: providertest.Intercept(bad, providertest.Funcs{
			ApplyChanges: func(context.Context, provider.Provider, *plan.Changes) error { return provider.NewSoftError(boom) },
		})},
	}, router.Options{})
	require.NoError(t, err)
	err = r.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1"),
		endpoint.NewEndpoint("a.sub.example.com", endpoint.RecordTypeA, "192.0.2.2"),
		endpoint.NewEndpoint("a.example.net", endpoint.RecordTypeA, "192.0.2.3"),
		endpoint.NewEndpoint("a.example.org", endpoint.RecordTypeA, "192.0.2.4"),
		endpoint.NewEndpoint("a.example.io", endpoint.RecordTypeA, "192.0.2.5"),
	}})
	require.Error(t, err)
	assert.Equal(t, []string{"", "example.org", "sub.example.com"}, provider.FailedZones(err))
	assert.ErrorIs(t, err, boom)
	assert.ErrorIs(t, err, router.ErrNoRoute)
	assert.ErrorIs(t, err, provider.SoftError)
	assert.Contains(t, err.Error(), "zone example.org: route bad: ")
	assert.Contains(t, err.Error(), "a.example.io/A")
	recs, err := good.Records(ctx)
	require.NoError(t, err)
	assert.Len(t, recs, 2, "the healthy route's zones are applied")
}

func TestListedZoneConflict(t *testing.T) {
	ctx := context.Background()
	r, err := router.New([]router.Route{
		{Name: "a", Provider: mem(t, "example.com")},
		{Name: "b", Provider: mem(t, "example.com", "example.net")},
	}, router.Options{})
	require.NoError(t, err, "listing routes are checked when they list")
	_, err = r.Records(ctx)
	require.ErrorIs(t, err, router.ErrZoneConflict)
	assert.Contains(t, err.Error(), `zone example.com: zone claimed by two routes: "a" and "b"`)
	err = r.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("a.example.net", "A", "192.0.2.1")}})
	require.ErrorIs(t, err, router.ErrZoneConflict, "nothing is applied on an ambiguous table")
}

func TestRecordsFailsWithTheRoute(t *testing.T) {
	boom := errors.New("no credentials")
	r, err := router.New([]router.Route{
		{Name: "ok", Provider: mem(t, "example.com")},
		{Name: "broken", Provider: providertest.Intercept(mem(t, "example.org"), providertest.Funcs{
			Records: func(context.Context, provider.Provider) ([]*endpoint.Endpoint, error) { return nil, boom },
		})},
	}, router.Options{})
	require.NoError(t, err)
	_, err = r.Records(context.Background())
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "route broken (zones example.org): no credentials")
}

func TestAdjustEndpointsPerRoute(t *testing.T) {
	ctx := context.Background()
	ttl := func(v endpoint.TTL) providertest.Funcs {
		return providertest.Funcs{AdjustEndpoints: func(_ context.Context, _ provider.Provider, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
			out := make([]*endpoint.Endpoint, len(eps))
			for i, ep := range eps {
				out[i] = ep.DeepCopy()
				out[i].RecordTTL = v
			}
			return out, nil
		}}
	}
	r, err := router.New([]router.Route{
		{Name: "a", Provider: providertest.Intercept(mem(t, "example.com"), ttl(60))},
		{Name: "b", Provider: providertest.Intercept(mem(t, "int.example.com"), ttl(300))},
	}, router.Options{})
	require.NoError(t, err)
	in := []*endpoint.Endpoint{
		endpoint.NewEndpoint("x.int.example.com", "A", "10.0.0.1"),
		endpoint.NewEndpoint("www.example.com", "A", "192.0.2.1"),
		endpoint.NewEndpoint("www.example.org", "A", "192.0.2.2"),
	}
	out, err := r.AdjustEndpoints(ctx, in)
	require.NoError(t, err)
	require.Len(t, out, 3)
	assert.Equal(t, []endpoint.TTL{300, 60, 0}, []endpoint.TTL{out[0].RecordTTL, out[1].RecordTTL, out[2].RecordTTL})
	assert.Equal(t, "x.int.example.com", out[0].DNSName, "the order is kept")
	assert.Equal(t, endpoint.TTL(0), in[0].RecordTTL, "the input is not modified")
}

// TestGuaranteesPerZone: the plain guarantees are the weakest; per name,
// each zone has its route's, also through the registries.
func TestGuaranteesPerZone(t *testing.T) {
	ctx := context.Background()
	strong := mem(t, "example.com")
	weak := declaring{Provider: mem(t, "int.example.com"), g: provider.Guarantees{RecordTypes: []string{"A", "TXT", "MX"}, ProviderSpecific: []string{"x/"}}}
	r, err := router.New([]router.Route{
		{Name: "route53", Provider: providertest.Intercept(strong, providertest.Funcs{})},
		{Name: "bind", Provider: weak},
	}, router.Options{})
	require.NoError(t, err)
	assert.Equal(t, provider.Guarantees{RecordTypes: []string{"A", "MX", "TXT"}, ProviderSpecific: []string{"x/"}}, r.Guarantees(), "the weakest combination")
	assert.Nil(t, r.ZoneGuarantees(), "no table before the zones are listed")
	_, err = r.Records(ctx)
	require.NoError(t, err)

	reg, err := txt.New(r, txt.Config{OwnerID: "test"})
	require.NoError(t, err)
	for _, p := range []provider.Provider{r, noop.New(r), reg} {
		g := provider.GuaranteesByName(p)
		setID := endpoint.NewEndpoint("www.example.com", "A", "192.0.2.1").WithSetIdentifier("eu")
		assert.NoError(t, g.Check(setID), "%T: Route 53's zone keeps set identifiers", p)
		assert.ErrorIs(t, g.Check(endpoint.NewEndpoint("www.int.example.com", "A", "10.0.0.1").WithSetIdentifier("eu")), provider.ErrUnsupported, "%T", p)
		assert.NoError(t, g.Check(endpoint.NewEndpoint("www.example.com", "AAAA", "2001:db8::1")), "%T", p)
		assert.ErrorIs(t, g.Check(endpoint.NewEndpoint("www.int.example.com", "AAAA", "2001:db8::1")), provider.ErrUnsupported, "%T", p)
		assert.True(t, provider.GuaranteesFor(p, "a.example.com").CreateFailsIfExists, "%T", p)
		assert.False(t, provider.GuaranteesFor(p, "a.int.example.com").CreateFailsIfExists, "%T", p)
		assert.False(t, provider.GuaranteesOf(p).CreateFailsIfExists, "%T: the plain guarantees are the weakest", p)
	}
}

// TestRecheckOnlyWhereCreatesOverwrite: the re-read before creates covers
// only the creates of zones whose provider's creates may overwrite.
func TestRecheckOnlyWhereCreatesOverwrite(t *testing.T) {
	ctx := context.Background()
	var reads atomic.Int32
	counting := func(p provider.Provider) provider.Provider {
		return providertest.Intercept(p, providertest.Funcs{Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			reads.Add(1)
			return next.Records(ctx)
		}})
	}
	weak := declaring{Provider: mem(t, "int.example.com")}
	r, err := router.New([]router.Route{
		{Name: "strict", Provider: counting(mem(t, "example.com")), Zones: []string{"example.com"}},
		{Name: "upsert", Provider: counting(weak), Zones: []string{"int.example.com"}},
	}, router.Options{})
	require.NoError(t, err)
	strictOnly := &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("a.example.com", "A", "192.0.2.1")}}
	out, dropped, err := provider.RecheckCreates(ctx, r, strictOnly)
	require.NoError(t, err)
	assert.Same(t, strictOnly, out)
	assert.Empty(t, dropped)
	assert.Zero(t, reads.Load(), "no zone of these creates may overwrite: nothing is read")

	require.NoError(t, weak.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("b.int.example.com", "A", "10.0.0.9")}}))
	both := &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("a.example.com", "A", "192.0.2.1"),
		endpoint.NewEndpoint("b.int.example.com", "A", "10.0.0.1"),
	}}
	out, dropped, err = provider.RecheckCreates(ctx, r, both)
	require.NoError(t, err)
	assert.Len(t, out.Create, 1)
	require.Len(t, dropped, 1)
	assert.Equal(t, "b.int.example.com", dropped[0].DNSName)
}

// failApplies fails ApplyChanges calls of p with probability rate before
// they reach p.
func failApplies(p provider.Provider, rate float64, seed uint64) provider.Provider {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, seed))
	return providertest.Intercept(p, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
			mu.Lock()
			fail := rng.Float64() < rate
			mu.Unlock()
			if fail {
				return provider.NewSoftError(errors.New("throttled"))
			}
			return next.ApplyChanges(ctx, changes)
		},
	})
}

// TestReconcilerOverRouter: a Reconciler with the TXT registry over three
// routes, one failing half its calls, converges; each record's ownership
// TXT lands in its record's service; the others are applied every cycle.
func TestReconcilerOverRouter(t *testing.T) {
	ctx := context.Background()
	parent := mem(t, "example.com")
	child := mem(t, "int.example.com")
	other := mem(t, "example.org")
	// Faults on the writes of one route: refused changes and lost
	// responses (applied, reported failed). A route whose Records fails
	// fails the whole cycle (see Router.Records), so reads are not faulted.
	flaky := providertest.FailAfterApplyRandomly(failApplies(other, 0.4, 3), 0.3, rand.New(rand.NewPCG(5, 8)),
		provider.NewSoftError(errors.New("timeout after the write")))
	r, err := router.New([]router.Route{
		{Name: "route53", Provider: parent},
		{Name: "bind", Provider: child},
		{Name: "flaky", Provider: flaky, Zones: []string{"example.org"}},
	}, router.Options{})
	require.NoError(t, err)
	reg, err := txt.New(r, txt.Config{OwnerID: "owner", Prefix: "own-"})
	require.NoError(t, err)

	var desired []*endpoint.Endpoint
	for i := range 5 {
		for _, zone := range []string{"example.com", "int.example.com", "example.org"} {
			desired = append(desired, endpoint.NewEndpoint(fmt.Sprintf("svc-%d.%s", i, zone), "A", fmt.Sprintf("192.0.2.%d", i+1)).
				WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("service/default/svc-%d", i)))
		}
	}
	src := source.NewStatic(desired...)
	rec := &zonesync.Reconciler{Source: src, Registry: reg}
	var failedOther, ok int
	for i := range 40 {
		c, err := rec.RunOnce(ctx)
		if i == 0 {
			for _, p := range []*inmemory.Provider{parent, child} {
				recs, rerr := p.Records(ctx)
				require.NoError(t, rerr)
				assert.Len(t, recs, 10, "the healthy routes are applied at the first cycle, whatever the flaky one does")
			}
		}
		if err != nil {
			zones := provider.FailedZones(err)
			assert.Equal(t, []string{"example.org"}, zones, "only the flaky route's zone fails: %v", err)
			failedOther++
		} else {
			ok++
			if !c.HasChanges() {
				break
			}
		}
	}
	require.Positive(t, ok)
	require.Positive(t, failedOther, "the faults were injected")
	c, err := rec.RunOnce(ctx)
	for i := 0; err != nil && i < 40; i++ { // the flaky route may fail a few more
		c, err = rec.RunOnce(ctx)
	}
	require.NoError(t, err)
	assert.False(t, c.HasChanges(), "converged")

	for p, zone := range map[*inmemory.Provider]string{parent: "example.com", child: "int.example.com", other: "example.org"} {
		recs, err := p.Records(ctx)
		require.NoError(t, err)
		var a, owned int
		for _, ep := range recs {
			assert.True(t, strings.HasSuffix(ep.DNSName, "."+zone), "%s holds %s", zone, ep.DNSName)
			if zone == "example.com" {
				assert.False(t, strings.HasSuffix(ep.DNSName, ".int.example.com"), "the parent holds nothing of the sub-zone: %s", ep.DNSName)
			}
			switch ep.RecordType {
			case "A":
				a++
			case "TXT":
				assert.True(t, strings.HasPrefix(ep.DNSName, "own-"), ep.DNSName)
				owned++
			}
		}
		assert.Equal(t, 5, a, zone)
		assert.Equal(t, 5, owned, "%s: each record's ownership TXT beside it", zone)
	}

	// Deleting every record of the three zones at once is refused by the
	// safety threshold, which counts across the routes.
	src.Set()
	_, err = rec.RunOnce(ctx)
	require.ErrorIs(t, err, zonesync.ErrUnsafePlan)
}

func TestContextCancelled(t *testing.T) {
	r, err := router.New([]router.Route{{Name: "a", Provider: mem(t, "example.com")}}, router.Options{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = r.Records(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, r.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("a.example.com", "A", "192.0.2.1")}}), context.Canceled)
	_, err = r.ListZones(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestRecordsSortedAcrossRoutes(t *testing.T) {
	ctx := context.Background()
	a, b, c := mem(t, "example.com"), mem(t, "int.example.com"), mem(t, "example.net")
	var all []string
	for i := range 50 {
		for p, zone := range map[*inmemory.Provider]string{a: "example.com", b: "int.example.com", c: "example.net"} {
			if i%(len(zone)%4+1) != 0 { // runs of different lengths
				continue
			}
			ep := endpoint.NewEndpoint(fmt.Sprintf("h%02d.%s", i, zone), "A", "192.0.2.1")
			require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{ep}}))
			all = append(all, ep.DNSName)
		}
	}
	slices.Sort(all)
	r, err := router.New([]router.Route{{Name: "a", Provider: a}, {Name: "b", Provider: b}, {Name: "c", Provider: c}}, router.Options{Concurrency: 1})
	require.NoError(t, err)
	recs, err := r.Records(ctx)
	require.NoError(t, err)
	var got []string
	for _, ep := range recs {
		got = append(got, ep.DNSName)
	}
	assert.Equal(t, all, got)
}
