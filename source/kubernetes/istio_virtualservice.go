package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strings"

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
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// IstioVirtualServiceGVR is the resource of Istio VirtualServices read by
// default; set [IstioVirtualServiceConfig.GVR] for releases before Istio
// 1.22 (v1beta1).
var IstioVirtualServiceGVR = schema.GroupVersionResource{Group: "networking.istio.io", Version: "v1", Resource: "virtualservices"}

// IstioMeshGateway is the gateway name by which a VirtualService applies
// to the sidecars of the mesh; it binds no host to a load balancer and is
// ignored.
const IstioMeshGateway = "mesh"

// IstioVirtualServiceConfig configures an [IstioVirtualServiceSource].
type IstioVirtualServiceConfig struct {
	kubeopts.Options
	// GVR overrides [IstioVirtualServiceGVR], GatewayGVR
	// [IstioGatewayGVR].
	GVR        schema.GroupVersionResource
	GatewayGVR schema.GroupVersionResource
	// DynamicFactory and Factory: see [ServiceConfig.Factory].
	// DynamicFactory supplies the VirtualServices and Gateways informers,
	// Factory the Services and Ingresses ones. A DynamicFactory limited to
	// one namespace finds no Gateway of another.
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
	Factory        k8sinformers.SharedInformerFactory
}

// IstioVirtualServiceSource publishes Istio VirtualServices
// (networking.istio.io): the hosts of spec.hosts ("namespace/" prefixes
// stripped, "*" skipped) and the hostname annotation. Each name points at
// the target annotation, or else at the targets of the Gateways of
// spec.gateways that it binds to ("name" in the VirtualService's
// namespace or "namespace/name"; "mesh" and Gateways that do not exist
// are ignored). A name binds to a Gateway when spec.exportTo (if any)
// exports the VirtualService to the Gateway's namespace and one of the
// Gateway's server hosts matches it: "*", the name itself, or a "*."
// wildcard the name ends with, under a "namespace/" part that is "*",
// the VirtualService's namespace, or "." when both share a namespace. A
// Gateway's targets are those [IstioGatewaySource] gives it: its target
// annotation, the Ingress of its ingress annotation, or the Services its
// selector selects.
//
// Gateways are read in every namespace whatever Options.Namespace says,
// as are Services and Ingresses.
//
//zonesync:source:name=istio-virtualservice
//zonesync:source:category=kubernetes
//zonesync:source:description=Istio VirtualServices: hosts pointing at the load balancer of the Istio Gateways they bind to.
//zonesync:source:resources=virtualservices.networking.istio.io,gateways.networking.istio.io,services,ingresses.networking.k8s.io
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=IstioVirtualServiceConfig
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate
type IstioVirtualServiceSource struct {
	cfg      IstioVirtualServiceConfig
	res      *dynamicResource
	gateways cache.SharedIndexInformer
	targets  istioTargets
	inf      informerSet
}

var (
	_ source.Source = (*IstioVirtualServiceSource)(nil)
	_ source.Syncer = (*IstioVirtualServiceSource)(nil)
)

// NewIstioVirtualServiceSource returns an Istio VirtualService source; see
// [NewServiceSource] for the informer life cycle.
func NewIstioVirtualServiceSource(ctx context.Context, kube k8sclient.Interface, client dynamic.Interface, cfg IstioVirtualServiceConfig) (*IstioVirtualServiceSource, error) {
	var err error
	if cfg.Options, err = cfg.WithSource("istio-virtualservice"); err != nil {
		return nil, err
	}
	const kind = "istio-virtualservice"
	gvr := cfg.GVR
	if gvr.Empty() {
		gvr = IstioVirtualServiceGVR
	}
	gwGVR := cfg.GatewayGVR
	if gwGVR.Empty() {
		gwGVR = IstioGatewayGVR
	}
	res, start, err := newDynamicResource(ctx, client, cfg.DynamicFactory, cfg.Options, kind, gvr)
	if err != nil {
		return nil, err
	}
	gwFactory := cfg.DynamicFactory
	ownGw := gwFactory == nil
	if ownGw {
		// The Gateways a VirtualService names often live in istio-system.
		gwFactory = dynamicinformer.NewDynamicSharedInformerFactory(client, cfg.ResyncPeriod)
	}
	gateways := gwFactory.ForResource(gwGVR).Informer()
	if ownGw {
		if err := trackEach(ctx, kind, tracked{&gateways, gwGVR.GroupResource().String()}); err != nil {
			return nil, err
		}
		opts := annotationKeys(cfg.Options)
		opts.RemoveStatusConditions = true
		if err := gateways.SetTransform(informers.TransformerWithOptions[*unstructured.Unstructured](opts)); err != nil {
			return nil, fmt.Errorf("%s source: %w", kind, err)
		}
	}
	targets, startTargets, err := newIstioTargets(ctx, kube, cfg.Factory, cfg.ResyncPeriod, kind)
	if err != nil {
		return nil, err
	}
	s := &IstioVirtualServiceSource{cfg: cfg, res: res, gateways: gateways, targets: targets}
	s.inf = informerSet{res.informer, gateways, targets.services, targets.ingresses}
	if start != nil {
		start(ctx)
	}
	if ownGw {
		gwFactory.Start(ctx.Done())
	}
	if startTargets != nil {
		startTargets(ctx)
	}
	return s, nil
}

