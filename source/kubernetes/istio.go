package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	k8sinformers "k8s.io/client-go/informers"
	k8sclient "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/informers"
	"github.com/zonesync/zonesync/source"
)

// IstioGatewayGVR is the resource of Istio Gateways read by default;
// releases before Istio 1.22 serve only v1beta1 (or v1alpha3): set
// [IstioGatewayConfig.GVR] for them.
var IstioGatewayGVR = schema.GroupVersionResource{Group: "networking.istio.io", Version: "v1", Resource: "gateways"}

// IstioGatewayConfig configures an [IstioGatewaySource].
type IstioGatewayConfig struct {
	Options
	// GVR overrides [IstioGatewayGVR].
	GVR schema.GroupVersionResource
	// DynamicFactory and Factory: see [ServiceConfig.Factory]. Factory
	// supplies the Services informer.
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
	Factory        k8sinformers.SharedInformerFactory
}

// IstioGatewaySource publishes Istio Gateways (networking.istio.io): the
// hosts of spec.servers[].hosts ("namespace/" prefixes stripped, "*"
// skipped) and the hostname annotation, pointing at the load balancer
// status of the Services selected by spec.selector (in any namespace, as
// the ingress gateway usually runs in istio-system), or at the target
// annotation.
//
// +zonesync:source:name=istio-gateway
// +zonesync:source:category=kubernetes
// +zonesync:source:description=Istio Gateways: server hosts pointing at the ingress gateway Service's load balancer.
// +zonesync:source:resources=gateways.networking.istio.io,services
// +zonesync:source:filters=annotation-filter,label-selector
// +zonesync:source:namespaced=true
// +zonesync:source:fqdn-template=true
// +zonesync:source:events=true
type IstioGatewaySource struct {
	cfg      IstioGatewayConfig
	res      *dynamicResource
	services cache.SharedIndexInformer
	inf      informerSet
}

var (
	_ source.Source = (*IstioGatewaySource)(nil)
	_ source.Syncer = (*IstioGatewaySource)(nil)
)

// NewIstioGatewaySource returns an Istio Gateway source; see
// [NewServiceSource] for the informer life cycle.
func NewIstioGatewaySource(ctx context.Context, kube k8sclient.Interface, client dynamic.Interface, cfg IstioGatewayConfig) (*IstioGatewaySource, error) {
	gvr := cfg.GVR
	if gvr.Empty() {
		gvr = IstioGatewayGVR
	}
	var err error
	if cfg.Options, err = cfg.WithSource("istio-gateway"); err != nil {
		return nil, err
	}
	res, start, err := newDynamicResource(client, cfg.DynamicFactory, cfg.Options, "istio-gateway", gvr)
	if err != nil {
		return nil, err
	}
	factory := cfg.Factory
	ownSvc := factory == nil
	if ownSvc {
		// The gateway Services live outside the Gateway's namespace.
		factory = k8sinformers.NewSharedInformerFactory(kube, cfg.ResyncPeriod)
	}
	s := &IstioGatewaySource{cfg: cfg, res: res, services: factory.Core().V1().Services().Informer()}
	if ownSvc {
		fn := informers.TransformerWithOptions[*corev1.Service](informers.TransformOptions{RemoveManagedFields: true, RemoveLastApplied: true, DropAnnotations: true})
		if err := s.services.SetTransform(fn); err != nil {
			return nil, fmt.Errorf("istio-gateway source: %w", err)
		}
	}
	s.inf = informerSet{res.informer, s.services}
	if start != nil {
		start(ctx)
	}
	if ownSvc {
		factory.Start(ctx.Done())
	}
	return s, nil
}

// String returns "istio-gateway".
func (s *IstioGatewaySource) String() string { return "istio-gateway" }

// Endpoints returns the endpoints of the selected Gateways.
func (s *IstioGatewaySource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	objs, err := s.res.list()
	if err != nil {
		return nil, fmt.Errorf("istio-gateway source: %w", err)
	}
	return endpointsOf(objs, func(u *unstructured.Unstructured) (source.ObjectRef, bool) {
		return objectRef(u, "Gateway"), true
	}, s.gatewayEndpoints)
}

func (s *IstioGatewaySource) gatewayEndpoints(ref source.ObjectRef, u *unstructured.Unstructured) ([]*endpoint.Endpoint, error) {
	ann, err := s.cfg.Annotations.Parse(ref, u.GetAnnotations())
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	servers, _, err := unstructured.NestedSlice(u.Object, "spec", "servers")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.servers: %w", ref, err)
	}
	var hosts []string
	for i, srv := range servers {
		m, ok := srv.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: spec.servers[%d] is not an object", ref, i)
		}
		list, _, err := unstructured.NestedStringSlice(m, "hosts")
		if err != nil {
			return nil, fmt.Errorf("%s: spec.servers[%d].hosts: %w", ref, i, err)
		}
		for j, h := range list {
			if _, after, ok := strings.Cut(h, "/"); ok {
				h = after
			}
			if h != "" && h != "*" {
				if err := checkHost(ref, fmt.Sprintf("spec.servers[%d].hosts[%d]", i, j), h); err != nil {
					return nil, err
				}
				hosts = append(hosts, h)
			}
		}
	}
	hostnames, err := s.cfg.combineHostnames(append(slices.Clone(s.cfg.annotatedHostnames(ann)), hosts...), ref, u.Object)
	if err != nil {
		return nil, err
	}
	targets := ann.Targets
	if targets == nil {
		if targets, err = s.selectedServiceTargets(ref, u); err != nil {
			return nil, err
		}
	}
	hostnames = slices.Clone(hostnames)
	slices.Sort(hostnames)
	return source.EndpointsForHostnames(slices.Compact(hostnames), targets, ann.EndpointMeta(ref)), nil
}

// selectedServiceTargets returns the load balancer targets of the
// Services spec.selector selects.
func (s *IstioGatewaySource) selectedServiceTargets(ref source.ObjectRef, u *unstructured.Unstructured) ([]string, error) {
	selector, found, err := unstructured.NestedStringMap(u.Object, "spec", "selector")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.selector: %w", ref, err)
	}
	if !found || len(selector) == 0 {
		return nil, nil
	}
	sel := labels.SelectorFromSet(selector)
	svcs, err := informers.List[*corev1.Service](s.services.GetStore())
	if err != nil {
		return nil, err
	}
	var targets []string
	for _, svc := range svcs {
		if len(svc.Spec.Selector) > 0 && sel.Matches(labels.Set(svc.Spec.Selector)) {
			targets = append(targets, loadBalancerTargets(svc)...)
		}
	}
	return targets, nil
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *IstioGatewaySource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *IstioGatewaySource) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *IstioGatewaySource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
