package kubernetes

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	k8sinformers "k8s.io/client-go/informers"
	k8sclient "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/informers"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// PodConfig configures a [PodSource].
type PodConfig struct {
	kubeopts.Options
	// PodSourceDomain, when not empty, publishes every selected Pod as
	// ⟨pod name⟩.⟨PodSourceDomain⟩ pointing at its pod IP
	// (--pod-source-domain).
	PodSourceDomain string
	// IgnoreNonHostNetworkPods makes the annotations and PodSourceDomain
	// of Pods without spec.hostNetwork count for nothing
	// (--ignore-non-host-network-pods, off by default). As in
	// external-dns, the FQDN template still applies to such Pods.
	IgnoreNonHostNetworkPods bool
	// Factory: see [ServiceConfig.Factory]. Factory supplies the Pods
	// and Nodes informers.
	Factory k8sinformers.SharedInformerFactory
}

// PodSource publishes Pods as external-dns's pod source does:
//
//   - the internal-hostname annotation: its names point at the pod IP
//     (status.podIP);
//   - the hostname annotation: its names point at the addresses of the
//     Node the Pod runs on (spec.nodeName) that external-dns takes as
//     public: its ExternalIP addresses and its IPv6 InternalIP addresses.
//     Nothing is published for them while the Pod has no Node or the Node
//     is unknown. This does not depend on spec.hostNetwork (see
//     IgnoreNonHostNetworkPods);
//   - PodSourceDomain: ⟨pod name⟩.⟨domain⟩ points at the pod IP;
//   - the target annotation replaces the targets of all three;
//   - the FQDN target template's records, then the FQDN template: its
//     names point at all pod IPs (status.podIPs), never at the target
//     annotation. Without CombineFQDN each runs only for Pods that have
//     no endpoint yet.
//
// As in external-dns, IgnoreHostnameAnnotation does not apply to Pods:
// their hostname and internal-hostname annotations are always read.
//
// A Pod without a pod IP yet gets no endpoint for the names that point at
// it. Endpoints carry the ttl annotation only: like external-dns, the
// source sets no resource label and ignores set-identifier and
// provider-specific annotations. Endpoints of several Pods with the same
// name, record type and TTL are merged into one with all their targets,
// so that the hostNetwork Pods of a DaemonSet sharing one hostname
// publish one record with all their Nodes' addresses. Because the
// endpoints carry no resource label, the records of a Pod named in a
// *source.PartialError are not protected from deletion.
//
//zonesync:source:name=pod
//zonesync:source:category=kubernetes
//zonesync:source:description=Pods: hostname annotation to the node's public addresses, internal-hostname, pod-source-domain and template names to the pod IPs.
//zonesync:source:resources=pods,nodes
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=PodConfig
//zonesync:source:unused=TargetTemplate,IgnoreHostnameAnnotation
type PodSource struct {
	cfg   PodConfig
	sel   selection
	pods  cache.SharedIndexInformer
	nodes cache.SharedIndexInformer
	inf   informerSet
}

var (
	_ source.Source = (*PodSource)(nil)
	_ source.Syncer = (*PodSource)(nil)
)

// NewPodSource returns a Pod source over kube; see [NewServiceSource] for
// the informer life cycle.
func NewPodSource(ctx context.Context, kube k8sclient.Interface, cfg PodConfig) (*PodSource, error) {
	var err error
	if cfg.Options, err = cfg.WithSource("pod"); err != nil {
		return nil, err
	}
	sel, err := selectionOf(cfg.Options, "pod", informers.IndexerWithOptions[*corev1.Pod])
	if err != nil {
		return nil, err
	}
	factory := cfg.Factory
	own := factory == nil
	if own {
		factory = k8sinformers.NewSharedInformerFactoryWithOptions(kube, cfg.ResyncPeriod, k8sinformers.WithNamespace(cfg.Namespace))
	}
	s := &PodSource{
		cfg:   cfg,
		sel:   sel,
		pods:  factory.Core().V1().Pods().Informer(),
		nodes: factory.Core().V1().Nodes().Informer(),
	}
	if own {
		if err := trackEach(ctx, "pod", tracked{&s.pods, "pods"}, tracked{&s.nodes, "nodes"}); err != nil {
			return nil, err
		}
		podOpts := annotationKeys(cfg.Options)
		podOpts.RemoveStatusConditions = true
		podOpts.RemoveBulkyFields = true
		for _, set := range []error{
			s.pods.SetTransform(informers.TransformerWithOptions[*corev1.Pod](podOpts)),
			s.nodes.SetTransform(informers.TransformerWithOptions[*corev1.Node](informers.TransformOptions{
				RemoveManagedFields: true, RemoveLastApplied: true, RemoveStatusConditions: true,
				RemoveBulkyFields: true, DropAnnotations: true,
			})),
		} {
			if set != nil {
				return nil, fmt.Errorf("pod source: %w", set)
			}
		}
	}
	s.inf = informerSet{s.pods, s.nodes}
	if err := sel.addTo(s.pods); err != nil {
		return nil, fmt.Errorf("pod source: %w", err)
	}
	if own {
		factory.Start(ctx.Done())
	}
	return s, nil
}

