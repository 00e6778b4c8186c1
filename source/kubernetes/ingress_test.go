package kubernetes_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

func ingress(ns, name string, ann map[string]string, hosts []string, lb []networkingv1.IngressLoadBalancerIngress, mut ...func(*networkingv1.Ingress)) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann, ResourceVersion: "1"}}
	for _, h := range hosts {
		ing.Spec.Rules = append(ing.Spec.Rules, networkingv1.IngressRule{Host: h})
	}
	ing.Status.LoadBalancer.Ingress = lb
	for _, m := range mut {
		m(ing)
	}
	return ing
}

func TestIngressSource(t *testing.T) {
	lb := []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}, {Hostname: "lb.example.net"}}
	tls := func(hosts ...string) func(*networkingv1.Ingress) {
		return func(i *networkingv1.Ingress) { i.Spec.TLS = []networkingv1.IngressTLS{{Hosts: hosts}} }
	}
	class := func(c string) func(*networkingv1.Ingress) {
		return func(i *networkingv1.Ingress) { i.Spec.IngressClassName = ptrTo(c) }
	}
	tests := []struct {
		name string
		cfg  kubernetes.IngressConfig
		objs []runtime.Object
		want []string
	}{
		{
			name: "rule and TLS hosts, annotation hostnames, both target kinds",
			objs: []runtime.Object{ingress("ns", "web", map[string]string{hostnameKey: "extra.example.com", "external-dns.kubernetes.io/ttl": "120"},
				[]string{"web.example.com"}, lb, tls("web.example.com", "secure.example.com"))},
			want: []string{
				"extra.example.com 120 IN A  192.0.2.1 ingress/ns/web",
				"extra.example.com 120 IN CNAME  lb.example.net ingress/ns/web",
				"secure.example.com 120 IN A  192.0.2.1 ingress/ns/web",
				"secure.example.com 120 IN CNAME  lb.example.net ingress/ns/web",
				"web.example.com 120 IN A  192.0.2.1 ingress/ns/web",
				"web.example.com 120 IN CNAME  lb.example.net ingress/ns/web",
			},
		},
		{
			name: "target annotation and set identifier",
			objs: []runtime.Object{ingress("ns", "web", map[string]string{"external-dns.kubernetes.io/target": "198.51.100.7,198.51.100.8", "external-dns.kubernetes.io/set-identifier": "blue"},
				[]string{"web.example.com"}, lb)},
			want: []string{"web.example.com 0 IN A blue 198.51.100.7;198.51.100.8 ingress/ns/web"},
		},
		{
			name: "hostname source annotation",
			objs: []runtime.Object{
				ingress("ns", "defined", map[string]string{hostnameKey: "ann.example.com", "external-dns.kubernetes.io/ingress-hostname-source": "defined-hosts-only"},
					[]string{"spec.example.com"}, lb[:1]),
				ingress("ns", "annonly", map[string]string{hostnameKey: "ann2.example.com", "external-dns.kubernetes.io/ingress-hostname-source": "annotation-only"},
					[]string{"spec2.example.com"}, lb[:1]),
			},
			want: []string{
				"ann2.example.com 0 IN A  192.0.2.1 ingress/ns/annonly",
				"spec.example.com 0 IN A  192.0.2.1 ingress/ns/defined",
			},
		},
		{
			name: "hostname source in other case or unknown; empty TLS hosts skipped",
			objs: []runtime.Object{
				ingress("ns", "upper", map[string]string{hostnameKey: "ann.example.com", "external-dns.kubernetes.io/ingress-hostname-source": "Defined-Hosts-Only"},
					[]string{"upper.example.com"}, lb[:1], tls("", "tls.example.com")),
				ingress("ns", "unknown", map[string]string{hostnameKey: "ann3.example.com", "external-dns.kubernetes.io/ingress-hostname-source": "both"},
					[]string{"spec3.example.com"}, lb[:1]),
			},
			want: []string{
				"tls.example.com 0 IN A  192.0.2.1 ingress/ns/upper",
				"upper.example.com 0 IN A  192.0.2.1 ingress/ns/upper",
			},
		},
		{
			name: "a bad hostname annotation the Ingress does not read fails nothing",
			cfg:  kubernetes.IngressConfig{Options: kubernetes.Options{IgnoreHostnameAnnotation: true}},
			objs: []runtime.Object{
				ingress("ns", "ignored", map[string]string{hostnameKey: "bad_host!.example.com"}, []string{"rule.example.com"}, lb[:1]),
				ingress("ns", "defined", map[string]string{hostnameKey: "bad_host!.example.com", "external-dns.kubernetes.io/ingress-hostname-source": "defined-hosts-only"},
					[]string{"defined.example.com"}, lb[:1]),
			},
			want: []string{
				"defined.example.com 0 IN A  192.0.2.1 ingress/ns/defined",
				"rule.example.com 0 IN A  192.0.2.1 ingress/ns/ignored",
			},
		},
		{
			name: "an empty spec.ingressClassName leaves the class to the annotation",
			cfg:  kubernetes.IngressConfig{IngressClassNames: []string{"public"}},
			objs: []runtime.Object{
				ingress("ns", "empty", map[string]string{kubernetes.IngressClassAnnotation: "public"}, []string{"empty.example.com"}, lb[:1], class("")),
			},
			want: []string{"empty.example.com 0 IN A  192.0.2.1 ingress/ns/empty"},
		},
		{
			name: "ingress class from spec or annotation",
			cfg:  kubernetes.IngressConfig{IngressClassNames: []string{"public"}},
			objs: []runtime.Object{
				ingress("ns", "spec", nil, []string{"a.example.com"}, lb[:1], class("public")),
				ingress("ns", "ann", map[string]string{"kubernetes.io/ingress.class": "public"}, []string{"b.example.com"}, lb[:1]),
				ingress("ns", "other", map[string]string{"kubernetes.io/ingress.class": "public"}, []string{"c.example.com"}, lb[:1], class("internal")),
				ingress("ns", "none", nil, []string{"d.example.com"}, lb[:1]),
			},
			want: []string{
				"a.example.com 0 IN A  192.0.2.1 ingress/ns/spec",
				"b.example.com 0 IN A  192.0.2.1 ingress/ns/ann",
			},
		},
		{
			name: "template for Ingresses without hosts; label selector",
			cfg: kubernetes.IngressConfig{Options: kubernetes.Options{
				LabelSelector: "dns", FQDNTemplate: fqdn.MustTemplate("{{.Name}}.apps.example.com"),
			}},
			objs: []runtime.Object{
				ingress("ns", "nohost", nil, nil, lb[:1], func(i *networkingv1.Ingress) { i.Labels = map[string]string{"dns": "yes"} }),
				ingress("ns", "host", nil, []string{"h.example.com"}, lb[:1], func(i *networkingv1.Ingress) { i.Labels = map[string]string{"dns": "yes"} }),
				ingress("ns", "unlabelled", nil, []string{"u.example.com"}, lb[:1]),
			},
			want: []string{
				"h.example.com 0 IN A  192.0.2.1 ingress/ns/host",
				"nohost.apps.example.com 0 IN A  192.0.2.1 ingress/ns/nohost",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := kubernetes.NewIngressSource(ctx, fake.NewClientset(tt.objs...), tt.cfg)
			require.NoError(t, err)
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			require.NoError(t, err)
			assert.Equal(t, tt.want, render(eps))
		})
	}
}

func TestIngressSourceEventsAndErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lb := []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}}
	client := fake.NewClientset(ingress("ns", "bad", map[string]string{hostnameKey: "bad..example.com"}, []string{"bad.example.com"}, lb))
	src, err := kubernetes.NewIngressSource(ctx, client, kubernetes.IngressConfig{})
	require.NoError(t, err)
	calls := started(t, ctx, src)

	_, err = client.NetworkingV1().Ingresses("ns").Create(ctx, ingress("ns", "good", nil, []string{"good.example.com"}, lb), metav1.CreateOptions{})
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() >= 1 })
	var eps []*endpoint.Endpoint
	eventually(t, func() bool {
		got, err := src.Endpoints(ctx)
		eps = got
		var pe *source.PartialError
		return len(got) == 1 && assert.ErrorAs(t, err, &pe) && pe.Failed["ingress/ns/bad"] != nil
	})
	assert.Equal(t, []string{"good.example.com 0 IN A  192.0.2.1 ingress/ns/good"}, render(eps))

	before := calls.Load()
	require.NoError(t, client.NetworkingV1().Ingresses("ns").Delete(ctx, "good", metav1.DeleteOptions{}))
	eventually(t, func() bool { return calls.Load() > before })
}

func TestIngressSourceOptions(t *testing.T) {
	lb := []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}}
	withTLS := func(i *networkingv1.Ingress) {
		i.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"tls.example.com"}}}
	}
	web := func(ann map[string]string) *networkingv1.Ingress {
		return ingress("ns", "web", ann, []string{"rule.example.com"}, lb, withTLS)
	}
	tmpl := fqdn.MustTemplate("{{.Name}}.tmpl.example.com")
	tests := []struct {
		name string
		cfg  kubernetes.IngressConfig
		objs []runtime.Object
		want []string
	}{
		{
			name: "defaults: rules, TLS and annotation",
			objs: []runtime.Object{web(map[string]string{hostnameKey: "ann.example.com"})},
			want: []string{
				"ann.example.com 0 IN A  192.0.2.1 ingress/ns/web",
				"rule.example.com 0 IN A  192.0.2.1 ingress/ns/web",
				"tls.example.com 0 IN A  192.0.2.1 ingress/ns/web",
			},
		},
		{
			name: "ignore rules spec",
			cfg:  kubernetes.IngressConfig{IgnoreIngressRulesSpec: true},
			objs: []runtime.Object{web(map[string]string{hostnameKey: "ann.example.com"})},
			want: []string{
				"ann.example.com 0 IN A  192.0.2.1 ingress/ns/web",
				"tls.example.com 0 IN A  192.0.2.1 ingress/ns/web",
			},
		},
		{
			name: "ignore TLS spec",
			cfg:  kubernetes.IngressConfig{IgnoreIngressTLSSpec: true},
			objs: []runtime.Object{web(map[string]string{hostnameKey: "ann.example.com"})},
			want: []string{
				"ann.example.com 0 IN A  192.0.2.1 ingress/ns/web",
				"rule.example.com 0 IN A  192.0.2.1 ingress/ns/web",
			},
		},
		{
			name: "ignore hostname annotation",
			cfg:  kubernetes.IngressConfig{Options: kubernetes.Options{IgnoreHostnameAnnotation: true}},
			objs: []runtime.Object{web(map[string]string{hostnameKey: "ann.example.com"})},
			want: []string{
				"rule.example.com 0 IN A  192.0.2.1 ingress/ns/web",
				"tls.example.com 0 IN A  192.0.2.1 ingress/ns/web",
			},
		},
		{
			name: "all three ignored: nothing, then the template names the ingress",
			cfg: kubernetes.IngressConfig{IgnoreIngressRulesSpec: true, IgnoreIngressTLSSpec: true,
				Options: kubernetes.Options{IgnoreHostnameAnnotation: true, FQDNTemplate: tmpl}},
			objs: []runtime.Object{web(map[string]string{hostnameKey: "ann.example.com"})},
			want: []string{"web.tmpl.example.com 0 IN A  192.0.2.1 ingress/ns/web"},
		},
		{
			name: "all three ignored without template: nothing",
			cfg: kubernetes.IngressConfig{IgnoreIngressRulesSpec: true, IgnoreIngressTLSSpec: true,
				Options: kubernetes.Options{IgnoreHostnameAnnotation: true}},
			objs: []runtime.Object{web(map[string]string{hostnameKey: "ann.example.com"})},
			want: []string{},
		},
		{
			name: "annotation-only source with the annotation ignored: nothing",
			cfg:  kubernetes.IngressConfig{Options: kubernetes.Options{IgnoreHostnameAnnotation: true}},
			objs: []runtime.Object{web(map[string]string{hostnameKey: "ann.example.com", "external-dns.kubernetes.io/ingress-hostname-source": "annotation-only"})},
			want: []string{},
		},
		{
			name: "target and fqdn-target templates are not run for ingresses",
			cfg: kubernetes.IngressConfig{IgnoreIngressRulesSpec: true, IgnoreIngressTLSSpec: true, Options: kubernetes.Options{
				TargetTemplate: fqdn.MustTemplate("10.9.9.9"), FQDNTargetTemplate: fqdn.MustTemplate("pair.example.com:10.9.9.8"),
			}},
			objs: []runtime.Object{web(nil)},
			want: []string{},
		},
		{
			name: "isSource is bound to ingress",
			cfg: kubernetes.IngressConfig{IgnoreIngressRulesSpec: true, IgnoreIngressTLSSpec: true, Options: kubernetes.Options{
				FQDNTemplate: fqdn.MustTemplate(`{{if isSource "ingress"}}{{.Name}}.ing.example.com{{end}},{{if isSource "service"}}svc.example.com{{end}}`),
			}},
			objs: []runtime.Object{web(nil)},
			want: []string{"web.ing.example.com 0 IN A  192.0.2.1 ingress/ns/web"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := kubernetes.NewIngressSource(ctx, fake.NewClientset(tt.objs...), tt.cfg)
			require.NoError(t, err)
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			require.NoError(t, err)
			assert.Equal(t, tt.want, render(eps))
		})
	}
}
