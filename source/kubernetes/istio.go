package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
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
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// IstioGatewayGVR is the resource of Istio Gateways read by default;
// releases before Istio 1.22 serve only v1beta1 (or v1alpha3): set
// [IstioGatewayConfig.GVR] for them.
var IstioGatewayGVR = schema.GroupVersionResource{Group: "networking.istio.io", Version: "v1", Resource: "gateways"}

// IstioGatewayConfig configures an [IstioGatewaySource].
type IstioGatewayConfig struct {
	kubeopts.Options
	// GVR overrides [IstioGatewayGVR].
	GVR schema.GroupVersionResource
	// DynamicFactory and Factory: see [ServiceConfig.Factory]. Factory
	// supplies the Services informer.
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
	Factory        k8sinformers.SharedInformerFactory
}

// IstioGatewaySource publishes Istio Gateways (networking.istio.io): the
// hosts of spec.servers[].hosts ("namespace/" prefixes stripped, "*"
// skipped) and the hostname annotation, pointing at the target
// annotation; else, when the ingress annotation names an Ingress
// ("name" in the Gateway's namespace, or "namespace/name"), at that
// Ingress's load balancer status; else at the load balancer status of the
// Services selected by spec.selector (in any namespace, as the ingress
// gateway usually runs in istio-system).
//
//zonesync:source:name=istio-gateway
//zonesync:source:category=kubernetes
//zonesync:source:description=Istio Gateways: server hosts pointing at the ingress gateway Service's load balancer.
//zonesync:source:resources=gateways.networking.istio.io,services,ingresses.networking.k8s.io
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=IstioGatewayConfig
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate
type IstioGatewaySource struct {
	cfg     IstioGatewayConfig
	res     *dynamicResource
	targets istioTargets
	inf     informerSet
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
	res, start, err := newDynamicResource(ctx, client, cfg.DynamicFactory, cfg.Options, "istio-gateway", gvr)
	if err != nil {
		return nil, err
	}
	targets, startTargets, err := newIstioTargets(ctx, kube, cfg.Factory, cfg.ResyncPeriod, "istio-gateway")
	if err != nil {
		return nil, err
	}
	s := &IstioGatewaySource{cfg: cfg, res: res, targets: targets}
	s.inf = informerSet{res.informer, targets.services, targets.ingresses}
	if start != nil {
		start(ctx)
	}
	if startTargets != nil {
		startTargets(ctx)
	}
	return s, nil
}

// String returns "istio-gateway".
func (s *IstioGatewaySource) String() string { return "istio-gateway" }

// Endpoints returns the endpoints of the selected Gateways.
func (s *IstioGatewaySource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return s.res.endpoints(ctx, "istio-gateway", kindRef("Gateway"), s.gatewayEndpoints)
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
	hostnames, err := s.cfg.CombineHostnames(append(slices.Clone(s.cfg.AnnotatedHostnames(ann)), hosts...), ref, u.Object)
	if err != nil {
		return nil, err
	}
	targets, err := s.targets.gatewayTargets(ref, u, ann)
	if err != nil {
		return nil, err
	}
	hostnames = slices.Clone(hostnames)
	slices.Sort(hostnames)
	return source.EndpointsForHostnames(slices.Compact(hostnames), targets, ann.EndpointMeta(ref)), nil
}

// selectedServiceTargets returns the targets of the Services spec.selector
// selects (see gatewayServiceTargets); no selector selects none.
func (s istioTargets) selectedServiceTargets(ref source.ObjectRef, u *unstructured.Unstructured) ([]string, error) {
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
			targets = append(targets, gatewayServiceTargets(svc)...)
		}
	}
	return targets, nil
}

