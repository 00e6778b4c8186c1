package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
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

// AmbassadorHostGVR is the resource of Ambassador (Emissary-ingress)
// Hosts, at the version external-dns reads.
var AmbassadorHostGVR = schema.GroupVersionResource{Group: "getambassador.io", Version: "v3alpha1", Resource: "hosts"}

// AmbassadorServiceAnnotation is the annotation of an Ambassador Host that
// names the Service of the Ambassador load balancer: "name" (in the
// namespace "default"), "name.namespace" or "namespace/name". It has no
// prefix: its key is the same whatever annotation prefixes are read.
const AmbassadorServiceAnnotation = "external-dns.ambassador-service"

// AmbassadorHostConfig configures an [AmbassadorHostSource].
type AmbassadorHostConfig struct {
	kubeopts.Options
	// GVR overrides [AmbassadorHostGVR].
	GVR schema.GroupVersionResource
	// DynamicFactory and Factory: see [ServiceConfig.Factory]. Factory
	// supplies the Services informer.
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
	Factory        k8sinformers.SharedInformerFactory
}

// AmbassadorHostSource publishes Ambassador Hosts (getambassador.io):
// spec.hostname and the hostname annotation, pointing at the target
// annotation or else at the load balancer of the Service that
// [AmbassadorServiceAnnotation] names (its external IPs, or the addresses
// and host names of its load balancer status). A Host without that
// annotation is not published at all, even with a target annotation; one
// whose Service does not exist gives no endpoints.
//
//zonesync:source:name=ambassador-host
//zonesync:source:category=kubernetes
//zonesync:source:description=Ambassador Hosts: spec.hostname pointing at the load balancer of the Service the external-dns.ambassador-service annotation names.
//zonesync:source:resources=hosts.getambassador.io,services
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=AmbassadorHostConfig
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate
type AmbassadorHostSource struct {
	cfg      AmbassadorHostConfig
	res      *dynamicResource
	services cache.SharedIndexInformer
	inf      informerSet
}

var (
	_ source.Source = (*AmbassadorHostSource)(nil)
	_ source.Syncer = (*AmbassadorHostSource)(nil)
)

// NewAmbassadorHostSource returns an Ambassador Host source; see
// [NewServiceSource] for the informer life cycle.
func NewAmbassadorHostSource(ctx context.Context, kube k8sclient.Interface, client dynamic.Interface, cfg AmbassadorHostConfig) (*AmbassadorHostSource, error) {
	var err error
	if cfg.Options, err = cfg.WithSource("ambassador-host"); err != nil {
		return nil, err
	}
	gvr := cfg.GVR
	if gvr.Empty() {
		gvr = AmbassadorHostGVR
	}
	res, start, err := newDynamicResource(ctx, client, cfg.DynamicFactory, cfg.Options, "ambassador-host", gvr, AmbassadorServiceAnnotation)
	if err != nil {
		return nil, err
	}
	factory := cfg.Factory
	ownSvc := factory == nil
	if ownSvc {
		// The load balancer Service usually lives in Ambassador's own
		// namespace.
		factory = k8sinformers.NewSharedInformerFactory(kube, cfg.ResyncPeriod)
	}
	s := &AmbassadorHostSource{cfg: cfg, res: res, services: factory.Core().V1().Services().Informer()}
	if ownSvc {
		if err := trackEach(ctx, "ambassador-host", tracked{&s.services, "services"}); err != nil {
			return nil, err
		}
		fn := informers.TransformerWithOptions[*corev1.Service](informers.TransformOptions{RemoveManagedFields: true, RemoveLastApplied: true, DropAnnotations: true})
		if err := s.services.SetTransform(fn); err != nil {
			return nil, fmt.Errorf("ambassador-host source: %w", err)
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

// String returns "ambassador-host".
func (s *AmbassadorHostSource) String() string { return "ambassador-host" }

// Endpoints returns the endpoints of the selected Hosts.
func (s *AmbassadorHostSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return s.res.endpoints(ctx, "ambassador-host", kindRef("Host"), s.hostEndpoints)
}

func (s *AmbassadorHostSource) hostEndpoints(ref source.ObjectRef, u *unstructured.Unstructured) ([]*endpoint.Endpoint, error) {
	service, ok := u.GetAnnotations()[AmbassadorServiceAnnotation]
	if !ok {
		return nil, nil
	}
	ann, err := s.cfg.Annotations.Parse(ref, u.GetAnnotations())
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	hostname, _, err := unstructured.NestedString(u.Object, "spec", "hostname")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.hostname: %w", ref, err)
	}
	var names []string
	if hostname != "" {
		if err := checkHost(ref, "spec.hostname", hostname); err != nil {
			return nil, err
		}
		names = append(names, hostname)
	}
	hostnames, err := s.cfg.CombineHostnames(append(names, s.cfg.AnnotatedHostnames(ann)...), ref, u.Object)
	if err != nil {
		return nil, err
	}
	targets := ann.Targets
	if targets == nil {
		if targets, err = s.serviceTargets(ref, service); err != nil {
			return nil, err
		}
	}
	hostnames = slices.Clone(hostnames)
	slices.Sort(hostnames)
	return source.EndpointsForHostnames(slices.Compact(hostnames), targets, ann.EndpointMeta(ref)), nil
}

// serviceTargets returns the load balancer targets of the Service that
// value, the Host ref's [AmbassadorServiceAnnotation], names; none when
// it does not exist.
func (s *AmbassadorHostSource) serviceTargets(ref source.ObjectRef, value string) ([]string, error) {
	ns, name, err := parseAmbassadorService(value)
	if err != nil {
		return nil, fmt.Errorf("%s: annotation %s: %w", ref, AmbassadorServiceAnnotation, err)
	}
	svc, found, err := informers.Get[*corev1.Service](s.services.GetStore(), ns, name)
	if err != nil || !found {
		return nil, err
	}
	return loadBalancerTargets(svc), nil
}

// parseAmbassadorService splits the value of [AmbassadorServiceAnnotation]:
// "namespace/name"; else "name.namespace" (split at the first dot); else
// "name" in the namespace "default".
func parseAmbassadorService(value string) (namespace, name string, err error) {
	if ns, n, ok := strings.Cut(value, "/"); ok {
		if ns == "" || n == "" || strings.Contains(n, "/") {
			return "", "", fmt.Errorf("%q is neither \"name\", \"name.namespace\" nor \"namespace/name\"", value)
		}
		return ns, n, nil
	}
	if n, ns, ok := strings.Cut(value, "."); ok {
		if ns == "" || n == "" {
			return "", "", fmt.Errorf("%q is neither \"name\", \"name.namespace\" nor \"namespace/name\"", value)
		}
		return ns, n, nil
	}
	if value == "" {
		return "", "", fmt.Errorf("the Service name is empty")
	}
	return corev1.NamespaceDefault, value, nil
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *AmbassadorHostSource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *AmbassadorHostSource) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *AmbassadorHostSource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
