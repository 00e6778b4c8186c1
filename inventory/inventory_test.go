package inventory_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/clock/clocktest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/inventory"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/policy"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/verify/result"
)

var t0 = time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)

// testSource is a source whose endpoints and failed objects a test sets.
type testSource struct {
	mu     sync.Mutex
	eps    []*endpoint.Endpoint
	failed map[string]error
}

func (s *testSource) set(failed map[string]error, eps ...*endpoint.Endpoint) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eps, s.failed = eps, failed
}

func (s *testSource) Endpoints(context.Context) ([]*endpoint.Endpoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*endpoint.Endpoint, len(s.eps))
	for i, e := range s.eps {
		out[i] = e.DeepCopy()
	}
	if len(s.failed) > 0 {
		return out, &source.PartialError{Failed: maps.Clone(s.failed)}
	}
	return out, nil
}

func (*testSource) AddEventHandler(context.Context, func()) {}

// ep returns an A record of the object resource.
func ep(name, resource string, targets ...string) *endpoint.Endpoint {
	e := endpoint.NewEndpoint(name, endpoint.RecordTypeA, targets...)
	if resource != "" {
		e.WithLabel(endpoint.ResourceLabelKey, resource)
	}
	return e
}

// fakeVerifier answers sync for every endpoint except those named in
// notSync, and counts its calls.
type fakeVerifier struct {
	mu      sync.Mutex
	notSync map[string]bool
	calls   int
	checked []string
}

func (f *fakeVerifier) Verify(ctx context.Context, eps []*endpoint.Endpoint) ([]result.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	out := make([]result.Result, 0, len(eps))
	for _, e := range eps {
		f.checked = append(f.checked, e.DNSName)
		r := result.Result{Endpoint: e, Status: result.Sync, Seen: slices.Clone([]string(e.Targets))}
		if f.notSync[e.DNSName] {
			r.Status, r.Seen = result.NotSync, []string{"203.0.113.1"}
		}
		out = append(out, r)
	}
	return out, ctx.Err()
}

type harness struct {
	src   *testSource
	rec   *zonesync.Reconciler
	inv   *inventory.Inventory
	clock *clocktest.FakeClock
}

func newHarness(t *testing.T, opts inventory.Options) *harness {
	t.Helper()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "test"})
	require.NoError(t, err)
	clk := clocktest.New(t0)
	if opts.Clock == nil {
		opts.Clock = clk
	}
	inv, err := inventory.New(opts)
	require.NoError(t, err)
	h := &harness{src: &testSource{}, inv: inv, clock: clk}
	h.rec = &zonesync.Reconciler{Source: h.src, Registry: reg, Observer: inv, Clock: h.clock}
	return h
}

// cycle runs one cycle, a minute after the last.
func (h *harness) cycle(t *testing.T) zonesync.Cycle {
	t.Helper()
	h.clock.Advance(time.Minute)
	c, _ := h.rec.RunOnce(context.Background())
	return c
}

// rows returns "name type resource state" for every view.
func rows(inv *inventory.Inventory) []string {
	var out []string
	for _, v := range inv.List(inventory.Filter{}).Views {
		row := v.Name + " " + v.RecordType + " " + v.Resource + " " + string(v.Outcome.State)
		if !v.Desired {
			row += " (not desired)"
		}
		out = append(out, row)
	}
	return out
}

func TestNewRefusesInvalidOptions(t *testing.T) {
	tests := []struct {
		name  string
		opts  inventory.Options
		field string
	}{
		{"negative reverify", inventory.Options{ReverifyAfter: -time.Second, Verifier: &fakeVerifier{}}, "ReverifyAfter"},
		{"reverify without verifier", inventory.Options{ReverifyAfter: time.Second}, "Verifier"},
		{"blank label key", inventory.Options{Groups: inventory.GroupMapping{LabelKeys: []string{" "}}}, "LabelKeys[0]"},
		{"blank namespace group", inventory.Options{Groups: inventory.GroupMapping{ByNamespace: map[string]string{"a": ""}}}, "ByNamespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := inventory.New(tt.opts)
			require.ErrorIs(t, err, inventory.ErrInvalidOptions)
			assert.Contains(t, err.Error(), tt.field)
		})
	}
}

