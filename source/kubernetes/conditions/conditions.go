package conditions

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/dynamic"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// Condition types.
const (
	// Accepted says whether the source could read the object's records:
	// False when the object is invalid.
	Accepted = "Accepted"
	// Programmed says whether DNS holds every record of the object as
	// desired.
	Programmed = "Programmed"
)

// Condition reasons other than the CamelCase skip reasons; see the
// package documentation for when each is used.
const (
	ReasonAccepted    = "Accepted"
	ReasonProgrammed  = "Programmed"
	ReasonNoRecords   = "NoRecords"
	ReasonSourceError = "SourceError"
	ReasonInvalid     = "Invalid"
	ReasonUnsafePlan  = "UnsafePlan"
	ReasonZoneFailed  = "ZoneFailed"
	ReasonFailed      = "Failed"
	ReasonRejected    = "Rejected"
	ReasonPending     = "Pending"
	ReasonNotVerified = "NotVerified"
	ReasonSkipped     = "Skipped"
	ReasonCycleFailed = "CycleFailed"
)

// MaxMessageBytes is the longest condition message the writer writes, the
// limit of metav1.Condition's message.
const MaxMessageBytes = 32768

// NoRecordsMessage is the message of Programmed with reason NoRecords.
const NoRecordsMessage = "no records are desired"

// ErrPruned is matched by the error of a write whose conditions the API
// server dropped because the resource's schema has no status.conditions
// (see the package documentation).
var ErrPruned = errors.New("the API server dropped status.conditions: the resource's schema does not declare them")

// GenerationReader tells which objects a source read in its last
// Endpoints call: it maps the resource key of each object it selected to
// the metadata.generation it read. [kubernetes.DNSEndpointSource]
// implements it. The map is the caller's.
type GenerationReader interface {
	Generations() map[string]int64
}

// Options configures [New].
type Options struct {
	// GVR is the resource of the objects (required).
	GVR schema.GroupVersionResource
	// Kind is the first segment of the resource keys of these objects, as
	// their source writes them (required): "crd" for DNSEndpoints, the
	// lower-case kind for [kubernetes.UnstructuredSource] ("website" for
	// Websites). Keys of other kinds are skipped.
	Kind string
	// ClusterScoped says the resource is cluster-scoped: its keys are
	// "kind/name". Otherwise they are "kind/namespace/name".
	ClusterScoped bool
	// Namespace, when set, limits the writer to the objects of that
	// namespace (as a source's Options.Namespace limits the source). Only
	// for a namespaced resource.
	Namespace string
	// Generations, when set, names the objects the source selected and
	// their generation (see the package documentation); nil means none.
	Generations GenerationReader
}

// Writer writes the [Accepted] and [Programmed] conditions of the objects
// of one resource after each cycle; see the package documentation. It is
// safe for concurrent use (writes are serialised).
type Writer struct {
	client dynamic.NamespaceableResourceInterface
	opts   Options
	// what names the resource in errors: "dnsendpoints.externaldns.k8s.io".
	what string

	mu sync.Mutex
	// last holds, per resource key, what the writer last wrote to the
	// object, or found on it.
	last map[string]target
}

var _ zonesync.Observer = (*Writer)(nil)

// New returns a Writer for the objects of opts.GVR through client.
func New(client dynamic.Interface, opts Options) (*Writer, error) {
	switch {
	case client == nil:
		return nil, errors.New("conditions: no client")
	case opts.GVR.Empty() || opts.GVR.Resource == "" || opts.GVR.Version == "":
		return nil, fmt.Errorf("conditions: Options.GVR %q: resource and version are required", opts.GVR.String())
	case opts.Kind == "" || strings.Contains(opts.Kind, "/"):
		return nil, fmt.Errorf("conditions: Options.Kind %q: a key's first segment is required", opts.Kind)
	case opts.ClusterScoped && opts.Namespace != "":
		return nil, fmt.Errorf("conditions: Options.Namespace %q: the resource is cluster-scoped", opts.Namespace)
	case opts.Namespace != "" && len(validation.IsDNS1123Label(opts.Namespace)) > 0:
		return nil, fmt.Errorf("conditions: Options.Namespace %q: %s", opts.Namespace, strings.Join(validation.IsDNS1123Label(opts.Namespace), "; "))
	}
	return &Writer{
		client: client.Resource(opts.GVR),
		opts:   opts,
		what:   opts.GVR.GroupResource().String(),
		last:   map[string]target{},
	}, nil
}

// NewForDNSEndpoints returns a Writer for the DNSEndpoints src reads: the
// resource src reads ([kubernetes.DNSEndpointSource.GVR]), keys "crd/ns/name",
// and src as the [GenerationReader], so that only the DNSEndpoints src
// selects get conditions. The DNSEndpoint CRD needs status.conditions (see
// the package documentation).
func NewForDNSEndpoints(client dynamic.Interface, src *kubernetes.DNSEndpointSource) (*Writer, error) {
	if src == nil {
		return nil, errors.New("conditions: no DNSEndpoint source")
	}
	return New(client, Options{GVR: src.GVR(), Kind: "crd", Generations: src})
}

// CycleStarted does nothing.
func (w *Writer) CycleStarted(context.Context, time.Time) {}

