package interop

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// istioGatewayDiff is the istio-gateway source under differential test.
func istioGatewayDiff() sourceDiff {
	return sourceDiff{
		Name: xtypes.IstioGateway,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			tmpl, err := s.zonesyncTemplate()
			if err != nil {
				return nil, err
			}
			kube, _ := c.KubeClient()
			dyn, _ := c.DynamicKubernetesClient()
			return kubernetes.NewIstioGatewaySource(ctx, kube, dyn, kubernetes.IstioGatewayConfig{Options: s.zonesyncOptions(tmpl)})
		},
		Rules: istioRules(),
	}
}

// istioRules are the known differences of the Istio Gateway and
// VirtualService sources.
func istioRules() []sourceRule {
	return []sourceRule{{
		Name: "istio-invalid-spec-host-rejects-object",
		Reason: "zonesync refuses an Istio Gateway or VirtualService with a server host or spec host that is not a valid " +
			"DNS name and reports it in a PartialError, publishing nothing for it; external-dns publishes the name as it is",
		Match: func(d disagreement) bool {
			return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 &&
				(strings.Contains(d.Failed.Error(), "spec.servers[") || strings.Contains(d.Failed.Error(), "spec.hosts["))
		},
	}, {
		Name: "istio-gateway-without-selector",
		Reason: "a Gateway without spec.selector selects no Service in zonesync, so its names get no targets; " +
			"external-dns's selector from an empty set matches every Service it watches and points the names at all " +
			"their load balancers (zonesync's reading is the narrower one; the lead decides whether to follow)",
		Match: func(d disagreement) bool {
			if d.Object == nil || d.Object.GetKind() != "Gateway" {
				return false
			}
			sel, _, _ := unstructured.NestedStringMap(d.Object.Object, "spec", "selector")
			return d.Only == externalDNSOnly && d.Failed == nil && len(d.Zonesync) == 0 && len(sel) == 0
		},
	}, {
		Name: "istio-targets-from-every-namespace",
		Reason: "with a namespace setting, external-dns looks up the selected Services, the named Ingresses and a " +
			"VirtualService's Gateways in that namespace only; zonesync in every namespace (the ingress gateway " +
			"usually runs in istio-system), as its documentation says, so its records have more targets or exist " +
			"where external-dns's have none",
		Match: func(d disagreement) bool {
			return d.Settings.Namespace != "" && d.Failed == nil && zonesyncHasMoreTargets(d)
		},
	}, crdTemplateRule()}
}

// crdTemplateRule is the known difference of FQDN templates over custom
// resources, docs/compatibility.md ("Templates on sources whose objects
// are unstructured").
func crdTemplateRule() sourceRule {
	return sourceRule{
		Name: "crd-template-sees-object-map",
		Reason: "zonesync runs the FQDN template of a custom resource source over the object's map " +
			"({{.metadata.name}}), external-dns over its Go type ({{.Name}}): the drawn template gives " +
			"\"<no value>\" labels in zonesync, which refuses the object (documented in docs/compatibility.md)",
		Match: func(d disagreement) bool {
			return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 &&
				strings.Contains(d.Failed.Error(), "FQDN template") && strings.Contains(d.Failed.Error(), "<no value>")
		},
	}
}

// zonesyncHasMoreTargets reports whether d is a record of a name and type
// whose zonesync targets include all of external-dns's (none when
// external-dns has no record of that name and type) and more.
func zonesyncHasMoreTargets(d disagreement) bool {
	sameKey := func(a, b record) bool {
		a.Targets, b.Targets = "", ""
		return a == b
	}
	superset := func(z, x record) bool {
		zt := z.targetList()
		for _, t := range x.targetList() {
			if !slices.Contains(zt, t) {
				return false
			}
		}
		return len(zt) > len(x.targetList())
	}
	if d.Only == zonesyncOnly {
		for _, x := range d.ExternalDNS {
			if sameKey(x, d.Record) {
				return superset(d.Record, x)
			}
		}
		return true
	}
	for _, z := range d.Zonesync {
		if sameKey(z, d.Record) {
			return superset(z, d.Record)
		}
	}
	return false
}

// istioNamespaces are the namespaces of the Istio objects and of the
// gateway Services and Ingresses.
var istioNamespaces = []string{"default", "team-a", "team-b", "istio-system"}

// istioSelectors are the Gateway selectors drawn; the last one selects no
// Service.
var istioSelectors = []map[string]string{
	{"istio": "ingressgateway"},
	{"istio": "internal"},
	{"istio": "ingressgateway", "zone": "a"},
	{"istio": "nothing"},
}

