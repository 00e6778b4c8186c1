// Package events records Kubernetes Events on the objects behind the records
// of a reconcile cycle, with the reasons external-dns uses: RecordReady when
// a record was created or updated, RecordDeleted when it was deleted, and
// RecordError when the change failed or the provider rejected it.
//
// [New] returns a [zonesync.Observer]; plug it into a Reconciler (with
// [zonesync.Observers] next to other observers) to turn Events on: nothing
// is recorded otherwise. The object of a record is found through the
// record's resource label ("service/ns/name", "ingress/ns/name",
// "crd/ns/name", ...) by a [Resolver].
//
// Events are deduplicated: the Observer remembers, per object and record,
// the last reason and message it recorded and records nothing when a cycle
// would repeat them, so a steady state, or a failure that repeats every
// cycle, emits nothing new. A token-bucket rate limit bounds the Events per
// second; the ones over the limit are dropped and counted ([Observer.Dropped]).
package events

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/clock"
	"github.com/zonesync/zonesync/endpoint"
)

// Event reasons, as external-dns spells them.
const (
	ReasonRecordReady   = "RecordReady"
	ReasonRecordDeleted = "RecordDeleted"
	ReasonRecordError   = "RecordError"
)

// Defaults of [Options].
const (
	DefaultQPS   = 10
	DefaultBurst = 100
)

// Resolver maps a resource key (the value of a record's resource label) to
// the object the Event is recorded on; false means the key names no object
// the resolver knows, and no Event is recorded.
type Resolver func(resource string) (*corev1.ObjectReference, bool)

// kinds maps the kind part of the resource keys zonesync's sources (and
// external-dns's) write to the object's API version and kind.
var kinds = map[string][2]string{
	"service":     {"v1", "Service"},
	"ingress":     {"networking.k8s.io/v1", "Ingress"},
	"crd":         {"externaldns.k8s.io/v1alpha1", "DNSEndpoint"},
	"dnsendpoint": {"externaldns.k8s.io/v1alpha1", "DNSEndpoint"},
	"httpproxy":   {"projectcontour.io/v1", "HTTPProxy"},
	"gateway":     {"networking.istio.io/v1", "Gateway"},
	"httproute":   {"gateway.networking.k8s.io/v1", "HTTPRoute"},
	"grpcroute":   {"gateway.networking.k8s.io/v1", "GRPCRoute"},
	"tlsroute":    {"gateway.networking.k8s.io/v1alpha2", "TLSRoute"},
	"tcproute":    {"gateway.networking.k8s.io/v1alpha2", "TCPRoute"},
	"udproute":    {"gateway.networking.k8s.io/v1alpha2", "UDPRoute"},
	"node":        {"v1", "Node"},
	"pod":         {"v1", "Pod"},
}

// DefaultResolver resolves the resource keys of the sources zonesync and
// external-dns ship: "kind/namespace/name" (or "kind/name" for
// cluster-scoped objects) where kind is, case-insensitively, service,
// ingress, crd or dnsendpoint (DNSEndpoint), httpproxy (Contour), gateway
// (Istio), httproute, grpcroute, tlsroute, tcproute, udproute, node or pod.
func DefaultResolver(resource string) (*corev1.ObjectReference, bool) {
	return ResolverFor(nil)(resource)
}

// ResolverFor returns a [DefaultResolver] that also knows the kinds in
// extra, keyed by the lower-case kind part of the resource key, each an
// (API version, Kind) pair such as {"example.com/v1", "Widget"}. An entry
// of extra overrides a built-in one.
func ResolverFor(extra map[string][2]string) Resolver {
	return func(resource string) (*corev1.ObjectReference, bool) {
		parts := strings.Split(resource, "/")
		if len(parts) != 2 && len(parts) != 3 {
			return nil, false
		}
		kind := strings.ToLower(parts[0])
		gvk, ok := extra[kind]
		if !ok {
			gvk, ok = kinds[kind]
		}
		if !ok || parts[len(parts)-1] == "" {
			return nil, false
		}
		ref := &corev1.ObjectReference{APIVersion: gvk[0], Kind: gvk[1], Name: parts[len(parts)-1]}
		if len(parts) == 3 {
			ref.Namespace = parts[1]
		}
		return ref, true
	}
}