// String returns "istio-virtualservice".
func (s *IstioVirtualServiceSource) String() string { return "istio-virtualservice" }

// Endpoints returns the endpoints of the selected VirtualServices.
func (s *IstioVirtualServiceSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return s.res.endpoints(ctx, "istio-virtualservice", kindRef("VirtualService"), s.virtualServiceEndpoints)
}

func (s *IstioVirtualServiceSource) virtualServiceEndpoints(ref source.ObjectRef, u *unstructured.Unstructured) ([]*endpoint.Endpoint, error) {
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
		if _, after, ok := strings.Cut(h, "/"); ok {
			h = after
		}
		if h == "" || h == "*" {
			continue
		}
		if err := checkHost(ref, fmt.Sprintf("spec.hosts[%d]", i), h); err != nil {
			return nil, err
		}
		hosts = append(hosts, h)
	}
	names := append(hosts, s.cfg.AnnotatedHostnames(ann)...)
	slices.Sort(names)
	names = slices.Compact(names)
	meta := ann.EndpointMeta(ref)
	var gws []vsGateway
	gwsRead := false
	build := func(names []string) ([]*endpoint.Endpoint, error) {
		if ann.Targets != nil {
			return source.EndpointsForHostnames(names, ann.Targets, meta), nil
		}
		if len(names) == 0 {
			return nil, nil
		}
		if !gwsRead {
			var err error
			if gws, err = s.boundGateways(ref, u); err != nil {
				return nil, err
			}
			gwsRead = true
		}
		var eps []*endpoint.Endpoint
		for _, h := range names {
			var targets []string
			for _, gw := range gws {
				if !gw.binds(h) {
					continue
				}
				t, err := gw.targets()
				if err != nil {
					return nil, err
				}
				targets = append(targets, t...)
			}
			eps = append(eps, source.EndpointsForHostname(h, targets, meta)...)
		}
		return eps, nil
	}
	eps, err := build(names)
	if err != nil {
		return nil, err
	}
	// The template runs when the VirtualService's own names gave no
	// records (hosts no gateway binds count as none), or always with
	// CombineFQDN, as in external-dns; its names bind as the others do.
	if s.cfg.FQDNTemplate.IsEmpty() || !s.cfg.TemplateRuns(len(eps)) {
		return eps, nil
	}
	templated, err := s.cfg.FQDNTemplate.Execute(ref, u.Object)
	if err != nil {
		return nil, err
	}
	templated = slices.DeleteFunc(slices.Clone(templated), func(n string) bool { _, found := slices.BinarySearch(names, n); return found })
	slices.Sort(templated)
	more, err := build(slices.Compact(templated))
	if err != nil {
		return nil, err
	}
	return append(eps, more...), nil
}

// vsGateway is a Gateway of a VirtualService's spec.gateways, with what
// deciding which host names bind to it needs.
type vsGateway struct {
	// vsNamespace and exportTo are the VirtualService's.
	vsNamespace string
	exportTo    []string
	namespace   string
	// hosts are the server hosts of the Gateway, as written.
	hosts   []string
	targets func() ([]string, error)
}

