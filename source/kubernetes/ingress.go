package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	k8sinformers "k8s.io/client-go/informers"
	k8sclient "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/informers"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// IngressConfig configures an [IngressSource].
type IngressConfig struct {
	kubeopts.Options
	// IngressClassNames lists the ingress classes published
	// (--ingress-class); empty means all. An Ingress's class is
	// spec.ingressClassName, or else its kubernetes.io/ingress.class
	// annotation.
	IngressClassNames []string
	// IgnoreIngressRulesSpec leaves out the hosts of spec.rules
	// (--ignore-ingress-rules-spec).
	IgnoreIngressRulesSpec bool
	// IgnoreIngressTLSSpec leaves out the hosts of spec.tls
	// (--ignore-ingress-tls-spec).
	IgnoreIngressTLSSpec bool
	// Factory: see [ServiceConfig.Factory].
	Factory k8sinformers.SharedInformerFactory
}

// IngressSource publishes networking.k8s.io/v1 Ingresses: the hosts of
// spec.rules and spec.tls (wildcards included) and the hostname
// annotation, pointing at the addresses and host names of
// status.loadBalancer.ingress, or at the target annotation. The
// ingress-hostname-source annotation limits the names to the spec
// ("defined-hosts-only") or to the annotation ("annotation-only").
// IgnoreIngressRulesSpec, IgnoreIngressTLSSpec and Options.IgnoreHostnameAnnotation
// leave out the names of each place. The FQDN template gives the names of
// an Ingress that has none of its own (or always, with CombineFQDN);
// Options.TargetTemplate and Options.FQDNTargetTemplate are not used, as
// external-dns's ingress source does not run them.
//
//zonesync:source:name=ingress
//zonesync:source:category=kubernetes
//zonesync:source:description=Ingresses: rule and TLS hosts pointing at the load balancer status.
//zonesync:source:resources=ingresses.networking.k8s.io
//zonesync:source:filters=annotation-filter,label-selector,ingress-class
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=IngressConfig
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate
type IngressSource struct {
	cfg       IngressConfig
	sel       selection
	ingresses cache.SharedIndexInformer
	inf       informerSet
}

var (
	_ source.Source = (*IngressSource)(nil)
	_ source.Syncer = (*IngressSource)(nil)
)

// NewIngressSource returns an Ingress source over client; see
// [NewServiceSource] for the informer life cycle.
func NewIngressSource(ctx context.Context, client k8sclient.Interface, cfg IngressConfig) (*IngressSource, error) {
	var err error
	if cfg.Options, err = cfg.WithSource("ingress"); err != nil {
		return nil, err
	}
	sel, err := selectionOf(cfg.Options, "ingress", informers.IndexerWithOptions[*networkingv1.Ingress])
	if err != nil {
		return nil, err
	}
	factory := cfg.Factory
	own := factory == nil
	if own {
		factory = k8sinformers.NewSharedInformerFactoryWithOptions(client, cfg.ResyncPeriod, k8sinformers.WithNamespace(cfg.Namespace))
	}
	s := &IngressSource{cfg: cfg, sel: sel, ingresses: factory.Networking().V1().Ingresses().Informer()}
	if own {
		if err := trackEach(ctx, "ingress", tracked{&s.ingresses, "ingresses.networking.k8s.io"}); err != nil {
			return nil, err
		}
		fn := informers.TransformerWithOptions[*networkingv1.Ingress](annotationKeys(cfg.Options, IngressClassAnnotation))
		if err := s.ingresses.SetTransform(fn); err != nil {
			return nil, fmt.Errorf("ingress source: %w", err)
		}
	}
	s.inf = informerSet{s.ingresses}
	if err := sel.addTo(s.ingresses); err != nil {
		return nil, fmt.Errorf("ingress source: %w", err)
	}
	if own {
		factory.Start(ctx.Done())
	}
	return s, nil
}

// String returns "ingress".
func (s *IngressSource) String() string { return "ingress" }

// Endpoints returns the endpoints of the selected Ingresses; a failing
// Ingress is named in a *source.PartialError.
func (s *IngressSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ings, err := informers.ByIndex[*networkingv1.Ingress](s.ingresses.GetIndexer(), s.sel.indexName, informers.IndexMatch)
	if err != nil {
		return nil, fmt.Errorf("ingress source: %w", err)
	}
	return endpointsOf(ings, func(ing *networkingv1.Ingress) (source.ObjectRef, bool) {
		return source.ObjectRef{Kind: "Ingress", Namespace: ing.Namespace, Name: ing.Name}, s.classSelected(ing)
	}, s.ingressEndpoints)
}

func (s *IngressSource) classSelected(ing *networkingv1.Ingress) bool {
	if len(s.cfg.IngressClassNames) == 0 {
		return true
	}
	class := ing.Annotations[IngressClassAnnotation]
	if ing.Spec.IngressClassName != nil && *ing.Spec.IngressClassName != "" {
		class = *ing.Spec.IngressClassName
	}
	return slices.Contains(s.cfg.IngressClassNames, class)
}

func (s *IngressSource) ingressEndpoints(ref source.ObjectRef, ing *networkingv1.Ingress) ([]*endpoint.Endpoint, error) {
	ann, err := s.cfg.Annotations.Parse(ref, ing.Annotations)
	// The hostname source annotation's value is read without regard to
	// case; an unknown value publishes none of the Ingress's own names
	// (only the template's), as in external-dns.
	hostSource := strings.ToLower(ann.IngressHostnameSource)
	useSpec := hostSource == "" || hostSource == "defined-hosts-only"
	useAnnotation := (hostSource == "" || hostSource == "annotation-only") && !s.cfg.IgnoreHostnameAnnotation
	if !useAnnotation {
		// The hostname annotation is not read: its errors do not count.
		err = annotations.ErrorsOf(err, func(name string) bool { return name != annotations.Hostname })
	}
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	var specHosts []string
	if useSpec {
		for i, r := range ing.Spec.Rules {
			if r.Host != "" && !s.cfg.IgnoreIngressRulesSpec {
				if err := checkHost(ref, fmt.Sprintf("spec.rules[%d].host", i), r.Host); err != nil {
					return nil, err
				}
				specHosts = append(specHosts, r.Host)
			}
		}
		for i, tls := range ing.Spec.TLS {
			if s.cfg.IgnoreIngressTLSSpec {
				break
			}
			for j, h := range tls.Hosts {
				if h == "" {
					continue // as an empty rule host: nothing to publish
				}
				if err := checkHost(ref, fmt.Sprintf("spec.tls[%d].hosts[%d]", i, j), h); err != nil {
					return nil, err
				}
				specHosts = append(specHosts, h)
			}
		}
	}
	var annotated []string
	if useAnnotation {
		annotated = ann.Hostnames
	}
	// The template runs only for an Ingress with no names of its own
	// (or always, with CombineFQDN), as in external-dns.
	hostnames, err := s.cfg.CombineHostnames(append(specHosts, annotated...), ref, ing)
	if err != nil {
		return nil, err
	}
	targets := ann.Targets
	if targets == nil {
		for _, lb := range ing.Status.LoadBalancer.Ingress {
			if lb.IP != "" {
				targets = append(targets, lb.IP)
			}
			if lb.Hostname != "" {
				targets = append(targets, lb.Hostname)
			}
		}
	}
	hostnames = slices.Clone(hostnames)
	slices.Sort(hostnames)
	return source.EndpointsForHostnames(slices.Compact(hostnames), targets, ann.EndpointMeta(ref)), nil
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *IngressSource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *IngressSource) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *IngressSource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
