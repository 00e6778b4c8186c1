package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// DNSEndpointGVR is the resource of external-dns's DNSEndpoint CRD.
var DNSEndpointGVR = schema.GroupVersionResource{Group: "externaldns.k8s.io", Version: "v1alpha1", Resource: "dnsendpoints"}

// DNSEndpointConfig configures a [DNSEndpointSource]. FQDNTemplate,
// CombineFQDN and Annotations of Options are not used: a DNSEndpoint
// spells out its endpoints.
type DNSEndpointConfig struct {
	kubeopts.Options
	// GVR overrides [DNSEndpointGVR], for a copy of the CRD under another
	// group or version with the same shape.
	GVR schema.GroupVersionResource
	// DynamicFactory: like [ServiceConfig.Factory], for the dynamic
	// client.
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
}

// DNSEndpointSource publishes the endpoints listed in DNSEndpoint objects
// (externaldns.k8s.io/v1alpha1): spec.endpoints[] with dnsName, targets,
// recordType, setIdentifier, recordTTL, labels and providerSpecific, as
// external-dns's crd source does. Each endpoint is validated as a desired
// endpoint ([endpoint.Endpoint.ValidateDesired]: names, targets and labels,
// and no TXT value that reads as an ownership record); a DNSEndpoint
// with an invalid one, or with a label whose key zonesync sets itself
// ([endpoint.IsReservedLabelKey]: owner, resource, ownedRecord,
// txt-encryption-nonce), is reported whole in a *source.PartialError under
// its resource key, and the other DNSEndpoints' endpoints are returned.
// Such labels are refused rather than dropped: they can only be a mistake
// or an attempt to claim records, and refusing keeps the object's records
// protected and tells its owner why. After its endpoints were read, a DNSEndpoint whose
// status.observedGeneration differs from its metadata.generation gets it
// written back through the status subresource (failures are logged). The
// source's own informer keeps status.conditions in its cache, so that this
// write leaves the conditions of other writers (such as package
// [github.com/zonesync/zonesync/source/kubernetes/conditions]) in place.
//
// [DNSEndpointSource.Generations] tells which objects, at which generation,
// the last Endpoints call read: package conditions reports per DNSEndpoint
// what a cycle did with it, in status.conditions.
//
// Endpoints carry the labels of the CRD plus the resource label
// "crd/⟨namespace⟩/⟨name⟩", the key external-dns writes for these objects,
// so that records it wrote stay tied to their DNSEndpoint.
//
//zonesync:source:name=dnsendpoint
//zonesync:source:category=kubernetes
//zonesync:source:description=DNSEndpoint custom resources (externaldns.k8s.io/v1alpha1) listing endpoints verbatim.
//zonesync:source:resources=dnsendpoints.externaldns.k8s.io
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=false
//zonesync:source:events=true
//zonesync:source:config=DNSEndpointConfig
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate,IgnoreHostnameAnnotation
type DNSEndpointSource struct {
	client dynamic.Interface
	res    *dynamicResource
	inf    informerSet

	mu      sync.Mutex
	written map[types.UID]int64 // generation last written per object
	// gens maps the resource key of every object the last Endpoints call
	// selected to the metadata.generation it read.
	gens map[string]int64
}

var (
	_ source.Source = (*DNSEndpointSource)(nil)
	_ source.Syncer = (*DNSEndpointSource)(nil)
)

// NewDNSEndpointSource returns a DNSEndpoint source over client; see
// [NewServiceSource] for the informer life cycle.
func NewDNSEndpointSource(ctx context.Context, client dynamic.Interface, cfg DNSEndpointConfig) (*DNSEndpointSource, error) {
	gvr := cfg.GVR
	if gvr.Empty() {
		gvr = DNSEndpointGVR
	}
	res, start, err := newDynamicResourceKeeping(ctx, client, cfg.DynamicFactory, cfg.Options, "dnsendpoint", gvr, true)
	if err != nil {
		return nil, err
	}
	s := &DNSEndpointSource{client: client, res: res, inf: informerSet{res.informer}, written: map[types.UID]int64{}}
	if start != nil {
		start(ctx)
	}
	return s, nil
}

// String returns "dnsendpoint".
func (s *DNSEndpointSource) String() string { return "dnsendpoint" }

// dnsEndpointSpec is the part of a DNSEndpoint read.
type dnsEndpointSpec struct {
	Endpoints []*endpoint.Endpoint `json:"endpoints"`
}