// CycleFinished writes the conditions of the cycle ([Writer.Write]) and
// logs an error through the logger of ctx (the Reconciler's). Nothing is
// logged when ctx is done: the program is stopping.
func (w *Writer) CycleFinished(ctx context.Context, c zonesync.Cycle) {
	if err := w.Write(ctx, c); err != nil && ctx.Err() == nil {
		logr.FromContextOrDiscard(ctx).Error(err, "writing status conditions", "resource", w.what)
	}
}

// Write writes the conditions of the objects of cycle c, for a program that
// calls RunOnce itself; a Writer set as the Reconciler's Observer does it
// after each cycle. The cycle must be the latest one of the Reconciler
// whose source the [GenerationReader] is. It returns the errors of the
// objects it could not write, joined.
func (w *Writer) Write(ctx context.Context, c zonesync.Cycle) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("conditions: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	log := logr.FromContextOrDiscard(ctx)

	var gens map[string]int64
	if w.opts.Generations != nil {
		gens = map[string]int64{}
		for key, gen := range w.opts.Generations.Generations() {
			if _, ok := w.parseKey(key); ok {
				gens[key] = gen
			}
		}
	}
	targets := w.targets(c, gens, log)
	keys := make([]string, 0, len(targets)+len(w.last))
	for key := range targets {
		keys = append(keys, key)
	}
	if c.Plan != nil { // a cycle that failed before planning removes nothing
		for key := range w.last {
			if _, ok := targets[key]; !ok {
				keys = append(keys, key)
			}
		}
	}
	slices.Sort(keys)

	var errs []error
	for _, key := range keys {
		t, set := targets[key]
		if prev, known := w.last[key]; set && known && t.equal(prev) {
			continue
		}
		obj, _ := w.parseKey(key)
		var want *target
		if set {
			want = &t
		}
		err := w.apply(ctx, obj, want)
		if err != nil {
			errs = append(errs, err)
			if errors.Is(err, ErrPruned) || ctx.Err() != nil {
				// Pruned: every object of the resource would lose
				// its conditions the same way. Done: so would every
				// request.
				break
			}
		}
	}
	return errors.Join(errs...)
}

// objectKey is a parsed resource key.
type objectKey struct {
	key, namespace, name string
}

func (o objectKey) String() string {
	if o.namespace == "" {
		return o.name
	}
	return o.namespace + "/" + o.name
}

// parseKey reads a resource key strictly (see the package documentation).
func (w *Writer) parseKey(key string) (objectKey, bool) {
	parts := strings.Split(key, "/")
	want := 3
	if w.opts.ClusterScoped {
		want = 2
	}
	if len(parts) != want || parts[0] != w.opts.Kind {
		return objectKey{}, false
	}
	obj := objectKey{key: key, name: parts[len(parts)-1]}
	if len(validation.IsDNS1123Subdomain(obj.name)) > 0 {
		return objectKey{}, false
	}
	if !w.opts.ClusterScoped {
		obj.namespace = parts[1]
		if len(validation.IsDNS1123Label(obj.namespace)) > 0 {
			return objectKey{}, false
		}
		if w.opts.Namespace != "" && obj.namespace != w.opts.Namespace {
			return objectKey{}, false
		}
	}
	return obj, true
}

// targets returns the conditions each object should carry after cycle c;
// gens is what the GenerationReader reported (nil without one), keys
// already checked.
func (w *Writer) targets(c zonesync.Cycle, gens map[string]int64, log logr.Logger) map[string]target {
	out := map[string]target{}
	if c.Plan == nil {
		msg := "the cycle failed before planning"
		if c.Err != nil {
			msg = endpoint.Printable(c.Err.Error())
		}
		failed := condition(metav1.ConditionFalse, ReasonCycleFailed, msg)
		add := func(key string, gen int64) {
			prev, known := w.last[key]
			t := target{programmed: failed, gen: gen, keepAccepted: true}
			if known {
				t.accepted = prev.accepted
				if gen == 0 {
					t.gen = prev.gen
				}
			}
			out[key] = t
		}
		for key, gen := range gens {
			add(key, gen)
		}
		for key := range w.last {
			if _, ok := out[key]; !ok {
				add(key, 0)
			}
		}
		return out
	}
	for _, st := range c.ResourceStatuses() {
		if _, ok := w.parseKey(st.Resource); !ok {
			if strings.HasPrefix(st.Resource, w.opts.Kind+"/") {
				log.V(1).Info("status conditions: resource key skipped", "resource", w.what, "key", endpoint.Printable(st.Resource))
			}
			continue
		}
		gen := int64(0)
		if gens != nil {
			g, selected := gens[st.Resource]
			if !selected {
				continue
			}
			gen = g
		}
		if st.State == zonesync.RecordDeleted {
			continue
		}
		t := fromStatus(st)
		t.gen = gen
		out[st.Resource] = t
	}
	for key, gen := range gens {
		if _, ok := out[key]; !ok {
			out[key] = target{
				accepted:   acceptedCondition(metav1.ConditionTrue, ReasonAccepted, ""),
				programmed: condition(metav1.ConditionTrue, ReasonNoRecords, NoRecordsMessage),
				gen:        gen,
			}
		}
	}
	return out
}