func TestParseResource(t *testing.T) {
	tests := []struct {
		in   string
		want inventory.Object
	}{
		{"service/default/web", inventory.Object{Resource: "service/default/web", Kind: "service", Namespace: "default", Name: "web"}},
		{"node/worker-1", inventory.Object{Resource: "node/worker-1", Kind: "node", Name: "worker-1"}},
		{"crd", inventory.Object{Resource: "crd", Kind: "crd"}},
		{"", inventory.Object{}},
		{"a/b/c/d", inventory.Object{Resource: "a/b/c/d", Kind: "a", Namespace: "b", Name: "c/d"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, inventory.ParseResource(tt.in), tt.in)
	}
}

func TestGroupMapping(t *testing.T) {
	objLabels := map[string]map[string]string{
		"service/shop/cart":  {"team": "payments", "tier": "gold"},
		"service/shop/web":   {"team": ""},
		"ingress/blog/front": nil,
	}
	tests := []struct {
		name    string
		mapping inventory.GroupMapping
		lookup  bool
		want    map[string][]string // resource -> groups
	}{
		{
			name: "none", want: map[string][]string{"service/shop/cart": nil, "service/shop/web": nil, "ingress/blog/front": nil, "": nil},
		},
		{
			name:    "default only",
			mapping: inventory.GroupMapping{Default: "misc"},
			want:    map[string][]string{"service/shop/cart": {"misc"}, "service/shop/web": {"misc"}, "ingress/blog/front": {"misc"}, "": {"misc"}},
		},
		{
			name:    "by namespace, default for the rest",
			mapping: inventory.GroupMapping{ByNamespace: map[string]string{"shop": "commerce"}, Default: "misc"},
			want:    map[string][]string{"service/shop/cart": {"commerce"}, "service/shop/web": {"commerce"}, "ingress/blog/front": {"misc"}, "": {"misc"}},
		},
		{
			name:    "object labels and namespace together",
			mapping: inventory.GroupMapping{ByNamespace: map[string]string{"shop": "commerce"}, LabelKeys: []string{"team", "tier"}, Default: "misc"},
			lookup:  true,
			want:    map[string][]string{"service/shop/cart": {"commerce", "gold", "payments"}, "service/shop/web": {"commerce"}, "ingress/blog/front": {"blog-team"}, "": {"misc"}},
		},
		{
			name:    "endpoint labels without a lookup",
			mapping: inventory.GroupMapping{LabelKeys: []string{"team"}},
			want:    map[string][]string{"service/shop/cart": {"cart-team"}, "service/shop/web": nil, "ingress/blog/front": {"blog-team"}, "": nil},
		},
		{
			name:    "object label wins over endpoint label",
			mapping: inventory.GroupMapping{LabelKeys: []string{"team"}},
			lookup:  true,
			want:    map[string][]string{"service/shop/cart": {"payments"}, "service/shop/web": nil, "ingress/blog/front": {"blog-team"}, "": nil},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := inventory.Options{Groups: tt.mapping}
			var mu sync.Mutex
			var asked []string
			if tt.lookup {
				opts.ObjectLabels = func(o inventory.Object) map[string]string {
					mu.Lock()
					asked = append(asked, o.Resource)
					mu.Unlock()
					return objLabels[o.Resource]
				}
			}
			h := newHarness(t, opts)
			h.src.set(nil,
				ep("cart.example.com", "service/shop/cart", "192.0.2.1").WithLabel("team", "cart-team"),
				ep("web.example.com", "service/shop/web", "192.0.2.2"),
				ep("blog.example.com", "ingress/blog/front", "192.0.2.3").WithLabel("team", "blog-team"),
				ep("bare.example.com", "", "192.0.2.4"),
			)
			h.cycle(t)
			got := map[string][]string{}
			for _, v := range h.inv.List(inventory.Filter{}).Views {
				got[v.Resource] = v.Groups
			}
			assert.Equal(t, tt.want, got)
			if tt.lookup {
				assert.ElementsMatch(t, []string{"ingress/blog/front", "service/shop/cart", "service/shop/web"}, asked,
					"ObjectLabels is called once per object with a resource label")
			}
		})
	}
}

