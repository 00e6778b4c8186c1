package kubernetes

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// SkipperRouteGroupGVR is the resource of Skipper RouteGroups read by
// default (external-dns's --skipper-routegroup-groupversion default).
var SkipperRouteGroupGVR = schema.GroupVersionResource{Group: "zalando.org", Version: "v1", Resource: "routegroups"}

// SkipperRouteGroupConfig configures a [SkipperRouteGroupSource].
type SkipperRouteGroupConfig struct {
	kubeopts.Options
	// GVR overrides [SkipperRouteGroupGVR] (the group and version of
	// --skipper-routegroup-groupversion).
	GVR schema.GroupVersionResource
	// DynamicFactory: see [ServiceConfig.Factory].
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
}

// SkipperRouteGroupSource publishes Skipper RouteGroups (zalando.org/v1):
// the names of spec.hosts and the hostname annotation, pointing at the
// addresses and host names of status.loadBalancer.routeGroup, or at the
// target annotation.
//
//zonesync:source:name=skipper-routegroup
//zonesync:source:category=kubernetes
//zonesync:source:description=Skipper RouteGroups: spec.hosts pointing at the route group's load balancer status.
//zonesync:source:resources=routegroups.zalando.org
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=SkipperRouteGroupConfig
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate
type SkipperRouteGroupSource struct {
	cfg SkipperRouteGroupConfig
	res *dynamicResource
	inf informerSet
}

var (
	_ source.Source = (*SkipperRouteGroupSource)(nil)
	_ source.Syncer = (*SkipperRouteGroupSource)(nil)
)

// NewSkipperRouteGroupSource returns a Skipper RouteGroup source; see
// [NewServiceSource] for the informer life cycle.
func NewSkipperRouteGroupSource(ctx context.Context, client dynamic.Interface, cfg SkipperRouteGroupConfig) (*SkipperRouteGroupSource, error) {
	res, err := openResource(ctx, client, cfg.DynamicFactory, &cfg.Options, "skipper-routegroup", cfg.GVR, SkipperRouteGroupGVR)
	if err != nil {
		return nil, err
	}
	return &SkipperRouteGroupSource{cfg: cfg, res: res, inf: informerSet{res.informer}}, nil
}

// String returns "skipper-routegroup".
func (s *SkipperRouteGroupSource) String() string { return "skipper-routegroup" }

// Endpoints returns the endpoints of the selected RouteGroups.
func (s *SkipperRouteGroupSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return s.res.endpoints(ctx, "skipper-routegroup", kindRef("RouteGroup"), s.routeGroupEndpoints)
}

func (s *SkipperRouteGroupSource) routeGroupEndpoints(ref source.ObjectRef, u *unstructured.Unstructured) ([]*endpoint.Endpoint, error) {
	ann, err := s.cfg.Annotations.Parse(ref, u.GetAnnotations())
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	specHosts, _, err := unstructured.NestedStringSlice(u.Object, "spec", "hosts")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.hosts: %w", ref, err)
	}
	var hosts []string
	for i, h := range specHosts {
		if h == "" {
			continue
		}
		if err := checkHost(ref, fmt.Sprintf("spec.hosts[%d]", i), h); err != nil {
			return nil, err
		}
		hosts = append(hosts, h)
	}
	hostnames, err := s.cfg.CombineHostnames(append(hosts, s.cfg.AnnotatedHostnames(ann)...), ref, u.Object)
	if err != nil {
		return nil, err
	}
	targets := ann.Targets
	if targets == nil {
		if targets, err = statusAddresses(ref, u.Object, "status", "loadBalancer", "routeGroup"); err != nil {
			return nil, err
		}
	}
	hostnames = slices.Clone(hostnames)
	slices.Sort(hostnames)
	return source.EndpointsForHostnames(slices.Compact(hostnames), targets, ann.EndpointMeta(ref)), nil
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *SkipperRouteGroupSource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *SkipperRouteGroupSource) WaitForSync(ctx context.Context) error {
	return s.inf.WaitForSync(ctx)
}

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *SkipperRouteGroupSource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
