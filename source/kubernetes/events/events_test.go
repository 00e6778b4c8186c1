package events_test

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/clock/clocktest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes/events"
)

func rec(name, ip, resource string) *endpoint.Endpoint {
	return endpoint.NewEndpoint(name, endpoint.RecordTypeA, ip).WithLabel(endpoint.ResourceLabelKey, resource)
}

// drain returns the Events the fake recorder holds.
func drain(r *record.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-r.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

type harness struct {
	fake *record.FakeRecorder
	obs  *events.Observer
	src  *source.Static
	r    *zonesync.Reconciler
	fail atomic.Bool
}

func newHarness(t *testing.T, opts events.Options) *harness {
	t.Helper()
	h := &harness{fake: record.NewFakeRecorder(100)}
	zone := providertest.Intercept(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			if h.fail.Load() {
				return errors.New("connection refused")
			}
			return next.ApplyChanges(ctx, c)
		},
	})
	reg, err := txt.New(zone, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	h.obs, err = events.New(h.fake, opts)
	require.NoError(t, err)
	h.src = source.NewStatic()
	h.r = &zonesync.Reconciler{Source: h.src, Registry: reg, Observer: h.obs}
	return h
}

func (h *harness) run(eps ...*endpoint.Endpoint) []string {
	h.src.Set(eps...)
	_, _ = h.r.RunOnce(context.Background())
	return drain(h.fake)
}

func TestEventsOverCycles(t *testing.T) {
	h := newHarness(t, events.Options{})
	www := rec("www.example.com", "192.0.2.1", "service/shop/web")
	api := rec("api.example.com", "192.0.2.2", "ingress/shop/api")

	assert.Equal(t, []string{
		"Normal RecordReady Created record:api.example.com,type:A,ttl:0,targets:192.0.2.2",
		"Normal RecordReady Created record:www.example.com,type:A,ttl:0,targets:192.0.2.1",
	}, h.run(www, api))

	assert.Empty(t, h.run(www, api), "steady state: no Event")
	assert.Empty(t, h.run(www, api), "still none")

	www2 := rec("www.example.com", "192.0.2.10", "service/shop/web")
	assert.Equal(t, []string{
		"Normal RecordReady Updated record:www.example.com,type:A,ttl:0,targets:192.0.2.10",
	}, h.run(www2, api))

	assert.Equal(t, []string{
		"Normal RecordDeleted Deleted record:api.example.com,type:A,ttl:0,targets:192.0.2.2",
	}, h.run(www2))

	// A failure that repeats is reported once.
	h.fail.Store(true)
	db := rec("db.example.com", "192.0.2.3", "crd/shop/db")
	got := h.run(www2, db)
	require.Len(t, got, 1)
	assert.Contains(t, got[0], "Warning RecordError Created record:db.example.com")
	assert.Contains(t, got[0], "connection refused")
	assert.Empty(t, h.run(www2, db), "the same error again: no new Event")

	h.fail.Store(false)
	assert.Equal(t, []string{
		"Normal RecordReady Created record:db.example.com,type:A,ttl:0,targets:192.0.2.3",
	}, h.run(www2, db))
	assert.Empty(t, h.run(www2, db))
	assert.Zero(t, h.obs.Dropped())
}

func TestNoEventWithoutObject(t *testing.T) {
	h := newHarness(t, events.Options{})
	assert.Empty(t, h.run(
		endpoint.NewEndpoint("bare.example.com", endpoint.RecordTypeA, "192.0.2.1"),
		rec("odd.example.com", "192.0.2.2", "widget/ns/x"),
	))
	h.r.DryRun = true
	assert.Empty(t, h.run(rec("www.example.com", "192.0.2.3", "service/ns/web")), "a dry run records nothing")
}

func TestRateLimit(t *testing.T) {
	clk := clocktest.New(time.Unix(1_700_000_000, 0))
	h := newHarness(t, events.Options{QPS: 1, Burst: 2, Clock: clk})
	eps := []*endpoint.Endpoint{
		rec("a.example.com", "192.0.2.1", "service/ns/a"),
		rec("b.example.com", "192.0.2.2", "service/ns/b"),
		rec("c.example.com", "192.0.2.3", "service/ns/c"),
	}
	assert.Len(t, h.run(eps...), 2)
	assert.Equal(t, 1, h.obs.Dropped())
	clk.Advance(10 * time.Second)
	assert.Empty(t, h.run(eps...), "the dropped Event was for a change that is done now")
}