// Endpoints returns the endpoints of the selected DNSEndpoints.
func (s *DNSEndpointSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	objs, err := s.res.list()
	if err != nil {
		return nil, fmt.Errorf("dnsendpoint source: %w", err)
	}
	gens := make(map[string]int64, len(objs))
	eps, err := endpointsOf(objs, func(u *unstructured.Unstructured) (source.ObjectRef, bool) {
		ref := objectRef(u, "DNSEndpoint")
		ref.Resource = "crd/" + ref.Namespace + "/" + ref.Name // as external-dns writes it
		gens[ref.Key()] = u.GetGeneration()
		return ref, true
	}, func(ref source.ObjectRef, u *unstructured.Unstructured) ([]*endpoint.Endpoint, error) {
		eps, err := dnsEndpointEndpoints(ref, u)
		if err == nil {
			s.writeObservedGeneration(ctx, u)
		}
		return eps, err
	})
	s.mu.Lock()
	s.gens = gens
	s.mu.Unlock()
	return eps, err
}

// Generations returns what the last Endpoints call read: the resource key
// ("crd/⟨namespace⟩/⟨name⟩") of every DNSEndpoint it selected — those whose
// endpoints could not be built and those with no endpoints included — mapped
// to the metadata.generation it read. It is nil before the first call that
// listed the objects. The map is the caller's. A Reconciler calls
// Endpoints once per cycle and its Observer after that, from one goroutine
// at a time: the map an Observer reads belongs to the cycle it observes.
func (s *DNSEndpointSource) Generations() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.gens)
}

// GVR returns the resource the source reads: [DNSEndpointGVR] unless
// [DNSEndpointConfig.GVR] named another.
func (s *DNSEndpointSource) GVR() schema.GroupVersionResource { return s.res.gvr }

func dnsEndpointEndpoints(ref source.ObjectRef, u *unstructured.Unstructured) ([]*endpoint.Endpoint, error) {
	raw, found, err := unstructured.NestedFieldNoCopy(u.Object, "spec")
	if err != nil || !found {
		return nil, fmt.Errorf("%s: no spec", ref)
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: spec: %w", ref, err)
	}
	var spec dnsEndpointSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return nil, fmt.Errorf("%s: spec.endpoints: %w", ref, err)
	}
	eps := make([]*endpoint.Endpoint, 0, len(spec.Endpoints))
	for i, ep := range spec.Endpoints {
		if ep == nil {
			return nil, fmt.Errorf("%s: spec.endpoints[%d] is null", ref, i)
		}
		if err := ep.ValidateDesired(); err != nil {
			return nil, fmt.Errorf("%s: spec.endpoints[%d] (%q): %w", ref, i, ep.DNSName, err)
		}
		for k := range ep.Labels.All() {
			if endpoint.IsReservedLabelKey(k) {
				return nil, fmt.Errorf("%s: spec.endpoints[%d] (%q): labels[%q]: the label is set by zonesync, not by the object", ref, i, ep.DNSName, k)
			}
		}
		ep.Labels.Set(endpoint.ResourceLabelKey, ref.Key())
		slices.Sort(ep.Targets) // sources hand out sorted targets, as external-dns does
		eps = append(eps, ep)
	}
	return eps, nil
}

// writeObservedGeneration records in u's status that its current
// generation was read, when it is not recorded yet.
func (s *DNSEndpointSource) writeObservedGeneration(ctx context.Context, u *unstructured.Unstructured) {
	observed, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	gen := u.GetGeneration()
	if gen == 0 || observed == gen {
		return
	}
	// The cache may not show our write yet: write each generation once.
	s.mu.Lock()
	done := s.written[u.GetUID()] == gen
	s.written[u.GetUID()] = gen
	s.mu.Unlock()
	if done {
		return
	}
	obj := u.DeepCopy()
	if err := unstructured.SetNestedField(obj.Object, obj.GetGeneration(), "status", "observedGeneration"); err != nil {
		return
	}
	_, err := s.client.Resource(s.res.gvr).Namespace(obj.GetNamespace()).UpdateStatus(ctx, obj, metav1.UpdateOptions{})
	if err != nil {
		logr.FromContextOrDiscard(ctx).Error(err, "writing status.observedGeneration", "object", objectRef(u, "DNSEndpoint").String())
		s.mu.Lock()
		delete(s.written, u.GetUID()) // try again next time
		s.mu.Unlock()
	}
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *DNSEndpointSource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *DNSEndpointSource) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *DNSEndpointSource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
