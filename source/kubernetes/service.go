package kubernetes

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	k8sinformers "k8s.io/client-go/informers"
	k8sclient "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/informers"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// ServiceConfig configures a [ServiceSource].
type ServiceConfig struct {
	kubeopts.Options
	// PublishInternal publishes the cluster IP of ClusterIP Services
	// (--publish-internal-services).
	PublishInternal bool
	// PublishHostIP publishes, for headless Services, the IP of the node a
	// pod runs on instead of the pod IP (--publish-host-ip), as the
	// endpoints-type=HostIP annotation does for one Service.
	PublishHostIP bool
	// ServiceTypeFilter lists the Service types published
	// (--service-type-filter); empty means all.
	ServiceTypeFilter []corev1.ServiceType
	// AlwaysPublishNotReadyAddresses publishes the not-ready endpoints of
	// every headless Service, as spec.publishNotReadyAddresses does for
	// one (--always-publish-not-ready-addresses).
	AlwaysPublishNotReadyAddresses bool
	// ResolveLoadBalancerHostname publishes, instead of a load balancer's
	// host name (a CNAME), the IPv4 and IPv6 addresses it resolves to
	// (--resolve-service-load-balancer-hostname). A host name that does
	// not resolve fails its Service (reported in the *source.PartialError
	// of Endpoints), where external-dns leaves the name out.
	ResolveLoadBalancerHostname bool
	// Resolver resolves load balancer host names for
	// ResolveLoadBalancerHostname; nil uses net.DefaultResolver.
	Resolver HostResolver
	// ExposeInternalIPv6 adds the nodes' internal IPv6 addresses to their
	// external addresses where those are published: NodePort Services and
	// headless ones with endpoints-type NodeExternalIP
	// (--expose-internal-ipv6).
	ExposeInternalIPv6 bool
	// IncludeUnschedulable keeps unschedulable (cordoned) nodes among the
	// targets of NodePort Services; by default they are left out, as
	// external-dns's --exclude-unschedulable (true by default) does.
	// Setting it is --exclude-unschedulable=false.
	IncludeUnschedulable bool
	// Factory is an informer factory to take the informers from, for
	// programs (operators) that already have one. The source then sets no
	// transform (the informers are shared), adds its index and handlers,
	// and does not start the factory: construct every source first, then
	// call Factory.Start. Nil makes the source build its own factory,
	// scoped to Namespace, with slimming transforms, and start it.
	Factory k8sinformers.SharedInformerFactory
}

// HostResolver resolves host names to IP addresses; *net.Resolver is one.
type HostResolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// ServiceSource publishes Services as external-dns's service source does:
//
//   - LoadBalancer: the addresses and host names of
//     status.loadBalancer.ingress (host names become CNAMEs, or the
//     addresses they resolve to with ResolveLoadBalancerHostname), or
//     spec.externalIPs when set;
//   - ClusterIP: the cluster IP, only with PublishInternal; headless
//     Services (clusterIP None) publish the addresses of their ready
//     EndpointSlice endpoints (all with spec.publishNotReadyAddresses or
//     AlwaysPublishNotReadyAddresses), and an endpoint with a hostname
//     also gets ⟨hostname⟩.⟨name⟩; with endpoints-type NodeExternalIP the
//     node's external addresses (and internal IPv6 ones with
//     ExposeInternalIPv6), with HostIP (or PublishHostIP) the
//     status.hostIP of the endpoint's pod;
//   - NodePort: the nodes' external addresses (internal ones with
//     access=private, or when no node has an external one; internal IPv6
//     ones added with ExposeInternalIPv6), unschedulable nodes left out
//     unless IncludeUnschedulable; with externalTrafficPolicy Local only
//     the nodes running a pod of the Service (those with a ready pod when
//     there are any, else those with a ready terminating one, else those
//     with a running one); and an SRV record
//     _⟨service⟩._⟨protocol⟩.⟨name⟩ "0 50 ⟨nodePort⟩ ⟨name⟩." per port;
//   - ExternalName: spec.externalName (a CNAME, or A/AAAA for an address).
//
// The internal-hostname annotation publishes under its names what the
// hostname annotation would, except that a LoadBalancer or ClusterIP
// Service gives its cluster IPs; the target annotation replaces everything
// discovered, node-port SRV records included. With Options.IgnoreHostnameAnnotation, neither the hostname
// nor the internal-hostname annotation is read. For a Service whose
// annotations give no records (or always, with Options.CombineFQDN),
// Options.FQDNTargetTemplate adds its host:target records, and then, when
// there are still none, the names of Options.FQDNTemplate get the
// Service's targets. Options.TargetTemplate is not used, as in
// external-dns.
//
//zonesync:source:name=service
//zonesync:source:category=kubernetes
//zonesync:source:description=Services: load balancer status, cluster IPs, headless EndpointSlices, node ports and external names.
//zonesync:source:resources=services,endpointslices.discovery.k8s.io,pods,nodes
//zonesync:source:filters=annotation-filter,label-selector,service-type
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=ServiceConfig
//zonesync:source:unused=TargetTemplate
type ServiceSource struct {
	cfg      ServiceConfig
	sel      selection
	services cache.SharedIndexInformer
	slices   cache.SharedIndexInformer
	pods     cache.SharedIndexInformer // nil when no ClusterIP or NodePort Service is selected
	nodes    cache.SharedIndexInformer
	resolver HostResolver
	inf      informerSet
}