func TestDefaultResolver(t *testing.T) {
	tests := []struct {
		in   string
		want *corev1.ObjectReference
	}{
		{"service/ns/web", &corev1.ObjectReference{APIVersion: "v1", Kind: "Service", Namespace: "ns", Name: "web"}},
		{"crd/ns/rec", &corev1.ObjectReference{APIVersion: "externaldns.k8s.io/v1alpha1", Kind: "DNSEndpoint", Namespace: "ns", Name: "rec"}},
		{"HTTPProxy/ns/p", &corev1.ObjectReference{APIVersion: "projectcontour.io/v1", Kind: "HTTPProxy", Namespace: "ns", Name: "p"}},
		{"gateway/istio-system/gw", &corev1.ObjectReference{APIVersion: "networking.istio.io/v1", Kind: "Gateway", Namespace: "istio-system", Name: "gw"}},
		{"node/worker-1", &corev1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: "worker-1"}},
		{"widget/ns/x", nil},
		{"service", nil},
		{"service/ns/", nil},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := events.DefaultResolver(tt.in)
			assert.Equal(t, tt.want != nil, ok)
			assert.Equal(t, tt.want, got)
		})
	}
	got, ok := events.ResolverFor(map[string][2]string{"widget": {"example.com/v1", "Widget"}})("widget/ns/x")
	require.True(t, ok)
	assert.Equal(t, "Widget", got.Kind)
}

func TestRejectedAndDeleteFailures(t *testing.T) {
	h := newHarness(t, events.Options{})
	keep := rec("keep.example.com", "192.0.2.1", "service/ns/keep")
	gone := rec("gone.example.com", "192.0.2.2", "service/ns/gone")
	require.Len(t, h.run(keep, gone), 2)

	// The provider refuses the new record but applies the rest.
	h.r.Registry = rejecting{h.r.Registry, "bad.example.com"}
	bad, ok := rec("bad.example.com", "192.0.2.3", "service/ns/bad"), rec("ok.example.com", "192.0.2.4", "service/ns/ok")
	got := h.run(keep, gone, bad, ok)
	assert.Equal(t, []string{
		"Warning RecordError Created record:bad.example.com,type:A,ttl:0,targets:192.0.2.3: quota exceeded",
		"Normal RecordReady Created record:ok.example.com,type:A,ttl:0,targets:192.0.2.4",
	}, got)

	// bad is still wanted, gone is not; the provider is down.
	h.fail.Store(true)
	got = h.run(keep, bad, ok)
	require.Len(t, got, 2)
	assert.Contains(t, got[0], "Warning RecordError Created record:bad.example.com")
	assert.Contains(t, got[0], "connection refused", "a new error for bad: a new Event")
	assert.Contains(t, got[1], "Warning RecordError Deleted record:gone.example.com")
}

// rejecting refuses, as a batching provider would, the creation of one
// name and applies the rest.
type rejecting struct {
	registry.Registry
	name string
}

func (r rejecting) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	var keep []*endpoint.Endpoint
	var rej []provider.Rejection
	for _, e := range c.Create {
		if e.DNSName == r.name {
			rej = append(rej, provider.Rejection{Action: "create", Endpoint: e, Reason: errors.New("quota exceeded")})
			continue
		}
		keep = append(keep, e)
	}
	c2 := *c
	c2.Create = keep
	if err := r.Registry.ApplyChanges(ctx, &c2); err != nil {
		return err
	}
	if len(rej) > 0 {
		return &provider.RejectedError{Rejected: rej}
	}
	return nil
}

