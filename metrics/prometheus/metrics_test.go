package prometheus_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/clock/clocktest"
	"github.com/zonesync/zonesync/endpoint"
	zsprom "github.com/zonesync/zonesync/metrics/prometheus"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/cache"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/noop"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// harness is a Reconciler over an in-memory zone with a TXT registry, its
// metrics on a registry of its own, and a switch that makes ApplyChanges
// fail with a soft error.
type harness struct {
	t     *testing.T
	reg   *prometheus.Registry
	clk   *clocktest.FakeClock
	zone  *inmemory.Provider
	src   *source.Static
	rec   *zonesync.Reconciler
	fail  atomic.Bool
	cycle int
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, reg: prometheus.NewRegistry(), clk: clocktest.New(time.Unix(1_700_000_000, 0))}
	h.zone = inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	p := providertest.Intercept(h.zone, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			if h.fail.Load() {
				return provider.NewSoftError(errors.New("injected outage"))
			}
			return next.ApplyChanges(ctx, c)
		},
	})
	m, err := zsprom.New(h.reg, zsprom.Options{})
	require.NoError(t, err)
	r, err := txt.New(p, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	h.src = source.NewStatic()
	h.rec = &zonesync.Reconciler{
		Source:   m.Source(h.src),
		Registry: m.Registry(r),
		Observer: m,
		Clock:    h.clk,
		Safety:   plan.SafetyThreshold{MinOwned: 2, MaxChangeRatio: 0.5},
	}
	return h
}

func (h *harness) run(eps ...*endpoint.Endpoint) error {
	h.src.Set(eps...)
	h.clk.Advance(time.Minute)
	_, err := h.rec.RunOnce(context.Background())
	return err
}

// value reads one series of the registry; labels are name/value pairs.
func (h *harness) value(name string, labels ...string) float64 {
	h.t.Helper()
	return value(h.t, h.reg, name, labels...)
}

// value reads the first series of name on reg whose labels include the
// given name/value pairs; 0 when there is none.
func value(t *testing.T, reg *prometheus.Registry, name string, labels ...string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, lp := range m.GetLabel() {
				have[lp.GetName()] = lp.GetValue()
			}
			for i := 0; i+1 < len(labels); i += 2 {
				if have[labels[i]] != labels[i+1] {
					continue metrics
				}
			}
			switch {
			case m.Gauge != nil:
				return m.GetGauge().GetValue()
			case m.Counter != nil:
				return m.GetCounter().GetValue()
			case m.Histogram != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
		return 0 // the family exists but not the series
	}
	return 0
}

func a(name, ip string) *endpoint.Endpoint {
	return endpoint.NewEndpoint(name, endpoint.RecordTypeA, ip)
}

