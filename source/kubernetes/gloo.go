package kubernetes

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

// Resources the Gloo source reads: Proxies, and the VirtualServices and
// Gateways they were built from.
var (
	GlooProxyGVR          = schema.GroupVersionResource{Group: "gloo.solo.io", Version: "v1", Resource: "proxies"}
	GlooVirtualServiceGVR = schema.GroupVersionResource{Group: "gateway.solo.io", Version: "v1", Resource: "virtualservices"}
	GlooGatewayGVR        = schema.GroupVersionResource{Group: "gateway.solo.io", Version: "v1", Resource: "gateways"}
)

// DefaultGlooNamespace is the namespace of the Gloo Proxies read when
// [GlooProxyConfig.GlooNamespaces] is empty.
const DefaultGlooNamespace = "gloo-system"

// Kinds Gloo writes in the metadata of a Proxy to name the objects a
// virtual host or listener was built from.
const (
	glooVirtualServiceKind = "*v1.VirtualService"
	glooGatewayKind        = "*v1.Gateway"
)

// GlooProxyConfig configures a [GlooProxySource].
type GlooProxyConfig struct {
	kubeopts.Options
	// GlooNamespaces are the namespaces whose Proxies are read
	// (external-dns's --gloo-namespace, repeatable); empty means
	// [DefaultGlooNamespace]. Options.Namespace, when set, must be one of
	// them for any Proxy to be read.
	GlooNamespaces []string
	// DynamicFactory and Factory: see [ServiceConfig.Factory].
	// DynamicFactory supplies the Proxy, VirtualService and Gateway
	// informers, Factory the Service and Ingress ones.
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
	Factory        k8sinformers.SharedInformerFactory
}

// GlooProxySource publishes Gloo Edge Proxies (gloo.solo.io/v1): the
// domains of the virtual hosts of every listener (HTTP listeners, and the
// virtual hosts an aggregate listener's filter chains refer to). Targets
// are, in this order of precedence: the Proxy's target annotation; the
// load balancer status of the Ingress named by the ingress annotation of
// the Gateways (gateway.solo.io) the listeners come from; the load
// balancer status of the Service of the Proxy's name in its namespace
// (gateway-proxy). The TTL, set identifier and provider-specific
// annotations are those of the VirtualServices a virtual host comes from;
// the hostname annotation is not read. As in external-dns the endpoints
// carry no resource label.
//
//zonesync:source:name=gloo-proxy
//zonesync:source:category=kubernetes
//zonesync:source:description=Gloo Proxies: virtual host domains pointing at the proxy Service's load balancer, with VirtualService annotations.
//zonesync:source:resources=proxies.gloo.solo.io,virtualservices.gateway.solo.io,gateways.gateway.solo.io,services,ingresses.networking.k8s.io
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=GlooProxyConfig
type GlooProxySource struct {
	cfg             GlooProxyConfig
	namespaces      []string
	proxies         *dynamicResource
	virtualServices cache.SharedIndexInformer
	gateways        cache.SharedIndexInformer
	services        cache.SharedIndexInformer
	ingresses       cache.SharedIndexInformer
	inf             informerSet
}

var (
	_ source.Source = (*GlooProxySource)(nil)
	_ source.Syncer = (*GlooProxySource)(nil)
)