func TestProjection(t *testing.T) {
	h := newHarness(t, inventory.Options{Groups: inventory.GroupMapping{Default: "all"}})
	web := ep("web.example.com", "service/default/web", "192.0.2.1")
	idn := ep("bücher.example.com", "ingress/shop/books", "192.0.2.2")
	h.src.set(nil, web, idn)
	c := h.cycle(t)
	require.NoError(t, c.Err)

	page := h.inv.List(inventory.Filter{})
	require.Len(t, page.Views, 2)
	end := c.Start.Add(c.Duration)
	assert.Equal(t, inventory.View{
		Name: "web.example.com", DisplayName: "web.example.com", RecordType: "A", Targets: []string{"192.0.2.1"},
		Resource: "service/default/web", SourceType: "service", Namespace: "default", Object: "web",
		Owner: "test", Groups: []string{"all"}, Desired: true,
		Outcome: inventory.Outcome{State: zonesync.RecordApplied, At: end},
	}, page.Views[0])
	assert.Equal(t, "xn--bcher-kva.example.com", page.Views[1].Name, "A-label is the key")
	assert.Equal(t, "bücher.example.com", page.Views[1].DisplayName)
	last, ok := h.inv.LastCycle()
	require.True(t, ok)
	assert.Equal(t, inventory.CycleSummary{Start: c.Start, End: end, Succeeded: true, Applied: true, Planned: true, Creates: 2}, last)

	// Converged: unchanged.
	h.cycle(t)
	assert.Equal(t, []string{
		"web.example.com A service/default/web unchanged",
		"xn--bcher-kva.example.com A ingress/shop/books unchanged",
	}, rows(h.inv))
}

func TestRemovalWhenRecordsAreDeleted(t *testing.T) {
	h := newHarness(t, inventory.Options{})
	h.src.set(nil, ep("web.example.com", "service/default/web", "192.0.2.1"), ep("api.example.com", "service/default/api", "192.0.2.2"))
	h.cycle(t)
	require.Len(t, rows(h.inv), 2)

	// In dry run the delete waits: the record stays, no longer desired.
	h.src.set(nil, ep("web.example.com", "service/default/web", "192.0.2.1"))
	h.rec.DryRun = true
	h.cycle(t)
	assert.Equal(t, []string{
		"api.example.com A service/default/api pending (not desired)",
		"web.example.com A service/default/web unchanged",
	}, rows(h.inv))

	// Applied: the object is gone from the inventory.
	h.rec.DryRun = false
	c := h.cycle(t)
	require.Equal(t, 1, c.Deletes)
	assert.Equal(t, []string{"web.example.com A service/default/web unchanged"}, rows(h.inv))
}

func TestRecordsKeptWhilePolicyKeepsThem(t *testing.T) {
	h := newHarness(t, inventory.Options{})
	h.src.set(nil, ep("web.example.com", "service/default/web", "192.0.2.1"), ep("api.example.com", "service/default/api", "192.0.2.2"))
	h.cycle(t)
	h.rec.Policy = policy.UpsertOnly
	h.src.set(nil, ep("web.example.com", "service/default/web", "192.0.2.1"))
	h.cycle(t)
	page := h.inv.List(inventory.Filter{Name: "api"})
	require.Len(t, page.Views, 1)
	v := page.Views[0]
	assert.False(t, v.Desired)
	assert.Equal(t, zonesync.RecordSkipped, v.Outcome.State)
	assert.Equal(t, zonesync.Reason(plan.SkipPolicy), v.Outcome.Reason)
}

func TestObjectTheSourceCannotReadKeepsItsRecords(t *testing.T) {
	h := newHarness(t, inventory.Options{})
	h.src.set(nil, ep("web.example.com", "service/default/web", "192.0.2.1"), ep("api.example.com", "service/default/api", "192.0.2.2"))
	h.cycle(t)
	h.src.set(map[string]error{"service/default/api": errors.New(`bad annotation "<b>"`)}, ep("web.example.com", "service/default/web", "192.0.2.1"))
	h.cycle(t)
	page := h.inv.List(inventory.Filter{Name: "api"})
	require.Len(t, page.Views, 1)
	v := page.Views[0]
	assert.True(t, v.Desired)
	assert.Equal(t, []string{"192.0.2.2"}, v.Targets, "the records of the cycle before")
	assert.Equal(t, zonesync.RecordInvalid, v.Outcome.State)
	assert.Equal(t, zonesync.ReasonSourceError, v.Outcome.Reason)
	assert.Contains(t, v.Outcome.Message, "bad annotation")
}

