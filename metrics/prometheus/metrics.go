package prometheus

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/verify/result"
)

// Label names, as external-dns spells them where it has the metric.
const (
	labelRecordType   = "record_type"
	labelSourceType   = "source_type"
	labelOwner        = "owner"
	labelForeignOwner = "foreign_owner"
	labelDomain       = "domain"
	labelReason       = "reason"
	labelZone         = "zone"
	labelAction       = "action"
	labelGroup        = "group"
	labelStatus       = "status"
)

// ErrInvalidOptions is wrapped by the error [New] returns for a nil
// Registerer.
var ErrInvalidOptions = errors.New("invalid metrics options")

// Options configures [New]. The zero value is useful: metrics without
// constant labels.
type Options struct {
	// ConstLabels are added to every metric, such as
	// {"reconciler": "public"}, so that several Reconcilers can share one
	// registry. Registering twice with the same labels on one registry
	// fails.
	ConstLabels prometheus.Labels
}

// Metrics holds the collectors of one Reconciler. It implements
// [zonesync.Observer]; its methods are safe for concurrent use.
type Metrics struct {
	// external_dns_controller_*
	lastSync      prometheus.Gauge
	lastReconcile prometheus.Gauge
	noOpRuns      prometheus.Counter
	softErrors    prometheus.Gauge
	verified      *prometheus.GaugeVec

	// external_dns_registry_*
	registryErrors    prometheus.Counter
	registryEndpoints prometheus.Gauge
	registryRecords   *prometheus.GaugeVec
	ownerMismatch     *prometheus.GaugeVec

	// external_dns_source_*
	sourceErrors    prometheus.Counter
	sourceEndpoints prometheus.Gauge
	sourceRecords   *prometheus.GaugeVec
	invalid         *prometheus.GaugeVec
	deduplicated    *prometheus.GaugeVec

	// external_dns_webhook_provider_*
	webhook map[string][2]prometheus.Gauge // method -> requests, errors

	// external_dns_provider_cache_*
	cacheRecords *prometheus.CounterVec
	cacheApply   prometheus.Counter

	// zonesync_*
	cycles         prometheus.Counter
	cycleDuration  prometheus.Histogram
	changes        *prometheus.CounterVec
	skipped        *prometheus.GaugeVec
	safetyRefusals prometheus.Counter
	zoneErrors     *prometheus.CounterVec
	rejected       prometheus.Counter
	verifyFailures prometheus.Gauge

	// mu serialises CycleFinished, which resets and refills the gauges
	// of the last cycle and counts consecutive soft errors.
	mu              sync.Mutex
	consecutiveSoft float64
}

var _ zonesync.Observer = (*Metrics)(nil)

// Webhook method names, as in the external-dns metric names.
const (
	methodRecords         = "records"
	methodApplyChanges    = "applychanges"
	methodAdjustEndpoints = "adjustendpoints"
)

