package interop

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	xsource "sigs.k8s.io/external-dns/source"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// The gloo-proxy source. external-dns reads Proxies only in its
// GlooNamespaces (it ignores --namespace), fails the whole Endpoints call
// when a VirtualService a virtual host names or the proxy's Service is
// missing, so the generator always creates them, and its endpoints carry
// no resource label (zonesync's neither).

// glooDiff is the gloo-proxy source under differential test, reading
// Proxies in namespaces.
func glooDiff(namespaces ...string) sourceDiff {
	refused := &glooRefused{}
	return sourceDiff{
		Name: xtypes.GlooProxy,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			opts, err := zonesyncUnstructuredOptions(s)
			if err != nil {
				return nil, err
			}
			kube, _ := c.KubeClient()
			client, _ := c.DynamicKubernetesClient()
			src, err := kubernetes.NewGlooProxySource(ctx, kube, client, kubernetes.GlooProxyConfig{Options: opts, GlooNamespaces: namespaces})
			if err != nil {
				return nil, err
			}
			return &glooRecorder{GlooProxySource: src, refused: refused}, nil
		},
		// --gloo-namespace defaults to gloo-system in external-dns's flags,
		// not in its Config.
		ExternalDNS: externalDNSWith(xtypes.GlooProxy, func(cfg *xsource.Config) {
			cfg.GlooNamespaces = namespaces
			if len(namespaces) == 0 {
				cfg.GlooNamespaces = []string{kubernetes.DefaultGlooNamespace}
			}
		}),
		Rules: []sourceRule{{
			Name: "gloo-invalid-proxy-refused",
			Reason: "zonesync refuses a Proxy with a virtual host domain that is not a valid DNS name, or whose " +
				"VirtualServices carry an annotation it cannot use (a TTL that does not parse or is out of range), and reports " +
				"it in a PartialError; external-dns publishes it (TTL 0). The records carry no resource label on either side, " +
				"so the rule finds the Proxy by the name the generator puts in every domain",
			Match: func(d disagreement) bool {
				return d.Only == externalDNSOnly && refused.has(glooProxyOfDomain(d.Record.Name))
			},
		}},
	}
}

// glooRefused are the names of the Proxies zonesync refused in the last
// Endpoints call.
type glooRefused struct {
	mu    sync.Mutex
	names map[string]bool
}

func (r *glooRefused) has(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return name != "" && r.names[name]
}

// glooRecorder notes the Proxies zonesync's source refuses: its records
// have no resource label for the harness to find them by.
type glooRecorder struct {
	*kubernetes.GlooProxySource
	refused *glooRefused
}

func (s *glooRecorder) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := s.GlooProxySource.Endpoints(ctx)
	names := map[string]bool{}
	if pe, ok := err.(*source.PartialError); ok {
		for k := range pe.Failed {
			names[k[strings.LastIndex(k, "/")+1:]] = true
		}
	}
	s.refused.mu.Lock()
	s.refused.names = names
	s.refused.mu.Unlock()
	return eps, err
}

// glooProxyOfDomain returns the Proxy name ("px12") the generator put in
// a domain ("sub.px12-0.example.com"), "" if none.
func glooProxyOfDomain(domain string) string {
	m := glooDomainProxy.FindStringSubmatch(strings.ToLower(domain))
	if m == nil {
		return ""
	}
	return m[1]
}

var glooDomainProxy = regexp.MustCompile(`(?:^|[.!*])(px[0-9]+)-[0-9]+\.`)

// glooService is the LoadBalancer Service of the Proxy namespace/name.
func glooService(namespace, name string, addrs ...string) *corev1.Service {
	var ing []corev1.LoadBalancerIngress
	for _, a := range addrs {
		if a[0] >= '0' && a[0] <= '9' {
			ing = append(ing, corev1.LoadBalancerIngress{IP: a})
		} else {
			ing = append(ing, corev1.LoadBalancerIngress{Hostname: a})
		}
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: ing}},
	}
}

