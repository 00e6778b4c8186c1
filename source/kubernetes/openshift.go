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

// OpenShiftRouteGVR is the resource of OpenShift Routes.
var OpenShiftRouteGVR = schema.GroupVersionResource{Group: "route.openshift.io", Version: "v1", Resource: "routes"}

// OpenShiftRouteConfig configures an [OpenShiftRouteSource].
type OpenShiftRouteConfig struct {
	kubeopts.Options
	// RouterName picks the router whose status entry gives the host and
	// target (--openshift-router-name); empty means the first router that
	// admitted the Route.
	RouterName string
	// GVR overrides [OpenShiftRouteGVR].
	GVR schema.GroupVersionResource
	// DynamicFactory: see [ServiceConfig.Factory].
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
}

// OpenShiftRouteSource publishes OpenShift Routes (route.openshift.io/v1).
// The entry of status.ingress that gives the host name and target is the
// first one with an Admitted condition of status "True" and a
// routerCanonicalHostname, from the router RouterName when set. Its host
// (the host the router serves, normally spec.host) and the hostname
// annotation point at its routerCanonicalHostname, or at the target
// annotation. A Route no router admitted yet gives only its annotated or
// templated names.
//
//zonesync:source:name=openshift-route
//zonesync:source:category=kubernetes
//zonesync:source:description=OpenShift Routes: the admitted host pointing at the router's canonical host name.
//zonesync:source:resources=routes.route.openshift.io
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=OpenShiftRouteConfig
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate
type OpenShiftRouteSource struct {
	cfg OpenShiftRouteConfig
	res *dynamicResource
	inf informerSet
}

var (
	_ source.Source = (*OpenShiftRouteSource)(nil)
	_ source.Syncer = (*OpenShiftRouteSource)(nil)
)

// NewOpenShiftRouteSource returns an OpenShift Route source; see
// [NewServiceSource] for the informer life cycle.
func NewOpenShiftRouteSource(ctx context.Context, client dynamic.Interface, cfg OpenShiftRouteConfig) (*OpenShiftRouteSource, error) {
	res, err := openResource(ctx, client, cfg.DynamicFactory, &cfg.Options, "openshift-route", cfg.GVR, OpenShiftRouteGVR)
	if err != nil {
		return nil, err
	}
	return &OpenShiftRouteSource{cfg: cfg, res: res, inf: informerSet{res.informer}}, nil
}

// String returns "openshift-route".
func (s *OpenShiftRouteSource) String() string { return "openshift-route" }

// Endpoints returns the endpoints of the selected Routes.
func (s *OpenShiftRouteSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return s.res.endpoints(ctx, "openshift-route", kindRef("Route"), s.routeEndpoints)
}

func (s *OpenShiftRouteSource) routeEndpoints(ref source.ObjectRef, u *unstructured.Unstructured) ([]*endpoint.Endpoint, error) {
	ann, err := s.cfg.Annotations.Parse(ref, u.GetAnnotations())
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	host, target, err := s.admittedIngress(ref, u)
	if err != nil {
		return nil, err
	}
	var names []string
	if host != "" {
		names = append(names, host)
	}
	hostnames, err := s.cfg.CombineHostnames(append(names, s.cfg.AnnotatedHostnames(ann)...), ref, u.Object)
	if err != nil {
		return nil, err
	}
	targets := ann.Targets
	if targets == nil && target != "" {
		targets = []string{target}
	}
	hostnames = slices.Clone(hostnames)
	slices.Sort(hostnames)
	return source.EndpointsForHostnames(slices.Compact(hostnames), targets, ann.EndpointMeta(ref)), nil
}

// admittedIngress returns the host and routerCanonicalHostname of the
// status.ingress entry of the Route u that publishes it; both are empty
// when there is none.
func (s *OpenShiftRouteSource) admittedIngress(ref source.ObjectRef, u *unstructured.Unstructured) (host, target string, err error) {
	entries, _, err := unstructured.NestedSlice(u.Object, "status", "ingress")
	if err != nil {
		return "", "", fmt.Errorf("%s: status.ingress: %w", ref, err)
	}
	for i, e := range entries {
		field := fmt.Sprintf("status.ingress[%d]", i)
		m, ok := e.(map[string]any)
		if !ok {
			return "", "", fmt.Errorf("%s: %s is not an object", ref, field)
		}
		var router, canonical string
		for _, f := range []struct {
			name string
			to   *string
		}{{"routerName", &router}, {"routerCanonicalHostname", &canonical}, {"host", &host}} {
			if *f.to, _, err = unstructured.NestedString(m, f.name); err != nil {
				return "", "", fmt.Errorf("%s: %s.%s: %w", ref, field, f.name, err)
			}
		}
		admitted, err := routeAdmitted(m)
		if err != nil {
			return "", "", fmt.Errorf("%s: %s.conditions: %w", ref, field, err)
		}
		if !admitted || canonical == "" || (s.cfg.RouterName != "" && s.cfg.RouterName != router) {
			continue
		}
		if host != "" {
			if err := checkHost(ref, field+".host", host); err != nil {
				return "", "", err
			}
		}
		return host, canonical, nil
	}
	return "", "", nil
}

// routeAdmitted reports whether the first Admitted condition of the
// status.ingress entry m has status "True".
func routeAdmitted(m map[string]any) (bool, error) {
	conds, _, err := unstructured.NestedSlice(m, "conditions")
	if err != nil {
		return false, err
	}
	for i, c := range conds {
		cm, ok := c.(map[string]any)
		if !ok {
			return false, fmt.Errorf("[%d] is not an object", i)
		}
		if cm["type"] == "Admitted" {
			return cm["status"] == "True", nil
		}
	}
	return false, nil
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *OpenShiftRouteSource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *OpenShiftRouteSource) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *OpenShiftRouteSource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