// boundGateways returns the Gateways that exist among spec.gateways of the
// VirtualService u, in its order. A Gateway's targets are looked up (once)
// only when a host name binds to it.
func (s *IstioVirtualServiceSource) boundGateways(ref source.ObjectRef, u *unstructured.Unstructured) ([]vsGateway, error) {
	names, _, err := unstructured.NestedStringSlice(u.Object, "spec", "gateways")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.gateways: %w", ref, err)
	}
	exportTo, _, err := unstructured.NestedStringSlice(u.Object, "spec", "exportTo")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.exportTo: %w", ref, err)
	}
	var out []vsGateway
	for i, name := range names {
		if name == "" || name == IstioMeshGateway {
			continue
		}
		ns, n, err := splitObjectName(name, ref.Namespace)
		if err != nil {
			return nil, fmt.Errorf("%s: spec.gateways[%d]: %w", ref, i, err)
		}
		gw, found, err := informers.Get[*unstructured.Unstructured](s.gateways.GetStore(), ns, n)
		if err != nil {
			return nil, fmt.Errorf("%s: spec.gateways[%d]: %w", ref, i, err)
		}
		if !found {
			continue
		}
		gwRef := objectRef(gw, "Gateway")
		hosts, err := gatewayServerHosts(gwRef, gw)
		if err != nil {
			return nil, fmt.Errorf("%s: spec.gateways[%d]: %w", ref, i, err)
		}
		out = append(out, vsGateway{
			vsNamespace: ref.Namespace,
			exportTo:    exportTo,
			namespace:   ns,
			hosts:       hosts,
			targets: memoize(func() ([]string, error) {
				t, err := s.gatewayTargets(gwRef, gw)
				if err != nil {
					return nil, fmt.Errorf("%s: spec.gateways[%d]: %w", ref, i, err)
				}
				return t, nil
			}),
		})
	}
	return out, nil
}

// gatewayTargets returns the targets of the Gateway gw as the Gateway
// source finds them, whatever its controller annotation says: a Gateway
// left to another controller still carries the traffic of the
// VirtualServices bound to it.
func (s *IstioVirtualServiceSource) gatewayTargets(ref source.ObjectRef, gw *unstructured.Unstructured) ([]string, error) {
	cfg := s.cfg.Annotations
	ann, err := cfg.Parse(ref, gw.GetAnnotations())
	if ann.Skip && ann.Controller != "" {
		cfg.ControllerName = ann.Controller
		ann, err = cfg.Parse(ref, gw.GetAnnotations())
	}
	if err != nil {
		return nil, err
	}
	return s.targets.gatewayTargets(ref, gw, ann)
}

// memoize returns a function that calls fn the first time only and returns
// its results every time.
func memoize(fn func() ([]string, error)) func() ([]string, error) {
	var (
		done    bool
		targets []string
		err     error
	)
	return func() ([]string, error) {
		if !done {
			targets, err = fn()
			done = true
		}
		return targets, err
	}
}

// gatewayServerHosts returns the hosts of every server of the Gateway gw.
func gatewayServerHosts(ref source.ObjectRef, gw *unstructured.Unstructured) ([]string, error) {
	servers, _, err := unstructured.NestedSlice(gw.Object, "spec", "servers")
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
		hosts = append(hosts, list...)
	}
	return hosts, nil
}

// binds reports whether the host name host of the VirtualService binds to
// the Gateway g, by the rules of Istio's Gateway server hosts.
func (g vsGateway) binds(host string) bool {
	if len(g.exportTo) > 0 && !slices.ContainsFunc(g.exportTo, func(ns string) bool {
		return ns == "*" || ns == g.namespace || (ns == "." && g.namespace == g.vsNamespace)
	}) {
		return false
	}
	for _, h := range g.hosts {
		ns := "*"
		if strings.Contains(h, "/") {
			parts := strings.Split(h, "/")
			if len(parts) != 2 {
				continue
			}
			ns, h = parts[0], parts[1]
		}
		if ns != "*" && ns != g.vsNamespace && (ns != "." || g.vsNamespace != g.namespace) {
			continue
		}
		if h == "*" || h == host || (strings.HasPrefix(h, "*.") && strings.HasSuffix(host, h[1:])) {
			return true
		}
	}
	return false
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *IstioVirtualServiceSource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *IstioVirtualServiceSource) WaitForSync(ctx context.Context) error {
	return s.inf.WaitForSync(ctx)
}

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *IstioVirtualServiceSource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