// String returns "pod".
func (s *PodSource) String() string { return "pod" }

// Endpoints returns the endpoints of the selected Pods, sorted by name and
// record type. A Pod whose annotations or template fail, or that gives an
// invalid name (e.g. ⟨pod name⟩.⟨PodSourceDomain⟩ with a label over 63
// octets), is named in a *source.PartialError returned with the endpoints
// of the others.
func (s *PodSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pods, err := informers.ByIndex[*corev1.Pod](s.pods.GetIndexer(), s.sel.indexName, informers.IndexMatch)
	if err != nil {
		return nil, fmt.Errorf("pod source: %w", err)
	}
	return endpointsOf(pods, func(p *corev1.Pod) (source.ObjectRef, bool) {
		return source.ObjectRef{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}, true
	}, s.podEndpoints)
}

func (s *PodSource) podEndpoints(ref source.ObjectRef, pod *corev1.Pod) ([]*endpoint.Endpoint, error) {
	ann, err := s.cfg.Annotations.Parse(ref, pod.Annotations)
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	meta := source.EndpointMeta{TTL: ann.TTL}
	var eps []*endpoint.Endpoint
	if !s.cfg.IgnoreNonHostNetworkPods || pod.Spec.HostNetwork {
		if eps, err = s.annotationEndpoints(pod, ann, meta); err != nil {
			return nil, err
		}
	}
	pairs, err := s.cfg.FQDNTargetEndpoints(len(eps), ref, pod, meta)
	if err != nil {
		return nil, err
	}
	eps = append(eps, pairs...)
	if !s.cfg.TemplateRuns(len(eps)) {
		return eps, nil
	}
	names, err := s.cfg.FQDNTemplate.Execute(ref, pod)
	if err != nil {
		return nil, err
	}
	var podIPs []string
	for _, ip := range pod.Status.PodIPs {
		podIPs = append(podIPs, ip.IP)
	}
	return append(eps, source.EndpointsForHostnames(names, podIPs, meta)...), nil
}

// annotationEndpoints returns the endpoints of a Pod's internal-hostname
// and hostname annotations and of PodSourceDomain.
func (s *PodSource) annotationEndpoints(pod *corev1.Pod, ann annotations.Values, meta source.EndpointMeta) ([]*endpoint.Endpoint, error) {
	var names []string
	targetsOf := map[string][]string{}
	add := func(name string, targets []string) {
		if _, ok := targetsOf[name]; !ok {
			names = append(names, name)
		}
		targetsOf[name] = append(targetsOf[name], targets...)
	}
	podIP := []string{pod.Status.PodIP}
	if ann.Targets != nil {
		podIP = ann.Targets
	}
	for _, h := range ann.InternalHostnames {
		add(h, podIP)
	}
	if len(ann.Hostnames) > 0 {
		nodeIPs := ann.Targets
		if nodeIPs == nil {
			var err error
			if nodeIPs, err = s.podNodeAddresses(pod); err != nil {
				return nil, err
			}
		}
		for _, h := range ann.Hostnames {
			add(h, nodeIPs)
		}
	}
	if s.cfg.PodSourceDomain != "" {
		add(pod.Name+"."+s.cfg.PodSourceDomain, podIP)
	}
	slices.Sort(names)
	var eps []*endpoint.Endpoint
	for _, n := range names {
		eps = append(eps, source.EndpointsForHostname(n, targetsOf[n], meta)...)
	}
	return eps, nil
}

// podNodeAddresses returns the ExternalIP and IPv6 InternalIP addresses of
// the Node pod runs on; none when the Pod has no Node or it is unknown.
func (s *PodSource) podNodeAddresses(pod *corev1.Pod) ([]string, error) {
	if pod.Spec.NodeName == "" {
		return nil, nil
	}
	node, found, err := informers.Get[*corev1.Node](s.nodes.GetStore(), "", pod.Spec.NodeName)
	if err != nil || !found {
		return nil, err
	}
	var out []string
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeExternalIP || (a.Type == corev1.NodeInternalIP && isIPv6(a.Address)) {
			out = append(out, a.Address)
		}
	}
	return out, nil
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *PodSource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *PodSource) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done: Pods, and
// Nodes, whose addresses the hostname annotation publishes.
func (s *PodSource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