var (
	_ source.Source = (*ServiceSource)(nil)
	_ source.Syncer = (*ServiceSource)(nil)
)

// sliceIndex indexes EndpointSlices by namespace/service.
const sliceIndex = "zonesync:service"

// NewServiceSource returns a Service source over client. Unless
// cfg.Factory is given, it starts its informers with ctx (they stop when
// ctx is done) and returns at once: until the caches have synced,
// HasSynced reports false (use WaitForSync to block).
func NewServiceSource(ctx context.Context, client k8sclient.Interface, cfg ServiceConfig) (*ServiceSource, error) {
	var err error
	if cfg.Options, err = cfg.WithSource("service"); err != nil {
		return nil, err
	}
	sel, err := selectionOf(cfg.Options, "service", informers.IndexerWithOptions[*corev1.Service])
	if err != nil {
		return nil, err
	}
	factory := cfg.Factory
	own := factory == nil
	if own {
		factory = k8sinformers.NewSharedInformerFactoryWithOptions(client, cfg.ResyncPeriod, k8sinformers.WithNamespace(cfg.Namespace))
	}
	s := &ServiceSource{
		cfg:      cfg,
		sel:      sel,
		services: factory.Core().V1().Services().Informer(),
		slices:   factory.Discovery().V1().EndpointSlices().Informer(),
		nodes:    factory.Core().V1().Nodes().Informer(),
		resolver: cfg.Resolver,
	}
	if s.resolver == nil {
		s.resolver = net.DefaultResolver
	}
	filter := cfg.ServiceTypeFilter
	if len(filter) == 0 || slices.Contains(filter, corev1.ServiceTypeClusterIP) || slices.Contains(filter, corev1.ServiceTypeNodePort) {
		s.pods = factory.Core().V1().Pods().Informer()
	}
	if own {
		infs := []tracked{{&s.services, "services"}, {&s.slices, "endpointslices.discovery.k8s.io"}, {&s.nodes, "nodes"}}
		if s.pods != nil {
			infs = append(infs, tracked{&s.pods, "pods"})
		}
		if err := trackEach(ctx, "service", infs...); err != nil {
			return nil, err
		}
	}
	s.inf = informerSet{s.services, s.slices, s.nodes}
	if s.pods != nil {
		s.inf = append(s.inf, s.pods)
		if own {
			if err := s.pods.SetTransform(slimPod); err != nil {
				return nil, fmt.Errorf("service source: %w", err)
			}
		}
	}
	if own {
		for _, set := range []error{
			s.services.SetTransform(informers.TransformerWithOptions[*corev1.Service](annotationKeys(cfg.Options))),
			s.slices.SetTransform(informers.TransformerWithOptions[*discoveryv1.EndpointSlice](informers.TransformOptions{RemoveManagedFields: true, RemoveLastApplied: true})),
			s.nodes.SetTransform(informers.TransformerWithOptions[*corev1.Node](informers.TransformOptions{RemoveManagedFields: true, RemoveLastApplied: true,
				RemoveStatusConditions: true, DropAnnotations: true,
			})),
		} {
			if set != nil {
				return nil, fmt.Errorf("service source: %w", set)
			}
		}
	}
	if err := sel.addTo(s.services); err != nil {
		return nil, fmt.Errorf("service source: %w", err)
	}
	if _, ok := s.slices.GetIndexer().GetIndexers()[sliceIndex]; !ok {
		if err := s.slices.AddIndexers(cache.Indexers{sliceIndex: indexSliceByService}); err != nil {
			return nil, fmt.Errorf("service source: %w", err)
		}
	}
	if own {
		factory.Start(ctx.Done())
	}
	return s, nil
}