func TestCycleFailedBeforePlanningKeepsRecords(t *testing.T) {
	h := newHarness(t, inventory.Options{})
	h.src.set(nil, ep("web.example.com", "service/default/web", "192.0.2.1"))
	h.cycle(t)
	before := h.inv.List(inventory.Filter{})
	h.inv.CycleFinished(context.Background(), zonesync.Cycle{Start: t0.Add(time.Hour), Err: errors.New("registry: connection refused")})
	after := h.inv.List(inventory.Filter{})
	assert.Equal(t, before.Views, after.Views)
	assert.Greater(t, after.Generation, before.Generation)
	last, _ := h.inv.LastCycle()
	assert.False(t, last.Succeeded)
	assert.False(t, last.Planned)
	assert.Equal(t, "failed", last.Result())
}

func TestForeignOwner(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	other, err := txt.New(zone, txt.Config{OwnerID: "other"})
	require.NoError(t, err)
	_, err = (&zonesync.Reconciler{Source: source.NewStatic(ep("web.example.com", "service/x/web", "192.0.2.9")), Registry: other}).RunOnce(context.Background())
	require.NoError(t, err)

	reg, err := txt.New(zone, txt.Config{OwnerID: "test"})
	require.NoError(t, err)
	inv, err := inventory.New(inventory.Options{})
	require.NoError(t, err)
	_, _ = (&zonesync.Reconciler{Source: source.NewStatic(ep("web.example.com", "service/default/web", "192.0.2.1")), Registry: reg, Observer: inv}).RunOnce(context.Background())
	v := inv.List(inventory.Filter{}).Views
	require.Len(t, v, 1)
	assert.Equal(t, "other", v[0].Owner)
	assert.Equal(t, zonesync.RecordSkipped, v[0].Outcome.State)
	assert.Equal(t, zonesync.Reason(plan.SkipForeignOwner), v[0].Outcome.Reason)
}

func TestVerificationFromTheCycleIsCarriedWhileTargetsStay(t *testing.T) {
	h := newHarness(t, inventory.Options{})
	fv := &fakeVerifier{notSync: map[string]bool{"api.example.com": true}}
	h.rec.Verifier = fv
	h.src.set(nil, ep("web.example.com", "service/default/web", "192.0.2.1"), ep("api.example.com", "service/default/api", "192.0.2.2"))
	c := h.cycle(t)
	end := c.Start.Add(c.Duration)
	views := h.inv.List(inventory.Filter{}).Views
	require.Len(t, views, 2)
	assert.Equal(t, &inventory.Verification{Status: result.NotSync, Seen: []string{"203.0.113.1"}, CheckedAt: end}, views[0].Verification)
	assert.Equal(t, result.Sync, views[1].Verification.Status)

	// Unchanged records keep their check; a changed one loses it.
	h.src.set(nil, ep("web.example.com", "service/default/web", "192.0.2.1"), ep("api.example.com", "service/default/api", "192.0.2.3"))
	h.rec.Verifier = nil
	h.cycle(t)
	views = h.inv.List(inventory.Filter{}).Views
	assert.Nil(t, views[0].Verification, "api changed targets")
	require.NotNil(t, views[1].Verification)
	assert.Equal(t, end, views[1].Verification.CheckedAt)

	assert.Equal(t, inventory.Stats{
		Names:          2,
		BySourceGroup:  []inventory.SourceGroupCount{{SourceType: "service", Names: 2}},
		ByVerification: []inventory.StatusCount{{Status: "sync", Names: 1}, {Status: inventory.Unverified, Names: 1}},
	}, h.inv.Stats())
}

func TestRunVerifiesInTheBackground(t *testing.T) {
	fv := &fakeVerifier{notSync: map[string]bool{"api.example.com": true}}
	h := newHarness(t, inventory.Options{Verifier: fv, ReverifyAfter: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.inv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})

	h.src.set(nil, ep("web.example.com", "service/default/web", "192.0.2.1"), ep("api.example.com", "service/default/api", "192.0.2.2"))
	h.cycle(t)
	require.Eventually(t, func() bool {
		return len(h.inv.List(inventory.Filter{Status: inventory.Unverified}).Views) == 0
	}, 5*time.Second, time.Millisecond)
	assert.Len(t, h.inv.List(inventory.Filter{Status: string(result.NotSync)}).Views, 1)
	assert.Len(t, h.inv.List(inventory.Filter{Status: string(result.Sync)}).Views, 1)
	calls := func() int { fv.mu.Lock(); defer fv.mu.Unlock(); return fv.calls }

	// Within ReverifyAfter nothing is checked again.
	before := calls()
	h.cycle(t)
	time.Sleep(50 * time.Millisecond)
	assert.Equal(t, before, calls())
}

