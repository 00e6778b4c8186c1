// Package prometheus exports the metrics of a zonesync [zonesync.Reconciler]
// in the Prometheus format, under the names, types and labels external-dns
// uses (external_dns_controller_*, external_dns_registry_*,
// external_dns_source_*, external_dns_webhook_provider_*), plus zonesync's
// own under the zonesync_ prefix. docs/metrics.md lists every metric.
//
// [New] registers the collectors on a [prometheus.Registerer] the caller
// gives; the package never touches the default registry and keeps no
// package-level state. Two Reconcilers with two registries share nothing;
// two Reconcilers on one registry are told apart by a constant label
// ([Options.ConstLabels]), and registering the same label set twice fails with
// a [prometheus.AlreadyRegisteredError].
//
// The returned [*Metrics] is the Reconciler's [zonesync.Observer]: the
// controller, registry and source gauges are computed from each
// [zonesync.Cycle], from what its plan classified (the skips with their
// reasons and, for a foreign owner, the owner: [plan.Skip]; the desired
// records already in DNS: [plan.Plan.Existing]) without joining current and
// desired records again. The error counters need the wrappers [Metrics.Registry]
// and [Metrics.Source], because a Cycle does not say which of them failed;
// the webhook request counters need [Metrics.WebhookProvider], the provider
// cache counters a cache built with [Metrics.CacheObserver]
// (cache.New(p, cache.Options{TTL: ttl, Observer: m.CacheObserver()})) and the
// deduplicated endpoints [Metrics.Dedup].
//
// This is the only package of the module that imports
// github.com/prometheus/client_golang.
package prometheus