// slimPod keeps of a Pod only what the service source reads: its name,
// namespace, labels and deletion time, spec.nodeName, status.phase,
// status.hostIP and the Ready condition.
func slimPod(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil // a tombstone
	}
	slim := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID, ResourceVersion: pod.ResourceVersion,
			Labels: pod.Labels, DeletionTimestamp: pod.DeletionTimestamp,
		},
		Spec:   corev1.PodSpec{NodeName: pod.Spec.NodeName},
		Status: corev1.PodStatus{Phase: pod.Status.Phase, HostIP: pod.Status.HostIP},
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			slim.Status.Conditions = []corev1.PodCondition{{Type: c.Type, Status: c.Status}}
		}
	}
	return slim, nil
}

func indexSliceByService(obj any) ([]string, error) {
	es, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok {
		return nil, fmt.Errorf("EndpointSlice index got %T", obj)
	}
	svc := es.Labels[discoveryv1.LabelServiceName]
	if svc == "" {
		return nil, nil
	}
	return []string{es.Namespace + "/" + svc}, nil
}

// String returns "service".
func (s *ServiceSource) String() string { return "service" }

// Endpoints returns the endpoints of the selected Services. A Service whose
// annotations or template fail is named in a *source.PartialError returned
// with the endpoints of the others.
func (s *ServiceSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	svcs, err := informers.ByIndex[*corev1.Service](s.services.GetIndexer(), s.sel.indexName, informers.IndexMatch)
	if err != nil {
		return nil, fmt.Errorf("service source: %w", err)
	}
	return endpointsOf(svcs, func(svc *corev1.Service) (source.ObjectRef, bool) {
		selected := len(s.cfg.ServiceTypeFilter) == 0 || slices.Contains(s.cfg.ServiceTypeFilter, svc.Spec.Type)
		return source.ObjectRef{Kind: "Service", Namespace: svc.Namespace, Name: svc.Name}, selected
	}, func(ref source.ObjectRef, svc *corev1.Service) ([]*endpoint.Endpoint, error) {
		return s.serviceEndpoints(ctx, ref, svc)
	})
}

func (s *ServiceSource) serviceEndpoints(ctx context.Context, ref source.ObjectRef, svc *corev1.Service) ([]*endpoint.Endpoint, error) {
	ann, err := s.cfg.Annotations.Parse(ref, svc.Annotations)
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	meta := ann.EndpointMeta(ref)
	var eps []*endpoint.Endpoint
	if !s.cfg.IgnoreHostnameAnnotation {
		// The internal names are the Service's other names, with its
		// cluster IPs in place of a load balancer's addresses.
		if eps, err = s.namesEndpoints(ctx, ref, svc, ann.InternalHostnames, ann, meta, true); err != nil {
			return nil, err
		}
	}
	annotated := s.cfg.AnnotatedHostnames(ann)
	hostEps, err := s.namesEndpoints(ctx, ref, svc, annotated, ann, meta, false)
	if err != nil {
		return nil, err
	}
	eps = append(eps, hostEps...)
	// The template passes, in external-dns's order, each only while the
	// Service has no endpoints (or always, with CombineFQDN).
	pairs, err := s.cfg.FQDNTargetEndpoints(len(eps), ref, svc, meta)
	if err != nil {
		return nil, err
	}
	eps = append(eps, pairs...)
	if !s.cfg.TemplateRuns(len(eps)) {
		return eps, nil
	}
	templated, err := s.cfg.FQDNTemplate.Execute(ref, svc)
	if err != nil {
		return nil, err
	}
	templated = slices.DeleteFunc(templated, func(n string) bool { return slices.Contains(annotated, n) })
	hostEps, err = s.namesEndpoints(ctx, ref, svc, templated, ann, meta, false)
	if err != nil {
		return nil, err
	}
	return append(eps, hostEps...), nil
}

