package gatewayapi

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// Group is the API group of the Gateway API.
const Group = "gateway.networking.k8s.io"

// The values of the gateway-hostname-source annotation.
const (
	HostnameSourceAnnotationOnly   = "annotation-only"
	HostnameSourceDefinedHostsOnly = "defined-hosts-only"
)

// RouteKind describes one kind of route: its kind, the resource read by
// default, and the protocol its listeners must speak.
type RouteKind struct {
	// Kind is the route's kind, e.g. "HTTPRoute".
	Kind string
	// GVR is the resource read.
	GVR schema.GroupVersionResource
	// Protocol is the listener protocol the route attaches to: "HTTP"
	// (HTTPS listeners too), "TLS", "TCP" (TLS listeners too) or "UDP".
	Protocol string
}

// HTTPRouteKind is HTTPRoute v1. The kinds are at the versions
// external-dns v0.23 reads (through gateway-api v1.6).
func HTTPRouteKind() RouteKind {
	return RouteKind{Kind: "HTTPRoute", GVR: schema.GroupVersionResource{Group: Group, Version: "v1", Resource: "httproutes"}, Protocol: "HTTP"}
}

// GRPCRouteKind is GRPCRoute v1.
func GRPCRouteKind() RouteKind {
	return RouteKind{Kind: "GRPCRoute", GVR: schema.GroupVersionResource{Group: Group, Version: "v1", Resource: "grpcroutes"}, Protocol: "HTTPS"}
}

// TLSRouteKind is TLSRoute v1, as external-dns v0.23 reads it; for CRDs
// that serve only v1alpha2 set [Config.RouteGVR].
func TLSRouteKind() RouteKind {
	return RouteKind{Kind: "TLSRoute", GVR: schema.GroupVersionResource{Group: Group, Version: "v1", Resource: "tlsroutes"}, Protocol: "TLS"}
}

// TCPRouteKind is TCPRoute v1alpha2.
func TCPRouteKind() RouteKind {
	return RouteKind{Kind: "TCPRoute", GVR: schema.GroupVersionResource{Group: Group, Version: "v1alpha2", Resource: "tcproutes"}, Protocol: "TCP"}
}

// UDPRouteKind is UDPRoute v1alpha2.
func UDPRouteKind() RouteKind {
	return RouteKind{Kind: "UDPRoute", GVR: schema.GroupVersionResource{Group: Group, Version: "v1alpha2", Resource: "udproutes"}, Protocol: "UDP"}
}

// GatewayGVR returns the Gateway resource read by default (v1).
func GatewayGVR() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: Group, Version: "v1", Resource: "gateways"}
}

// Config configures a route source.
type Config struct {
	// Options apply to the routes: Namespace is the routes' namespace,
	// AnnotationFilter and LabelSelector select routes, FQDNTemplate runs
	// on the route's unstructured map (its isSource answers for
	// "gateway-⟨kind⟩route"), IgnoreHostnameAnnotation drops the hostname
	// annotation's names. TargetTemplate and FQDNTargetTemplate are not
	// used, as in external-dns.
	kubeopts.Options
	// GatewayName, when set, keeps only parents of that name
	// (--gateway-name).
	GatewayName string
	// GatewayNamespace, when set, keeps only Gateways in that namespace
	// (--gateway-namespace).
	GatewayNamespace string
	// GatewayLabelSelector selects Gateways by label (--gateway-label-filter).
	GatewayLabelSelector string
	// GatewayListenerSets makes routes attach to ListenerSets
	// (--gateway-listener-sets): a parentRef of kind ListenerSet names one,
	// whose listeners then take part like a Gateway's, with the targets
	// of the Gateway its spec.parentRef names. ListenerSets are read in
	// every namespace (list and watch on listenersets, Gateway API v1.5
	// CRDs) and selected by the route AnnotationFilter only; the Gateway
	// filters apply to their parent Gateways. Off, a route attached only
	// to ListenerSets publishes nothing.
	GatewayListenerSets bool
	// RouteGVR and GatewayGVR override the resources read.
	RouteGVR   schema.GroupVersionResource
	GatewayGVR schema.GroupVersionResource
	// DynamicFactory, when set, supplies the route and Gateway informers
	// and Factory the Namespace informer; the source then sets no
	// transform and starts nothing (see package kubernetes).
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
	Factory        k8sinformers.SharedInformerFactory
}

