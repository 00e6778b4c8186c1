package kubernetes

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// HTTPProxyGVR is the resource of Contour's HTTPProxy.
var HTTPProxyGVR = schema.GroupVersionResource{Group: "projectcontour.io", Version: "v1", Resource: "httpproxies"}

// HTTPProxyConfig configures an [HTTPProxySource].
type HTTPProxyConfig struct {
	kubeopts.Options
	// DynamicFactory: see [ServiceConfig.Factory].
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
}

// HTTPProxySource publishes Contour HTTPProxies (projectcontour.io/v1):
// spec.virtualhost.fqdn and the hostname annotation, pointing at
// status.loadBalancer.ingress or at the target annotation. Proxies
// without a virtual host (included ones) give no names unless annotated
// or templated. Endpoints carry the resource label
// "HTTPProxy/⟨namespace⟩/⟨name⟩", spelled as external-dns writes it.
//
//zonesync:source:name=contour-httpproxy
//zonesync:source:category=kubernetes
//zonesync:source:description=Contour HTTPProxies: the virtual host pointing at the load balancer status.
//zonesync:source:resources=httpproxies.projectcontour.io
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=HTTPProxyConfig
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate
type HTTPProxySource struct {
	cfg HTTPProxyConfig
	res *dynamicResource
	inf informerSet
}

var (
	_ source.Source = (*HTTPProxySource)(nil)
	_ source.Syncer = (*HTTPProxySource)(nil)
)

// NewHTTPProxySource returns a Contour HTTPProxy source; see
// [NewServiceSource] for the informer life cycle.
func NewHTTPProxySource(ctx context.Context, client dynamic.Interface, cfg HTTPProxyConfig) (*HTTPProxySource, error) {
	res, err := openResource(ctx, client, cfg.DynamicFactory, &cfg.Options, "contour-httpproxy", schema.GroupVersionResource{}, HTTPProxyGVR)
	if err != nil {
		return nil, err
	}
	return &HTTPProxySource{cfg: cfg, res: res, inf: informerSet{res.informer}}, nil
}

// String returns "contour-httpproxy".
func (s *HTTPProxySource) String() string { return "contour-httpproxy" }

// Endpoints returns the endpoints of the selected HTTPProxies.
func (s *HTTPProxySource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return s.res.endpoints(ctx, "contour-httpproxy", func(u *unstructured.Unstructured) source.ObjectRef {
		ref := objectRef(u, "HTTPProxy")
		ref.Resource = "HTTPProxy/" + ref.Namespace + "/" + ref.Name // as external-dns writes it
		return ref
	}, s.proxyEndpoints)
}

func (s *HTTPProxySource) proxyEndpoints(ref source.ObjectRef, u *unstructured.Unstructured) ([]*endpoint.Endpoint, error) {
	ann, err := s.cfg.Annotations.Parse(ref, u.GetAnnotations())
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	fqdn, _, err := unstructured.NestedString(u.Object, "spec", "virtualhost", "fqdn")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.virtualhost.fqdn: %w", ref, err)
	}
	names := s.cfg.AnnotatedHostnames(ann)
	if fqdn != "" {
		if err := checkHost(ref, "spec.virtualhost.fqdn", fqdn); err != nil {
			return nil, err
		}
		names = append([]string{fqdn}, names...)
	}
	hostnames, err := s.cfg.CombineHostnames(names, ref, u.Object)
	if err != nil {
		return nil, err
	}
	targets := ann.Targets
	if targets == nil {
		targets = unstructuredLBTargets(u.Object, "status", "loadBalancer", "ingress")
	}
	hostnames = slices.Clone(hostnames)
	slices.Sort(hostnames)
	return source.EndpointsForHostnames(slices.Compact(hostnames), targets, ann.EndpointMeta(ref)), nil
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *HTTPProxySource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *HTTPProxySource) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *HTTPProxySource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