// namesEndpoints returns the endpoints of the host names names of svc;
// internal says they are internal-hostname names (see hostEndpoints).
func (s *ServiceSource) namesEndpoints(ctx context.Context, ref source.ObjectRef, svc *corev1.Service, names []string, ann annotations.Values, meta source.EndpointMeta, internal bool) ([]*endpoint.Endpoint, error) {
	var eps []*endpoint.Endpoint
	for _, h := range names {
		hostEps, err := s.hostEndpoints(ctx, svc, h, ann, meta, internal)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
		eps = append(eps, hostEps...)
	}
	return eps, nil
}

// hostEndpoints returns the endpoints of one host name of svc. The target
// annotation replaces everything the Service would give (node-port SRV
// records included), as in external-dns. An internal name (the
// internal-hostname annotation) gets the cluster IPs of a LoadBalancer or
// ClusterIP Service, and what any other name gets from other types.
func (s *ServiceSource) hostEndpoints(ctx context.Context, svc *corev1.Service, hostname string, ann annotations.Values, meta source.EndpointMeta, internal bool) ([]*endpoint.Endpoint, error) {
	if ann.Targets != nil {
		return source.EndpointsForHostname(hostname, ann.Targets, meta), nil
	}
	var targets []string
	var extra []*endpoint.Endpoint
	switch svc.Spec.Type {
	case corev1.ServiceTypeLoadBalancer:
		if internal {
			targets = clusterIPs(svc)
			break
		}
		if !s.cfg.ResolveLoadBalancerHostname {
			targets = loadBalancerTargets(svc)
			break
		}
		var err error
		if targets, err = s.resolvedLoadBalancerTargets(ctx, svc); err != nil {
			return nil, err
		}
	case corev1.ServiceTypeClusterIP, "":
		if svc.Spec.ClusterIP == corev1.ClusterIPNone {
			return s.headlessEndpoints(svc, hostname, ann, meta)
		}
		if internal || s.cfg.PublishInternal {
			targets = clusterIPs(svc)
		}
	case corev1.ServiceTypeNodePort:
		var err error
		if targets, err = s.nodeTargets(svc, ann.Access); err != nil {
			return nil, err
		}
		extra = srvEndpoints(svc, hostname, meta)
	case corev1.ServiceTypeExternalName:
		targets = []string{svc.Spec.ExternalName}
	}
	return append(source.EndpointsForHostname(hostname, targets, meta), extra...), nil
}

func clusterIPs(svc *corev1.Service) []string {
	ips := svc.Spec.ClusterIPs
	if len(ips) == 0 && svc.Spec.ClusterIP != "" {
		ips = []string{svc.Spec.ClusterIP}
	}
	return slices.DeleteFunc(slices.Clone(ips), func(ip string) bool { return ip == corev1.ClusterIPNone })
}

func loadBalancerTargets(svc *corev1.Service) []string {
	if len(svc.Spec.ExternalIPs) > 0 {
		return slices.Clone(svc.Spec.ExternalIPs)
	}
	var targets []string
	for _, ing := range svc.Status.LoadBalancer.Ingress {
		if ing.IP != "" {
			targets = append(targets, ing.IP)
		}
		if ing.Hostname != "" {
			targets = append(targets, ing.Hostname)
		}
	}
	return targets
}

// nodeAddresses returns the addresses of node of type t.
func nodeAddresses(node *corev1.Node, t corev1.NodeAddressType) []string {
	var out []string
	for _, a := range node.Status.Addresses {
		if a.Type == t {
			out = append(out, a.Address)
		}
	}
	return out
}

// resolvedLoadBalancerTargets returns the load balancer targets of svc
// with every host name replaced by the addresses it resolves to.
func (s *ServiceSource) resolvedLoadBalancerTargets(ctx context.Context, svc *corev1.Service) ([]string, error) {
	if len(svc.Spec.ExternalIPs) > 0 {
		return slices.Clone(svc.Spec.ExternalIPs), nil
	}
	var targets []string
	for i, ing := range svc.Status.LoadBalancer.Ingress {
		if ing.IP != "" {
			targets = append(targets, ing.IP)
		}
		if ing.Hostname == "" {
			continue
		}
		addrs, err := s.resolver.LookupIPAddr(ctx, ing.Hostname)
		if err != nil {
			return nil, fmt.Errorf("status.loadBalancer.ingress[%d].hostname %q: resolving: %w", i, ing.Hostname, err)
		}
		for _, a := range addrs {
			if ip, ok := netip.AddrFromSlice(a.IP); ok {
				targets = append(targets, ip.Unmap().String())
			}
		}
	}
	return targets, nil
}

