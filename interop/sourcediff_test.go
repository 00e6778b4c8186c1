package interop

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openshift "github.com/openshift/client-go/route/clientset/versioned"
	routefake "github.com/openshift/client-go/route/clientset/versioned/fake"
	istioclient "istio.io/client-go/pkg/clientset/versioned"
	istiofake "istio.io/client-go/pkg/clientset/versioned/fake"
	istioscheme "istio.io/client-go/pkg/clientset/versioned/scheme"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	gateway "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"
	gatewayfake "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/fake"
	gatewayscheme "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/scheme"

	xsource "sigs.k8s.io/external-dns/source"
	xannotations "sigs.k8s.io/external-dns/source/annotations"
	xtemplate "sigs.k8s.io/external-dns/source/template"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/fqdn"
	zkube "github.com/zonesync/zonesync/source/kubernetes"
)

// This file is the harness of the differential source tests
// (sources_*_test.go): one set of Kubernetes objects, loaded into fake
// clients, read by a zonesync source and by external-dns's own source built
// with the same settings, and the two endpoint sets compared. See the
// "Sources" section of doc.go for how to add a source.

// sourceSettings are the settings both sides of a differential test are
// built with. Each field maps to one external-dns flag and to the zonesync
// option of the same meaning.
type sourceSettings struct {
	Namespace         string   // --namespace
	AnnotationFilter  string   // --annotation-filter
	LabelSelector     string   // --label-filter
	FQDNTemplate      string   // --fqdn-template
	CombineFQDN       bool     // --combine-fqdn-annotation
	PublishInternal   bool     // --publish-internal-services
	PublishHostIP     bool     // --publish-host-ip
	ServiceTypeFilter []string // --service-type-filter
	IngressClassNames []string // --ingress-class

	IgnoreHostnameAnnotation bool   // --ignore-hostname-annotation
	IgnoreIngressRulesSpec   bool   // --ignore-ingress-rules-spec
	IgnoreIngressTLSSpec     bool   // --ignore-ingress-tls-spec
	IncludeUnschedulable     bool   // --exclude-unschedulable=false
	ExposeInternalIPv6       bool   // --expose-internal-ipv6
	PodSourceDomain          string // --pod-source-domain
	IgnoreNonHostNetworkPods bool   // --ignore-non-host-network-pods

	GatewayName         string // --gateway-name
	GatewayNamespace    string // --gateway-namespace
	GatewayLabelFilter  string // --gateway-label-filter
	GatewayListenerSets bool   // --gateway-listener-sets
}

func (s sourceSettings) String() string {
	type plain sourceSettings // without the String method
	return fmt.Sprintf("%+v", plain(s))
}

// zonesyncTemplate parses the FQDN template for zonesync (nil when empty).
func (s sourceSettings) zonesyncTemplate() (*fqdn.Template, error) {
	if s.FQDNTemplate == "" {
		return nil, nil
	}
	return fqdn.NewTemplate(s.FQDNTemplate)
}

// externalDNSConfig is the source.Config external-dns would build from the
// same flags.
func (s sourceSettings) externalDNSConfig() (*xsource.Config, error) {
	annotationFilter, err := xannotations.ParseFilter(s.AnnotationFilter)
	if err != nil {
		return nil, err
	}
	labelFilter, err := labels.Parse(s.LabelSelector)
	if err != nil {
		return nil, err
	}
	var templates []string
	if s.FQDNTemplate != "" {
		templates = []string{s.FQDNTemplate}
	}
	engine, err := xtemplate.NewEngine(templates, nil, nil, s.CombineFQDN)
	if err != nil {
		return nil, err
	}
	return &xsource.Config{
		Namespace:         s.Namespace,
		AnnotationFilter:  annotationFilter,
		LabelFilter:       labelFilter,
		IngressClassNames: s.IngressClassNames,
		TemplateEngine:    engine,
		PublishInternal:   s.PublishInternal,
		PublishHostIP:     s.PublishHostIP,
		ServiceTypeFilter: s.ServiceTypeFilter,

		IgnoreHostnameAnnotation: s.IgnoreHostnameAnnotation,
		IgnoreIngressRulesSpec:   s.IgnoreIngressRulesSpec,
		IgnoreIngressTLSSpec:     s.IgnoreIngressTLSSpec,
		ExcludeUnschedulable:     !s.IncludeUnschedulable,
		ExposeInternalIPv6:       s.ExposeInternalIPv6,
		PodSourceDomain:          s.PodSourceDomain,
		IgnoreNonHostNetworkPods: s.IgnoreNonHostNetworkPods,

		GatewayName:         s.GatewayName,
		GatewayNamespace:    s.GatewayNamespace,
		GatewayLabelFilter:  s.GatewayLabelFilter,
		GatewayListenerSets: s.GatewayListenerSets,
	}, nil
}