// ErrInvalidOptions is wrapped by every error [New] returns: a nil
// recorder or an [Options] field out of range, named in the message.
var ErrInvalidOptions = errors.New("invalid events options")

// Options configures [New]. The zero value is usable.
type Options struct {
	// Resolver finds the object of a resource key; nil means
	// [DefaultResolver].
	Resolver Resolver
	// QPS and Burst limit the Events recorded: Burst at once, then QPS
	// per second. Zero means [DefaultQPS] and [DefaultBurst]; an infinite
	// QPS means no limit; negative values are errors.
	QPS   float64
	Burst int
	// Clock drives the rate limit; nil means [clock.Real].
	Clock clock.Clock
}

// Observer records Events for the records of each cycle; see the package
// documentation. It is safe for concurrent use.
type Observer struct {
	rec     record.EventRecorder
	resolve Resolver
	limiter *rate.Limiter
	clock   clock.Clock
	mu      sync.Mutex
	last    map[seenKey]seen
	dropped int
}

var _ zonesync.Observer = (*Observer)(nil)

// seenKey identifies a record of an object.
type seenKey struct {
	resource string
	record   endpoint.Key
}

// seen is the last Event recorded for a seenKey.
type seen struct {
	reason, message string
}

// New returns an Observer recording on rec (for example a recorder from
// record.NewBroadcaster, or record.NewFakeRecorder in tests). It fails,
// with an error wrapping [ErrInvalidOptions], when rec is nil or a field
// of opts is out of range.
func New(rec record.EventRecorder, opts Options) (*Observer, error) {
	switch {
	case rec == nil:
		return nil, fmt.Errorf("events: %w: the EventRecorder is nil", ErrInvalidOptions)
	case opts.QPS < 0 || math.IsNaN(opts.QPS):
		return nil, fmt.Errorf("events: %w: Options.QPS is %v: zero means %d", ErrInvalidOptions, opts.QPS, DefaultQPS)
	case opts.Burst < 0:
		return nil, fmt.Errorf("events: %w: Options.Burst is negative (%d): zero means %d", ErrInvalidOptions, opts.Burst, DefaultBurst)
	}
	if opts.Resolver == nil {
		opts.Resolver = DefaultResolver
	}
	if opts.QPS == 0 {
		opts.QPS = DefaultQPS
	}
	if opts.Burst == 0 {
		opts.Burst = DefaultBurst
	}
	return &Observer{
		rec:     rec,
		resolve: opts.Resolver,
		limiter: rate.NewLimiter(rate.Limit(opts.QPS), opts.Burst),
		clock:   clock.OrReal(opts.Clock),
		last:    map[seenKey]seen{},
	}, nil
}

// Dropped returns the number of Events dropped by the rate limit so far.
func (o *Observer) Dropped() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dropped
}

// CycleStarted does nothing.
func (o *Observer) CycleStarted(context.Context, time.Time) {}

// event is one Event to record.
type event struct {
	key     seenKey
	ref     *corev1.ObjectReference
	typ     string
	reason  string
	message string
}