// nodeTargets returns the node addresses a NodePort Service publishes.
func (s *ServiceSource) nodeTargets(svc *corev1.Service, access string) ([]string, error) {
	var nodes []*corev1.Node
	var err error
	if svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
		nodes, err = s.localTrafficNodes(svc)
	} else {
		nodes, err = informers.List[*corev1.Node](s.nodes.GetStore())
	}
	if err != nil {
		return nil, err
	}
	var external, internal, internalV6 []string
	for _, n := range nodes {
		if n.Spec.Unschedulable && !s.cfg.IncludeUnschedulable {
			continue
		}
		external = append(external, nodeAddresses(n, corev1.NodeExternalIP)...)
		for _, a := range nodeAddresses(n, corev1.NodeInternalIP) {
			internal = append(internal, a)
			if isIPv6(a) {
				internalV6 = append(internalV6, a)
			}
		}
	}
	switch {
	case access == "private":
		return internal, nil
	case access == "public" || len(external) > 0:
		if s.cfg.ExposeInternalIPv6 {
			return append(external, internalV6...), nil
		}
		return external, nil
	default:
		return internal, nil
	}
}

// isIPv6 reports whether a is an IPv6 address (IPv4-mapped ones included,
// as the AAAA typing of targets counts them).
func isIPv6(a string) bool {
	ip, err := netip.ParseAddr(a)
	return err == nil && ip.Is6()
}

// Pod ranks for localTrafficNodes: a running pod that is not ready, ready
// but terminating, ready and not terminating.
const (
	podRunning = iota + 1
	podReadyTerminating
	podReady
)