// dynamicResources are the custom resources the dynamic fake serves, with
// their list kinds: every resource some source of either side lists must be
// here, or listing it fails. A new CRD-based source adds its resources.
func dynamicResources() map[schema.GroupVersionResource]string {
	return map[schema.GroupVersionResource]string{
		{Group: "networking.istio.io", Version: "v1", Resource: "gateways"}:               "GatewayList",
		{Group: "networking.istio.io", Version: "v1", Resource: "virtualservices"}:        "VirtualServiceList",
		{Group: "projectcontour.io", Version: "v1", Resource: "httpproxies"}:              "HTTPProxyList",
		{Group: "externaldns.k8s.io", Version: "v1alpha1", Resource: "dnsendpoints"}:      "DNSEndpointList",
		{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gateways"}:         "GatewayList",
		{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}:       "HTTPRouteList",
		{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "grpcroutes"}:       "GRPCRouteList",
		{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "tlsroutes"}:        "TLSRouteList",
		{Group: "gateway.networking.k8s.io", Version: "v1alpha2", Resource: "tlsroutes"}:  "TLSRouteList",
		{Group: "gateway.networking.k8s.io", Version: "v1alpha2", Resource: "tcproutes"}:  "TCPRouteList",
		{Group: "gateway.networking.k8s.io", Version: "v1alpha2", Resource: "udproutes"}:  "UDPRouteList",
		{Group: "traefik.io", Version: "v1alpha1", Resource: "ingressroutes"}:             "IngressRouteList",
		{Group: "traefik.io", Version: "v1alpha1", Resource: "ingressroutetcps"}:          "IngressRouteTCPList",
		{Group: "traefik.io", Version: "v1alpha1", Resource: "ingressrouteudps"}:          "IngressRouteUDPList",
		{Group: "traefik.containo.us", Version: "v1alpha1", Resource: "ingressroutes"}:    "IngressRouteList",
		{Group: "traefik.containo.us", Version: "v1alpha1", Resource: "ingressroutetcps"}: "IngressRouteTCPList",
		{Group: "traefik.containo.us", Version: "v1alpha1", Resource: "ingressrouteudps"}: "IngressRouteUDPList",
		{Group: "cis.f5.com", Version: "v1", Resource: "virtualservers"}:                  "VirtualServerList",
		{Group: "cis.f5.com", Version: "v1", Resource: "transportservers"}:                "TransportServerList",
		{Group: "configuration.konghq.com", Version: "v1beta1", Resource: "tcpingresses"}: "TCPIngressList",
		{Group: "getambassador.io", Version: "v3alpha1", Resource: "hosts"}:               "HostList",
		{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "listenersets"}:     "ListenerSetList",
		{Group: "route.openshift.io", Version: "v1", Resource: "routes"}:                  "RouteList",
		{Group: "zalando.org", Version: "v1", Resource: "routegroups"}:                    "RouteGroupList",
		{Group: "gloo.solo.io", Version: "v1", Resource: "proxies"}:                       "ProxyList",
		{Group: "gateway.solo.io", Version: "v1", Resource: "virtualservices"}:            "VirtualServiceList",
		{Group: "gateway.solo.io", Version: "v1", Resource: "gateways"}:                   "GatewayList",
	}
}

// resourceOf is the plural resource name of a kind ("HTTPProxy" ->
// "httpproxies").
func resourceOf(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(k, "y"):
		return strings.TrimSuffix(k, "y") + "ies"
	case strings.HasSuffix(k, "s"):
		return k + "es"
	}
	return k + "s"
}