// routeSource is the implementation every route kind shares.
type routeSource struct {
	name       string
	kind       RouteKind
	cfg        Config
	routes     cache.SharedIndexInformer
	routeIndex string
	gateways   cache.SharedIndexInformer
	gwIndex    string
	namespaces cache.SharedIndexInformer
	// listenerSets is nil unless Config.GatewayListenerSets is set.
	listenerSets cache.SharedIndexInformer
	lsIndex      string
	all          []cache.SharedIndexInformer

	// parsed keeps the converted routes of the last Endpoints call by
	// object key, reused while the resourceVersion is unchanged: the
	// conversion from unstructured is most of the cost of a call.
	mu     sync.Mutex
	parsed map[string]parsedRoute
}

type parsedRoute struct {
	resourceVersion string
	rt              *route
	err             error
}

func newRouteSource(ctx context.Context, kube k8sclient.Interface, client dynamic.Interface, kind RouteKind, cfg Config) (*routeSource, error) {
	name := "gateway-" + strings.ToLower(kind.Kind)
	if err := cfg.Annotations.Validate(); err != nil {
		return nil, fmt.Errorf("%s source: %w", name, err)
	}
	var err error
	if cfg.Options, err = cfg.WithSource(name); err != nil {
		return nil, err
	}
	if !cfg.RouteGVR.Empty() {
		kind.GVR = cfg.RouteGVR
	}
	gwGVR := cfg.GatewayGVR
	if gwGVR.Empty() {
		gwGVR = GatewayGVR()
	}
	routeOpts, err := indexOptions(cfg.AnnotationFilter, cfg.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("%s source: %w", name, err)
	}
	gwOpts, err := indexOptions("", cfg.GatewayLabelSelector)
	if err != nil {
		return nil, fmt.Errorf("%s source: gateway %w", name, err)
	}
	if cfg.Factory == nil && kube == nil {
		return nil, fmt.Errorf("%s source: a clientset (for Namespaces) or Config.Factory is required", name)
	}
	if cfg.DynamicFactory == nil && client == nil {
		return nil, fmt.Errorf("%s source: a dynamic client or Config.DynamicFactory is required", name)
	}
	s := &routeSource{name: name, kind: kind, cfg: cfg}

	own := cfg.DynamicFactory == nil
	var starts []func(<-chan struct{})
	routeFactory, gwFactory := cfg.DynamicFactory, cfg.DynamicFactory
	if own {
		routeFactory = dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, cfg.ResyncPeriod, cfg.Namespace, nil)
		gwFactory = routeFactory
		if cfg.GatewayNamespace != cfg.Namespace {
			gwFactory = dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, cfg.ResyncPeriod, cfg.GatewayNamespace, nil)
			starts = append(starts, gwFactory.Start)
		}
		starts = append(starts, routeFactory.Start)
	}
	s.routes = routeFactory.ForResource(kind.GVR).Informer()
	s.gateways = gwFactory.ForResource(gwGVR).Informer()

	kubeFactory := cfg.Factory
	ownKube := kubeFactory == nil
	if ownKube {
		kubeFactory = k8sinformers.NewSharedInformerFactory(kube, cfg.ResyncPeriod)
		starts = append(starts, kubeFactory.Start)
	}
	s.namespaces = kubeFactory.Core().V1().Namespaces().Informer()

	if own {
		if err := track(ctx, name, &s.routes, kind.GVR.GroupResource().String()); err != nil {
			return nil, err
		}
		if err := track(ctx, name, &s.gateways, gwGVR.GroupResource().String()); err != nil {
			return nil, err
		}
		keep := transformOptions(cfg)
		if err := s.routes.SetTransform(informers.TransformerWithOptions[*unstructured.Unstructured](keep)); err != nil {
			return nil, fmt.Errorf("%s source: %w", name, err)
		}
		if err := s.gateways.SetTransform(informers.TransformerWithOptions[*unstructured.Unstructured](keep)); err != nil {
			return nil, fmt.Errorf("%s source: %w", name, err)
		}
	}
	if ownKube {
		if err := track(ctx, name, &s.namespaces, "namespaces"); err != nil {
			return nil, err
		}
		fn := informers.TransformerWithOptions[*corev1.Namespace](informers.TransformOptions{RemoveManagedFields: true, RemoveLastApplied: true, DropAnnotations: true})
		if err := s.namespaces.SetTransform(fn); err != nil {
			return nil, fmt.Errorf("%s source: %w", name, err)
		}
	}
	if s.routeIndex, err = addIndex(s.routes, cfg.AnnotationFilter+"|"+cfg.LabelSelector, routeOpts); err != nil {
		return nil, fmt.Errorf("%s source: %w", name, err)
	}
	if s.gwIndex, err = addIndex(s.gateways, "|"+cfg.GatewayLabelSelector, gwOpts); err != nil {
		return nil, fmt.Errorf("%s source: %w", name, err)
	}
	s.all = []cache.SharedIndexInformer{s.routes, s.gateways, s.namespaces}
	if cfg.GatewayListenerSets {
		lsFactory, err := s.watchListenerSets(ctx, client, routeFactory, gwFactory)
		if err != nil {
			return nil, fmt.Errorf("%s source: listenersets: %w", name, err)
		}
		if lsFactory != nil {
			starts = append(starts, lsFactory.Start)
		}
		s.all = append(s.all, s.listenerSets)
	}
	for _, start := range starts {
		start(ctx.Done())
	}
	return s, nil
}