func TestScriptedCycles(t *testing.T) {
	h := newHarness(t)

	// A foreign owner holds taken.example.com.
	other, err := txt.New(h.zone, txt.Config{OwnerID: "other"})
	require.NoError(t, err)
	require.NoError(t, other.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{a("taken.example.com", "192.0.2.99")}}))

	base := []*endpoint.Endpoint{
		a("www.example.com", "192.0.2.1"),
		a("db.example.com", "192.0.2.2"),
		a("mail.example.com", "192.0.2.3"),
		endpoint.NewEndpoint("api.example.com", endpoint.RecordTypeCNAME, "www.example.com"),
	}

	// 1: four creates, one skip (foreign owner).
	require.NoError(t, h.run(append(base, a("taken.example.com", "192.0.2.50"))...))
	assert.Equal(t, 4.0, h.value("zonesync_changes_applied_total", "action", "create"))
	assert.Equal(t, 1.0, h.value("zonesync_plan_skipped_changes", "reason", "foreign-owner"))
	assert.Equal(t, 1.0, h.value("external_dns_registry_skipped_records_owner_mismatch_per_sync",
		"record_type", "A", "owner", "me", "foreign_owner", "other", "domain", "example.com"))
	assert.Equal(t, 5.0, h.value("external_dns_source_endpoints_total"))
	assert.Equal(t, 4.0, h.value("external_dns_source_records", "record_type", "A"))
	assert.Equal(t, 1.0, h.value("external_dns_source_records", "record_type", "CNAME"))
	assert.Equal(t, 1.0, h.value("external_dns_controller_verified_records", "record_type", "A"), "only taken.example.com was there before")
	assert.Equal(t, 0.0, h.value("external_dns_controller_no_op_runs_total"))
	assert.Equal(t, float64(h.clk.Now().Unix()), h.value("external_dns_controller_last_sync_timestamp_seconds"))

	// 2: steady state: a no-op run, every desired record verified.
	require.NoError(t, h.run(append(base, a("taken.example.com", "192.0.2.50"))...))
	assert.Equal(t, 1.0, h.value("external_dns_controller_no_op_runs_total"))
	assert.Equal(t, 4.0, h.value("external_dns_controller_verified_records", "record_type", "A"))
	assert.Equal(t, 1.0, h.value("external_dns_controller_verified_records", "record_type", "CNAME"))
	// The TXT registry folds the ownership records into labels.
	assert.Equal(t, 5.0, h.value("external_dns_registry_endpoints_total"))

	// 3: an update.
	base[0] = a("www.example.com", "192.0.2.10")
	require.NoError(t, h.run(base...))
	assert.Equal(t, 1.0, h.value("zonesync_changes_applied_total", "action", "update"))
	assert.Equal(t, 0.0, h.value("zonesync_plan_skipped_changes", "reason", "foreign-owner"), "gauges hold the last cycle only")

	// 4: a delete (api), within the safety threshold.
	require.NoError(t, h.run(base[:3]...))
	assert.Equal(t, 1.0, h.value("zonesync_changes_applied_total", "action", "delete"))

	// 5: refused: deleting everything trips the safety threshold.
	lastSync := h.value("external_dns_controller_last_sync_timestamp_seconds")
	err = h.run()
	require.ErrorIs(t, err, zonesync.ErrUnsafePlan)
	assert.Equal(t, 1.0, h.value("zonesync_safety_refusals_total"))
	assert.Equal(t, 1.0, h.value("external_dns_controller_consecutive_soft_errors"))
	assert.Equal(t, lastSync, h.value("external_dns_controller_last_sync_timestamp_seconds"), "a refused cycle is no sync")
	assert.Equal(t, float64(h.clk.Now().Unix()), h.value("external_dns_controller_last_reconcile_timestamp_seconds"))

	// 6: failed: the provider is down.
	h.fail.Store(true)
	err = h.run(append(base[:3], a("new.example.com", "192.0.2.7"))...)
	require.Error(t, err)
	assert.Equal(t, 2.0, h.value("external_dns_controller_consecutive_soft_errors"))
	assert.Equal(t, 1.0, h.value("external_dns_registry_errors_total"))
	assert.Equal(t, 0.0, h.value("zonesync_changes_applied_total", "action", "create")-4, "nothing applied")

	// 7: recovered.
	h.fail.Store(false)
	require.NoError(t, h.run(append(base[:3], a("new.example.com", "192.0.2.7"))...))
	assert.Equal(t, 0.0, h.value("external_dns_controller_consecutive_soft_errors"))
	assert.Equal(t, 5.0, h.value("zonesync_changes_applied_total", "action", "create"))
	assert.Equal(t, 7.0, h.value("zonesync_cycles_total"))
	assert.Equal(t, 7.0, h.value("zonesync_cycle_duration_seconds"))
	assert.Equal(t, 0.0, h.value("external_dns_source_errors_total"))
}

type failingSource struct{ source.Source }

func (failingSource) Endpoints(context.Context) ([]*endpoint.Endpoint, error) {
	return nil, errors.New("listing services: forbidden")
}

func TestSourceErrorsAndInvalid(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := zsprom.New(reg, zsprom.Options{})
	require.NoError(t, err)
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	r, err := txt.New(zone, txt.Config{OwnerID: "me"})
	require.NoError(t, err)

	bad := endpoint.NewEndpoint("bad.example.com", endpoint.RecordTypeA, "not-an-ip")
	bad.WithLabel(endpoint.ResourceLabelKey, "service/default/web")
	src := source.NewStatic(bad)
	rec := &zonesync.Reconciler{Source: m.Source(src), Registry: m.Registry(r), Observer: m}
	_, err = rec.RunOnce(context.Background())
	require.ErrorAs(t, err, new(*source.PartialError), "the Reconciler reports the invalid endpoint as a per-object failure")
	assert.Equal(t, 1.0, value(t, reg, "external_dns_source_invalid_endpoints", "record_type", "A", "source_type", "service"))

	rec.Source = m.Source(failingSource{src})
	_, err = rec.RunOnce(context.Background())
	require.Error(t, err)
	assert.Equal(t, 1.0, value(t, reg, "external_dns_source_errors_total"))
	assert.Equal(t, 0.0, value(t, reg, "external_dns_controller_consecutive_soft_errors"), "a hard error is not soft")
}

