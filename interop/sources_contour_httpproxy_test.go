package interop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// httpProxyDiff is the contour-httpproxy source under differential test.
func httpProxyDiff() sourceDiff {
	return sourceDiff{
		Name: xtypes.ContourHTTPProxy,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			tmpl, err := s.zonesyncTemplate()
			if err != nil {
				return nil, err
			}
			dyn, _ := c.DynamicKubernetesClient()
			return kubernetes.NewHTTPProxySource(ctx, dyn, kubernetes.HTTPProxyConfig{Options: s.zonesyncOptions(tmpl)})
		},
		Rules: []sourceRule{crdTemplateRule(), {
			Name: "httpproxy-invalid-fqdn-rejects-object",
			Reason: "zonesync refuses an HTTPProxy whose spec.virtualhost.fqdn is not a valid DNS name and reports it " +
				"in a PartialError, publishing nothing for it; external-dns publishes the name as it is",
			Match: func(d disagreement) bool {
				return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 &&
					strings.Contains(d.Failed.Error(), "spec.virtualhost.fqdn")
			},
		}},
	}
}

// httpProxy builds a projectcontour.io/v1 HTTPProxy; an empty fqdn leaves
// out the virtual host (an included proxy); lbs are status entries, each
// {ip, hostname}.
func httpProxy(m metav1.ObjectMeta, fqdn string, lbs ...[2]string) *unstructured.Unstructured {
	spec := map[string]any{"routes": []any{map[string]any{"services": []any{map[string]any{"name": "web", "port": int64(80)}}}}}
	if fqdn != "" {
		spec["virtualhost"] = map[string]any{"fqdn": fqdn}
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion("projectcontour.io/v1")
	u.SetKind("HTTPProxy")
	u.SetNamespace(m.Namespace)
	u.SetName(m.Name)
	if len(m.Labels) > 0 {
		u.SetLabels(m.Labels)
	}
	if len(m.Annotations) > 0 {
		u.SetAnnotations(m.Annotations)
	}
	if len(lbs) > 0 {
		var ingress []any
		for _, lb := range lbs {
			e := map[string]any{}
			if lb[0] != "" {
				e["ip"] = lb[0]
			}
			if lb[1] != "" {
				e["hostname"] = lb[1]
			}
			ingress = append(ingress, e)
		}
		u.Object["status"] = map[string]any{"currentStatus": "valid", "loadBalancer": map[string]any{"ingress": ingress}}
	}
	return u
}

// httpProxies draws n HTTPProxies: a virtual host or none (included
// proxies), load balancer status entries with an IP, a host name or both.
func (g *gen) httpProxies(n int) []runtime.Object {
	var objs []runtime.Object
	for range n {
		m := g.meta("hp")
		fqdn := ""
		if !g.chance(4) {
			fqdn = g.hostname(m.Name)
		}
		var lbs [][2]string
		for range g.r.IntN(3) {
			switch g.r.IntN(4) {
			case 0:
				lbs = append(lbs, [2]string{"", pick(g.r, "elb1.example.net", "elb2.example.net")})
			case 1:
				lbs = append(lbs, [2]string{"192.0.2.3", "elb3.example.net"})
			default:
				lbs = append(lbs, [2]string{pick(g.r, "192.0.2.1", "192.0.2.2", "2001:db8::1"), ""})
			}
		}
		objs = append(objs, httpProxy(m, fqdn, lbs...))
	}
	return objs
}

func TestHTTPProxySourceAgreement(t *testing.T) {
	sd := httpProxyDiff()
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			s.IgnoreHostnameAnnotation = g.chance(5)
			sd.check(t, g.String(), s, g.httpProxies(200)...)
		})
	}
}

// Hand-written cases, which must agree exactly.
func TestHTTPProxySourceCases(t *testing.T) {
	sd := httpProxyDiff()
	meta := func(anns map[string]string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: "default", Name: "web", Annotations: anns}
	}
	annotated := map[string]string{"external-dns.kubernetes.io/hostname": "ann.example.com"}
	lbs := [][2]string{{"192.0.2.1", ""}, {"", "elb.example.net"}, {"192.0.2.3", "elb3.example.net"}}
	for _, tc := range []struct {
		name string
		s    sourceSettings
		objs []runtime.Object
		want int // records on both sides
	}{{
		name: "virtual host and hostname annotation, IP and host name status",
		objs: []runtime.Object{httpProxy(meta(annotated), "web.example.com", lbs...)},
		want: 4,
	}, {
		name: "IgnoreHostnameAnnotation",
		s:    sourceSettings{IgnoreHostnameAnnotation: true},
		objs: []runtime.Object{httpProxy(meta(annotated), "web.example.com", lbs...)},
		want: 2,
	}, {
		name: "included proxy without virtual host",
		objs: []runtime.Object{httpProxy(meta(nil), "", lbs...)},
		want: 0,
	}, {
		name: "target annotation",
		objs: []runtime.Object{httpProxy(meta(map[string]string{"external-dns.kubernetes.io/target": "lb.example.net"}), "web.example.com", lbs...)},
		want: 1,
	}, {
		name: "FQDN template without field references",
		s:    sourceSettings{FQDNTemplate: "proxy.tmpl.example.com"},
		objs: []runtime.Object{httpProxy(meta(nil), "", lbs...)},
		want: 2,
	}, {
		name: "namespace setting",
		s:    sourceSettings{Namespace: "team-a"},
		objs: []runtime.Object{httpProxy(meta(nil), "web.example.com", lbs...), httpProxy(metav1.ObjectMeta{Namespace: "team-a", Name: "a"}, "a.example.com", lbs...)},
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