// fakeCluster is one set of objects and the fake clients that serve it to
// both sides. Typed objects (core, discovery, networking) go to the
// kubernetes fake; unstructured ones to the dynamic fake, and those of the
// Istio and Gateway API groups also, converted, to the typed fakes
// external-dns reads them from. DNSEndpoints are also served by a small
// API server on the loopback, as external-dns's CRD source only takes a
// REST config. It implements external-dns's source.ClientGenerator.
type fakeCluster struct {
	t       testing.TB
	typed   []runtime.Object
	objects []*unstructured.Unstructured // every object, typed ones converted

	once      sync.Once
	kube      *kubefake.Clientset
	dyn       *dynamicfake.FakeDynamicClient
	istio     *istiofake.Clientset
	gw        *gatewayfake.Clientset
	restOnce  sync.Once
	restCfg   *rest.Config
	byResKey  map[string][]*unstructured.Unstructured
	buildErrs []error
}

var _ xsource.ClientGenerator = (*fakeCluster)(nil)

// newFakeCluster holds objs, typed Kubernetes objects or
// *unstructured.Unstructured custom resources.
func newFakeCluster(t testing.TB, objs ...runtime.Object) *fakeCluster {
	t.Helper()
	c := &fakeCluster{t: t, byResKey: map[string][]*unstructured.Unstructured{}}
	for _, o := range objs {
		var u *unstructured.Unstructured
		if uo, ok := o.(*unstructured.Unstructured); ok {
			u = uo
		} else {
			c.typed = append(c.typed, o)
			gvks, _, err := kubescheme.Scheme.ObjectKinds(o)
			if err != nil {
				t.Fatalf("object %T: %v", o, err)
			}
			m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
			if err != nil {
				t.Fatalf("object %T: %v", o, err)
			}
			u = &unstructured.Unstructured{Object: m}
			u.SetGroupVersionKind(gvks[0])
		}
		c.objects = append(c.objects, u)
		key := resourceKey(u.GetKind(), u.GetNamespace(), u.GetName())
		c.byResKey[key] = append(c.byResKey[key], u)
	}
	return c
}

// resourceKey is the resource label value of an object, in lower case.
func resourceKey(kind, namespace, name string) string {
	return strings.ToLower(kind + "/" + namespace + "/" + name)
}

func (c *fakeCluster) build() {
	c.once.Do(func() {
		c.kube = kubefake.NewClientset(c.typed...)
		var dynObjs, istioObjs, gwObjs []runtime.Object
		var misguessed []*unstructured.Unstructured
		for _, u := range c.objects {
			gvk := u.GroupVersionKind()
			switch gvk.Group {
			case "", "discovery.k8s.io", "networking.k8s.io":
				continue
			}
			if _, ok := misguessedResource(gvk); ok {
				misguessed = append(misguessed, u)
				continue
			}
			switch gvk.Group {
			case "networking.istio.io":
				istioObjs = append(istioObjs, c.typedCopy(istioscheme.Scheme, u))
			case "gateway.networking.k8s.io":
				gwObjs = append(gwObjs, c.typedCopy(gatewayscheme.Scheme, u))
			}
			dynObjs = append(dynObjs, u.DeepCopy())
		}
		c.dyn = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), dynamicResources(), dynObjs...)
		c.istio = istiofake.NewSimpleClientset(istioObjs...)
		c.gw = gatewayfake.NewSimpleClientset(gwObjs...) //nolint:staticcheck // NewClientset's tracker cannot file a Gateway under "gateways"
		c.addMisguessed(misguessed)
	})
}

// misguessedResource returns the resource of gvk from dynamicResources
// when the fakes' trackers would file objects of that kind under another
// name: they guess the resource from the kind and make "Gateway" a
// "gatewaies".
func misguessedResource(gvk schema.GroupVersionKind) (schema.GroupVersionResource, bool) {
	guessed, _ := meta.UnsafeGuessKindToResource(gvk)
	for gvr, list := range dynamicResources() {
		if gvr.GroupVersion() == gvk.GroupVersion() && list == gvk.Kind+"List" && gvr != guessed {
			return gvr, true
		}
	}
	return schema.GroupVersionResource{}, false
}

