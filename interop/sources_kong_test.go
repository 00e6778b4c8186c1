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

// kongDiff is the kong-tcpingress source under differential test.
func kongDiff() sourceDiff {
	return sourceDiff{
		Name: xtypes.KongTCPIngress,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			opts, err := zonesyncUnstructuredOptions(s)
			if err != nil {
				return nil, err
			}
			client, _ := c.DynamicKubernetesClient()
			return kubernetes.NewKongTCPIngressSource(ctx, client, kubernetes.KongTCPIngressConfig{Options: opts})
		},
		Rules: []sourceRule{{
			Name: "kong-invalid-rule-host-rejects-object",
			Reason: "zonesync refuses a TCPIngress with a spec.rules[].host that is not a valid DNS name and reports it in a " +
				"PartialError, publishing nothing for it; external-dns publishes it as it is",
			Match: func(d disagreement) bool {
				return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 &&
					strings.Contains(d.Failed.Error(), "spec.rules[")
			},
		}, templateExtensionRule("kong-tcpingress")},
	}
}

// templateExtensionRule is the rule of the sources external-dns runs no
// FQDN template for (kong-tcpingress, ambassador-host) while zonesync runs
// it as for every source (docs/compatibility.md); the generated settings
// template gives names under tmpl.example.com.
func templateExtensionRule(name string) sourceRule {
	return sourceRule{
		Name: name + "-fqdn-template",
		Reason: "external-dns's " + name + " source ignores --fqdn-template; zonesync runs the FQDN template for it as for " +
			"every source (a documented extension), so the template names are zonesync's only",
		Match: func(d disagreement) bool {
			return d.Only == zonesyncOnly && d.Settings.FQDNTemplate != "" && strings.HasSuffix(d.Record.Name, ".tmpl.example.com")
		},
	}
}

// loadBalancerStatus draws up to two load balancer entries in the
// unstructured form of a LoadBalancerStatus.
func (g *gen) loadBalancerStatus() map[string]any {
	var lbs []any
	for range g.r.IntN(3) {
		switch g.r.IntN(4) {
		case 0:
			lbs = append(lbs, map[string]any{"hostname": pick(g.r, "elb1.example.net", "elb2.example.net")})
		case 1:
			lbs = append(lbs, map[string]any{"ip": "192.0.2.3", "hostname": "elb3.example.net"})
		default:
			lbs = append(lbs, map[string]any{"ip": pick(g.r, "192.0.2.1", "192.0.2.2", "2001:db8::1")})
		}
	}
	if lbs == nil {
		return map[string]any{}
	}
	return map[string]any{"ingress": lbs}
}

// kongTCPIngresses draws n TCPIngresses: rule hosts (some empty or
// invalid), TLS hosts (not published), load balancer status.
func (g *gen) kongTCPIngresses(n int) []runtime.Object {
	var objs []runtime.Object
	for range n {
		m := g.meta("kong")
		spec := map[string]any{}
		var rules []any
		for range g.r.IntN(3) {
			rule := map[string]any{"port": int64(9000 + g.r.IntN(3)), "backend": map[string]any{"serviceName": "svc", "servicePort": int64(80)}}
			if !g.chance(5) {
				rule["host"] = g.hostname(m.Name)
			}
			rules = append(rules, rule)
		}
		if rules != nil {
			spec["rules"] = rules
		}
		if g.chance(3) {
			spec["tls"] = []any{map[string]any{"hosts": []any{"tls-" + m.Name + ".example.com"}, "secretName": "s"}}
		}
		objs = append(objs, customResource("configuration.konghq.com/v1beta1", "TCPIngress", m,
			map[string]any{"spec": spec, "status": map[string]any{"loadBalancer": g.loadBalancerStatus()}}))
	}
	return objs
}

func TestKongTCPIngressSourceAgreement(t *testing.T) {
	sd := kongDiff()
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			s.IgnoreHostnameAnnotation = g.chance(5)
			sd.check(t, g.String(), s, g.kongTCPIngresses(200)...)
		})
	}
}

// Hand-written cases, which must agree exactly.
func TestKongTCPIngressSourceCases(t *testing.T) {
	tcpIngress := func(anns map[string]string) *unstructured.Unstructured {
		return customResource("configuration.konghq.com/v1beta1", "TCPIngress", metav1.ObjectMeta{Namespace: "default", Name: "tcp", Annotations: anns},
			map[string]any{
				"spec": map[string]any{
					"rules": []any{map[string]any{"host": "rule.example.com", "port": int64(9000)}, map[string]any{"port": int64(9001)}},
					"tls":   []any{map[string]any{"hosts": []any{"tls.example.com"}}},
				},
				"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{
					map[string]any{"ip": "192.0.2.1"}, map[string]any{"ip": "192.0.2.2", "hostname": "elb.example.net"},
				}}},
			})
	}
	annotated := map[string]string{"external-dns.kubernetes.io/hostname": "ann.example.com", "external-dns.kubernetes.io/ttl": "60"}
	for _, tc := range []struct {
		name string
		s    sourceSettings
		objs []runtime.Object
		want int
	}{
		{name: "rule hosts and annotation, load balancer status", objs: []runtime.Object{tcpIngress(annotated)}, want: 4},
		{name: "IgnoreHostnameAnnotation", s: sourceSettings{IgnoreHostnameAnnotation: true}, objs: []runtime.Object{tcpIngress(annotated)}, want: 2},
		{name: "target annotation", objs: []runtime.Object{tcpIngress(map[string]string{"external-dns.kubernetes.io/target": "lb.example.net"})}, want: 1},
		{name: "annotation filter", s: sourceSettings{AnnotationFilter: "dns in (public)"}, objs: []runtime.Object{tcpIngress(annotated)}, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := kongDiff().check(t, "hand-written", tc.s, tc.objs...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and %d records: %v", tc.want, out.Explained, len(out.Zonesync), sortedRecords(out.Zonesync))
			}
		})
	}
}