// indexOptions parses the filters into index options.
func indexOptions(annotationFilter, labelSelector string) (informers.IndexOptions, error) {
	var opts informers.IndexOptions
	if annotationFilter != "" {
		sel, err := labels.Parse(annotationFilter)
		if err != nil {
			return opts, fmt.Errorf("annotation filter %q: %w", annotationFilter, err)
		}
		opts.AnnotationFilter = sel
	}
	if labelSelector != "" {
		sel, err := labels.Parse(labelSelector)
		if err != nil {
			return opts, fmt.Errorf("label selector %q: %w", labelSelector, err)
		}
		opts.LabelSelector = sel
	}
	return opts, nil
}

// addIndex adds the index of opts to inf under a name that includes the
// filters (key), so sources with equal filters share it.
func addIndex(inf cache.SharedIndexInformer, key string, opts informers.IndexOptions) (string, error) {
	name := informers.IndexName + ":" + key
	if _, ok := inf.GetIndexer().GetIndexers()[name]; ok {
		return name, nil
	}
	idx := informers.IndexerWithOptions[*unstructured.Unstructured](opts)[informers.IndexName]
	if err := inf.AddIndexers(cache.Indexers{name: idx}); err != nil {
		return "", fmt.Errorf("adding index %s: %w", name, err)
	}
	return name, nil
}

// transformOptions keep the annotations the sources read (routes and
// Gateways share one transform when they share an informer factory).
func transformOptions(cfg Config) informers.TransformOptions {
	prefixes := cfg.Annotations.Prefixes
	if len(prefixes) == 0 {
		prefixes = annotations.DefaultPrefixes()
	}
	var keys []string
	if cfg.AnnotationFilter != "" {
		if reqs, err := labels.ParseToRequirements(cfg.AnnotationFilter); err == nil {
			for _, r := range reqs {
				keys = append(keys, r.Key())
			}
		}
	}
	return informers.TransformOptions{
		RemoveManagedFields:    true,
		RemoveLastApplied:      true,
		RemoveStatusConditions: true, // status.conditions only; status.parents[].conditions stay
		DropAnnotations:        true,
		KeepAnnotationPrefixes: prefixes,
		KeepAnnotations:        keys,
	}
}

// String returns the source's name, "gateway-" and the lower-case kind,
// as external-dns names it.
func (s *routeSource) String() string { return s.name }

// HasSynced reports whether the route, Gateway, Namespace and (with
// GatewayListenerSets) ListenerSet informers have synced; until then Endpoints would be incomplete.
func (s *routeSource) HasSynced() bool {
	for _, inf := range s.all {
		if !inf.HasSynced() {
			return false
		}
	}
	return true
}