func TestWebhookProviderCounts(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := zsprom.New(reg, zsprom.Options{})
	require.NoError(t, err)
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	p := m.WebhookProvider(providertest.Intercept(zone, providertest.Funcs{
		ApplyChanges: func(context.Context, provider.Provider, *plan.Changes) error { return errors.New("503") },
	}))
	ctx := context.Background()
	_, err = p.Records(ctx)
	require.NoError(t, err)
	_, err = p.AdjustEndpoints(context.Background(), nil)
	require.NoError(t, err)
	require.Error(t, p.ApplyChanges(ctx, &plan.Changes{}))
	for name, want := range map[string]float64{
		"external_dns_webhook_provider_records_requests_total":         1,
		"external_dns_webhook_provider_records_errors_total":           0,
		"external_dns_webhook_provider_adjustendpoints_requests_total": 1,
		"external_dns_webhook_provider_applychanges_requests_total":    1,
		"external_dns_webhook_provider_applychanges_errors_total":      1,
	} {
		assert.Equal(t, want, value(t, reg, name), name)
	}
}

func TestTwoReconcilersOneRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	_, err := zsprom.New(reg, zsprom.Options{ConstLabels: prometheus.Labels{"reconciler": "public"}})
	require.NoError(t, err)
	_, err = zsprom.New(reg, zsprom.Options{ConstLabels: prometheus.Labels{"reconciler": "private"}})
	require.NoError(t, err, "a different constant label tells them apart")

	_, err = zsprom.New(reg, zsprom.Options{ConstLabels: prometheus.Labels{"reconciler": "public"}})
	var already prometheus.AlreadyRegisteredError
	require.ErrorAs(t, err, &already)
	assert.Contains(t, err.Error(), "external_dns_controller_last_sync_timestamp_seconds")

	_, err = zsprom.New(nil, zsprom.Options{})
	require.ErrorIs(t, err, zsprom.ErrInvalidOptions)
}

func TestTwoRegistriesShareNothing(t *testing.T) {
	r1, r2 := prometheus.NewRegistry(), prometheus.NewRegistry()
	m1, err := zsprom.New(r1, zsprom.Options{})
	require.NoError(t, err)
	_, err = zsprom.New(r2, zsprom.Options{})
	require.NoError(t, err)
	m1.CycleFinished(context.Background(), zonesync.Cycle{Start: time.Unix(100, 0)})
	assert.Equal(t, 1.0, value(t, r1, "zonesync_cycles_total"))
	assert.Equal(t, 0.0, value(t, r2, "zonesync_cycles_total"))

}

func TestCacheCounts(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := zsprom.New(reg, zsprom.Options{})
	require.NoError(t, err)
	clk := clocktest.New(time.Unix(1_700_000_000, 0))
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	p, err := cache.New(zone, cache.Options{TTL: time.Minute, Clock: clk, Observer: m.CacheObserver()})
	require.NoError(t, err)
	ctx := context.Background()

	for range 3 { // one miss, two hits
		_, err := p.Records(ctx)
		require.NoError(t, err)
	}
	require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("www.example.com", "192.0.2.1")}}))
	eps, err := p.Records(ctx) // the apply dropped the cache
	require.NoError(t, err)
	assert.Len(t, eps, 1)
	zones, ok, err := provider.ZonesOf(ctx, p)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, []string{"example.com"}, zones)

	assert.Equal(t, 2.0, value(t, reg, "external_dns_provider_cache_records_calls", "from_cache", "false"))
	assert.Equal(t, 2.0, value(t, reg, "external_dns_provider_cache_records_calls", "from_cache", "true"))
	assert.Equal(t, 1.0, value(t, reg, "external_dns_provider_cache_apply_changes_calls"))
}