// CycleFinished records the Events of the cycle: one per changed record
// whose resource label resolves to an object, unless the same Event was the
// last one recorded for that record. Whether a change succeeded is the
// cycle's own classification ([zonesync.Cycle.RecordStatuses] for creates
// and updates, [zonesync.Cycle.DeleteStatuses] for deletes): applied gives
// RecordReady, deleted gives RecordDeleted, rejected or failed gives
// RecordError. Dry
// runs and cycles that failed before planning record nothing.
func (o *Observer) CycleFinished(ctx context.Context, c zonesync.Cycle) {
	if c.Plan == nil || c.DryRun {
		return
	}
	log := logr.FromContextOrDiscard(ctx)
	var evs []event
	add := func(e *endpoint.Endpoint, action, reason, detail string) {
		res, _ := e.Labels.Get(endpoint.ResourceLabelKey)
		if res == "" {
			return
		}
		ref, ok := o.resolve(res)
		if !ok {
			return
		}
		typ := corev1.EventTypeNormal
		if reason == ReasonRecordError {
			typ = corev1.EventTypeWarning
		}
		// Names, targets and messages come from outside (a TXT value may
		// hold any text) and end up on terminals through kubectl:
		// control characters are escaped ([endpoint.Printable]).
		targets := make([]string, len(e.Targets))
		for i, t := range e.Targets {
			targets[i] = endpoint.Printable(t)
		}
		msg := fmt.Sprintf("%s record:%s,type:%s,ttl:%d,targets:%s", action, endpoint.Printable(e.DNSName), endpoint.Printable(e.RecordType),
			int64(e.RecordTTL), strings.Join(targets, ","))
		if detail != "" {
			msg += ": " + endpoint.Printable(detail)
		}
		evs = append(evs, event{key: seenKey{res, e.Key()}, ref: ref, typ: typ, reason: reason, message: msg})
	}

	created := map[endpoint.Key]string{}
	if ch := c.Plan.Changes; ch != nil {
		for _, e := range ch.Create {
			if e != nil {
				created[e.Key()] = "Created"
			}
		}
		for _, e := range ch.UpdateNew {
			if e != nil {
				created[e.Key()] = "Updated"
			}
		}
	}
	for _, s := range c.RecordStatuses() {
		action, changed := created[s.Endpoint.Key()]
		if !changed {
			continue
		}
		switch s.State {
		case zonesync.RecordApplied:
			add(s.Endpoint, action, ReasonRecordReady, "")
		case zonesync.RecordRejected, zonesync.RecordFailed:
			add(s.Endpoint, action, ReasonRecordError, s.Message)
		}
	}
	for _, s := range c.DeleteStatuses() {
		switch s.State {
		case zonesync.RecordDeleted:
			add(s.Endpoint, "Deleted", ReasonRecordDeleted, "")
		case zonesync.RecordRejected, zonesync.RecordFailed:
			add(s.Endpoint, "Deleted", ReasonRecordError, s.Message)
		}
	}
	o.record(log, c, evs)
}

// record emits evs, deduplicated and rate-limited, in a deterministic order,
// and forgets the records the cycle no longer has.
func (o *Observer) record(log logr.Logger, c zonesync.Cycle, evs []event) {
	slices.SortStableFunc(evs, func(a, b event) int {
		if d := strings.Compare(a.key.resource, b.key.resource); d != 0 {
			return d
		}
		return strings.Compare(a.key.record.String(), b.key.record.String())
	})
	o.mu.Lock()
	defer o.mu.Unlock()
	next := make(map[seenKey]seen, len(o.last))
	// Keep what we know of the records still desired, so that a record
	// that stays as it is does not get its Event again.
	for _, e := range c.Plan.Desired {
		if e == nil {
			continue
		}
		res, _ := e.Labels.Get(endpoint.ResourceLabelKey)
		k := seenKey{res, e.Key()}
		if s, ok := o.last[k]; ok {
			next[k] = s
		}
	}
	now := o.clock.Now()
	for _, ev := range evs {
		if s, ok := o.last[ev.key]; ok && s.reason == ev.reason && s.message == ev.message {
			next[ev.key] = s
			continue
		}
		if !o.limiter.AllowN(now, 1) {
			o.dropped++
			log.V(1).Info("event dropped by the rate limit", "object", ev.key.resource, "reason", ev.reason)
			continue
		}
		o.rec.Event(ev.ref, ev.typ, ev.reason, ev.message)
		next[ev.key] = seen{ev.reason, ev.message}
	}
	o.last = next
}
