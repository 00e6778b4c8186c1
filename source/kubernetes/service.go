package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	k8sinformers "k8s.io/client-go/informers"
	k8sclient "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/informers"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
)

// ServiceConfig configures a [ServiceSource].
type ServiceConfig struct {
	Options
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
	// Factory is an informer factory to take the informers from, for
	// programs (operators) that already have one. The source then sets no
	// transform (the informers are shared), adds its index and handlers,
	// and does not start the factory: construct every source first, then
	// call Factory.Start. Nil makes the source build its own factory,
	// scoped to Namespace, with slimming transforms, and start it.
	Factory k8sinformers.SharedInformerFactory
}

// ServiceSource publishes Services as external-dns's service source does:
//
//   - LoadBalancer: the addresses and host names of
//     status.loadBalancer.ingress (host names become CNAMEs), or
//     spec.externalIPs when set;
//   - ClusterIP: the cluster IP, only with PublishInternal; headless
//     Services (clusterIP None) publish the addresses of their ready
//     EndpointSlice endpoints (all with spec.publishNotReadyAddresses),
//     and an endpoint with a hostname also gets ⟨hostname⟩.⟨name⟩; with
//     endpoints-type NodeExternalIP the node's external addresses, with
//     HostIP (or PublishHostIP) the node's internal addresses;
//   - NodePort: the nodes' external addresses (internal ones with
//     access=private, or when no node has an external one), and an SRV
//     record _⟨service⟩._⟨protocol⟩.⟨name⟩ "0 50 ⟨nodePort⟩ ⟨name⟩." per
//     port;
//   - ExternalName: spec.externalName (a CNAME, or A/AAAA for an address).
//
// The internal-hostname annotation publishes the cluster IP under its
// names for every type; the target annotation replaces the discovered
// targets. Not supported: the pod-based HostIP lookup (the node's internal
// address is used, which is the pod's host IP on all common networks),
// externalTrafficPolicy=Local node filtering, and ignoring the hostname
// annotation.
//
// +zonesync:source:name=service
// +zonesync:source:category=kubernetes
// +zonesync:source:description=Services: load balancer status, cluster IPs, headless EndpointSlices, node ports and external names.
// +zonesync:source:resources=services,endpointslices.discovery.k8s.io,nodes
// +zonesync:source:filters=annotation-filter,label-selector,service-type
// +zonesync:source:namespaced=true
// +zonesync:source:fqdn-template=true
// +zonesync:source:events=true
type ServiceSource struct {
	cfg      ServiceConfig
	sel      selection
	services cache.SharedIndexInformer
	slices   cache.SharedIndexInformer
	nodes    cache.SharedIndexInformer
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
	sel, err := cfg.parse("service", informers.IndexerWithOptions[*corev1.Service])
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
	}
	s.inf = informerSet{s.services, s.slices, s.nodes}
	if own {
		for _, set := range []error{
			s.services.SetTransform(informers.TransformerWithOptions[*corev1.Service](cfg.annotationKeys())),
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
	}, s.serviceEndpoints)
}

func (s *ServiceSource) serviceEndpoints(ref source.ObjectRef, svc *corev1.Service) ([]*endpoint.Endpoint, error) {
	ann, err := s.cfg.Annotations.Parse(ref, svc.Annotations)
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	meta := ann.EndpointMeta(ref)
	var eps []*endpoint.Endpoint
	for _, h := range ann.InternalHostnames {
		targets := clusterIPs(svc)
		if ann.Targets != nil {
			targets = ann.Targets
		}
		eps = append(eps, source.EndpointsForHostname(h, targets, meta)...)
	}
	hostnames, err := s.cfg.hostnames(ann, ref, svc)
	if err != nil {
		return nil, err
	}
	for _, h := range hostnames {
		hostEps, err := s.hostEndpoints(svc, h, ann, meta)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
		eps = append(eps, hostEps...)
	}
	return eps, nil
}

// hostEndpoints returns the endpoints of one host name of svc.
func (s *ServiceSource) hostEndpoints(svc *corev1.Service, hostname string, ann annotations.Values, meta source.EndpointMeta) ([]*endpoint.Endpoint, error) {
	var targets []string
	var extra []*endpoint.Endpoint
	switch svc.Spec.Type {
	case corev1.ServiceTypeLoadBalancer:
		targets = loadBalancerTargets(svc)
	case corev1.ServiceTypeClusterIP, "":
		if svc.Spec.ClusterIP == corev1.ClusterIPNone {
			if ann.Targets != nil {
				targets = ann.Targets
				break
			}
			return s.headlessEndpoints(svc, hostname, ann, meta)
		}
		if s.cfg.PublishInternal {
			targets = clusterIPs(svc)
		}
	case corev1.ServiceTypeNodePort:
		var err error
		if targets, err = s.nodeTargets(ann.Access); err != nil {
			return nil, err
		}
		extra = srvEndpoints(svc, hostname, meta)
	case corev1.ServiceTypeExternalName:
		targets = []string{svc.Spec.ExternalName}
	}
	if ann.Targets != nil {
		targets = ann.Targets
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

// nodeTargets returns the node addresses a NodePort Service publishes.
func (s *ServiceSource) nodeTargets(access string) ([]string, error) {
	nodes, err := informers.List[*corev1.Node](s.nodes.GetStore())
	if err != nil {
		return nil, err
	}
	var external, internal []string
	for _, n := range nodes {
		external = append(external, nodeAddresses(n, corev1.NodeExternalIP)...)
		internal = append(internal, nodeAddresses(n, corev1.NodeInternalIP)...)
	}
	switch {
	case access == "private":
		return internal, nil
	case access == "public" || len(external) > 0:
		return external, nil
	default:
		return internal, nil
	}
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
			if !ready && !svc.Spec.PublishNotReadyAddresses {
				continue
			}
			addrs := e.Addresses
			if endpointsType != "" {
				addrs, err = s.nodeAddressesOf(e.NodeName, endpointsType)
				if err != nil {
					return nil, err
				}
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

// nodeAddressesOf returns the addresses of the node named name that
// endpointsType (NodeExternalIP or HostIP) asks for.
func (s *ServiceSource) nodeAddressesOf(name *string, endpointsType string) ([]string, error) {
	if name == nil {
		return nil, nil
	}
	node, found, err := informers.Get[*corev1.Node](s.nodes.GetStore(), "", *name)
	if err != nil || !found {
		return nil, err
	}
	switch endpointsType {
	case "NodeExternalIP":
		return nodeAddresses(node, corev1.NodeExternalIP), nil
	case "HostIP":
		return nodeAddresses(node, corev1.NodeInternalIP), nil
	default:
		return nil, fmt.Errorf("endpoints-type %q is neither NodeExternalIP nor HostIP", endpointsType)
	}
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