// addMisguessed files objs under their real resource in the dynamic fake
// and, for the Istio and Gateway API groups, in their typed fakes.
func (c *fakeCluster) addMisguessed(objs []*unstructured.Unstructured) {
	for _, u := range objs {
		gvr, _ := misguessedResource(u.GroupVersionKind())
		err := c.dyn.Tracker().Create(gvr, u.DeepCopy(), u.GetNamespace())
		switch gvr.Group {
		case "networking.istio.io":
			err = errors.Join(err, c.istio.Tracker().Create(gvr, c.typedCopy(istioscheme.Scheme, u), u.GetNamespace()))
		case "gateway.networking.k8s.io":
			err = errors.Join(err, c.gw.Tracker().Create(gvr, c.typedCopy(gatewayscheme.Scheme, u), u.GetNamespace()))
		}
		if err != nil {
			c.t.Fatalf("%s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
	}
}

// typedCopy converts u to the typed object of its kind in scheme, through
// JSON (Istio's specs are protobuf messages with their own JSON codecs).
func (c *fakeCluster) typedCopy(scheme *runtime.Scheme, u *unstructured.Unstructured) runtime.Object {
	obj, err := scheme.New(u.GroupVersionKind())
	if err != nil {
		c.t.Fatalf("%s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	data, err := u.MarshalJSON()
	if err == nil {
		err = json.Unmarshal(data, obj)
	}
	if err != nil {
		c.t.Fatalf("%s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return obj
}

// KubeClient implements xsource.ClientGenerator.
func (c *fakeCluster) KubeClient() (kubernetes.Interface, error) { c.build(); return c.kube, nil }

// GatewayClient implements xsource.ClientGenerator.
func (c *fakeCluster) GatewayClient() (gateway.Interface, error) { c.build(); return c.gw, nil }

// IstioClient implements xsource.ClientGenerator.
func (c *fakeCluster) IstioClient() (istioclient.Interface, error) { c.build(); return c.istio, nil }

// DynamicKubernetesClient implements xsource.ClientGenerator.
func (c *fakeCluster) DynamicKubernetesClient() (dynamic.Interface, error) {
	c.build()
	return c.dyn, nil
}

// OpenShiftClient implements xsource.ClientGenerator: an empty fake.
func (c *fakeCluster) OpenShiftClient() (openshift.Interface, error) {
	return routefake.NewSimpleClientset(), nil
}

// RESTConfig implements xsource.ClientGenerator with an API server on the
// loopback that serves discovery and list/watch of DNSEndpoints, all
// external-dns's CRD source (a controller-runtime cache) asks of it.
func (c *fakeCluster) RESTConfig() (*rest.Config, error) {
	c.restOnce.Do(func() {
		srv := httptest.NewServer(http.HandlerFunc(c.serveDNSEndpoints))
		// The cleanups run before the context of the source is cancelled:
		// end its watches first, or Close waits for them.
		c.t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
		c.restCfg = &rest.Config{Host: srv.URL}
	})
	return c.restCfg, nil
}

func (c *fakeCluster) serveDNSEndpoints(w http.ResponseWriter, r *http.Request) {
	const group, version = "externaldns.k8s.io", "v1alpha1"
	gv := group + "/" + version
	reply := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	switch {
	case r.Method != http.MethodGet:
		// Status writes: accepted and ignored.
		w.WriteHeader(http.StatusNotFound)
	case r.URL.Path == "/api":
		reply(&metav1.APIVersions{})
	case r.URL.Path == "/apis":
		v := metav1.GroupVersionForDiscovery{GroupVersion: gv, Version: version}
		reply(&metav1.APIGroupList{Groups: []metav1.APIGroup{{Name: group, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v}}})
	case r.URL.Path == "/apis/"+gv:
		reply(&metav1.APIResourceList{GroupVersion: gv, APIResources: []metav1.APIResource{{
			Name: "dnsendpoints", Namespaced: true, Kind: "DNSEndpoint", Verbs: metav1.Verbs{"get", "list", "watch"},
		}}})
	case r.URL.Query().Get("watch") == "true":
		// A streaming list (client-go's WatchListClient, on by default)
		// asks for the objects as ADDED events ended by a bookmark.
		var events []map[string]any
		if r.URL.Query().Get("sendInitialEvents") == "true" {
			items, err := c.dnsEndpointItems(r)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			for _, o := range items {
				events = append(events, map[string]any{"type": "ADDED", "object": o})
			}
			events = append(events, map[string]any{"type": "BOOKMARK", "object": map[string]any{
				"apiVersion": gv, "kind": "DNSEndpoint",
				"metadata": map[string]any{"resourceVersion": "1", "annotations": map[string]any{"k8s.io/initial-events-end": "true"}},
			}})
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		enc := json.NewEncoder(w)
		for _, e := range events {
			_ = enc.Encode(e)
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		<-r.Context().Done()
	default:
		items, err := c.dnsEndpointItems(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		reply(map[string]any{"apiVersion": gv, "kind": "DNSEndpointList", "metadata": map[string]any{"resourceVersion": "1"}, "items": items})
	}
}

// dnsEndpointItems returns the DNSEndpoints a list or watch request of
// the loopback API server selects: by the namespace of its path and its
// labelSelector.
func (c *fakeCluster) dnsEndpointItems(r *http.Request) ([]map[string]any, error) {
	const gv = "externaldns.k8s.io/v1alpha1"
	ns := ""
	if rest, ok := strings.CutPrefix(r.URL.Path, "/apis/"+gv+"/namespaces/"); ok {
		ns, _, _ = strings.Cut(rest, "/")
	}
	sel := labels.Everything()
	if q := r.URL.Query().Get("labelSelector"); q != "" {
		var err error
		if sel, err = labels.Parse(q); err != nil {
			return nil, err
		}
	}
	items := []map[string]any{}
	for _, u := range c.objects {
		if u.GetKind() != "DNSEndpoint" || (ns != "" && u.GetNamespace() != ns) || !sel.Matches(labels.Set(u.GetLabels())) {
			continue
		}
		o := u.DeepCopy()
		if o.GetResourceVersion() == "" {
			o.SetResourceVersion("1")
		}
		items = append(items, o.Object)
	}
	return items, nil
}

// object returns the object a resource label names, or nil.
func (c *fakeCluster) object(resource string) *unstructured.Unstructured {
	if objs := c.byResKey[strings.ToLower(resource)]; len(objs) == 1 {
		return objs[0]
	}
	return nil
}

// record is the compared form of an endpoint.
type record struct {
	Name, Type, Targets string
	TTL                 int64
	SetIdentifier       string
	ProviderSpecific    string
	Resource            string
}

func (r record) String() string {
	s := fmt.Sprintf("%s %s [%s]", r.Name, r.Type, r.Targets)
	if r.TTL != 0 {
		s += fmt.Sprintf(" ttl=%d", r.TTL)
	}
	if r.SetIdentifier != "" {
		s += " set=" + r.SetIdentifier
	}
	if r.ProviderSpecific != "" {
		s += " ps={" + r.ProviderSpecific + "}"
	}
	return s + " <" + r.Resource + ">"
}

// targetList splits Targets back.
func (r record) targetList() []string {
	if r.Targets == "" {
		return nil
	}
	return strings.Split(r.Targets, " ")
}

// ps returns one provider-specific property, "" when absent.
func (r record) ps(name string) string {
	for p := range strings.SplitSeq(r.ProviderSpecific, ",") {
		if k, v, ok := strings.Cut(p, "="); ok && k == name {
			return v
		}
	}
	return ""
}

func toRecord(ep *endpoint.Endpoint) record {
	targets := slices.Clone([]string(ep.Targets))
	slices.Sort(targets)
	var ps []string
	for _, p := range ep.ProviderSpecific {
		ps = append(ps, p.Name+"="+p.Value)
	}
	slices.Sort(ps)
	res, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
	return record{
		Name: ep.DNSName, Type: ep.RecordType, Targets: strings.Join(targets, " "),
		TTL: int64(ep.RecordTTL), SetIdentifier: ep.SetIdentifier,
		ProviderSpecific: strings.Join(ps, ","), Resource: strings.ToLower(res),
	}
}

func recordSet(eps []*endpoint.Endpoint) map[record]bool {
	set := make(map[record]bool, len(eps))
	for _, ep := range eps {
		set[toRecord(ep)] = true
	}
	return set
}

// side says which source produced a record the other did not.
type side string

const (
	zonesyncOnly    side = "zonesync only"
	externalDNSOnly side = "external-dns only"
)

// disagreement is one record that only one side produced, with what the
// rules need to judge it.
type disagreement struct {
	Only   side
	Record record
	// Object is the object the record's resource label names, nil if
	// none (or several).
	Object *unstructured.Unstructured
	// Failed is zonesync's PartialError cause for that object, if any.
	Failed error
	// Zonesync and ExternalDNS are all the records of both sides for
	// that object (for the whole source when it has no resource label).
	Zonesync, ExternalDNS []record
	Settings              sourceSettings
	// AllZonesync and AllExternalDNS are every record of each side.
	AllZonesync, AllExternalDNS map[record]bool
}

// other returns the records of the side that did not produce d.Record.
func (d disagreement) other() []record {
	if d.Only == zonesyncOnly {
		return d.ExternalDNS
	}
	return d.Zonesync
}

// annotation returns an annotation of the object, trying the given names
// under external-dns.kubernetes.io/ then external-dns.alpha.kubernetes.io/.
func (d disagreement) annotation(name string) (string, bool) {
	if d.Object == nil {
		return "", false
	}
	anns := d.Object.GetAnnotations()
	for _, p := range []string{"external-dns.kubernetes.io/", "external-dns.alpha.kubernetes.io/"} {
		if v, ok := anns[p+name]; ok {
			return v, true
		}
	}
	return "", false
}

// sourceRule is a named, documented reason why the two sides may
// disagree. Every rule is listed in docs/compatibility.md ("Sources").
type sourceRule struct {
	Name   string
	Reason string
	Match  func(d disagreement) bool
}

// sourceDiff is one source under differential test.
type sourceDiff struct {
	// Name is external-dns's source name (source/types), which
	// BuildWithConfig builds.
	Name string
	// Zonesync builds zonesync's source over the cluster's clients.
	Zonesync func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error)
	// ExternalDNS builds external-dns's source; nil means
	// BuildWithConfig(Name) with s.externalDNSConfig().
	ExternalDNS func(ctx context.Context, c *fakeCluster, s sourceSettings) (xsource.Source, error)
	// Rules are the known differences of this source, tried before
	// commonRules().
	Rules []sourceRule
}

// outcome is what one comparison found.
type outcome struct {
	Zonesync, ExternalDNS map[record]bool
	Unexplained           []disagreement
	// Explained counts the disagreements per rule name.
	Explained map[string]int
}

// endpoints builds both sources over a cluster of objs and returns their
// endpoint sets, the zonesync PartialError causes by resource key.
func (sd sourceDiff) endpoints(t testing.TB, s sourceSettings, c *fakeCluster) (zs, xs []*endpoint.Endpoint, failed map[string]error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)

	zsrc, err := sd.Zonesync(ctx, c, s)
	if err != nil {
		t.Fatalf("zonesync %s source: %v", sd.Name, err)
	}
	if w, ok := zsrc.(interface{ WaitForSync(context.Context) error }); ok {
		if err := w.WaitForSync(ctx); err != nil {
			t.Fatalf("zonesync %s source: sync: %v", sd.Name, err)
		}
	}
	for !source.HasSynced(zsrc) {
		if ctx.Err() != nil {
			t.Fatalf("zonesync %s source never synced", sd.Name)
		}
		time.Sleep(10 * time.Millisecond)
	}
	zs, err = zsrc.Endpoints(ctx)
	failed = map[string]error{}
	if pe, ok := err.(*source.PartialError); ok {
		for k, cause := range pe.Failed {
			failed[strings.ToLower(k)] = cause
		}
	} else if err != nil {
		t.Fatalf("zonesync %s source: endpoints: %v", sd.Name, err)
	}

	build := sd.ExternalDNS
	if build == nil {
		build = func(ctx context.Context, c *fakeCluster, s sourceSettings) (xsource.Source, error) {
			cfg, err := s.externalDNSConfig()
			if err != nil {
				return nil, err
			}
			return xsource.BuildWithConfig(ctx, sd.Name, c, cfg)
		}
	}
	xsrc, err := build(ctx, c, s)
	if err != nil {
		t.Fatalf("external-dns %s source: %v", sd.Name, err)
	}
	xeps, err := xsrc.Endpoints(ctx)
	if err != nil {
		t.Fatalf("external-dns %s source: endpoints: %v", sd.Name, err)
	}
	return zs, ToZonesyncAll(xeps), failed
}

// compare runs both sources over objs and judges every disagreement by
// the rules.
func (sd sourceDiff) compare(t testing.TB, s sourceSettings, objs ...runtime.Object) outcome {
	t.Helper()
	c := newFakeCluster(t, objs...)
	zs, xs, failed := sd.endpoints(t, s, c)
	out := outcome{Zonesync: recordSet(zs), ExternalDNS: recordSet(xs), Explained: map[string]int{}}
	byRes := func(set map[record]bool) map[string][]record {
		m := map[string][]record{}
		for r := range set {
			m[r.Resource] = append(m[r.Resource], r)
		}
		for _, rs := range m {
			slices.SortFunc(rs, func(a, b record) int { return cmp.Compare(a.String(), b.String()) })
		}
		return m
	}
	zByRes, xByRes := byRes(out.Zonesync), byRes(out.ExternalDNS)
	// A source's own rules come first: they may name a narrower cause
	// than a common rule that would match as well.
	rules := append(slices.Clone(sd.Rules), commonRules()...)
	judge := func(only side, r record) {
		d := disagreement{
			Only: only, Record: r, Object: c.object(r.Resource), Failed: failed[r.Resource],
			Zonesync: zByRes[r.Resource], ExternalDNS: xByRes[r.Resource], Settings: s,
			AllZonesync: out.Zonesync, AllExternalDNS: out.ExternalDNS,
		}
		for _, rule := range rules {
			if rule.Match(d) {
				out.Explained[rule.Name]++
				return
			}
		}
		out.Unexplained = append(out.Unexplained, d)
	}
	for _, r := range sortedRecords(out.Zonesync) {
		if !out.ExternalDNS[r] {
			judge(zonesyncOnly, r)
		}
	}
	for _, r := range sortedRecords(out.ExternalDNS) {
		if !out.Zonesync[r] {
			judge(externalDNSOnly, r)
		}
	}
	return out
}

func sortedRecords(set map[record]bool) []record {
	rs := make([]record, 0, len(set))
	for r := range set {
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b record) int { return cmp.Compare(a.String(), b.String()) })
	return rs
}

// check compares and fails t on every unexplained disagreement; what
// describes how the input was made (the seed), for the failure message.
func (sd sourceDiff) check(t *testing.T, what string, s sourceSettings, objs ...runtime.Object) outcome {
	t.Helper()
	out := sd.compare(t, s, objs...)
	const maxReported = 15
	for i, d := range out.Unexplained {
		if i == maxReported {
			t.Errorf("... and %d more", len(out.Unexplained)-maxReported)
			break
		}
		var obj string
		if d.Object != nil {
			b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": d.Object.GetAnnotations(), "labels": d.Object.GetLabels()}, "spec": d.Object.Object["spec"], "status": d.Object.Object["status"]})
			obj = string(b)
		}
		t.Errorf("%s source, %s, settings %s:\n  %s: %s\n  zonesync:     %v (failed: %v)\n  external-dns: %v\n  object: %s",
			sd.Name, what, s, d.Only, d.Record, d.Zonesync, d.Failed, d.ExternalDNS, obj)
	}
	if len(out.Explained) > 0 {
		t.Logf("%s source, %s: known differences %v (%d records agree)", sd.Name, what, out.Explained, countAgree(out))
	}
	return out
}

func countAgree(out outcome) int {
	n := 0
	for r := range out.Zonesync {
		if out.ExternalDNS[r] {
			n++
		}
	}
	return n
}

// zonesyncOptions are the kubernetes.Options of s.
func (s sourceSettings) zonesyncOptions(tmpl *fqdn.Template) zkube.Options {
	return zkube.Options{
		Namespace: s.Namespace, AnnotationFilter: s.AnnotationFilter, LabelSelector: s.LabelSelector,
		FQDNTemplate: tmpl, CombineFQDN: s.CombineFQDN,
		IgnoreHostnameAnnotation: s.IgnoreHostnameAnnotation,
	}
}

// commonRules are the known differences of every source.
func commonRules() []sourceRule {
	return []sourceRule{{
		Name: "invalid-annotation-rejects-object",
		Reason: "zonesync refuses an object with an annotation it cannot use (a TTL that does not parse or is outside 1..2147483647, " +
			"a host name that is not a valid DNS name) and reports it in a PartialError, publishing nothing for it; " +
			"external-dns logs and goes on (TTL 0, the invalid name published as is)",
		Match: func(d disagreement) bool {
			return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 &&
				strings.Contains(d.Failed.Error(), "annotation ")
		},
	}, {
		Name: "invalid-endpoint-rejects-object",
		Reason: "zonesync validates every endpoint it builds and refuses the object when one is invalid " +
			"(e.g. the NodePort SRV name _svc._tcp.*.example.com of a wildcard host name, '*' not leftmost); " +
			"external-dns publishes it",
		Match: func(d disagreement) bool {
			return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 &&
				strings.Contains(d.Failed.Error(), "invalid endpoint")
		},
	}}
}
