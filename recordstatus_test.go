package zonesync_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/verify/result"
)

// lastCycle keeps the last cycle an Observer saw.
type lastCycle struct{ c zonesync.Cycle }

func (o *lastCycle) CycleStarted(context.Context, time.Time)           {}
func (o *lastCycle) CycleFinished(_ context.Context, c zonesync.Cycle) { o.c = c }

func rec(name, ip, resource string) *endpoint.Endpoint {
	e := endpoint.NewEndpoint(name, endpoint.RecordTypeA, ip)
	if resource != "" {
		e.WithLabel(endpoint.ResourceLabelKey, resource)
	}
	return e
}

// statusLine is a RecordStatus reduced to what the tests compare.
type statusLine struct {
	Resource, Record string
	State            zonesync.RecordState
	Reason           zonesync.Reason
	Ready            bool
}

func lines(sts []zonesync.RecordStatus) []statusLine {
	var out []statusLine
	for _, s := range sts {
		out = append(out, statusLine{s.Resource, s.Endpoint.Key().String(), s.State, s.Reason, s.Ready()})
	}
	return out
}

type statusHarness struct {
	zone  *inmemory.Provider
	src   *source.Static
	obs   *lastCycle
	r     *zonesync.Reconciler
	apply func(ctx context.Context, next provider.Provider, c *plan.Changes) error
}

func newStatusHarness(t *testing.T) *statusHarness {
	t.Helper()
	h := &statusHarness{zone: inmemory.New(inmemory.Options{Zones: []string{"example.com", "example.org"}}), obs: &lastCycle{}}
	p := providertest.Intercept(h.zone, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			if h.apply != nil {
				return h.apply(ctx, next, c)
			}
			return next.ApplyChanges(ctx, c)
		},
	})
	reg, err := txt.New(p, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	h.src = source.NewStatic()
	h.r = &zonesync.Reconciler{Source: h.src, Registry: reg, Observer: h.obs}
	return h
}

func (h *statusHarness) run(eps ...*endpoint.Endpoint) error {
	h.src.Set(eps...)
	_, err := h.r.RunOnce(context.Background())
	return err
}

func TestRecordStatusesAppliedUnchangedSkipped(t *testing.T) {
	h := newStatusHarness(t)
	other, err := txt.New(h.zone, txt.Config{OwnerID: "other"})
	require.NoError(t, err)
	require.NoError(t, other.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{rec("taken.example.com", "192.0.2.99", "")}}))

	require.NoError(t, h.run(rec("www.example.com", "192.0.2.1", "service/web/front")))
	require.NoError(t, h.run(
		rec("www.example.com", "192.0.2.1", "service/web/front"),
		rec("api.example.com", "192.0.2.2", "service/web/front"),
		rec("taken.example.com", "192.0.2.3", "ingress/shop/main"),
		rec("bare.example.com", "192.0.2.4", ""),
	))
	sts := h.obs.c.RecordStatuses()
	assert.Equal(t, []statusLine{
		{"", "bare.example.com/A", zonesync.RecordApplied, "", true},
		{"ingress/shop/main", "taken.example.com/A", zonesync.RecordSkipped, zonesync.Reason(plan.SkipForeignOwner), false},
		{"service/web/front", "api.example.com/A", zonesync.RecordApplied, "", true},
		{"service/web/front", "www.example.com/A", zonesync.RecordUnchanged, "", true},
	}, lines(sts))
	assert.Contains(t, sts[1].Message, "other", "the detail names the foreign owner")

	groups := zonesync.GroupByResource(sts)
	require.Len(t, groups, 3)
	assert.Equal(t, "service/web/front", groups[2].Resource)
	assert.Len(t, groups[2].Records, 2)
	assert.True(t, groups[2].Ready())
	assert.False(t, groups[1].Ready())
}