// NewGlooProxySource returns a Gloo Proxy source; see [NewServiceSource]
// for the informer life cycle. The VirtualService, Gateway, Service and
// Ingress informers cover all namespaces.
func NewGlooProxySource(ctx context.Context, kube k8sclient.Interface, client dynamic.Interface, cfg GlooProxyConfig) (*GlooProxySource, error) {
	var err error
	if cfg.Options, err = cfg.WithSource("gloo-proxy"); err != nil {
		return nil, err
	}
	namespaces := slices.Clone(cfg.GlooNamespaces)
	if len(namespaces) == 0 {
		namespaces = []string{DefaultGlooNamespace}
	}
	for _, ns := range namespaces {
		if ns == "" {
			return nil, fmt.Errorf("gloo-proxy source: empty Gloo namespace in %q", namespaces)
		}
	}
	slices.Sort(namespaces)
	namespaces = slices.Compact(namespaces)
	proxyOpts := cfg.Options
	if proxyOpts.Namespace == "" && len(namespaces) == 1 {
		proxyOpts.Namespace = namespaces[0]
	}
	proxies, startProxies, err := newDynamicResource(ctx, client, cfg.DynamicFactory, proxyOpts, "gloo-proxy", GlooProxyGVR)
	if err != nil {
		return nil, err
	}
	s := &GlooProxySource{cfg: cfg, namespaces: namespaces, proxies: proxies}

	dynFactory := cfg.DynamicFactory
	ownDyn := dynFactory == nil
	if ownDyn {
		dynFactory = dynamicinformer.NewDynamicSharedInformerFactory(client, cfg.ResyncPeriod)
	}
	s.virtualServices = dynFactory.ForResource(GlooVirtualServiceGVR).Informer()
	s.gateways = dynFactory.ForResource(GlooGatewayGVR).Informer()
	factory := cfg.Factory
	ownKube := factory == nil
	if ownKube {
		factory = k8sinformers.NewSharedInformerFactory(kube, cfg.ResyncPeriod)
	}
	s.services = factory.Core().V1().Services().Informer()
	s.ingresses = factory.Networking().V1().Ingresses().Informer()
	if ownDyn {
		if err := trackEach(ctx, "gloo-proxy", tracked{&s.virtualServices, GlooVirtualServiceGVR.GroupResource().String()},
			tracked{&s.gateways, GlooGatewayGVR.GroupResource().String()}); err != nil {
			return nil, err
		}
		// Only the annotations of these objects are read.
		fn := informers.TransformerWithOptions[*unstructured.Unstructured](annotationKeys(cfg.Options))
		for _, inf := range []cache.SharedIndexInformer{s.virtualServices, s.gateways} {
			if err := inf.SetTransform(fn); err != nil {
				return nil, fmt.Errorf("gloo-proxy source: %w", err)
			}
		}
	}
	if ownKube {
		if err := trackEach(ctx, "gloo-proxy", tracked{&s.services, "services"}, tracked{&s.ingresses, "ingresses.networking.k8s.io"}); err != nil {
			return nil, err
		}
		drop := informers.TransformOptions{RemoveManagedFields: true, RemoveLastApplied: true, DropAnnotations: true, RemoveStatusConditions: true}
		if err := s.services.SetTransform(informers.TransformerWithOptions[*corev1.Service](drop)); err != nil {
			return nil, fmt.Errorf("gloo-proxy source: %w", err)
		}
		if err := s.ingresses.SetTransform(informers.TransformerWithOptions[*networkingv1.Ingress](drop)); err != nil {
			return nil, fmt.Errorf("gloo-proxy source: %w", err)
		}
	}
	s.inf = informerSet{proxies.informer, s.virtualServices, s.gateways, s.services, s.ingresses}
	if startProxies != nil {
		startProxies(ctx)
	}
	if ownDyn {
		dynFactory.Start(ctx.Done())
	}
	if ownKube {
		factory.Start(ctx.Done())
	}
	return s, nil
}

// String returns "gloo-proxy".
func (s *GlooProxySource) String() string { return "gloo-proxy" }

// Endpoints returns the endpoints of the selected Proxies in the Gloo
// namespaces.
func (s *GlooProxySource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	objs, err := s.proxies.list()
	if err != nil {
		return nil, fmt.Errorf("gloo-proxy source: %w", err)
	}
	return endpointsOf(objs, func(u *unstructured.Unstructured) (source.ObjectRef, bool) {
		if _, ok := slices.BinarySearch(s.namespaces, u.GetNamespace()); !ok {
			return source.ObjectRef{}, false
		}
		return source.ObjectRef{Kind: "Proxy", Namespace: u.GetNamespace(), Name: u.GetName()}, true
	}, s.proxyEndpoints)
}

// glooHost is one domain of a virtual host with what the annotations of
// its VirtualServices ask for.
type glooHost struct {
	name string
	meta source.EndpointMeta
}

