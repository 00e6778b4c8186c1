package main

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	crsource "sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/source"
)

// onlyPartial reports whether err holds nothing but a source's partial error
// (the cycle applied everything else).
func onlyPartial(err error) bool {
	for _, part := range provider.ErrorParts(err) {
		var pe *source.PartialError
		if !errors.As(part, &pe) {
			return false
		}
	}
	return true
}

// dnsRequest is the single work item of the DNS controller: every event of
// the source maps to it, so a burst of events collapses into one cycle.
var dnsRequest = reconcile.Request{NamespacedName: types.NamespacedName{Name: "zonesync-dns"}}

// dnsController runs a zonesync cycle whenever the source reports a
// change, and every resync interval.
type dnsController struct {
	dns    *zonesync.Reconciler
	resync time.Duration
	// status writes each cycle's outcome into the Services (see
	// status.go).
	status *statusWriter
}

var _ reconcile.Reconciler = (*dnsController)(nil)

// Reconcile runs one zonesync cycle. Errors are returned so that the work
// queue retries with its rate limiter. Services with bad annotations do not
// fail the cycle: the others are applied, the bad ones keep their records,
// and they are logged (the fix arrives as a Service event). A plan refused
// by the safety threshold is logged and retried at the next resync
// instead, since a human (or a recovering source) has to resolve it.
func (c *dnsController) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	logger := log.FromContext(ctx)
	// RunOnce returns the cycle: what happened to each Service is derived
	// from it (no Observer needed).
	cyc, err := c.dns.RunOnce(ctx)
	changes := cyc.Changes
	if c.status != nil && ctx.Err() == nil {
		// Best effort: a failed status write is logged, not retried, since
		// the next cycle writes the status again.
		if serr := c.status.write(ctx, cyc); serr != nil {
			logger.Error(serr, "writing the DNS status of Services")
		}
	}
	if errors.Is(err, zonesync.ErrSourceNotReady) {
		// The informers are still filling their caches.
		return reconcile.Result{RequeueAfter: notReadyRetry}, nil
	}
	if errors.Is(err, zonesync.ErrUnsafePlan) {
		logger.Error(err, "DNS plan refused by the safety threshold")
		return reconcile.Result{RequeueAfter: c.resync}, nil
	}
	var partial *source.PartialError
	if errors.As(err, &partial) && onlyPartial(err) {
		for _, key := range slices.Sorted(maps.Keys(partial.Failed)) {
			logger.Error(partial.Failed[key], "Service left out of DNS until it is fixed; its records are kept", "resource", key)
		}
		err = nil
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	logger.V(1).Info("DNS in sync", "created", len(changes.Create), "updated", len(changes.UpdateNew), "deleted", len(changes.Delete))
	return reconcile.Result{RequeueAfter: c.resync}, nil
}

// notReadyRetry is the delay before a cycle refused because the source
// has not synced is tried again.
const notReadyRetry = time.Second

// setupWithManager registers the controller: the source's event handler
// (registered until ctx is done) feeds a channel that maps every event to
// the one DNS request. The source's own informers trigger the cycles, so
// a cycle never runs on a cache older than the event.
func (c *dnsController) setupWithManager(ctx context.Context, mgr ctrl.Manager) error {
	events := make(chan event.GenericEvent, 1)
	c.dns.Source.AddEventHandler(ctx, func() {
		select {
		case events <- event.GenericEvent{}:
		default: // a cycle is already pending
		}
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("zonesync-dns").
		WatchesRawSource(crsource.Channel(events, handler.EnqueueRequestsFromMapFunc(
			func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{dnsRequest} }))).
		Complete(c)
}