func TestRecordStatusesNotApplied(t *testing.T) {
	base := []*endpoint.Endpoint{
		rec("a.example.com", "192.0.2.1", "crd/ns/a"),
		rec("b.example.org", "192.0.2.2", "crd/ns/b"),
	}
	tests := []struct {
		name   string
		setup  func(h *statusHarness)
		state  map[string]zonesync.RecordState
		reason map[string]zonesync.Reason
	}{
		{
			name:  "dry run",
			setup: func(h *statusHarness) { h.r.DryRun = true },
			state: map[string]zonesync.RecordState{"a.example.com/A": zonesync.RecordPending, "b.example.org/A": zonesync.RecordPending},
		},
		{
			name: "provider down",
			setup: func(h *statusHarness) {
				h.apply = func(context.Context, provider.Provider, *plan.Changes) error { return errors.New("connection refused") }
			},
			// registry/txt applies one zone per call: each zone failed.
			state:  map[string]zonesync.RecordState{"a.example.com/A": zonesync.RecordFailed, "b.example.org/A": zonesync.RecordFailed},
			reason: map[string]zonesync.Reason{"a.example.com/A": zonesync.ReasonZoneFailed, "b.example.org/A": zonesync.ReasonZoneFailed},
		},
		{
			name:   "registry error",
			setup:  func(h *statusHarness) { h.r.Registry = failingRegistry{h.r.Registry} },
			state:  map[string]zonesync.RecordState{"a.example.com/A": zonesync.RecordFailed, "b.example.org/A": zonesync.RecordFailed},
			reason: map[string]zonesync.Reason{"a.example.com/A": zonesync.ReasonError, "b.example.org/A": zonesync.ReasonError},
		},
		{
			name: "one zone failed",
			setup: func(h *statusHarness) {
				h.apply = func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
					for _, e := range c.Create {
						if strings.HasSuffix(e.DNSName, ".example.org") {
							return errors.New("SERVFAIL")
						}
					}
					return next.ApplyChanges(ctx, c)
				}
			},
			state:  map[string]zonesync.RecordState{"a.example.com/A": zonesync.RecordApplied, "b.example.org/A": zonesync.RecordFailed},
			reason: map[string]zonesync.Reason{"b.example.org/A": zonesync.ReasonZoneFailed},
		},
		{
			name: "one record rejected",
			setup: func(h *statusHarness) {
				h.apply = func(_ context.Context, _ provider.Provider, c *plan.Changes) error {
					for _, e := range c.Create {
						if e.DNSName == "b.example.org" && e.RecordType == endpoint.RecordTypeA {
							return &provider.RejectedError{Rejected: []provider.Rejection{{Action: "create", Endpoint: e, Reason: errors.New("quota exceeded")}}}
						}
					}
					return nil
				}
			},
			state: map[string]zonesync.RecordState{"a.example.com/A": zonesync.RecordApplied, "b.example.org/A": zonesync.RecordRejected},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newStatusHarness(t)
			tt.setup(h)
			_ = h.run(base...)
			got := map[string]zonesync.RecordState{}
			gotReason := map[string]zonesync.Reason{}
			for _, s := range h.obs.c.RecordStatuses() {
				got[s.Endpoint.Key().String()] = s.State
				if s.Reason != "" {
					gotReason[s.Endpoint.Key().String()] = s.Reason
				}
				if s.State == zonesync.RecordRejected {
					assert.Equal(t, "quota exceeded", s.Message)
				}
				if s.State == zonesync.RecordFailed {
					assert.NotEmpty(t, s.Message)
				}
			}
			assert.Equal(t, tt.state, got)
			if tt.reason == nil {
				tt.reason = map[string]zonesync.Reason{}
			}
			assert.Equal(t, tt.reason, gotReason)
		})
	}
}

func TestRecordStatusesSafetyRefusal(t *testing.T) {
	h := newStatusHarness(t)
	h.r.Safety = plan.SafetyThreshold{MinOwned: 2, MaxChangeRatio: 0.5}
	require.NoError(t, h.run(rec("a.example.com", "192.0.2.1", ""), rec("b.example.com", "192.0.2.2", ""), rec("c.example.com", "192.0.2.3", "")))
	err := h.run(rec("a.example.com", "192.0.2.10", ""), rec("b.example.com", "192.0.2.20", ""), rec("c.example.com", "192.0.2.3", ""))
	require.ErrorIs(t, err, zonesync.ErrUnsafePlan)
	assert.Equal(t, []statusLine{
		{"", "a.example.com/A", zonesync.RecordFailed, zonesync.ReasonUnsafePlan, false},
		{"", "b.example.com/A", zonesync.RecordFailed, zonesync.ReasonUnsafePlan, false},
		{"", "c.example.com/A", zonesync.RecordUnchanged, "", true},
	}, lines(h.obs.c.RecordStatuses()))
}