// istioTargetObjects draws the objects Istio Gateways send traffic to: in
// every namespace, load balancer Services matching some of istioSelectors
// (status IP, host name, both, or external IPs) and one Ingress "lb"
// with a load balancer status, which the ingress annotation names.
func (g *gen) istioTargetObjects() []runtime.Object {
	var objs []runtime.Object
	lbIngress := func() []corev1.LoadBalancerIngress {
		var out []corev1.LoadBalancerIngress
		for range g.r.IntN(3) {
			switch g.r.IntN(4) {
			case 0:
				out = append(out, corev1.LoadBalancerIngress{Hostname: pick(g.r, "elb1.example.net", "elb2.example.net")})
			case 1:
				out = append(out, corev1.LoadBalancerIngress{IP: "192.0.2.3", Hostname: "elb3.example.net"})
			default:
				out = append(out, corev1.LoadBalancerIngress{IP: pick(g.r, "192.0.2.1", "192.0.2.2", "2001:db8::1")})
			}
		}
		return out
	}
	for _, ns := range istioNamespaces {
		for i, sel := range []map[string]string{
			{"istio": "ingressgateway", "zone": "a"},
			{"istio": "ingressgateway", "zone": "b"},
			{"istio": "internal"},
			nil,
		} {
			if g.chance(4) {
				continue
			}
			svc := &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("gw-svc%d", i)},
				Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: sel},
			}
			svc.Status.LoadBalancer.Ingress = lbIngress()
			if g.chance(6) {
				svc.Spec.ExternalIPs = []string{pick(g.r, "203.0.113.5", "2001:db8::5")}
			}
			objs = append(objs, svc)
		}
		ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "lb"}}
		for _, lb := range lbIngress() {
			ing.Status.LoadBalancer.Ingress = append(ing.Status.LoadBalancer.Ingress, networkingv1.IngressLoadBalancerIngress{IP: lb.IP, Hostname: lb.Hostname})
		}
		objs = append(objs, ing)
	}
	return objs
}

// istioServerHost draws one Gateway server host for a Gateway named name
// in namespace ns: a host name, under a "namespace/" part or not, or "*".
func (g *gen) istioServerHost(name, ns string) string {
	host := g.hostname(name)
	if g.chance(6) {
		host = "*"
	}
	switch g.r.IntN(6) {
	case 0:
		return "*/" + host
	case 1:
		return "./" + host
	case 2:
		return ns + "/" + host
	case 3:
		return pick(g.r, istioNamespaces...) + "/" + host
	}
	return host
}

// istioIngressRef draws a value of the ingress annotation of a Gateway in
// namespace ns naming an existing Ingress ("lb" in some namespace). With a
// namespace setting, external-dns only sees Ingresses of that namespace
// and fails altogether on one it cannot find, so only ns's is named then.
func (g *gen) istioIngressRef(ns string, s sourceSettings) string {
	if s.Namespace != "" || g.chance(2) {
		return pick(g.r, "lb", ns+"/lb")
	}
	return pick(g.r, istioNamespaces...) + "/lb"
}

// istioGateway draws one Istio Gateway in namespace ns (a random one when
// empty) named with prefix.
func (g *gen) istioGateway(prefix, ns string, s sourceSettings) *unstructured.Unstructured {
	m := g.meta(prefix)
	if ns != "" {
		m.Namespace = ns
	} else if g.chance(4) {
		m.Namespace = "istio-system"
	}
	spec := map[string]any{}
	if !g.chance(8) {
		sel := map[string]any{}
		for k, v := range pick(g.r, istioSelectors...) {
			sel[k] = v
		}
		spec["selector"] = sel
	}
	var servers []any
	for i := range 1 + g.r.IntN(2) {
		var hosts []any
		for range 1 + g.r.IntN(3) {
			hosts = append(hosts, g.istioServerHost(m.Name, m.Namespace))
		}
		servers = append(servers, map[string]any{
			"port":  map[string]any{"number": int64(80 + i), "name": fmt.Sprintf("http%d", i), "protocol": "HTTP"},
			"hosts": hosts,
		})
	}
	spec["servers"] = servers
	if g.chance(5) {
		g.setAnn(m.Annotations, "ingress", g.istioIngressRef(m.Namespace, s), func() string { return "lb" })
	}
	return istioObject("Gateway", m, spec)
}

// istioObject builds a networking.istio.io/v1 object of kind with meta
// and spec.
func istioObject(kind string, m metav1.ObjectMeta, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion("networking.istio.io/v1")
	u.SetKind(kind)
	u.SetNamespace(m.Namespace)
	u.SetName(m.Name)
	if len(m.Labels) > 0 {
		u.SetLabels(m.Labels)
	}
	if len(m.Annotations) > 0 {
		u.SetAnnotations(m.Annotations)
	}
	return u
}

// istioGateways draws n Gateways with the objects they target.
func (g *gen) istioGateways(n int, s sourceSettings) []runtime.Object {
	objs := g.istioTargetObjects()
	for range n {
		objs = append(objs, g.istioGateway("gw", "", s))
	}
	return objs
}

func TestIstioGatewaySourceAgreement(t *testing.T) {
	sd := istioGatewayDiff()
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			if seed == 2 {
				s.Namespace = "team-a" // one run with a namespace setting at least
			}
			s.IgnoreHostnameAnnotation = g.chance(5)
			sd.check(t, g.String(), s, g.istioGateways(150, s)...)
		})
	}
}