// New creates the collectors and registers them on reg (which must not be
// nil; use prometheus.NewRegistry for a registry of your own). It fails
// when a collector cannot be registered, for instance because the same
// metrics with the same constant labels are already registered on reg; the
// error then wraps a [prometheus.AlreadyRegisteredError].
func New(reg prometheus.Registerer, opts Options) (*Metrics, error) {
	if reg == nil {
		return nil, fmt.Errorf("metrics/prometheus: %w: the Registerer is nil", ErrInvalidOptions)
	}
	if len(opts.ConstLabels) > 0 {
		reg = prometheus.WrapRegistererWith(opts.ConstLabels, reg)
	}
	const ns = "external_dns"
	gauge := func(sub, name, help string) prometheus.Gauge {
		return prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: name, Help: help})
	}
	counter := func(sub, name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: name, Help: help})
	}
	gaugeVec := func(sub, name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: name, Help: help}, labels)
	}
	m := &Metrics{
		lastSync:      gauge("controller", "last_sync_timestamp_seconds", "Unix time at which the last successful cycle ended."),
		lastReconcile: gauge("controller", "last_reconcile_timestamp_seconds", "Unix time at which the last cycle, successful or not, ended."),
		noOpRuns:      counter("controller", "no_op_runs_total", "Successful cycles whose plan had nothing to change."),
		softErrors:    gauge("controller", "consecutive_soft_errors", "Cycles in a row that failed with an error that is retried (soft error or safety refusal)."),
		verified:      gaugeVec("controller", "verified_records", "Desired records of the last cycle whose record (name, set identifier, type) the plan found among the managed records.", labelRecordType),

		registryErrors:    counter("registry", "errors_total", "Failed calls to the registry."),
		registryEndpoints: gauge("registry", "endpoints_total", "Records the registry returned in the last cycle."),
		registryRecords:   gaugeVec("registry", "records", "Records the registry returned in the last cycle, by record type.", labelRecordType),
		ownerMismatch: gaugeVec("registry", "skipped_records_owner_mismatch_per_sync",
			"Records of the last cycle left alone because another owner holds them, by type, owner ids and parent domain.",
			labelRecordType, labelOwner, labelForeignOwner, labelDomain),

		sourceErrors:    counter("source", "errors_total", "Failed calls to the source."),
		sourceEndpoints: gauge("source", "endpoints_total", "Desired endpoints of the last cycle."),
		sourceRecords:   gaugeVec("source", "records", "Desired endpoints of the last cycle, by record type.", labelRecordType),
		invalid: gaugeVec("source", "invalid_endpoints",
			"Desired endpoints of the last cycle the plan refused as invalid, by record type and source kind.", labelRecordType, labelSourceType),

		deduplicated: gaugeVec("source", "deduplicated_endpoints",
			"Endpoints the last read of a Dedup source dropped as exact duplicates, by record type and source kind.", labelRecordType, labelSourceType),

		webhook: map[string][2]prometheus.Gauge{},

		cacheRecords: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "provider", Name: "cache_records_calls",
			Help: "Calls of the provider cache's Records, by whether the cache answered them."}, []string{"from_cache"}),
		cacheApply: counter("provider", "cache_apply_changes_calls", "Calls of the provider cache's ApplyChanges."),

		cycles: prometheus.NewCounter(prometheus.CounterOpts{Name: "zonesync_cycles_total", Help: "Reconcile cycles run, successful or not."}),
		cycleDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "zonesync_cycle_duration_seconds", Help: "Duration of reconcile cycles.",
			Buckets: prometheus.ExponentialBuckets(0.01, 4, 8),
		}),
		changes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zonesync_changes_applied_total",
			Help: "Changes handed to the registry and accepted, by action (create, update, delete)."}, []string{labelAction}),
		skipped: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "zonesync_plan_skipped_changes",
			Help: "Changes the plan of the last cycle did not make, by reason."}, []string{labelReason}),
		safetyRefusals: prometheus.NewCounter(prometheus.CounterOpts{Name: "zonesync_safety_refusals_total",
			Help: "Plans the safety threshold refused."}),
		zoneErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zonesync_zone_apply_errors_total",
			Help: "Zones whose changes failed to apply, by zone."}, []string{labelZone}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{Name: "zonesync_rejected_changes_total",
			Help: "Changes the provider refused while the rest was applied."}),
		verifyFailures: prometheus.NewGauge(prometheus.GaugeOpts{Name: "zonesync_verify_failed_records",
			Help: "Records of the last cycle that the Verifier found out of sync."}),
	}
	for _, method := range []string{methodRecords, methodApplyChanges, methodAdjustEndpoints} {
		m.webhook[method] = [2]prometheus.Gauge{
			gauge("webhook_provider", method+"_requests_total", "Calls of the webhook provider's "+method+" method."),
			gauge("webhook_provider", method+"_errors_total", "Failed calls of the webhook provider's "+method+" method."),
		}
	}
	for _, c := range m.collectors() {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics/prometheus: registering %s: %w", describe(c), err)
		}
	}
	return m, nil
}

// collectors lists every collector in a fixed order.
func (m *Metrics) collectors() []prometheus.Collector {
	cs := []prometheus.Collector{
		m.lastSync, m.lastReconcile, m.noOpRuns, m.softErrors, m.verified,
		m.registryErrors, m.registryEndpoints, m.registryRecords, m.ownerMismatch,
		m.sourceErrors, m.sourceEndpoints, m.sourceRecords, m.invalid, m.deduplicated,
	}
	for _, method := range []string{methodRecords, methodApplyChanges, methodAdjustEndpoints} {
		cs = append(cs, m.webhook[method][0], m.webhook[method][1])
	}
	return append(cs, m.cacheRecords, m.cacheApply, m.cycles, m.cycleDuration, m.changes, m.skipped, m.safetyRefusals, m.zoneErrors, m.rejected, m.verifyFailures)
}

// describe names a collector by its first descriptor, for errors.
func describe(c prometheus.Collector) string {
	ch := make(chan *prometheus.Desc, 4)
	go func() { c.Describe(ch); close(ch) }()
	name := "collector"
	first := true
	for d := range ch {
		if first {
			name = d.String()
			first = false
		}
	}
	return name
}