// gatewayServiceTargets returns the addresses of an ingress gateway
// Service as external-dns's Istio sources take them: its external IPs when
// it has any, else of each load balancer status entry its IP, or its host
// name when it has no IP. (The Service source takes both of an entry.)
func gatewayServiceTargets(svc *corev1.Service) []string {
	if len(svc.Spec.ExternalIPs) > 0 {
		return slices.Clone(svc.Spec.ExternalIPs)
	}
	var targets []string
	for _, ing := range svc.Status.LoadBalancer.Ingress {
		switch {
		case ing.IP != "":
			targets = append(targets, ing.IP)
		case ing.Hostname != "":
			targets = append(targets, ing.Hostname)
		}
	}
	return targets
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

// istioTargets finds where an Istio Gateway sends its traffic, for the
// Gateway and VirtualService sources: the Services its selector selects
// or the Ingress its ingress annotation names.
type istioTargets struct {
	services  cache.SharedIndexInformer
	ingresses cache.SharedIndexInformer
}

// newIstioTargets sets up the Services and Ingresses informers, from
// factory when given (no transform, not started), else from a cluster-wide
// factory of its own (gateway Services and the Ingresses a Gateway names
// live outside the Gateway's namespace) that start starts, whose
// informers report their errors through ctx's logger. start is nil with a
// given factory.
func newIstioTargets(ctx context.Context, kube k8sclient.Interface, factory k8sinformers.SharedInformerFactory, resync time.Duration, kind string) (istioTargets, func(ctx context.Context), error) {
	own := factory == nil
	if own {
		factory = k8sinformers.NewSharedInformerFactory(kube, resync)
	}
	t := istioTargets{
		services:  factory.Core().V1().Services().Informer(),
		ingresses: factory.Networking().V1().Ingresses().Informer(),
	}
	if !own {
		return t, nil, nil
	}
	if err := trackEach(ctx, kind, tracked{&t.services, "services"}, tracked{&t.ingresses, "ingresses.networking.k8s.io"}); err != nil {
		return istioTargets{}, nil, err
	}
	// Only specs and statuses are read: every annotation goes.
	opts := informers.TransformOptions{RemoveManagedFields: true, RemoveLastApplied: true, DropAnnotations: true}
	if err := t.services.SetTransform(informers.TransformerWithOptions[*corev1.Service](opts)); err != nil {
		return istioTargets{}, nil, fmt.Errorf("%s source: %w", kind, err)
	}
	opts.RemoveStatusConditions = true
	if err := t.ingresses.SetTransform(informers.TransformerWithOptions[*networkingv1.Ingress](opts)); err != nil {
		return istioTargets{}, nil, fmt.Errorf("%s source: %w", kind, err)
	}
	return t, func(ctx context.Context) { factory.Start(ctx.Done()) }, nil
}

// gatewayTargets returns the targets of the Istio Gateway gw (named ref),
// whose annotations are ann: the target annotation; else the load
// balancer status of the Ingress the ingress annotation names; else that
// of the Services spec.selector selects.
func (s istioTargets) gatewayTargets(ref source.ObjectRef, gw *unstructured.Unstructured, ann annotations.Values) ([]string, error) {
	if ann.Targets != nil {
		return ann.Targets, nil
	}
	if ann.Ingress != "" {
		return s.ingressTargets(ref, ann.Ingress)
	}
	return s.selectedServiceTargets(ref, gw)
}

// ingressTargets returns the load balancer addresses of the Ingress that
// value (the ingress annotation of the object ref) names: "name" in ref's
// namespace, or "namespace/name". Each status entry gives its IP, or its
// host name when it has no IP, as in external-dns. A malformed value or an
// Ingress that does not exist is an error.
func (s istioTargets) ingressTargets(ref source.ObjectRef, value string) ([]string, error) {
	ns, name, err := splitObjectName(value, ref.Namespace)
	if err != nil {
		return nil, fmt.Errorf("%s: ingress annotation: %w", ref, err)
	}
	ing, found, err := informers.Get[*networkingv1.Ingress](s.ingresses.GetStore(), ns, name)
	if err != nil {
		return nil, fmt.Errorf("%s: ingress annotation: %w", ref, err)
	}
	if !found {
		return nil, fmt.Errorf("%s: ingress annotation: %s not found", ref, named("Ingress", ns, name))
	}
	var targets []string
	for _, lb := range ing.Status.LoadBalancer.Ingress {
		switch {
		case lb.IP != "":
			targets = append(targets, lb.IP)
		case lb.Hostname != "":
			targets = append(targets, lb.Hostname)
		}
	}
	return targets, nil
}

// splitObjectName splits a reference to a namespaced object, "name" (in
// namespace ns) or "namespace/name".
func splitObjectName(value, ns string) (namespace, name string, err error) {
	parts := strings.Split(value, "/")
	switch {
	case len(parts) == 1 && parts[0] != "":
		return ns, parts[0], nil
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		return parts[0], parts[1], nil
	}
	return "", "", fmt.Errorf("%q is neither \"name\" nor \"namespace/name\"", value)
}