// localTrafficNodes returns the nodes that receive the external traffic
// of svc, whose externalTrafficPolicy is Local: the nodes running one of
// its pods (those its selector selects in its namespace), keeping only
// those whose best pod has the best rank found (ready, else ready and
// terminating, else running), as external-dns does.
func (s *ServiceSource) localTrafficNodes(svc *corev1.Service) ([]*corev1.Node, error) {
	if s.pods == nil {
		return nil, nil
	}
	pods, err := informers.ByIndex[*corev1.Pod](s.pods.GetIndexer(), cache.NamespaceIndex, svc.Namespace)
	if err != nil {
		return nil, err
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	best := map[string]int{}
	top := 0
	for _, pod := range pods {
		if pod.Status.Phase != corev1.PodRunning || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		rank := podRunning
		if podReadyCondition(pod) {
			rank = podReadyTerminating
			if pod.DeletionTimestamp == nil {
				rank = podReady
			}
		}
		best[pod.Spec.NodeName] = max(best[pod.Spec.NodeName], rank)
		top = max(top, rank)
	}
	var nodes []*corev1.Node
	for _, name := range slices.Sorted(maps.Keys(best)) {
		if best[name] != top {
			continue
		}
		node, found, err := informers.Get[*corev1.Node](s.nodes.GetStore(), "", name)
		if err != nil {
			return nil, err
		}
		if found {
			nodes = append(nodes, node)
		}
	}
	return nodes, nil
}

// podReadyCondition reports whether pod's Ready condition is True.
func podReadyCondition(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// srvEndpoints returns the SRV records of a NodePort Service's ports.
func srvEndpoints(svc *corev1.Service, hostname string, meta source.EndpointMeta) []*endpoint.Endpoint {
	var eps []*endpoint.Endpoint
	for _, p := range svc.Spec.Ports {
		if p.NodePort == 0 {
			continue
		}
		proto := strings.ToLower(string(p.Protocol))
		if proto == "" {
			proto = "tcp"
		}
		name := fmt.Sprintf("_%s._%s.%s", svc.Name, proto, hostname)
		target := "0 50 " + strconv.Itoa(int(p.NodePort)) + " " + hostname + "."
		ep := endpoint.NewEndpointWithTTL(name, endpoint.RecordTypeSRV, meta.TTL, target)
		ep.SetIdentifier = meta.SetIdentifier
		if len(meta.ProviderSpecific) > 0 {
			ep.ProviderSpecific = slices.Clone(meta.ProviderSpecific)
		}
		if meta.Resource != "" {
			ep.Labels = endpoint.LabelsFromMap(map[string]string{endpoint.ResourceLabelKey: meta.Resource})
		}
		eps = append(eps, ep)
	}
	return eps
}

// headlessEndpoints returns the records of a headless Service: hostname
// with every address, and ⟨pod hostname⟩.hostname for endpoints that have
// a hostname.
func (s *ServiceSource) headlessEndpoints(svc *corev1.Service, hostname string, ann annotations.Values, meta source.EndpointMeta) ([]*endpoint.Endpoint, error) {
	slicesOf, err := informers.ByIndex[*discoveryv1.EndpointSlice](s.slices.GetIndexer(), sliceIndex, svc.Namespace+"/"+svc.Name)
	if err != nil {
		return nil, err
	}
	endpointsType := ann.EndpointsType
	if endpointsType == "" && s.cfg.PublishHostIP {
		endpointsType = "HostIP"
	}
	var all []string
	perPod := map[string][]string{}
	var podNames []string
	for _, es := range slicesOf {
		for _, e := range es.Endpoints {
			ready := e.Conditions.Ready == nil || *e.Conditions.Ready
			if !ready && !svc.Spec.PublishNotReadyAddresses && !s.cfg.AlwaysPublishNotReadyAddresses {
				continue
			}
			addrs := e.Addresses
			switch endpointsType {
			case "":
			case "HostIP":
				addrs, err = s.hostIPOf(svc.Namespace, e.TargetRef)
			default:
				addrs, err = s.nodeAddressesOf(e.NodeName, endpointsType)
			}
			if err != nil {
				return nil, err
			}
			all = append(all, addrs...)
			if e.Hostname != nil && *e.Hostname != "" {
				name := *e.Hostname + "." + hostname
				if _, ok := perPod[name]; !ok {
					podNames = append(podNames, name)
				}
				perPod[name] = append(perPod[name], addrs...)
			}
		}
	}
	eps := source.EndpointsForHostname(hostname, all, meta)
	slices.Sort(podNames)
	for _, name := range podNames {
		eps = append(eps, source.EndpointsForHostname(name, perPod[name], meta)...)
	}
	return eps, nil
}

// nodeAddressesOf returns the external addresses of the node named name
// (and its internal IPv6 ones with ExposeInternalIPv6), for
// endpoints-type NodeExternalIP.
func (s *ServiceSource) nodeAddressesOf(name *string, endpointsType string) ([]string, error) {
	if endpointsType != "NodeExternalIP" {
		return nil, fmt.Errorf("endpoints-type %q is neither NodeExternalIP nor HostIP", endpointsType)
	}
	if name == nil {
		return nil, nil
	}
	node, found, err := informers.Get[*corev1.Node](s.nodes.GetStore(), "", *name)
	if err != nil || !found {
		return nil, err
	}
	addrs := nodeAddresses(node, corev1.NodeExternalIP)
	if s.cfg.ExposeInternalIPv6 {
		for _, a := range nodeAddresses(node, corev1.NodeInternalIP) {
			if isIPv6(a) {
				addrs = append(addrs, a)
			}
		}
	}
	return addrs, nil
}

// hostIPOf returns the status.hostIP of the pod ref names in namespace,
// for endpoints-type HostIP; nothing for an endpoint that is not a pod or
// whose pod is not known (yet).
func (s *ServiceSource) hostIPOf(namespace string, ref *corev1.ObjectReference) ([]string, error) {
	if s.pods == nil || ref == nil || ref.Kind != "Pod" || ref.APIVersion != "" {
		return nil, nil
	}
	if ref.Namespace != "" {
		namespace = ref.Namespace
	}
	pod, found, err := informers.Get[*corev1.Pod](s.pods.GetStore(), namespace, ref.Name)
	if err != nil || !found || pod.Status.HostIP == "" {
		return nil, err
	}
	return []string{pod.Status.HostIP}, nil
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *ServiceSource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *ServiceSource) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *ServiceSource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