func (s *GlooProxySource) proxyEndpoints(ref source.ObjectRef, u *unstructured.Unstructured) ([]*endpoint.Endpoint, error) {
	ann, err := s.cfg.Annotations.Parse(ref, u.GetAnnotations())
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	listeners, _, err := unstructured.NestedSlice(u.Object, "spec", "listeners")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.listeners: %w", ref, err)
	}
	var hosts []glooHost
	for i, l := range listeners {
		listener, ok := l.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: spec.listeners[%d] is not an object", ref, i)
		}
		field := fmt.Sprintf("spec.listeners[%d]", i)
		vhosts, err := glooVirtualHosts(ref, field, listener)
		if err != nil {
			return nil, err
		}
		for _, vh := range vhosts {
			got, err := s.virtualHostDomains(ref, vh.field, vh.obj)
			if err != nil {
				return nil, err
			}
			hosts = append(hosts, got...)
		}
	}

	targets := ann.Targets
	if targets == nil {
		if targets, err = s.gatewayIngressTargets(ref, listeners); err != nil {
			return nil, err
		}
	}
	if len(targets) == 0 {
		if targets, err = s.proxyServiceTargets(ref); err != nil {
			return nil, err
		}
	}

	// Sorted by name, keeping the order of the virtual hosts among the
	// entries of one name; of entries with the same name, set identifier
	// and TTL, only the first is kept (external-dns merges them).
	slices.SortStableFunc(hosts, func(a, b glooHost) int { return cmp.Compare(a.name, b.name) })
	hosts = slices.CompactFunc(hosts, func(a, b glooHost) bool {
		return a.name == b.name && a.meta.SetIdentifier == b.meta.SetIdentifier && a.meta.TTL == b.meta.TTL
	})
	var eps []*endpoint.Endpoint
	for _, h := range hosts {
		eps = append(eps, source.EndpointsForHostname(h.name, targets, h.meta)...)
	}
	// Records of the templates have no VirtualService to take
	// annotations from.
	return s.cfg.TemplateEndpoints(eps, ref, u.Object, source.EndpointMeta{})
}

// glooVirtualHost is a virtual host of a Proxy and the field it is at.
type glooVirtualHost struct {
	field string
	obj   map[string]any
}

// glooVirtualHosts returns the virtual hosts of the listener at field:
// those of httpListener.virtualHosts, then those the filter chains of
// aggregateListener refer to by name (names not found are skipped).
func glooVirtualHosts(ref source.ObjectRef, field string, listener map[string]any) ([]glooVirtualHost, error) {
	var out []glooVirtualHost
	list, _, err := unstructured.NestedSlice(listener, "httpListener", "virtualHosts")
	if err != nil {
		return nil, fmt.Errorf("%s: %s.httpListener.virtualHosts: %w", ref, field, err)
	}
	for j, vh := range list {
		m, ok := vh.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %s.httpListener.virtualHosts[%d] is not an object", ref, field, j)
		}
		out = append(out, glooVirtualHost{fmt.Sprintf("%s.httpListener.virtualHosts[%d]", field, j), m})
	}
	chains, _, err := unstructured.NestedSlice(listener, "aggregateListener", "httpFilterChains")
	if err != nil {
		return nil, fmt.Errorf("%s: %s.aggregateListener.httpFilterChains: %w", ref, field, err)
	}
	if len(chains) == 0 {
		return out, nil
	}
	shared, _, err := unstructured.NestedMap(listener, "aggregateListener", "httpResources", "virtualHosts")
	if err != nil {
		return nil, fmt.Errorf("%s: %s.aggregateListener.httpResources.virtualHosts: %w", ref, field, err)
	}
	for j, c := range chains {
		chain, ok := c.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %s.aggregateListener.httpFilterChains[%d] is not an object", ref, field, j)
		}
		refs, _, err := unstructured.NestedStringSlice(chain, "virtualHostRefs")
		if err != nil {
			return nil, fmt.Errorf("%s: %s.aggregateListener.httpFilterChains[%d].virtualHostRefs: %w", ref, field, j, err)
		}
		for _, name := range refs {
			vh, found := shared[name]
			if !found {
				continue
			}
			m, ok := vh.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %s.aggregateListener.httpResources.virtualHosts[%q] is not an object", ref, field, name)
			}
			out = append(out, glooVirtualHost{fmt.Sprintf("%s.aggregateListener.httpResources.virtualHosts[%q]", field, name), m})
		}
	}
	return out, nil
}