func TestRunWithoutVerifierWaitsForContext(t *testing.T) {
	inv, err := inventory.New(inventory.Options{})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	require.NoError(t, inv.Run(ctx))
}

func TestListFiltersAndPages(t *testing.T) {
	h := newHarness(t, inventory.Options{Groups: inventory.GroupMapping{ByNamespace: map[string]string{"a": "alpha", "b": "beta"}}})
	var eps []*endpoint.Endpoint
	for i := range 10 {
		ns := "a"
		if i%2 == 1 {
			ns = "b"
		}
		kind := "service"
		if i >= 8 {
			kind = "ingress"
		}
		eps = append(eps, ep("n"+strconv.Itoa(i)+".example.com", kind+"/"+ns+"/o"+strconv.Itoa(i), "192.0.2."+strconv.Itoa(i+1)))
	}
	h.src.set(nil, eps...)
	h.cycle(t)
	names := func(p inventory.Page) []string {
		var out []string
		for _, v := range p.Views {
			out = append(out, v.Name)
		}
		return out
	}
	tests := []struct {
		name  string
		f     inventory.Filter
		want  []string
		total int
	}{
		{"all", inventory.Filter{}, []string{"n0.example.com", "n1.example.com", "n2.example.com", "n3.example.com", "n4.example.com", "n5.example.com", "n6.example.com", "n7.example.com", "n8.example.com", "n9.example.com"}, 10},
		{"group", inventory.Filter{Group: "beta"}, []string{"n1.example.com", "n3.example.com", "n5.example.com", "n7.example.com", "n9.example.com"}, 5},
		{"source", inventory.Filter{SourceType: "ingress"}, []string{"n8.example.com", "n9.example.com"}, 2},
		{"group and source", inventory.Filter{Group: "alpha", SourceType: "ingress"}, []string{"n8.example.com"}, 1},
		{"name, any case", inventory.Filter{Name: "N3."}, []string{"n3.example.com"}, 1},
		{"status", inventory.Filter{Status: "applied", Limit: 2}, []string{"n0.example.com", "n1.example.com"}, 10},
		{"unverified", inventory.Filter{Status: inventory.Unverified, Offset: 9}, []string{"n9.example.com"}, 10},
		{"page", inventory.Filter{Offset: 3, Limit: 3}, []string{"n3.example.com", "n4.example.com", "n5.example.com"}, 10},
		{"past the end", inventory.Filter{Offset: 20, Limit: 3}, nil, 10},
		{"no match", inventory.Filter{Status: "failed"}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := h.inv.List(tt.f)
			assert.Equal(t, tt.want, names(p))
			assert.Equal(t, tt.total, p.Total)
		})
	}
	// Returned slices are the caller's.
	p := h.inv.List(inventory.Filter{Limit: 1})
	p.Views[0].Targets[0] = "mutated"
	assert.Equal(t, "192.0.2.1", h.inv.List(inventory.Filter{Limit: 1}).Views[0].Targets[0])
}

func TestConcurrentReadsDuringCycles(t *testing.T) {
	fv := &fakeVerifier{}
	h := newHarness(t, inventory.Options{Verifier: fv, Groups: inventory.GroupMapping{Default: "g"}})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = h.inv.Run(ctx) })
	handler, err := inventory.NewHandler(h.inv, inventory.HandlerOptions{})
	require.NoError(t, err)
	for range 4 {
		wg.Go(func() {
			for ctx.Err() == nil {
				p := h.inv.List(inventory.Filter{Group: "g", Limit: 5})
				// One snapshot: every view of a page is of one cycle.
				for _, v := range p.Views {
					assert.Equal(t, p.Views[0].Outcome.At, v.Outcome.At)
				}
				_ = h.inv.Stats()
				_, _ = h.inv.LastCycle()
				serve(t, handler, "/?status=applied&format=json")
			}
		})
	}
	for i := range 20 {
		var eps []*endpoint.Endpoint
		for j := range 10 {
			eps = append(eps, ep("n"+strconv.Itoa(j)+".example.com", "service/default/o"+strconv.Itoa(j), "192.0.2."+strconv.Itoa(i+1)))
		}
		h.src.set(nil, eps...)
		h.cycle(t)
	}
	cancel()
	wg.Wait()
	assert.Len(t, h.inv.List(inventory.Filter{}).Views, 10)
}