// TestDeletesFollowTheCycleClassification: whether a delete failed is the
// cycle's own classification (zonesync.Cycle.DeleteStatuses), so the zone
// of a record is found as the Reconciler finds it (provider.ZoneMatcher),
// and a record outside the failed zone was deleted.
func TestDeletesFollowTheCycleClassification(t *testing.T) {
	inFailed := rec("a.xn--bcher-kva.example", "192.0.2.1", "service/ns/a")
	elsewhere := rec("b.example.org", "192.0.2.2", "service/ns/b")
	zoneErr := &provider.ZoneError{Zone: "xn--bcher-kva.example", Err: errors.New("SERVFAIL")}
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{
			name: "one zone failed",
			err:  zoneErr,
			want: []string{
				"Warning RecordError Deleted record:a.xn--bcher-kva.example,type:A,ttl:0,targets:192.0.2.1: zone xn--bcher-kva.example: SERVFAIL",
				"Normal RecordDeleted Deleted record:b.example.org,type:A,ttl:0,targets:192.0.2.2",
			},
		},
		{
			name: "unsafe plan",
			err:  &plan.UnsafePlanError{Owned: 2, Deletes: 2},
			want: []string{
				"Warning RecordError Deleted record:a.xn--bcher-kva.example,type:A,ttl:0,targets:192.0.2.1: " + (&plan.UnsafePlanError{Owned: 2, Deletes: 2}).Error(),
				"Warning RecordError Deleted record:b.example.org,type:A,ttl:0,targets:192.0.2.2: " + (&plan.UnsafePlanError{Owned: 2, Deletes: 2}).Error(),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := record.NewFakeRecorder(10)
			obs, err := events.New(fake, events.Options{})
			require.NoError(t, err)
			c := zonesync.Cycle{
				Plan: &plan.Plan{Changes: &plan.Changes{Delete: []*endpoint.Endpoint{elsewhere, inFailed}}},
				Err:  tt.err,
			}
			obs.CycleFinished(context.Background(), c)
			assert.Equal(t, tt.want, drain(fake))
		})
	}
}

// TestEventTextPrintable (issue 33, finding 6): kubectl shows an Event's
// message on a terminal. A TXT value may hold any text and a provider's
// message comes from outside: their control characters reach the message
// escaped, and a printable message is unchanged.
func TestEventTextPrintable(t *testing.T) {
	fake := record.NewFakeRecorder(10)
	zone := providertest.Intercept(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			for _, e := range c.Create {
				if e.DNSName == "bad.example.com" {
					return errors.New("refused\n\x1b[31mFORGED")
				}
			}
			return next.ApplyChanges(ctx, c)
		},
	})
	reg, err := txt.New(zone, txt.Config{OwnerID: "me", ManagedRecordTypes: []string{"A", "TXT"}})
	require.NoError(t, err)
	src := source.NewStatic(
		endpoint.NewEndpoint("txt.example.com", endpoint.RecordTypeTXT, "a\nFORGED\x00").WithLabel(endpoint.ResourceLabelKey, "service/ns/txt"),
		endpoint.NewEndpoint("plain.example.com", endpoint.RecordTypeTXT, "v=spf1 -all").WithLabel(endpoint.ResourceLabelKey, "service/ns/plain"),
	)
	obs, err := events.New(fake, events.Options{})
	require.NoError(t, err)
	r := &zonesync.Reconciler{Source: src, Registry: reg, Observer: obs}
	_, err = r.RunOnce(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{
		`Normal RecordReady Created record:plain.example.com,type:TXT,ttl:0,targets:v=spf1 -all`,
		`Normal RecordReady Created record:txt.example.com,type:TXT,ttl:0,targets:"a\nFORGED\x00"`,
	}, drain(fake))

	src.Set(rec("bad.example.com", "192.0.2.1", "service/ns/bad"))
	_, err = r.RunOnce(context.Background())
	require.Error(t, err)
	got := drain(fake)
	require.NotEmpty(t, got)
	for _, e := range got {
		assert.NotContains(t, e, "\n")
		assert.NotContains(t, e, "\x1b")
	}
	assert.Contains(t, got[0], `Warning RecordError Created record:bad.example.com,type:A,ttl:0,targets:192.0.2.1: "`)
}

func TestNewInvalidOptions(t *testing.T) {
	tests := []struct {
		name  string
		rec   record.EventRecorder
		opts  events.Options
		field string // named in the error; empty: valid
	}{
		{name: "zero options", rec: record.NewFakeRecorder(1)},
		{name: "no limit", rec: record.NewFakeRecorder(1), opts: events.Options{QPS: math.Inf(1)}},
		{name: "nil recorder", field: "EventRecorder is nil"},
		{name: "negative QPS", rec: record.NewFakeRecorder(1), opts: events.Options{QPS: -1}, field: "Options.QPS"},
		{name: "NaN QPS", rec: record.NewFakeRecorder(1), opts: events.Options{QPS: math.NaN()}, field: "Options.QPS"},
		{name: "negative Burst", rec: record.NewFakeRecorder(1), opts: events.Options{Burst: -1}, field: "Options.Burst"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs, err := events.New(tt.rec, tt.opts)
			if tt.field == "" {
				require.NoError(t, err)
				require.NotNil(t, obs)
				return
			}
			require.ErrorIs(t, err, events.ErrInvalidOptions)
			assert.Contains(t, err.Error(), tt.field)
			assert.Nil(t, obs)
		})
	}
}
