package kubernetes

import (
	"context"
	"fmt"

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

// NodeConfig configures a [NodeSource]. Options.Namespace does not apply:
// Nodes are cluster-scoped.
type NodeConfig struct {
	kubeopts.Options
	// IncludeUnschedulable publishes Nodes with spec.unschedulable set
	// (cordoned nodes) too. external-dns skips them by default
	// (--exclude-unschedulable, true by default); the zero value does the
	// same, so IncludeUnschedulable is external-dns's
	// --exclude-unschedulable=false.
	IncludeUnschedulable bool
	// ExposeInternalIPv6 adds a Node's IPv6 InternalIP addresses to its
	// ExternalIP addresses (--expose-internal-ipv6, off by default). A Node
	// without ExternalIP addresses publishes all its InternalIP addresses,
	// IPv6 included, whatever this says.
	ExposeInternalIPv6 bool
	// Factory: see [ServiceConfig.Factory].
	Factory k8sinformers.SharedInformerFactory
}

// NodeSource publishes Nodes as external-dns's node source does. A Node's
// names are its name (metadata.name, used as it is: give Nodes fully
// qualified names or set an FQDN template), or, with an FQDN template, the
// template's names instead (both with CombineFQDN). The hostname
// annotation is not read (so IgnoreHostnameAnnotation changes nothing).
// The FQDN target template's records are added as external-dns adds them:
// when the node name is not used (a template is set), or always with
// CombineFQDN; the FQDN template then runs only when they are none (or
// with CombineFQDN). The node name and the FQDN template's names point at
// the target annotation if set, otherwise at the Node's ExternalIP
// addresses (plus its IPv6 InternalIP addresses with ExposeInternalIPv6),
// or, when it has no ExternalIP address, at all its InternalIP addresses.
// A Node with no address at all is reported as failed.
//
// Endpoints carry the ttl annotation and the resource label node/⟨name⟩;
// like external-dns, the source ignores set-identifier and
// provider-specific annotations. Endpoints of several Nodes with the same
// name, record type and TTL (a template such as "nodes.example.com") are
// merged into one with all their targets, labelled with the first Node by
// name. Unschedulable Nodes are skipped unless IncludeUnschedulable is set.
//
//zonesync:source:name=node
//zonesync:source:category=kubernetes
//zonesync:source:description=Nodes: the node name (or FQDN template names) pointing at its external addresses, or internal ones when it has none.
//zonesync:source:resources=nodes
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=NodeConfig
//zonesync:source:unused=TargetTemplate,IgnoreHostnameAnnotation
type NodeSource struct {
	cfg   NodeConfig
	sel   selection
	nodes cache.SharedIndexInformer
	inf   informerSet
}

var (
	_ source.Source = (*NodeSource)(nil)
	_ source.Syncer = (*NodeSource)(nil)
)

// NewNodeSource returns a Node source over kube; see [NewServiceSource]
// for the informer life cycle.
func NewNodeSource(ctx context.Context, kube k8sclient.Interface, cfg NodeConfig) (*NodeSource, error) {
	var err error
	if cfg.Options, err = cfg.WithSource("node"); err != nil {
		return nil, err
	}
	sel, err := selectionOf(cfg.Options, "node", informers.IndexerWithOptions[*corev1.Node])
	if err != nil {
		return nil, err
	}
	factory := cfg.Factory
	own := factory == nil
	if own {
		factory = k8sinformers.NewSharedInformerFactory(kube, cfg.ResyncPeriod)
	}
	s := &NodeSource{cfg: cfg, sel: sel, nodes: factory.Core().V1().Nodes().Informer()}
	if own {
		if err := trackEach(ctx, "node", tracked{&s.nodes, "nodes"}); err != nil {
			return nil, err
		}
		opts := annotationKeys(cfg.Options)
		opts.RemoveStatusConditions = true
		opts.RemoveBulkyFields = true
		if err := s.nodes.SetTransform(informers.TransformerWithOptions[*corev1.Node](opts)); err != nil {
			return nil, fmt.Errorf("node source: %w", err)
		}
	}
	s.inf = informerSet{s.nodes}
	if err := sel.addTo(s.nodes); err != nil {
		return nil, fmt.Errorf("node source: %w", err)
	}
	if own {
		factory.Start(ctx.Done())
	}
	return s, nil
}

// String returns "node".
func (s *NodeSource) String() string { return "node" }

// Endpoints returns the endpoints of the selected Nodes, sorted by name
// and record type. A Node whose annotations or template fail, or that has
// no address, is named in a *source.PartialError returned with the
// endpoints of the others.
func (s *NodeSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	nodes, err := informers.ByIndex[*corev1.Node](s.nodes.GetIndexer(), s.sel.indexName, informers.IndexMatch)
	if err != nil {
		return nil, fmt.Errorf("node source: %w", err)
	}
	return endpointsOf(nodes, func(n *corev1.Node) (source.ObjectRef, bool) {
		return source.ObjectRef{Kind: "Node", Name: n.Name}, s.cfg.IncludeUnschedulable || !n.Spec.Unschedulable
	}, s.nodeEndpoints)
}

func (s *NodeSource) nodeEndpoints(ref source.ObjectRef, node *corev1.Node) ([]*endpoint.Endpoint, error) {
	// The node source reads no hostname annotations: a bad one is not
	// its business.
	ann, err := s.cfg.ParseAnnotations(ref, node.Annotations, annotations.Hostname, annotations.InternalHostname)
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	meta := source.EndpointMeta{TTL: ann.TTL, Resource: ref.Key()}
	// The node name is used unless a template gives the names.
	var eps []*endpoint.Endpoint
	if (s.cfg.FQDNTemplate.IsEmpty() && s.cfg.FQDNTargetTemplate.IsEmpty()) || s.cfg.CombineFQDN {
		if eps, err = s.namesEndpoints(ref, node, []string{node.Name}, ann, meta); err != nil {
			return nil, err
		}
	}
	pairs, err := s.cfg.FQDNTargetEndpoints(len(eps), ref, node, meta)
	if err != nil {
		return nil, err
	}
	eps = append(eps, pairs...)
	if !s.cfg.TemplateRuns(len(eps)) {
		return eps, nil
	}
	templated, err := s.cfg.FQDNTemplate.Execute(ref, node)
	if err != nil {
		return nil, err
	}
	more, err := s.namesEndpoints(ref, node, templated, ann, meta)
	if err != nil {
		return nil, err
	}
	return append(eps, more...), nil
}

// namesEndpoints returns the endpoints of names pointing at the target
// annotation or the Node's addresses; a Node with no address fails.
func (s *NodeSource) namesEndpoints(ref source.ObjectRef, node *corev1.Node, names []string, ann annotations.Values, meta source.EndpointMeta) ([]*endpoint.Endpoint, error) {
	if len(names) == 0 {
		return nil, nil
	}
	targets := ann.Targets
	if targets == nil {
		if targets = nodeTargetAddresses(node, s.cfg.ExposeInternalIPv6); len(targets) == 0 {
			return nil, fmt.Errorf("%s: status.addresses holds no ExternalIP or InternalIP address", ref)
		}
	}
	return source.EndpointsForHostnames(names, targets, meta), nil
}

// nodeTargetAddresses returns the addresses a Node's names point at: its
// ExternalIP addresses (with its IPv6 InternalIP addresses when
// internalIPv6 is set), or all its InternalIP addresses when it has no
// ExternalIP address.
func nodeTargetAddresses(node *corev1.Node, internalIPv6 bool) []string {
	external := nodeAddresses(node, corev1.NodeExternalIP)
	internal := nodeAddresses(node, corev1.NodeInternalIP)
	if len(external) == 0 {
		return internal
	}
	if internalIPv6 {
		for _, a := range internal {
			if isIPv6(a) {
				external = append(external, a)
			}
		}
	}
	return external
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *NodeSource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *NodeSource) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *NodeSource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