func TestRegistryWrapperKeepsOwnership(t *testing.T) {
	m, err := zsprom.New(prometheus.NewRegistry(), zsprom.Options{})
	require.NoError(t, err)
	r, err := txt.New(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), txt.Config{OwnerID: "me", OldOwnerID: "old"})
	require.NoError(t, err)
	rep, ok := registry.As[registry.OwnershipReporter](m.Registry(r))
	require.True(t, ok, "the TXT registry reports its ownership; the wrapper must too")
	assert.Equal(t, r.Ownership(), rep.Ownership())

	_, ok = registry.As[registry.OwnershipReporter](m.Registry(noop.New(inmemory.New())))
	assert.False(t, ok, "the wrapper claims nothing the registry does not have")
}

// allCapabilities is a registry with every optional registry interface.
type allCapabilities struct{ registry.Registry }

func (allCapabilities) Ownership() registry.Ownership         { return registry.Ownership{OwnerID: "me"} }
func (allCapabilities) CheckOwnable(*endpoint.Endpoint) error { return errors.New("not ownable") }
func (allCapabilities) SettingsWarnings() []string            { return []string{"warning"} }
func (allCapabilities) PendingRepairs() int                   { return 3 }

// TestRegistryWrapperKeepsCapabilities: the wrapper has exactly the
// optional interfaces of the registry it wraps, answered by it, and still
// counts errors.
func TestRegistryWrapperKeepsCapabilities(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := zsprom.New(reg, zsprom.Options{})
	require.NoError(t, err)
	failing := providertest.FailRandomly(inmemory.New(), 1, nil, nil)
	tests := []struct {
		name string
		r    registry.Registry
		has  bool
	}{
		{name: "all", r: allCapabilities{Registry: noop.New(failing)}, has: true},
		{name: "none", r: noop.New(failing)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := m.Registry(tt.r)
			o, ok := registry.As[registry.OwnershipReporter](w)
			require.Equal(t, tt.has, ok)
			c, ok := registry.As[registry.OwnabilityChecker](w)
			require.Equal(t, tt.has, ok)
			sw, ok := registry.As[registry.SettingsWarner](w)
			require.Equal(t, tt.has, ok)
			rp, ok := registry.As[registry.Repairer](w)
			require.Equal(t, tt.has, ok)
			if tt.has {
				assert.Equal(t, "me", o.Ownership().OwnerID)
				assert.EqualError(t, c.CheckOwnable(a("www.example.com", "192.0.2.1")), "not ownable")
				assert.Equal(t, []string{"warning"}, sw.SettingsWarnings())
				assert.Equal(t, 3, rp.PendingRepairs())
			}
			before := value(t, reg, "external_dns_registry_errors_total")
			_, err := w.Records(context.Background())
			require.Error(t, err)
			assert.Equal(t, before+1, value(t, reg, "external_dns_registry_errors_total"))
		})
	}
}

func TestDedupCounts(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := zsprom.New(reg, zsprom.Options{})
	require.NoError(t, err)
	web := func() *endpoint.Endpoint {
		return a("www.example.com", "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/ns/web")
	}
	src := source.NewStatic(web(), web(), web(), a("db.example.com", "192.0.2.2"))
	d := m.Dedup(src)
	eps, err := d.Endpoints(context.Background())
	require.NoError(t, err)
	assert.Len(t, eps, 2)
	assert.Equal(t, 2.0, value(t, reg, "external_dns_source_deduplicated_endpoints", "record_type", "A", "source_type", "service"))
	assert.True(t, source.HasSynced(d))

	src.Set(web(), a("db.example.com", "192.0.2.2"))
	_, err = d.Endpoints(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 0.0, value(t, reg, "external_dns_source_deduplicated_endpoints", "record_type", "A", "source_type", "service"), "no duplicates now: no series")
}

// TestRegistryWrapperKeepsZones checks that the registry wrapper lets a
// Reconciler see the zones of the TXT registry's provider (its per-zone
// safety threshold depends on them), and reports none when the registry
// lists none.
func TestRegistryWrapperKeepsZones(t *testing.T) {
	m, err := zsprom.New(prometheus.NewRegistry(), zsprom.Options{})
	require.NoError(t, err)
	ctx := context.Background()
	zoned, err := txt.New(inmemory.New(inmemory.Options{Zones: []string{"example.com", "example.org"}}), txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	zones, ok, err := provider.ZonesOf(ctx, m.Registry(zoned))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, []string{"example.com", "example.org"}, zones)

	_, ok, err = provider.ZonesOf(ctx, m.Registry(noop.New(inmemory.New())))
	require.NoError(t, err)
	assert.False(t, ok)
}
