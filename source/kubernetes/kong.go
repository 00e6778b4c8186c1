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

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// KongTCPIngressGVR is the resource of Kong TCPIngresses.
var KongTCPIngressGVR = schema.GroupVersionResource{Group: "configuration.konghq.com", Version: "v1beta1", Resource: "tcpingresses"}

// KongTCPIngressConfig configures a [KongTCPIngressSource].
type KongTCPIngressConfig struct {
	kubeopts.Options
	// GVR overrides [KongTCPIngressGVR].
	GVR schema.GroupVersionResource
	// DynamicFactory: see [ServiceConfig.Factory].
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
}

// KongTCPIngressSource publishes Kong TCPIngresses
// (configuration.konghq.com/v1beta1): the hosts of spec.rules and the
// hostname annotation (spec.tls hosts are not published), pointing at the
// addresses and host names of status.loadBalancer.ingress, or at the
// target annotation.
//
//zonesync:source:name=kong-tcpingress
//zonesync:source:category=kubernetes
//zonesync:source:description=Kong TCPIngresses: rule hosts pointing at the load balancer status.
//zonesync:source:resources=tcpingresses.configuration.konghq.com
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=KongTCPIngressConfig
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate
type KongTCPIngressSource struct {
	cfg KongTCPIngressConfig
	res *dynamicResource
	inf informerSet
}

var (
	_ source.Source = (*KongTCPIngressSource)(nil)
	_ source.Syncer = (*KongTCPIngressSource)(nil)
)

// NewKongTCPIngressSource returns a Kong TCPIngress source; see
// [NewServiceSource] for the informer life cycle.
func NewKongTCPIngressSource(ctx context.Context, client dynamic.Interface, cfg KongTCPIngressConfig) (*KongTCPIngressSource, error) {
	res, err := openResource(ctx, client, cfg.DynamicFactory, &cfg.Options, "kong-tcpingress", cfg.GVR, KongTCPIngressGVR)
	if err != nil {
		return nil, err
	}
	return &KongTCPIngressSource{cfg: cfg, res: res, inf: informerSet{res.informer}}, nil
}

// String returns "kong-tcpingress".
func (s *KongTCPIngressSource) String() string { return "kong-tcpingress" }

// Endpoints returns the endpoints of the selected TCPIngresses.
func (s *KongTCPIngressSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return s.res.endpoints(ctx, "kong-tcpingress", kindRef("TCPIngress"), s.tcpIngressEndpoints)
}

func (s *KongTCPIngressSource) tcpIngressEndpoints(ref source.ObjectRef, u *unstructured.Unstructured) ([]*endpoint.Endpoint, error) {
	ann, err := s.cfg.Annotations.Parse(ref, u.GetAnnotations())
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	rules, _, err := unstructured.NestedSlice(u.Object, "spec", "rules")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.rules: %w", ref, err)
	}
	var hosts []string
	for i, r := range rules {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: spec.rules[%d] is not an object", ref, i)
		}
		h, _, err := unstructured.NestedString(m, "host")
		if err != nil {
			return nil, fmt.Errorf("%s: spec.rules[%d].host: %w", ref, i, err)
		}
		if h == "" {
			continue
		}
		if err := checkHost(ref, fmt.Sprintf("spec.rules[%d].host", i), h); err != nil {
			return nil, err
		}
		hosts = append(hosts, h)
	}
	hostnames, err := s.cfg.CombineHostnames(append(hosts, s.cfg.AnnotatedHostnames(ann)...), ref, u.Object)
	if err != nil {
		return nil, err
	}
	targets := ann.Targets
	if targets == nil {
		if targets, err = statusAddresses(ref, u.Object, "status", "loadBalancer", "ingress"); err != nil {
			return nil, err
		}
	}
	hostnames = slices.Clone(hostnames)
	slices.Sort(hostnames)
	return source.EndpointsForHostnames(slices.Compact(hostnames), targets, ann.EndpointMeta(ref)), nil
}

// statusAddresses returns the ip and hostname fields of the entries of the
// list at fields of obj (a load balancer status), both when an entry has
// both. A list or an entry of the wrong type is an error naming the field.
func statusAddresses(ref source.ObjectRef, obj map[string]any, fields ...string) ([]string, error) {
	path := strings.Join(fields, ".")
	items, _, err := unstructured.NestedSlice(obj, fields...)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", ref, path, err)
	}
	var targets []string
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %s[%d] is not an object", ref, path, i)
		}
		for _, key := range []string{"ip", "hostname"} {
			v, _, err := unstructured.NestedString(m, key)
			if err != nil {
				return nil, fmt.Errorf("%s: %s[%d].%s: %w", ref, path, i, key, err)
			}
			if v != "" {
				targets = append(targets, v)
			}
		}
	}
	return targets, nil
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *KongTCPIngressSource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *KongTCPIngressSource) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *KongTCPIngressSource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
