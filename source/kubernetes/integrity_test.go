package kubernetes_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// TestRegression_DNSEndpointBadInput (issue 21, findings 2 and 4): a
// DNSEndpoint whose endpoints hold a name that is not a DNS name (a
// zone-file escape such as "\102oo", which is "foo" on the wire), a bad
// host name target, a label that would inject another label into the
// ownership TXT text, or a label zonesync sets itself, is reported under
// its resource key, and the other DNSEndpoints' endpoints are returned.
func TestRegression_DNSEndpointBadInput(t *testing.T) {
	a := func(name string) map[string]any {
		return map[string]any{"dnsName": name, "recordType": "A", "targets": []any{"192.0.2.9"}}
	}
	withLabels := func(labels map[string]any) map[string]any {
		ep := a("bad.example.org")
		ep["labels"] = labels
		return ep
	}
	tests := []struct {
		name string
		ep   map[string]any
		want string
	}{
		{"escaped dnsName", a(`\102oo.example.org`),
			`spec.endpoints[1] ("\\102oo.example.org"): invalid endpoint \102oo.example.org/A: dnsName: DNS name "\\102oo.example.org" contains '\\' (U+005C at offset 0) in label "\\102oo"`},
		{"escaped dot", a(`foo\.example.org`), `dnsName: DNS name "foo\\.example.org" contains '\\' (U+005C at offset 3)`},
		{"NUL in dnsName", a("foo\x00.example.org"), `dnsName: DNS name "foo\x00.example.org" contains '\x00' (U+0000 at offset 3)`},
		{"quote in dnsName", a(`"foo".example.org`), `dnsName: DNS name "\"foo\".example.org" contains '"'`},
		{"slash in dnsName", a("foo/bar.example.org"), `dnsName: DNS name "foo/bar.example.org" contains '/'`},
		{"space in dnsName", a("foo bar.example.org"), `dnsName: DNS name "foo bar.example.org" contains white space`},
		{"escaped CNAME target", map[string]any{"dnsName": "www.example.org", "recordType": "CNAME", "targets": []any{`\102oo.example.org`}},
			`targets[0]: CNAME target "\\102oo.example.org": DNS name "\\102oo.example.org" contains '\\'`},
		{"escaped MX host", map[string]any{"dnsName": "example.org", "recordType": "MX", "targets": []any{`10 \109x.example.org`}},
			`targets[0]: MX target "10 \\109x.example.org"`},
		{"label value injecting an owner", withLabels(map[string]any{"zz": "x,external-dns/owner=victim"}),
			`labels["zz"]: value "x,external-dns/owner=victim" contains ',' (U+002C at offset 1)`},
		{"label key injecting an owner", withLabels(map[string]any{"zz=x,external-dns/owner": "victim"}),
			`labels["zz=x,external-dns/owner"]: key contains '='`},
		{"quote in a label", withLabels(map[string]any{"zz": `x"`}), `labels["zz"]: value "x\"" contains '"'`},
		{"newline in a label", withLabels(map[string]any{"zz": "x\ny"}), `labels["zz"]: value "x\ny" contains '\n'`},
		{"owner label", withLabels(map[string]any{"owner": "victim"}), `labels["owner"]: the label is set by zonesync, not by the object`},
		{"resource label", withLabels(map[string]any{"resource": "crd/ns/other"}), `labels["resource"]: the label is set by zonesync`},
		{"ownedRecord label", withLabels(map[string]any{"ownedRecord": "x.example.org"}), `labels["ownedRecord"]: the label is set by zonesync`},
		{"encryption nonce label", withLabels(map[string]any{"txt-encryption-nonce": "AAAAAAAAAAAAAAAA"}), `labels["txt-encryption-nonce"]: the label is set by zonesync`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			client := dynClient(
				dnsEndpoint("ns", "a-good", 1, map[string]any{"dnsName": "good.example.org", "recordType": "A", "targets": []any{"192.0.2.1"}, "labels": map[string]any{"team": "dns"}}),
				dnsEndpoint("ns", "bad", 1, a("fine.example.org"), tt.ep),
				dnsEndpoint("ns", "z-good", 1, map[string]any{"dnsName": "other.example.org", "recordType": "CNAME", "targets": []any{"good.example.org"}}),
			)
			src, err := kubernetes.NewDNSEndpointSource(ctx, client, kubernetes.DNSEndpointConfig{})
			require.NoError(t, err)
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			var pe *source.PartialError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, []string{"crd/ns/bad"}, slices.Sorted(maps.Keys(pe.Failed)))
			assert.ErrorContains(t, pe.Failed["crd/ns/bad"], "DNSEndpoint ns/bad: spec.endpoints[1]")
			assert.ErrorContains(t, pe.Failed["crd/ns/bad"], tt.want)
			assert.Equal(t, []string{
				"good.example.org 0 IN A  192.0.2.1 crd/ns/a-good",
				"other.example.org 0 IN CNAME  good.example.org crd/ns/z-good",
			}, render(eps), "the other objects' endpoints, and none of the bad one's")
			for _, ep := range eps {
				_, hasOwner := ep.Labels.Get("owner")
				assert.False(t, hasOwner)
			}
		})
	}
}