// istioLBService is a load balancer Service selecting selector, with
// status entries lbs ("IP" or host name).
func istioLBService(ns, name string, selector map[string]string, lbs ...string) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: selector},
	}
	for _, lb := range lbs {
		if strings.Trim(lb, "0123456789.:abcdef") == "" {
			svc.Status.LoadBalancer.Ingress = append(svc.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: lb})
		} else {
			svc.Status.LoadBalancer.Ingress = append(svc.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{Hostname: lb})
		}
	}
	return svc
}

// istioGatewayObject is a Gateway selecting istio=ingressgateway with one
// server of hosts.
func istioGatewayObject(ns, name string, anns map[string]string, hosts ...string) *unstructured.Unstructured {
	var hs []any
	for _, h := range hosts {
		hs = append(hs, h)
	}
	return istioObject("Gateway", metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: anns}, map[string]any{
		"selector": map[string]any{"istio": "ingressgateway"},
		"servers":  []any{map[string]any{"port": map[string]any{"number": int64(80), "name": "http", "protocol": "HTTP"}, "hosts": hs}},
	})
}

// Hand-written cases: each way a Gateway finds its targets, which must
// agree exactly.
func TestIstioGatewaySourceCases(t *testing.T) {
	sd := istioGatewayDiff()
	gwSvc := istioLBService("istio-system", "ingressgateway", map[string]string{"istio": "ingressgateway"}, "192.0.2.1", "elb.example.net")
	lbIngress := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "istio-system", Name: "lb"},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
			Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.9"}, {Hostname: "ing-lb.example.net"}},
		}},
	}
	for _, tc := range []struct {
		name string
		s    sourceSettings
		objs []runtime.Object
		want int // records on both sides
	}{{
		name: "selected Service, namespace prefixes and '*' hosts",
		objs: []runtime.Object{gwSvc, istioGatewayObject("istio-system", "gw", nil, "a.example.com", "team-a/b.example.com", "./c.example.com", "*", "*/*")},
		want: 6,
	}, {
		name: "hostname annotation beside server hosts",
		objs: []runtime.Object{gwSvc, istioGatewayObject("istio-system", "gw", map[string]string{"external-dns.kubernetes.io/hostname": "ann.example.com"}, "a.example.com")},
		want: 4,
	}, {
		name: "IgnoreHostnameAnnotation",
		s:    sourceSettings{IgnoreHostnameAnnotation: true},
		objs: []runtime.Object{gwSvc, istioGatewayObject("istio-system", "gw", map[string]string{"external-dns.kubernetes.io/hostname": "ann.example.com"}, "a.example.com")},
		want: 2,
	}, {
		name: "ingress annotation by namespace/name",
		objs: []runtime.Object{gwSvc, lbIngress, istioGatewayObject("default", "gw", map[string]string{"external-dns.kubernetes.io/ingress": "istio-system/lb"}, "a.example.com")},
		want: 2,
	}, {
		name: "ingress annotation by name, legacy prefix",
		objs: []runtime.Object{gwSvc, lbIngress, istioGatewayObject("istio-system", "gw", map[string]string{"external-dns.alpha.kubernetes.io/ingress": "lb"}, "a.example.com")},
		want: 2,
	}, {
		name: "target annotation wins over the selector",
		objs: []runtime.Object{gwSvc, istioGatewayObject("istio-system", "gw", map[string]string{"external-dns.kubernetes.io/target": "203.0.113.1"}, "a.example.com")},
		want: 1,
	}, {
		name: "FQDN template for a Gateway without hosts, target annotation",
		s:    sourceSettings{FQDNTemplate: "gw.tmpl.example.com"},
		objs: []runtime.Object{istioGatewayObject("istio-system", "gw", map[string]string{"external-dns.kubernetes.io/target": "203.0.113.1"}, "*")},
		want: 1,
	}, {
		name: "namespace setting, Service in the Gateway's namespace",
		s:    sourceSettings{Namespace: "istio-system"},
		objs: []runtime.Object{gwSvc, istioGatewayObject("istio-system", "gw", nil, "a.example.com"), istioGatewayObject("default", "other", nil, "b.example.com")},
		want: 2,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			out := sd.check(t, "hand-written", tc.s, tc.objs...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and %d records: %v", tc.want, out.Explained, len(out.Zonesync), sortedRecords(out.Zonesync))
			}
		})
	}
}

// With a namespace setting, external-dns looks for the selected Services
// in that namespace only; zonesync in every namespace, where the ingress
// gateway usually runs (istio-system).
func TestIstioGatewaySourceNamespacedServices(t *testing.T) {
	sd := istioGatewayDiff()
	out := sd.compare(t, sourceSettings{Namespace: "default"},
		istioLBService("istio-system", "ingressgateway", map[string]string{"istio": "ingressgateway"}, "192.0.2.1"),
		istioGatewayObject("default", "gw", nil, "a.example.com"))
	want := record{Name: "a.example.com", Type: "A", Targets: "192.0.2.1", Resource: "gateway/default/gw"}
	if len(out.ExternalDNS) != 0 || len(out.Zonesync) != 1 || !out.Zonesync[want] {
		t.Errorf("want %v from zonesync only, got zonesync %v, external-dns %v", want, sortedRecords(out.Zonesync), sortedRecords(out.ExternalDNS))
	}
}