// WaitForSync blocks until the informers have synced or ctx is done; the
// error then names the list and watch errors of the informers the source
// built itself (see track).
func (s *routeSource) WaitForSync(ctx context.Context) error {
	return informers.WaitForInformers(ctx, s.all...)
}

// track makes *inf, an informer of a factory the source named name built
// for itself, report its list and watch errors ([informers.Track]), under
// resource: they are logged through the logger of ctx (with the key
// "source") instead of klog, and WaitForSync names them. The informers of
// a factory the source is given are not tracked: their errors are the
// program's to handle.
func track(ctx context.Context, name string, inf *cache.SharedIndexInformer, resource string) error {
	t, err := informers.Track(*inf, resource, logr.FromContextOrDiscard(ctx).WithValues("source", name))
	if err != nil {
		return fmt.Errorf("%s source: %w", name, err)
	}
	*inf = t
	return nil
}

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of routes, Gateways, Namespaces and ListenerSets, until ctx is
// done.
func (s *routeSource) AddEventHandler(ctx context.Context, handler func()) {
	for _, inf := range s.all {
		informers.AddEventHandlerUntilDone(ctx, inf, informers.DefaultEventHandler(handler))
	}
}

// gatewayInfo is a selected Gateway with its target override.
type gatewayInfo struct {
	gw        gateway
	overrides []string
	err       error // a bad target annotation: fails the routes using it
}