// failingRegistry fails every ApplyChanges call as a whole.
type failingRegistry struct{ registry.Registry }

func (failingRegistry) ApplyChanges(context.Context, *plan.Changes) error {
	return errors.New("registry unavailable")
}

// notSyncVerifier reports the records named bad as out of sync.
type notSyncVerifier struct{ bad string }

func (v notSyncVerifier) Verify(_ context.Context, eps []*endpoint.Endpoint) ([]result.Result, error) {
	out := make([]result.Result, len(eps))
	for i, e := range eps {
		st := result.Sync
		if e.DNSName == v.bad {
			st = result.NotSync
		}
		out[i] = result.Result{Endpoint: e, Status: st}
	}
	return out, nil
}

func TestRecordStatusesVerified(t *testing.T) {
	h := newStatusHarness(t)
	h.r.Verifier = notSyncVerifier{bad: "b.example.com"}
	require.NoError(t, h.run(rec("a.example.com", "192.0.2.1", ""), rec("b.example.com", "192.0.2.2", "")))
	sts := h.obs.c.RecordStatuses()
	require.Len(t, sts, 2)
	require.NotNil(t, sts[0].Verification)
	assert.Equal(t, result.Sync, sts[0].Verification.Status)
	assert.True(t, sts[0].Ready())
	assert.Equal(t, zonesync.RecordApplied, sts[1].State)
	assert.False(t, sts[1].Ready(), "applied but not resolvable yet")
}

func TestRecordStatusesWithoutPlan(t *testing.T) {
	assert.Nil(t, zonesync.Cycle{Err: errors.New("registry down")}.RecordStatuses())
	assert.Nil(t, zonesync.GroupByResource(nil))
}

func ExampleCycle_RecordStatuses() {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Someone else owns taken.example.com.
	other, _ := txt.New(zone, txt.Config{OwnerID: "someone-else"})
	_ = other.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("taken.example.com", endpoint.RecordTypeA, "192.0.2.99"),
	}})

	r := &zonesync.Reconciler{Registry: reg, Source: source.NewStatic(
		rec("www.example.com", "192.0.2.10", "service/default/web"),
		rec("taken.example.com", "192.0.2.11", "service/default/web"),
	)}
	c, _ := r.RunOnce(context.Background())

	for _, res := range zonesync.GroupByResource(c.RecordStatuses()) {
		fmt.Printf("%s ready=%v\n", res.Resource, res.Ready())
		for _, s := range res.Records {
			fmt.Printf("  %s %s %s\n", s.Endpoint.DNSName, s.State, s.Reason)
		}
	}
	// Output:
	// service/default/web ready=false
	//   taken.example.com skipped foreign-owner
	//   www.example.com applied
}

// BenchmarkRecordStatuses is the cost of the per-record status of a cycle
// of W(N) in steady state.
func BenchmarkRecordStatuses(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			desired := make([]*endpoint.Endpoint, n)
			current := make([]*endpoint.Endpoint, n)
			for i := range n {
				desired[i], current[i] = workload.Desired(i), workload.Current(i)
			}
			p := (&plan.Plan{Current: current, Desired: desired, OwnerID: workload.Owner}).Calculate()
			c := zonesync.Cycle{Plan: p}
			b.ReportAllocs()
			for b.Loop() {
				if got := c.RecordStatuses(); len(got) != n {
					b.Fatalf("%d statuses", len(got))
				}
			}
		})
	}
}