// virtualHostDomains returns the domains of the virtual host vh (at field)
// with the annotations of its VirtualServices.
func (s *GlooProxySource) virtualHostDomains(ref source.ObjectRef, field string, vh map[string]any) ([]glooHost, error) {
	domains, _, err := unstructured.NestedStringSlice(vh, "domains")
	if err != nil {
		return nil, fmt.Errorf("%s: %s.domains: %w", ref, field, err)
	}
	if len(domains) == 0 {
		return nil, nil
	}
	merged := map[string]string{}
	// metadata.sources[] {kind, name, namespace}, then
	// metadataStatic.sources[] {resourceKind, resourceRef{name, namespace}};
	// a later VirtualService's annotation wins.
	for _, path := range []struct {
		list, kind string
		ref        []string
	}{
		{"metadata", "kind", nil},
		{"metadataStatic", "resourceKind", []string{"resourceRef"}},
	} {
		sources, _, err := unstructured.NestedSlice(vh, path.list, "sources")
		if err != nil {
			return nil, fmt.Errorf("%s: %s.%s.sources: %w", ref, field, path.list, err)
		}
		for k, src := range sources {
			at := fmt.Sprintf("%s.%s.sources[%d]", field, path.list, k)
			m, ok := src.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %s is not an object", ref, at)
			}
			if kind, _, _ := unstructured.NestedString(m, path.kind); kind != glooVirtualServiceKind {
				continue
			}
			ns, name, err := nestedNamespaceName(m, path.ref)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", ref, at, err)
			}
			vs, err := lookupUnstructured(s.virtualServices, ns, name)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %s: %w", ref, at, named("VirtualService", ns, name), err)
			}
			maps.Copy(merged, vs.GetAnnotations())
		}
	}
	vsAnn, err := s.cfg.Annotations.Parse(ref, s.virtualServiceAnnotations(merged))
	if err != nil {
		return nil, fmt.Errorf("%s, annotations of its VirtualServices: %w", field, err)
	}
	meta := source.EndpointMeta{TTL: vsAnn.TTL, SetIdentifier: vsAnn.SetIdentifier, ProviderSpecific: vsAnn.ProviderSpecific}
	var out []glooHost
	for j, d := range domains {
		d = strings.TrimSuffix(d, ".")
		if d == "" || d == "*" {
			continue
		}
		if err := checkHost(ref, fmt.Sprintf("%s.domains[%d]", field, j), d); err != nil {
			return nil, err
		}
		out = append(out, glooHost{name: d, meta: meta})
	}
	return out, nil
}

// virtualServiceAnnotations returns the annotations of VirtualServices
// that matter to the source: without the controller, hostname, internal
// hostname and target ones, which external-dns does not read there.
func (s *GlooProxySource) virtualServiceAnnotations(ann map[string]string) map[string]string {
	prefixes := s.cfg.Annotations.Prefixes
	if len(prefixes) == 0 {
		prefixes = annotations.DefaultPrefixes()
	}
	out := maps.Clone(ann)
	for _, p := range prefixes {
		for _, name := range []string{annotations.Controller, annotations.Hostname, annotations.InternalHostname, annotations.Target} {
			delete(out, p+name)
		}
	}
	return out
}

// nestedNamespaceName reads name and namespace of m, under the fields
// path.
func nestedNamespaceName(m map[string]any, path []string) (ns, name string, err error) {
	if name, _, err = unstructured.NestedString(m, append(slices.Clone(path), "name")...); err != nil {
		return "", "", err
	}
	if ns, _, err = unstructured.NestedString(m, append(slices.Clone(path), "namespace")...); err != nil {
		return "", "", err
	}
	return ns, name, nil
}

// lookupUnstructured returns the object ns/name of the informer's store.
func lookupUnstructured(inf cache.SharedIndexInformer, ns, name string) (*unstructured.Unstructured, error) {
	item, ok, err := inf.GetStore().GetByKey(storeKey(ns, name))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("not found")
	}
	u, ok := item.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("cache holds %T", item)
	}
	return u, nil
}

