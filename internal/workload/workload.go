// Package workload builds the benchmark workload W(N) of
// docs/benchmarks.md: N names svc-<i>.bench.example.com with one A target each,
// all owned by "bench" in the TXT registry, every ownership TXT carrying its
// own resource label (service/default/svc-<i>) as real sources write, and a
// source that builds fresh endpoints on every call. The benchmarks of the
// plan, the TXT registry and the Reconciler, and the peak-RSS program
// internal/benchcmd/runonce, all use it, so their figures describe one
// workload.
package workload

import (
	"context"
	"fmt"
	"runtime"
	"strconv"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
)

// Owner is the owner id of every record of the workload.
const Owner = "bench"

// Zone is the zone that holds the workload.
const Zone = "bench.example.com"

// Name returns the DNS name of record i.
func Name(i int) string { return "svc-" + strconv.Itoa(i) + "." + Zone }

// Target returns the A target of record i.
func Target(i int) string {
	return "10." + strconv.Itoa(i>>16&255) + "." + strconv.Itoa(i>>8&255) + "." + strconv.Itoa(i&255)
}

// Resource returns the resource label of record i.
func Resource(i int) string { return "service/default/svc-" + strconv.Itoa(i) }

// TXTValue returns the ownership TXT value of record i, as external-dns
// writes it.
func TXTValue(i int) string {
	return `"heritage=external-dns,external-dns/owner=` + Owner + `,external-dns/resource=` + Resource(i) + `"`
}

// Desired returns what a source reports for record i: an A endpoint with
// its resource label and no owner.
func Desired(i int) *endpoint.Endpoint {
	return endpoint.NewEndpoint(Name(i), endpoint.RecordTypeA, Target(i)).WithLabel(endpoint.ResourceLabelKey, Resource(i))
}

// Current returns record i as the TXT registry reports it: owned by Owner,
// with its resource label.
func Current(i int) *endpoint.Endpoint {
	return Desired(i).WithLabel(endpoint.OwnerLabelKey, Owner)
}

// Source is the desired side of W(N). Like a Kubernetes source, whose
// objects sit in an informer cache, it keeps the names, targets and resource
// keys of its objects, and builds fresh endpoints from them on every call:
// an endpoint, its target list and its labels per record.
type Source struct {
	names, targets, resources []string
}

// NewSource returns the source of W(n).
func NewSource(n int) *Source {
	s := &Source{names: make([]string, n), targets: make([]string, n), resources: make([]string, n)}
	for i := range n {
		s.names[i], s.targets[i], s.resources[i] = Name(i), Target(i), Resource(i)
	}
	return s
}

// Endpoints returns fresh endpoints for every record.
func (s *Source) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	eps := make([]*endpoint.Endpoint, len(s.names))
	for i := range eps {
		eps[i] = endpoint.NewEndpoint(s.names[i], endpoint.RecordTypeA, s.targets[i]).
			WithLabel(endpoint.ResourceLabelKey, s.resources[i])
	}
	return eps, nil
}

// AddEventHandler does nothing: the workload never changes.
func (*Source) AddEventHandler(context.Context, func()) {}

// NewZone returns an in-memory provider holding W(n): n A records and their
// ownership TXT records. The zone is filled in batches, each read back and
// collected before the next, so that building it does not raise the peak
// memory above that of the cycle a program then measures.
func NewZone(ctx context.Context, n int) (*inmemory.Provider, error) {
	p := inmemory.New(inmemory.Options{Zones: []string{Zone}})
	const batch = 5_000
	for lo := 0; lo < n; lo += batch {
		seed := make([]*endpoint.Endpoint, 0, 2*batch)
		for i := lo; i < min(lo+batch, n); i++ {
			seed = append(seed,
				endpoint.NewEndpoint(Name(i), endpoint.RecordTypeA, Target(i)),
				endpoint.NewEndpoint("a-"+Name(i), endpoint.RecordTypeTXT, TXTValue(i)))
		}
		if err := p.ApplyChanges(ctx, &plan.Changes{Create: seed}); err != nil {
			return nil, fmt.Errorf("seeding the zone: %w", err)
		}
		if _, err := p.Records(ctx); err != nil {
			return nil, fmt.Errorf("reading the seeded zone: %w", err)
		}
		if n > batch {
			runtime.GC()
		}
	}
	return p, nil
}