// Endpoints returns the endpoints of the selected routes, ordered by
// route then name. A route whose annotations, template or parents cannot
// be read is reported in a [*source.PartialError] under its resource key.
func (s *routeSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	log := logr.FromContextOrDiscard(ctx)
	gws, err := informers.ByIndex[*unstructured.Unstructured](s.gateways.GetIndexer(), s.gwIndex, informers.IndexMatch)
	if err != nil {
		return nil, fmt.Errorf("%s source: %w", s.name, err)
	}
	gateways := make(map[string]*gatewayInfo, len(gws))
	for _, u := range gws {
		if s.cfg.GatewayNamespace != "" && u.GetNamespace() != s.cfg.GatewayNamespace {
			continue
		}
		gateways[u.GetNamespace()+"/"+u.GetName()] = s.gatewayInfo(u)
	}
	lsets, err := s.listenerSetInfos(gateways)
	if err != nil {
		return nil, fmt.Errorf("%s source: %w", s.name, err)
	}
	routes, err := informers.ByIndex[*unstructured.Unstructured](s.routes.GetIndexer(), s.routeIndex, informers.IndexMatch)
	if err != nil {
		return nil, fmt.Errorf("%s source: %w", s.name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, next := s.parsed, make(map[string]parsedRoute, len(routes))
	var eps []*endpoint.Endpoint
	var failed *source.PartialError
	for _, u := range routes {
		if s.cfg.Namespace != "" && u.GetNamespace() != s.cfg.Namespace {
			continue // a shared factory may watch every namespace
		}
		ref := source.ObjectRef{Kind: s.kind.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
		key := u.GetNamespace() + "/" + u.GetName()
		p, ok := prev[key]
		if rv := u.GetResourceVersion(); !ok || rv == "" || p.resourceVersion != rv {
			p = parsedRoute{resourceVersion: rv, rt: &route{}}
			p.err = convert(u, s.kind.Kind, p.rt)
		}
		next[key] = p
		if p.err != nil {
			failed = failed.Add(ref.Key(), p.err)
			continue
		}
		routeEps, err := s.routeEndpoints(ref, u, p.rt, gateways, lsets)
		if err != nil {
			failed = failed.Add(ref.Key(), err)
			continue
		}
		if len(routeEps) == 0 {
			log.V(1).Info("route produced no endpoints", "route", ref.String())
		}
		eps = append(eps, routeEps...)
	}
	s.parsed = next
	return source.MergeEndpoints(eps), failed.OrNil()
}

// gatewayInfo reads a Gateway's fields and target annotation.
func (s *routeSource) gatewayInfo(u *unstructured.Unstructured) *gatewayInfo {
	info := &gatewayInfo{}
	if err := convert(u, "Gateway", &info.gw); err != nil {
		info.err = err
		return info
	}
	ref := source.ObjectRef{Kind: "Gateway", Namespace: u.GetNamespace(), Name: u.GetName()}
	ann, err := s.cfg.Annotations.Parse(ref, u.GetAnnotations())
	// Only the target annotation of a Gateway is read: a bad value of
	// another one fails none of its routes, as in external-dns.
	info.overrides, info.err = ann.Targets, annotations.ErrorsOf(err, isTarget)
	return info
}

// routeEndpoints returns the endpoints of the route u (converted: rt).
func (s *routeSource) routeEndpoints(ref source.ObjectRef, u *unstructured.Unstructured, rt *route, gateways map[string]*gatewayInfo, lsets map[string]*listenerSetInfo) ([]*endpoint.Endpoint, error) {
	ann, err := s.cfg.Annotations.Parse(ref, u.GetAnnotations())
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	hosts, err := s.routeHostnames(ref, u, rt, ann)
	if err != nil {
		return nil, err
	}
	targets := map[string][]string{}
	for _, ps := range rt.Status.Parents {
		if err := s.addParent(rt, ps, hosts, ann.Targets, gateways, lsets, targets); err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
	}
	names := make([]string, 0, len(targets))
	for h := range targets {
		names = append(names, h)
	}
	slices.Sort(names)
	meta := ann.EndpointMeta(ref)
	var eps []*endpoint.Endpoint
	for _, h := range names {
		eps = append(eps, source.EndpointsForHostname(h, targets[h], meta)...)
	}
	return eps, nil
}

// routeHostnames returns the names a route asks for, in external-dns's
// order: spec.hostnames, the hostname annotation, the template, and "" (any
// listener hostname) when the spec names none; the gateway-hostname-source
// annotation narrows this to the annotation or to the spec and template.
func (s *routeSource) routeHostnames(ref source.ObjectRef, u *unstructured.Unstructured, rt *route, ann annotations.Values) ([]string, error) {
	spec := rt.Spec.Hostnames
	if s.cfg.IgnoreHostnameAnnotation {
		ann.Hostnames = nil
	}
	switch strings.ToLower(ann.GatewayHostnameSource) {
	case HostnameSourceAnnotationOnly:
		return ann.Hostnames, nil
	case HostnameSourceDefinedHostsOnly:
		return fqdn.CombineHostnames(spec, s.cfg.FQDNTemplate, s.cfg.CombineFQDN, ref, u.Object)
	}
	hosts, err := fqdn.CombineHostnames(append(slices.Clone(spec), ann.Hostnames...), s.cfg.FQDNTemplate, s.cfg.CombineFQDN, ref, u.Object)
	if err != nil {
		return nil, err
	}
	if len(spec) == 0 {
		hosts = append(slices.Clone(hosts), "")
	}
	return hosts, nil
}

// addParent adds to targets the names the route gets through one parent
// status entry, when the parent is a selected Gateway (or, with
// GatewayListenerSets, ListenerSet) the route names in spec.parentRefs and
// the entry says Accepted.
func (s *routeSource) addParent(rt *route, ps routeParentStatus, hosts, routeTargets []string, gateways map[string]*gatewayInfo, lsets map[string]*listenerSetInfo, targets map[string][]string) error {
	ref := ps.ParentRef
	group, kind := or(ref.Group, Group), or(ref.Kind, "Gateway")
	if group != Group || (kind != "Gateway" && kind != listenerSetKind) {
		return nil
	}
	ns := or(ref.Namespace, rt.Namespace)
	if !slices.ContainsFunc(rt.Spec.ParentRefs, func(p parentRef) bool {
		return or(p.Group, Group) == group && or(p.Kind, "Gateway") == kind && p.Name == ref.Name && or(p.Namespace, rt.Namespace) == ns
	}) {
		return nil
	}
	if kind == listenerSetKind {
		return s.addListenerSetParent(rt, ps, ns, hosts, routeTargets, lsets, targets)
	}
	if s.cfg.GatewayName != "" && s.cfg.GatewayName != ref.Name {
		return nil
	}
	if !meta(ps.Conditions, "Accepted") {
		return nil
	}
	info, ok := gateways[ns+"/"+ref.Name]
	if !ok {
		return nil
	}
	if info.err != nil {
		return info.err
	}
	owner := fmt.Sprintf("Gateway %s/%s", info.gw.Namespace, info.gw.Name)
	return s.addListeners(rt, ref, owner, info.gw.Namespace, info.gw.Spec.Listeners, hosts, parentTargets(routeTargets, nil, info), targets)
}

// parentTargets returns the targets of the names a route gets through a
// parent: the route's target annotation, else the ListenerSet's (when the
// parent is one), else the Gateway's, else the Gateway's status.addresses.
func parentTargets(routeTargets, lsTargets []string, gw *gatewayInfo) []string {
	switch {
	case routeTargets != nil:
		return routeTargets
	case len(lsTargets) > 0:
		return lsTargets
	case gw.overrides != nil:
		return gw.overrides
	}
	addrs := make([]string, len(gw.gw.Status.Addresses))
	for i, a := range gw.gw.Status.Addresses {
		addrs[i] = a.Value
	}
	return addrs
}

// addListeners adds to targets, with the targets to, the names the route
// gets from the listeners of one parent (owner, in namespace ownerNs,
// names it in errors): those the parentRef's sectionName and port select,
// that speak the route's protocol and admit it, intersected with hosts.
func (s *routeSource) addListeners(rt *route, ref parentRef, owner, ownerNs string, listeners []listener, hosts, to []string, targets map[string][]string) error {
	section := or(ref.SectionName, "")
	for _, lis := range listeners {
		if section != "" && lis.Name != section {
			continue
		}
		if !protocolMatches(s.kind.Protocol, lis.Protocol) {
			continue
		}
		if ref.Port != nil && *ref.Port != lis.Port {
			continue
		}
		allowed, err := s.allowed(ownerNs, lis, rt)
		if err != nil {
			return fmt.Errorf("%s listener %q: %w", owner, lis.Name, err)
		}
		if !allowed {
			continue
		}
		lisHost := or(lis.Hostname, "")
		for _, h := range hosts {
			if h == "" && lisHost == "" {
				continue
			}
			if name, ok := matchHost(lisHost, h); ok {
				targets[name] = append(targets[name], to...)
			}
		}
	}
	return nil
}

// allowed reports whether the listener's allowedRoutes admit the route;
// "Same" is the namespace of the listener's owner (Gateway or
// ListenerSet).
func (s *routeSource) allowed(ownerNamespace string, lis listener, rt *route) (bool, error) {
	from := "Same"
	ar := lis.AllowedRoutes
	if ar != nil && ar.Namespaces != nil && ar.Namespaces.From != nil {
		from = *ar.Namespaces.From
	}
	switch from {
	case "All":
	case "Same":
		if ownerNamespace != rt.Namespace {
			return false, nil
		}
	case "Selector":
		sel, err := metav1.LabelSelectorAsSelector(ar.Namespaces.Selector)
		if err != nil {
			return false, fmt.Errorf("namespace selector: %w", err)
		}
		ns, found, err := informers.Get[*corev1.Namespace](s.namespaces.GetStore(), "", rt.Namespace)
		if err != nil || !found {
			return false, err
		}
		if !sel.Matches(labels.Set(ns.Labels)) {
			return false, nil
		}
	default:
		return false, nil
	}
	if ar == nil || len(ar.Kinds) == 0 {
		return true, nil
	}
	group := rt.GroupVersionKind().Group
	if group == "" {
		group = Group
	}
	kind := rt.Kind
	if kind == "" {
		kind = s.kind.Kind
	}
	return slices.ContainsFunc(ar.Kinds, func(gk routeGroupKind) bool {
		return or(gk.Group, Group) == group && gk.Kind == kind
	}), nil
}

// meta reports whether the condition of type t is True.
func meta(conds []metav1.Condition, t string) bool {
	for _, c := range conds {
		if c.Type == t {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

// isTarget reports whether an annotation name is the target annotation,
// the only one read on Gateways and ListenerSets.
func isTarget(name string) bool { return name == annotations.Target }
