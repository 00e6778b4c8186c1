package interop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// ingressDiff is the ingress source under differential test.
func ingressDiff() sourceDiff {
	return sourceDiff{
		Name: xtypes.Ingress,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			tmpl, err := s.zonesyncTemplate()
			if err != nil {
				return nil, err
			}
			client, _ := c.KubeClient()
			return kubernetes.NewIngressSource(ctx, client, kubernetes.IngressConfig{
				Options:                s.zonesyncOptions(tmpl),
				IngressClassNames:      s.IngressClassNames,
				IgnoreIngressRulesSpec: s.IgnoreIngressRulesSpec,
				IgnoreIngressTLSSpec:   s.IgnoreIngressTLSSpec,
			})
		},
		Rules: ingressRules(),
	}
}

// ingressRules are the known differences of the ingress source. (An empty
// TLS host, an ingress-hostname-source value in other case or unknown, a
// bad hostname annotation the Ingress does not read and an empty
// spec.ingressClassName were differences once; zonesync now does as
// external-dns does.)
func ingressRules() []sourceRule {
	return []sourceRule{{
		Name: "invalid-spec-host-rejects-object",
		Reason: "zonesync refuses an Ingress with a rule or TLS host that is not a valid DNS name and reports it in a " +
			"PartialError, publishing nothing for it; external-dns publishes the name as it is",
		Match: func(d disagreement) bool {
			return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 &&
				strings.Contains(d.Failed.Error(), "spec.")
		},
	}}
}

// ingresses draws n Ingresses: rule and TLS hosts (some empty, some
// shared), load balancer addresses and host names, a class by spec or by
// annotation, and the ingress-hostname-source annotation.
func (g *gen) ingresses(n int) []runtime.Object {
	var objs []runtime.Object
	for range n {
		m := g.meta("ing")
		ing := &networkingv1.Ingress{ObjectMeta: m}
		for range g.r.IntN(3) {
			host := ""
			if !g.chance(5) {
				host = g.hostname(m.Name)
			}
			ing.Spec.Rules = append(ing.Spec.Rules, networkingv1.IngressRule{Host: host})
		}
		if g.chance(2) {
			tls := networkingv1.IngressTLS{SecretName: m.Name + "-tls"}
			for range 1 + g.r.IntN(2) {
				if g.chance(6) {
					tls.Hosts = append(tls.Hosts, "")
				} else {
					tls.Hosts = append(tls.Hosts, pick(g.r, "tls-"+m.Name+".example.com", m.Name+".example.com", "*."+m.Name+".example.com"))
				}
			}
			ing.Spec.TLS = append(ing.Spec.TLS, tls)
		}
		for range g.r.IntN(3) {
			var lb networkingv1.IngressLoadBalancerIngress
			switch g.r.IntN(4) {
			case 0:
				lb.Hostname = pick(g.r, "elb1.example.net", "elb2.example.net")
			case 1:
				lb.IP = "192.0.2.3"
				lb.Hostname = "elb3.example.net"
			default:
				lb.IP = pick(g.r, "192.0.2.1", "192.0.2.2", "2001:db8::1")
			}
			ing.Status.LoadBalancer.Ingress = append(ing.Status.LoadBalancer.Ingress, lb)
		}
		switch g.r.IntN(5) {
		case 0:
			class := pick(g.r, "nginx", "traefik", "")
			ing.Spec.IngressClassName = &class
			if class == "" && g.chance(2) {
				m.Annotations["kubernetes.io/ingress.class"] = pick(g.r, "nginx", "traefik")
			}
		case 1:
			m.Annotations["kubernetes.io/ingress.class"] = pick(g.r, "nginx", "traefik")
		case 2:
			class := pick(g.r, "nginx", "traefik")
			ing.Spec.IngressClassName = &class
			m.Annotations["kubernetes.io/ingress.class"] = pick(g.r, "nginx", "traefik")
		}
		if g.chance(6) {
			m.Annotations["external-dns.alpha.kubernetes.io/ingress-hostname-source"] = pick(g.r, "defined-hosts-only", "annotation-only", "Annotation-Only", "other")
		}
		objs = append(objs, ing)
	}
	return objs
}

func TestIngressSourceAgreement(t *testing.T) {
	sd := ingressDiff()
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			if g.chance(3) {
				s.IngressClassNames = []string{"nginx"}
			}
			s.IgnoreIngressRulesSpec = g.chance(5)
			s.IgnoreIngressTLSSpec = g.chance(5)
			s.IgnoreHostnameAnnotation = g.chance(5)
			sd.check(t, g.String(), s, g.ingresses(150)...)
		})
	}
}

// Hand-written cases: each setting that leaves out names, which must
// agree exactly.
func TestIngressSourceCases(t *testing.T) {
	sd := ingressDiff()
	ingress := func(anns map[string]string) *networkingv1.Ingress {
		return &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", Annotations: anns},
			Spec: networkingv1.IngressSpec{
				Rules: []networkingv1.IngressRule{{Host: "rule.example.com"}},
				TLS:   []networkingv1.IngressTLS{{Hosts: []string{"tls.example.com"}}},
			},
			Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
				Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}, {Hostname: "elb.example.net"}},
			}},
		}
	}
	annotated := map[string]string{"external-dns.kubernetes.io/hostname": "ann.example.com"}
	for _, tc := range []struct {
		name string
		s    sourceSettings
		objs []runtime.Object
		want int // records on both sides
	}{{
		name: "rules, TLS and annotation hosts",
		objs: []runtime.Object{ingress(annotated)},
		want: 6,
	}, {
		name: "IgnoreIngressRulesSpec",
		s:    sourceSettings{IgnoreIngressRulesSpec: true},
		objs: []runtime.Object{ingress(annotated)},
		want: 4,
	}, {
		name: "IgnoreIngressTLSSpec",
		s:    sourceSettings{IgnoreIngressTLSSpec: true},
		objs: []runtime.Object{ingress(annotated)},
		want: 4,
	}, {
		name: "IgnoreHostnameAnnotation",
		s:    sourceSettings{IgnoreHostnameAnnotation: true},
		objs: []runtime.Object{ingress(annotated)},
		want: 4,
	}, {
		name: "IgnoreHostnameAnnotation with the FQDN template",
		s:    sourceSettings{IgnoreHostnameAnnotation: true, IgnoreIngressRulesSpec: true, IgnoreIngressTLSSpec: true, FQDNTemplate: "{{.Name}}.tmpl.example.com"},
		objs: []runtime.Object{ingress(annotated)},
		want: 2,
	}, {
		name: "target annotation and ingress class by annotation",
		s:    sourceSettings{IngressClassNames: []string{"nginx"}},
		objs: []runtime.Object{ingress(map[string]string{"kubernetes.io/ingress.class": "nginx", "external-dns.kubernetes.io/target": "lb.example.net"})},
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
