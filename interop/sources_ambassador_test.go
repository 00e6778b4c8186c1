package interop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

const ambassadorServiceAnnotation = "external-dns.ambassador-service"

// ambassadorDiff is the ambassador-host source under differential test.
func ambassadorDiff() sourceDiff {
	return sourceDiff{
		Name: xtypes.AmbassadorHost,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			opts, err := zonesyncUnstructuredOptions(s)
			if err != nil {
				return nil, err
			}
			kube, _ := c.KubeClient()
			client, _ := c.DynamicKubernetesClient()
			return kubernetes.NewAmbassadorHostSource(ctx, kube, client, kubernetes.AmbassadorHostConfig{Options: opts})
		},
		Rules: []sourceRule{{
			Name: "ambassador-invalid-hostname-rejects-object",
			Reason: "zonesync refuses a Host whose spec.hostname is not a valid DNS name and reports it in a PartialError, " +
				"publishing nothing for it; external-dns publishes it as it is",
			Match: func(d disagreement) bool {
				return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 &&
					strings.Contains(d.Failed.Error(), "spec.hostname")
			},
		}, {
			Name: "ambassador-hostname-annotation",
			Reason: "external-dns's ambassador-host source reads only spec.hostname; zonesync also reads the hostname " +
				"annotation, as every source does (a documented extension)",
			Match: func(d disagreement) bool {
				if d.Object == nil || d.Settings.IgnoreHostnameAnnotation {
					return false
				}
				host, _, _ := unstructured.NestedString(d.Object.Object, "spec", "hostname")
				ann, _ := d.annotation("hostname")
				return d.Only == zonesyncOnly && strings.TrimSuffix(host, ".") != d.Record.Name &&
					strings.Contains(strings.ToLower(ann), strings.ToLower(d.Record.Name))
			},
		}, {
			Name: "ambassador-annotation-rejects-object",
			Reason: "zonesync reads (and checks) the hostname, TTL and other annotations of a Host that has them; when one is " +
				"invalid it refuses the Host, publishing nothing, while external-dns, which does not read the hostname " +
				"annotation, publishes spec.hostname",
			Match: func(d disagreement) bool {
				return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 &&
					strings.Contains(d.Failed.Error(), "annotation ")
			},
		}, {
			Name: "ambassador-controller-annotation",
			Reason: "external-dns's ambassador-host source does not look at the controller annotation and publishes a Host " +
				"that names another controller; zonesync skips it, as every other source of both does (not yet listed " +
				"in docs/compatibility.md)",
			Match: func(d disagreement) bool {
				v, ok := d.annotation("controller")
				return d.Only == externalDNSOnly && d.Failed == nil && len(d.Zonesync) == 0 && ok && v != "dns-controller"
			},
		}, templateExtensionRule("ambassador-host")},
	}
}

// ambassadorHosts draws n Hosts, each naming (mostly) a Service by one of
// the annotation's forms, and the Services some of them name: load
// balancers with addresses and host names, external IPs, none.
func (g *gen) ambassadorHosts(n int) []runtime.Object {
	var objs []runtime.Object
	services := map[string]bool{}
	for range n {
		m := g.meta("amb")
		spec := map[string]any{}
		if !g.chance(6) {
			spec["hostname"] = g.hostname(m.Name)
		}
		svcNS, svcName := pick(g.r, "default", "ambassador", "team-a"), pick(g.r, "amb-lb", "amb-ext", "amb-none", "amb-missing")
		switch g.r.IntN(7) {
		case 0:
		case 1:
			m.Annotations[ambassadorServiceAnnotation] = svcName
			svcNS = "default"
		case 2, 3:
			m.Annotations[ambassadorServiceAnnotation] = svcName + "." + svcNS
		case 4, 5:
			m.Annotations[ambassadorServiceAnnotation] = svcNS + "/" + svcName
		default:
			m.Annotations[ambassadorServiceAnnotation] = pick(g.r, "a/b/c", "", "/")
		}
		if !services[svcNS+"/"+svcName] && svcName != "amb-missing" {
			services[svcNS+"/"+svcName] = true
			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: svcNS, Name: svcName}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}}
			switch svcName {
			case "amb-lb":
				svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.40"}, {Hostname: "amb-" + svcNS + ".example.net"}, {IP: "2001:db8::40", Hostname: "amb6.example.net"}}
			case "amb-ext":
				svc.Spec.ExternalIPs = []string{"198.51.100.40"}
				svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.41"}}
			}
			objs = append(objs, svc)
		}
		objs = append(objs, customResource("getambassador.io/v3alpha1", "Host", m, map[string]any{"spec": spec}))
	}
	return objs
}

func TestAmbassadorHostSourceAgreement(t *testing.T) {
	sd := ambassadorDiff()
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			s.IgnoreHostnameAnnotation = g.chance(5)
			sd.check(t, g.String(), s, g.ambassadorHosts(200)...)
		})
	}
}

// Hand-written cases, which must agree exactly.
func TestAmbassadorHostSourceCases(t *testing.T) {
	host := func(service string, extra map[string]string) *unstructured.Unstructured {
		anns := map[string]string{}
		if service != "-" {
			anns[ambassadorServiceAnnotation] = service
		}
		for k, v := range extra {
			anns[k] = v
		}
		return customResource("getambassador.io/v3alpha1", "Host", metav1.ObjectMeta{Namespace: "default", Name: "web", Annotations: anns},
			map[string]any{"spec": map[string]any{"hostname": "web.example.com"}})
	}
	lb := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ambassador", Name: "edge"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{
			{IP: "192.0.2.1"}, {Hostname: "elb.example.net"},
		}}},
	}
	ext := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "edge"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ExternalIPs: []string{"198.51.100.1"}},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{
			{IP: "192.0.2.9"},
		}}},
	}
	for _, tc := range []struct {
		name string
		objs []runtime.Object
		want int
	}{
		{name: "namespace/name", objs: []runtime.Object{lb, host("ambassador/edge", nil)}, want: 2},
		{name: "name.namespace", objs: []runtime.Object{lb, host("edge.ambassador", nil)}, want: 2},
		{name: "name in the default namespace, external IPs first", objs: []runtime.Object{ext, host("edge", nil)}, want: 1},
		{name: "no service annotation", objs: []runtime.Object{lb, host("-", map[string]string{"external-dns.kubernetes.io/target": "192.0.2.7"})}, want: 0},
		{name: "target annotation wins", objs: []runtime.Object{lb, host("ambassador/edge", map[string]string{"external-dns.kubernetes.io/target": "lb.example.net"})}, want: 1},
		{name: "missing service", objs: []runtime.Object{lb, host("ambassador/other", nil)}, want: 0},
		{name: "ill-formed service", objs: []runtime.Object{lb, host("a/b/c", nil)}, want: 0},
		{name: "TTL and set identifier", objs: []runtime.Object{lb, host("ambassador/edge", map[string]string{"external-dns.kubernetes.io/ttl": "60", "external-dns.kubernetes.io/set-identifier": "one"})}, want: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := ambassadorDiff().check(t, "hand-written", sourceSettings{}, tc.objs...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and %d records: %v", tc.want, out.Explained, len(out.Zonesync), sortedRecords(out.Zonesync))
			}
		})
	}
}