// CycleStarted does nothing: every metric is updated when the cycle ends.
func (m *Metrics) CycleStarted(context.Context, time.Time) {}

// CycleFinished updates the metrics from the outcome of a cycle.
func (m *Metrics) CycleFinished(_ context.Context, c zonesync.Cycle) {
	m.mu.Lock()
	defer m.mu.Unlock()
	end := c.Start.Add(c.Duration)
	m.cycles.Inc()
	m.cycleDuration.Observe(c.Duration.Seconds())
	m.lastReconcile.Set(unixSeconds(end))

	switch {
	case c.Succeeded():
		m.lastSync.Set(unixSeconds(end))
		m.consecutiveSoft = 0
		if c.Creates+c.Updates+c.Deletes == 0 {
			m.noOpRuns.Inc()
		}
	case c.Retryable():
		m.consecutiveSoft++
	}
	m.softErrors.Set(m.consecutiveSoft)
	if errors.Is(c.Err, zonesync.ErrUnsafePlan) {
		m.safetyRefusals.Inc()
	}
	for _, z := range provider.FailedZones(c.Err) {
		m.zoneErrors.WithLabelValues(z).Inc()
	}
	m.rejected.Add(float64(len(c.Rejected)))
	if c.Applied {
		m.changes.WithLabelValues(string(plan.ActionCreate)).Add(float64(c.Creates))
		m.changes.WithLabelValues(string(plan.ActionUpdate)).Add(float64(c.Updates))
		m.changes.WithLabelValues(string(plan.ActionDelete)).Add(float64(c.Deletes))
	}
	failed := 0
	for _, r := range c.Verified {
		if r.Status != result.Sync {
			failed++
		}
	}
	m.verifyFailures.Set(float64(failed))

	if c.Plan != nil {
		m.observePlan(c.Plan)
	}
}

// observePlan sets the per-cycle gauges from the plan: its counts and
// its skips, as the plan classified them (the existing records per type,
// [plan.Plan.Existing]; the owner in the way of a foreign-owner skip,
// [plan.Skip.Owner]); nothing is joined again here.
func (m *Metrics) observePlan(p *plan.Plan) {
	m.registryEndpoints.Set(float64(len(p.Current)))
	m.sourceEndpoints.Set(float64(len(p.Desired)))
	countByType(m.registryRecords, p.Current)
	countByType(m.sourceRecords, p.Desired)
	setCounts(m.verified, p.Existing())

	m.skipped.Reset()
	m.ownerMismatch.Reset()
	m.invalid.Reset()
	for _, s := range p.Skipped {
		m.skipped.WithLabelValues(string(s.Reason)).Inc()
		if s.Endpoint == nil {
			continue
		}
		switch s.Reason {
		case plan.SkipForeignOwner:
			owner := s.Owner
			if owner == "" {
				// A skipped delete names the current record itself.
				owner, _ = s.Endpoint.Labels.Get(endpoint.OwnerLabelKey)
			}
			m.ownerMismatch.WithLabelValues(s.Endpoint.RecordType, p.OwnerID, owner, parentDomain(s.Endpoint.DNSName)).Inc()
		case plan.SkipInvalid:
			m.invalid.WithLabelValues(s.Endpoint.RecordType, sourceType(s.Endpoint)).Inc()
		}
	}
}

// countByType sets v, labelled by record type, to the number of eps of
// each type (counted first: a label lookup per endpoint costs more).
func countByType(v *prometheus.GaugeVec, eps []*endpoint.Endpoint) {
	counts := map[string]int{}
	for _, e := range eps {
		if e != nil {
			counts[e.RecordType]++
		}
	}
	setCounts(v, counts)
}

// setCounts replaces the series of v by counts, one per record type.
func setCounts(v *prometheus.GaugeVec, counts map[string]int) {
	v.Reset()
	for typ, n := range counts {
		v.WithLabelValues(typ).Set(float64(n))
	}
}

// parentDomain drops the first label of name ("a.example.org" gives
// "example.org"), so that the owner-mismatch gauge has one series per
// domain rather than per record.
func parentDomain(name string) string {
	name = strings.TrimSuffix(name, ".")
	if i := strings.IndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// sourceType is the kind part of the endpoint's resource label
// ("service/ns/name" gives "service"), or "unknown".
func sourceType(e *endpoint.Endpoint) string {
	res, _ := e.Labels.Get(endpoint.ResourceLabelKey)
	if kind, _, ok := strings.Cut(res, "/"); ok && kind != "" {
		return kind
	}
	return "unknown"
}

func unixSeconds(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}