// TestRegression_KubernetesSourcesBadHostnames (issue 21, finding 2): in
// every Kubernetes source, a host name or target from an annotation, an
// FQDN template, the object's spec or its status that is not a DNS name
// fails that object alone, with an error naming the object and where the
// name came from; the other objects' endpoints are returned.
func TestRegression_KubernetesSourcesBadHostnames(t *testing.T) {
	const (
		escaped  = `\102oo.example.org`
		internal = "external-dns.kubernetes.io/internal-hostname"
		target   = "external-dns.kubernetes.io/target"
	)
	lb := lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.1"})
	goodSvc := svc("ns", "good", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "good.example.org"}, lb)
	serviceSource := func(cfg kubernetes.ServiceConfig, bad *corev1.Service) func(ctx context.Context) (syncer, error) {
		return func(ctx context.Context) (syncer, error) {
			return kubernetes.NewServiceSource(ctx, fake.NewClientset(goodSvc, bad), cfg)
		}
	}
	ingLB := []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}}
	ingressSource := func(bad *networkingv1.Ingress) func(ctx context.Context) (syncer, error) {
		return func(ctx context.Context) (syncer, error) {
			good := ingress("ns", "good", nil, []string{"good.example.org"}, ingLB)
			return kubernetes.NewIngressSource(ctx, fake.NewClientset(good, bad), kubernetes.IngressConfig{})
		}
	}
	gateway := func(name string, ann map[string]string, hosts ...any) *unstructured.Unstructured {
		return obj("networking.istio.io/v1", "Gateway", "ns", name, ann, map[string]any{"spec": map[string]any{
			"selector": map[string]any{"istio": "ingressgateway"},
			"servers":  []any{map[string]any{"hosts": hosts}},
		}})
	}
	istioSource := func(bad *unstructured.Unstructured) func(ctx context.Context) (syncer, error) {
		return func(ctx context.Context) (syncer, error) {
			kube := fake.NewClientset(svc("istio-system", "gw", corev1.ServiceTypeLoadBalancer, nil, lb,
				func(s *corev1.Service) { s.Spec.Selector = map[string]string{"istio": "ingressgateway"} }))
			return kubernetes.NewIstioGatewaySource(ctx, kube, dynClient(gateway("good", nil, "good.example.org"), bad), kubernetes.IstioGatewayConfig{})
		}
	}
	proxy := func(name, fqdn string, ann map[string]string) *unstructured.Unstructured {
		return obj("projectcontour.io/v1", "HTTPProxy", "ns", name, ann, map[string]any{
			"spec":   map[string]any{"virtualhost": map[string]any{"fqdn": fqdn}},
			"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}}},
		})
	}
	contourSource := func(bad *unstructured.Unstructured) func(ctx context.Context) (syncer, error) {
		return func(ctx context.Context) (syncer, error) {
			return kubernetes.NewHTTPProxySource(ctx, dynClient(proxy("good", "good.example.org", nil), bad), kubernetes.HTTPProxyConfig{})
		}
	}
	tests := []struct {
		name     string
		make     func(ctx context.Context) (syncer, error)
		failed   string
		want     []string // substrings of the object's error
		wantGood string
	}{
		{
			name:   "service hostname annotation",
			make:   serviceSource(kubernetes.ServiceConfig{}, svc("ns", "bad", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: escaped}, lb)),
			failed: "service/ns/bad",
			want:   []string{`Service ns/bad: annotation ` + hostnameKey + `="\\102oo.example.org": DNS name "\\102oo.example.org" contains '\\'`},
		},
		{
			name:   "service hostname annotation with NUL, quote and slash",
			make:   serviceSource(kubernetes.ServiceConfig{}, svc("ns", "bad", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "a\x00.example.org,\"b\".example.org,c/d.example.org"}, lb)),
			failed: "service/ns/bad",
			want:   []string{`contains '\x00'`, `contains '"'`, `contains '/'`},
		},
		{
			name:   "service internal-hostname annotation",
			make:   serviceSource(kubernetes.ServiceConfig{}, svc("ns", "bad", corev1.ServiceTypeClusterIP, map[string]string{internal: escaped})),
			failed: "service/ns/bad",
			want:   []string{`Service ns/bad: annotation ` + internal + `=`, `contains '\\'`},
		},
		{
			name: "service target annotation",
			make: serviceSource(kubernetes.ServiceConfig{}, svc("ns", "bad", corev1.ServiceTypeLoadBalancer,
				map[string]string{hostnameKey: "bad.example.org", target: `\108b.example.net`}, lb)),
			failed: "service/ns/bad",
			want:   []string{`Service ns/bad: annotation ` + target + `=`, `neither an IP address nor a DNS name`},
		},
		{
			name: "service FQDN template fed by a label",
			make: serviceSource(kubernetes.ServiceConfig{Options: kubernetes.Options{
				FQDNTemplate: fqdn.MustTemplate(`{{index .Labels "sub"}}.example.org`),
			}}, svc("ns", "bad", corev1.ServiceTypeLoadBalancer, nil, lb, func(s *corev1.Service) { s.Labels = map[string]string{"sub": `\102oo`} })),
			failed: "service/ns/bad",
			want:   []string{`Service ns/bad: FQDN template`, `DNS name "\\102oo.example.org" contains '\\'`},
		},
		{
			name: "service load balancer hostname in its status",
			make: serviceSource(kubernetes.ServiceConfig{}, svc("ns", "bad", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "bad.example.org"},
				lbStatus(corev1.LoadBalancerIngress{Hostname: `\108b.example.net`}))),
			failed: "service/ns/bad",
			want:   []string{`Service ns/bad: invalid endpoint bad.example.org/CNAME: targets[0]: CNAME target "\\108b.example.net"`},
		},
		{
			name:   "ingress rule host",
			make:   ingressSource(ingress("ns", "bad", nil, []string{escaped}, ingLB)),
			failed: "ingress/ns/bad",
			want:   []string{`Ingress ns/bad: spec.rules[0].host: DNS name "\\102oo.example.org" contains '\\'`},
		},
		{
			name: "ingress TLS host",
			make: ingressSource(ingress("ns", "bad", nil, []string{"bad.example.org"}, ingLB, func(i *networkingv1.Ingress) {
				i.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"bad.example.org", "x/y.example.org"}}}
			})),
			failed: "ingress/ns/bad",
			want:   []string{`Ingress ns/bad: spec.tls[0].hosts[1]: DNS name "x/y.example.org" contains '/'`},
		},
		{
			name:   "ingress hostname annotation",
			make:   ingressSource(ingress("ns", "bad", map[string]string{hostnameKey: escaped}, nil, ingLB)),
			failed: "ingress/ns/bad",
			want:   []string{`Ingress ns/bad: annotation ` + hostnameKey},
		},
		{
			name:   "istio gateway host",
			make:   istioSource(gateway("bad", nil, "ns/"+escaped)),
			failed: "gateway/ns/bad",
			want:   []string{`Gateway ns/bad: spec.servers[0].hosts[0]: DNS name "\\102oo.example.org" contains '\\'`},
		},
		{
			name:   "istio gateway hostname annotation",
			make:   istioSource(gateway("bad", map[string]string{hostnameKey: "a\x00b.example.org"}, "bad.example.org")),
			failed: "gateway/ns/bad",
			want:   []string{`Gateway ns/bad: annotation ` + hostnameKey, `contains '\x00'`},
		},
		{
			name:   "contour fqdn",
			make:   contourSource(proxy("bad", escaped, nil)),
			failed: "HTTPProxy/ns/bad",
			want:   []string{`HTTPProxy ns/bad: spec.virtualhost.fqdn: DNS name "\\102oo.example.org" contains '\\'`},
		},
		{
			name:   "contour target annotation",
			make:   contourSource(proxy("bad", "bad.example.org", map[string]string{target: `"lb".example.net`})),
			failed: "HTTPProxy/ns/bad",
			want:   []string{`HTTPProxy ns/bad: annotation ` + target, `contains '"'`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := tt.make(ctx)
			require.NoError(t, err)
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			var pe *source.PartialError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, []string{tt.failed}, slices.Sorted(maps.Keys(pe.Failed)))
			for _, want := range tt.want {
				assert.ErrorContains(t, pe.Failed[tt.failed], want)
			}
			require.Len(t, eps, 1, "the good object's endpoint, and none of the bad one's: %v", render(eps))
			assert.Equal(t, "good.example.org", eps[0].DNSName)
		})
	}
}