// glooWorld draws n Proxies in the Gloo namespaces, each with its Service
// and the VirtualServices its virtual hosts name.
func (g *gen) glooWorld(n int) []runtime.Object {
	var objs []runtime.Object
	for range n {
		m := g.meta("px")
		m.Namespace = pick(g.r, "gloo-system", "gloo-system", "team-a")
		anns := map[string]string{}
		if g.chance(4) {
			g.setAnn(anns, "target", g.target(), func() string { return "203.0.113.99" })
		}
		if v, ok := m.Annotations["dns"]; ok {
			anns["dns"] = v
		}
		m.Annotations = anns
		objs = append(objs, glooService(m.Namespace, m.Name, pick(g.r, "192.0.2.1", "lb.example.net", "2001:db8::1")))
		var vhosts []any
		for i := range 1 + g.r.IntN(3) {
			vs := g.meta("vs")
			objs = append(objs, customResource("gateway.solo.io/v1", "VirtualService", vs, map[string]any{"spec": map[string]any{}}))
			var domains []any
			for range 1 + g.r.IntN(2) {
				domains = append(domains, g.hostname(fmt.Sprintf("%s-%d", m.Name, i)))
			}
			vh := map[string]any{"domains": domains}
			src := map[string]any{"kind": "*v1.VirtualService", "name": vs.Name, "namespace": vs.Namespace}
			if g.chance(2) {
				vh["metadata"] = map[string]any{"sources": []any{src}}
			} else {
				vh["metadataStatic"] = map[string]any{"sources": []any{map[string]any{
					"resourceKind": "*v1.VirtualService", "resourceRef": map[string]any{"name": vs.Name, "namespace": vs.Namespace}}}}
			}
			vhosts = append(vhosts, vh)
		}
		spec := map[string]any{"listeners": []any{map[string]any{"httpListener": map[string]any{"virtualHosts": vhosts}}}}
		objs = append(objs, customResource("gloo.solo.io/v1", "Proxy", m, map[string]any{"spec": spec}))
	}
	return objs
}

func TestGlooProxySourceAgreement(t *testing.T) {
	agree := 0
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			s.Namespace = "" // external-dns ignores it
			s.FQDNTemplate, s.CombineFQDN = "", false
			nss := []string{"gloo-system"}
			if g.chance(2) {
				nss = append(nss, "team-a")
			}
			agree += countAgree(glooDiff(nss...).check(t, fmt.Sprintf("%v, gloo namespaces %v", g, nss), s, g.glooWorld(40)...))
		})
	}
	if agree == 0 {
		t.Errorf("no record agrees in any run: the generator draws nothing useful")
	}
}

// Hand-written cases, which must agree exactly.
func TestGlooProxySourceCases(t *testing.T) {
	vs := func(ns, name string, anns map[string]string) runtime.Object {
		return customResource("gateway.solo.io/v1", "VirtualService", metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: anns}, map[string]any{"spec": map[string]any{}})
	}
	proxy := func(ns, name string, anns map[string]string, vsNS, vsName string, domains ...any) runtime.Object {
		vh := map[string]any{"domains": domains, "metadata": map[string]any{"sources": []any{
			map[string]any{"kind": "*v1.VirtualService", "name": vsName, "namespace": vsNS}}}}
		return customResource("gloo.solo.io/v1", "Proxy", metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: anns},
			map[string]any{"spec": map[string]any{"listeners": []any{map[string]any{"httpListener": map[string]any{"virtualHosts": []any{vh}}}}}})
	}
	objs := []runtime.Object{
		glooService("gloo-system", "gateway-proxy", "192.0.2.1", "lb.example.net"),
		vs("apps", "shop", map[string]string{"external-dns.kubernetes.io/ttl": "60", "external-dns.kubernetes.io/set-identifier": "eu", "external-dns.kubernetes.io/aws-weight": "10"}),
		proxy("gloo-system", "gateway-proxy", nil, "apps", "shop", "shop.example.com", "www.shop.example.com."),
		glooService("team-a", "edge", "192.0.2.2"),
		vs("team-a", "blog", nil),
		proxy("team-a", "edge", map[string]string{"external-dns.kubernetes.io/target": "203.0.113.1"}, "team-a", "blog", "blog.example.com"),
	}
	for _, tc := range []struct {
		name       string
		namespaces []string
		want       int
	}{
		{name: "default Gloo namespace, Service targets, VirtualService annotations", want: 4},
		{name: "two Gloo namespaces, target annotation", namespaces: []string{"gloo-system", "team-a"}, want: 5},
		{name: "other Gloo namespace only", namespaces: []string{"team-a"}, want: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := glooDiff(tc.namespaces...).check(t, "hand-written", sourceSettings{}, objs...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want || len(out.ExternalDNS) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and zonesync %v, external-dns %v", tc.want, out.Explained, sortedRecords(out.Zonesync), sortedRecords(out.ExternalDNS))
			}
		})
	}
}