func TestDeleteStatuses(t *testing.T) {
	a, b, c := rec("a.example.com", "192.0.2.1", "crd/ns/a"), rec("b.example.org", "192.0.2.2", "crd/ns/b"), rec("c.xn--bcher-kva.example", "192.0.2.3", "")
	p := &plan.Plan{Changes: &plan.Changes{Delete: []*endpoint.Endpoint{c, b, a}}}
	rejectB := []provider.Rejection{{Action: "delete", Endpoint: b, Reason: errors.New("locked")}}
	tests := []struct {
		name  string
		cycle zonesync.Cycle
		want  map[string]zonesync.RecordState
	}{
		{"applied", zonesync.Cycle{Plan: p, Applied: true},
			map[string]zonesync.RecordState{"a.example.com/A": zonesync.RecordDeleted, "b.example.org/A": zonesync.RecordDeleted, "c.xn--bcher-kva.example/A": zonesync.RecordDeleted}},
		{"dry run", zonesync.Cycle{Plan: p, DryRun: true},
			map[string]zonesync.RecordState{"a.example.com/A": zonesync.RecordPending, "b.example.org/A": zonesync.RecordPending, "c.xn--bcher-kva.example/A": zonesync.RecordPending}},
		{"one rejected", zonesync.Cycle{Plan: p, Rejected: rejectB, Err: &provider.RejectedError{Rejected: rejectB}},
			map[string]zonesync.RecordState{"a.example.com/A": zonesync.RecordDeleted, "b.example.org/A": zonesync.RecordRejected, "c.xn--bcher-kva.example/A": zonesync.RecordDeleted}},
		{"one zone failed", zonesync.Cycle{Plan: p, Err: errors.Join(&provider.ZoneError{Zone: "xn--bcher-kva.example", Err: errors.New("SERVFAIL")}, &provider.ZoneError{Zone: "", Err: errors.New("outside")})},
			map[string]zonesync.RecordState{"a.example.com/A": zonesync.RecordDeleted, "b.example.org/A": zonesync.RecordDeleted, "c.xn--bcher-kva.example/A": zonesync.RecordFailed}},
		{"root zone failed", zonesync.Cycle{Plan: p, Err: &provider.ZoneError{Zone: ".", Err: errors.New("SERVFAIL")}},
			map[string]zonesync.RecordState{"a.example.com/A": zonesync.RecordFailed, "b.example.org/A": zonesync.RecordFailed, "c.xn--bcher-kva.example/A": zonesync.RecordFailed}},
		{"unsafe plan", zonesync.Cycle{Plan: p, Err: fmt.Errorf("refused: %w", zonesync.ErrUnsafePlan)},
			map[string]zonesync.RecordState{"a.example.com/A": zonesync.RecordFailed, "b.example.org/A": zonesync.RecordFailed, "c.xn--bcher-kva.example/A": zonesync.RecordFailed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sts := tt.cycle.DeleteStatuses()
			got := map[string]zonesync.RecordState{}
			for _, s := range sts {
				got[s.Endpoint.Key().String()] = s.State
			}
			assert.Equal(t, tt.want, got)
			require.Len(t, sts, 3)
			assert.Equal(t, "", sts[0].Resource, "sorted by resource first")
		})
	}
	assert.Nil(t, zonesync.Cycle{}.DeleteStatuses())
}

// BenchmarkResourceStatuses is the cost of the per-object status of an
// applied cycle of W(N) with churn: a tenth of the objects changed their
// address, a tenth were deleted and a tenth are new.
func BenchmarkResourceStatuses(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			var desired, current []*endpoint.Endpoint
			for i := range n {
				current = append(current, workload.Current(i))
				switch i % 10 {
				case 0:
					e := workload.Desired(i)
					e.Targets = endpoint.Targets{"198.51.100.1"}
					desired = append(desired, e)
				case 1: // deleted
				default:
					desired = append(desired, workload.Desired(i))
				}
			}
			for i := n; i < n+n/10; i++ {
				desired = append(desired, workload.Desired(i))
			}
			p := (&plan.Plan{Current: current, Desired: desired, OwnerID: workload.Owner}).Calculate()
			if got := len(p.Changes.Create) + len(p.Changes.UpdateNew) + len(p.Changes.Delete); got != 3*(n/10) {
				b.Fatalf("%d changes", got)
			}
			c := zonesync.Cycle{Plan: p, Applied: true}
			b.ReportAllocs()
			for b.Loop() {
				if got := c.ResourceStatuses(); len(got) != n+n/10 {
					b.Fatalf("%d statuses", len(got))
				}
			}
		})
	}
}
