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

// Resources of the F5 BIG-IP Container Ingress Services.
var (
	F5VirtualServerGVR   = schema.GroupVersionResource{Group: "cis.f5.com", Version: "v1", Resource: "virtualservers"}
	F5TransportServerGVR = schema.GroupVersionResource{Group: "cis.f5.com", Version: "v1", Resource: "transportservers"}
)

// F5VirtualServerConfig configures an [F5VirtualServerSource].
type F5VirtualServerConfig struct {
	kubeopts.Options
	// DynamicFactory: see [ServiceConfig.Factory].
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
}

// F5TransportServerConfig configures an [F5TransportServerSource].
type F5TransportServerConfig struct {
	kubeopts.Options
	// DynamicFactory: see [ServiceConfig.Factory].
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
}

// F5VirtualServerSource publishes F5 CIS VirtualServers (cis.f5.com/v1):
// spec.host and spec.hostAliases, pointing at the target annotation, else
// spec.virtualServerAddress, else status.vsAddress. A VirtualServer is
// published only once CIS has given it an address: status.vsAddress set
// and not "None" (status.status, "Ok" or an error, is not looked at). As
// in external-dns only the ttl annotation is read besides the target and
// controller ones: no hostname, set identifier or provider-specific
// annotation. Endpoints carry the resource label
// "f5-virtualserver/⟨namespace⟩/⟨name⟩".
//
//zonesync:source:name=f5-virtualserver
//zonesync:source:category=kubernetes
//zonesync:source:description=F5 CIS VirtualServers: host and host aliases pointing at the virtual server address.
//zonesync:source:resources=virtualservers.cis.f5.com
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=F5VirtualServerConfig
type F5VirtualServerSource struct {
	f5Source
}

// F5TransportServerSource publishes F5 CIS TransportServers (cis.f5.com/v1)
// as [F5VirtualServerSource] does VirtualServers, from spec.host alone
// (TransportServers have no host aliases). Endpoints carry the resource
// label "f5-transportserver/⟨namespace⟩/⟨name⟩".
//
//zonesync:source:name=f5-transportserver
//zonesync:source:category=kubernetes
//zonesync:source:description=F5 CIS TransportServers: the host pointing at the virtual server address.
//zonesync:source:resources=transportservers.cis.f5.com
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=F5TransportServerConfig
type F5TransportServerSource struct {
	f5Source
}

// f5Source is what the two F5 sources share.
type f5Source struct {
	name    string // source name, also the prefix of the resource key
	kind    string
	aliases bool // whether spec.hostAliases is read
	opts    Options
	res     *dynamicResource
	inf     informerSet
}

var (
	_ source.Source = (*F5VirtualServerSource)(nil)
	_ source.Syncer = (*F5VirtualServerSource)(nil)
	_ source.Source = (*F5TransportServerSource)(nil)
	_ source.Syncer = (*F5TransportServerSource)(nil)
)

// NewF5VirtualServerSource returns an F5 VirtualServer source; see
// [NewServiceSource] for the informer life cycle.
func NewF5VirtualServerSource(ctx context.Context, client dynamic.Interface, cfg F5VirtualServerConfig) (*F5VirtualServerSource, error) {
	s, err := newF5Source(ctx, client, cfg.DynamicFactory, cfg.Options, "f5-virtualserver", "VirtualServer", F5VirtualServerGVR, true)
	if err != nil {
		return nil, err
	}
	return &F5VirtualServerSource{s}, nil
}

// NewF5TransportServerSource returns an F5 TransportServer source; see
// [NewServiceSource] for the informer life cycle.
func NewF5TransportServerSource(ctx context.Context, client dynamic.Interface, cfg F5TransportServerConfig) (*F5TransportServerSource, error) {
	s, err := newF5Source(ctx, client, cfg.DynamicFactory, cfg.Options, "f5-transportserver", "TransportServer", F5TransportServerGVR, false)
	if err != nil {
		return nil, err
	}
	return &F5TransportServerSource{s}, nil
}

func newF5Source(ctx context.Context, client dynamic.Interface, factory dynamicinformer.DynamicSharedInformerFactory, o Options, name, kind string, gvr schema.GroupVersionResource, aliases bool) (f5Source, error) {
	o, err := o.WithSource(name)
	if err != nil {
		return f5Source{}, err
	}
	res, start, err := newDynamicResource(ctx, client, factory, o, name, gvr)
	if err != nil {
		return f5Source{}, err
	}
	s := f5Source{name: name, kind: kind, aliases: aliases, opts: o, res: res, inf: informerSet{res.informer}}
	if start != nil {
		start(ctx)
	}
	return s, nil
}

// String returns the source's name: "f5-virtualserver" or
// "f5-transportserver".
func (s *f5Source) String() string { return s.name }

// Endpoints returns the endpoints of the selected objects that have an
// address.
func (s *f5Source) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return s.res.endpoints(ctx, s.name, func(u *unstructured.Unstructured) source.ObjectRef {
		ref := source.ObjectRef{Kind: s.kind, Namespace: u.GetNamespace(), Name: u.GetName()}
		ref.Resource = s.name + "/" + ref.Namespace + "/" + ref.Name // as external-dns writes it
		return ref
	}, s.serverEndpoints)
}

func (s *f5Source) serverEndpoints(ref source.ObjectRef, u *unstructured.Unstructured) ([]*endpoint.Endpoint, error) {
	ann, err := s.opts.Annotations.Parse(ref, u.GetAnnotations())
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	status, _, err := unstructured.NestedString(u.Object, "status", "vsAddress")
	if err != nil {
		return nil, fmt.Errorf("%s: status.vsAddress: %w", ref, err)
	}
	// Only the TTL: external-dns reads no set identifier or
	// provider-specific annotation on F5 objects.
	meta := source.EndpointMeta{TTL: ann.TTL, Resource: ref.Key()}
	if status == "" || strings.EqualFold(status, "none") {
		// CIS has not given it an address yet: only the templates may
		// give records, as in external-dns.
		return s.opts.TemplateEndpoints(nil, ref, u.Object, meta)
	}
	var hosts []string
	host, _, err := unstructured.NestedString(u.Object, "spec", "host")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.host: %w", ref, err)
	}
	if host != "" {
		if err := checkHost(ref, "spec.host", host); err != nil {
			return nil, err
		}
		hosts = append(hosts, host)
	}
	if s.aliases {
		aliases, _, err := unstructured.NestedStringSlice(u.Object, "spec", "hostAliases")
		if err != nil {
			return nil, fmt.Errorf("%s: spec.hostAliases: %w", ref, err)
		}
		for i, a := range aliases {
			if a == "" {
				continue
			}
			if err := checkHost(ref, fmt.Sprintf("spec.hostAliases[%d]", i), a); err != nil {
				return nil, err
			}
			hosts = append(hosts, a)
		}
	}
	targets := ann.Targets
	if targets == nil {
		address, _, err := unstructured.NestedString(u.Object, "spec", "virtualServerAddress")
		if err != nil {
			return nil, fmt.Errorf("%s: spec.virtualServerAddress: %w", ref, err)
		}
		if address == "" {
			address = status
		}
		targets = []string{address}
	}
	slices.Sort(hosts)
	eps := source.EndpointsForHostnames(slices.Compact(hosts), targets, meta)
	return s.opts.TemplateEndpoints(eps, ref, u.Object, meta)
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *f5Source) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *f5Source) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *f5Source) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