func storeKey(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// gatewayIngressTargets returns the load balancer targets of the Ingresses
// that the Gateways of the listeners' metadataStatic sources name in their
// ingress annotation ("name" in the Gateway's namespace, or
// "namespace/name"): of each entry its IP, else its host name.
func (s *GlooProxySource) gatewayIngressTargets(ref source.ObjectRef, listeners []any) ([]string, error) {
	var targets []string
	for i, l := range listeners {
		listener, _ := l.(map[string]any) // checked by the caller
		sources, _, err := unstructured.NestedSlice(listener, "metadataStatic", "sources")
		if err != nil {
			return nil, fmt.Errorf("%s: spec.listeners[%d].metadataStatic.sources: %w", ref, i, err)
		}
		for k, src := range sources {
			at := fmt.Sprintf("spec.listeners[%d].metadataStatic.sources[%d]", i, k)
			m, ok := src.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %s is not an object", ref, at)
			}
			if kind, _, _ := unstructured.NestedString(m, "resourceKind"); kind != glooGatewayKind {
				continue
			}
			ns, name, err := nestedNamespaceName(m, []string{"resourceRef"})
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", ref, at, err)
			}
			gw, err := lookupUnstructured(s.gateways, ns, name)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %s: %w", ref, at, named("Gateway", ns, name), err)
			}
			value := s.annotation(gw.GetAnnotations(), annotations.Ingress)
			if value == "" {
				continue
			}
			ingNS, ingName := gw.GetNamespace(), value
			switch parts := strings.Split(value, "/"); len(parts) {
			case 1:
			case 2:
				if parts[0] != "" {
					ingNS = parts[0]
				}
				ingName = parts[1]
			default:
				return nil, fmt.Errorf("%s: Gateway %s/%s: ingress annotation %q is not name or namespace/name", ref, gw.GetNamespace(), gw.GetName(), value)
			}
			item, found, err := s.ingresses.GetStore().GetByKey(storeKey(ingNS, ingName))
			if err != nil {
				return nil, fmt.Errorf("%s: Gateway %s/%s: %s: %w", ref, gw.GetNamespace(), gw.GetName(), named("Ingress", ingNS, ingName), err)
			}
			if !found {
				return nil, fmt.Errorf("%s: Gateway %s/%s: %s not found", ref, gw.GetNamespace(), gw.GetName(), named("Ingress", ingNS, ingName))
			}
			ing, ok := item.(*networkingv1.Ingress)
			if !ok {
				return nil, fmt.Errorf("%s: %s: cache holds %T", ref, named("Ingress", ingNS, ingName), item)
			}
			for _, lb := range ing.Status.LoadBalancer.Ingress {
				if lb.IP != "" {
					targets = append(targets, lb.IP)
				} else if lb.Hostname != "" {
					targets = append(targets, lb.Hostname)
				}
			}
		}
	}
	return targets, nil
}

// annotation returns the value of the annotation name under the first of
// the source's prefixes that has it.
func (s *GlooProxySource) annotation(ann map[string]string, name string) string {
	prefixes := s.cfg.Annotations.Prefixes
	if len(prefixes) == 0 {
		prefixes = annotations.DefaultPrefixes()
	}
	for _, p := range prefixes {
		if v, ok := ann[p+name]; ok {
			return v
		}
	}
	return ""
}

// proxyServiceTargets returns the load balancer targets of the Service of
// the Proxy's name and namespace; a Service of another type has none.
func (s *GlooProxySource) proxyServiceTargets(ref source.ObjectRef) ([]string, error) {
	item, found, err := s.services.GetStore().GetByKey(storeKey(ref.Namespace, ref.Name))
	if err != nil {
		return nil, fmt.Errorf("%s: Service %s/%s: %w", ref, ref.Namespace, ref.Name, err)
	}
	if !found {
		return nil, fmt.Errorf("%s: Service %s/%s not found", ref, ref.Namespace, ref.Name)
	}
	svc, ok := item.(*corev1.Service)
	if !ok {
		return nil, fmt.Errorf("%s: Service %s/%s: cache holds %T", ref, ref.Namespace, ref.Name, item)
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return nil, nil
	}
	// The status only: external IPs are not read here.
	var targets []string
	for _, lb := range svc.Status.LoadBalancer.Ingress {
		if lb.IP != "" {
			targets = append(targets, lb.IP)
		}
		if lb.Hostname != "" {
			targets = append(targets, lb.Hostname)
		}
	}
	return targets, nil
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *GlooProxySource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *GlooProxySource) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads (Proxies, VirtualServices,
// Gateways, Services and Ingresses), until ctx is done.
func (s *GlooProxySource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
