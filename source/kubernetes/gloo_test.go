package kubernetes_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic/dynamicinformer"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// vhost returns a Gloo virtual host with the given domains, built from
// the VirtualServices ns/name listed in metadata.sources (dynamic) or, with
// static, in metadataStatic.sources.
func vhost(static bool, domains []any, sources ...[2]string) map[string]any {
	var list []any
	for _, s := range sources {
		if static {
			list = append(list, map[string]any{"resourceKind": "*v1.VirtualService", "resourceRef": map[string]any{"namespace": s[0], "name": s[1]}})
		} else {
			list = append(list, map[string]any{"kind": "*v1.VirtualService", "namespace": s[0], "name": s[1]})
		}
	}
	key := "metadata"
	if static {
		key = "metadataStatic"
	}
	return map[string]any{"domains": domains, key: map[string]any{"sources": list}}
}

func glooProxy(ns, name string, ann map[string]string, listeners ...any) *unstructured.Unstructured {
	return obj("gloo.solo.io/v1", "Proxy", ns, name, ann, map[string]any{"spec": map[string]any{"listeners": listeners}})
}

func httpListener(vhosts ...any) map[string]any {
	return map[string]any{"httpListener": map[string]any{"virtualHosts": vhosts}}
}

func glooVirtualService(ns, name string, ann map[string]string) *unstructured.Unstructured {
	return obj("gateway.solo.io/v1", "VirtualService", ns, name, ann, map[string]any{"spec": map[string]any{}})
}

func lbService(ns, name string, ingress ...corev1.LoadBalancerIngress) *corev1.Service {
	return svc(ns, name, corev1.ServiceTypeLoadBalancer, nil, lbStatus(ingress...))
}

func TestGlooProxySource(t *testing.T) {
	const gs = "gloo-system"
	dynObjs := []*unstructured.Unstructured{
		// Two virtual hosts: one from an unknown kind (no annotations),
		// one from a VirtualService.
		glooProxy(gs, "internal", nil, httpListener(
			map[string]any{"domains": []any{"a.test", "b.test."}, "metadata": map[string]any{"sources": []any{map[string]any{"kind": "*v1.Unknown", "namespace": "x", "name": "y"}}}},
			vhost(false, []any{"c.test", "*"}, [2]string{"apps", "internal-vs"}),
		)),
		glooVirtualService("apps", "internal-vs", map[string]string{
			"external-dns.kubernetes.io/ttl":                          "42",
			"external-dns.kubernetes.io/aws-geolocation-country-code": "LU",
			"external-dns.kubernetes.io/set-identifier":               "identifier",
			// Not read on VirtualServices:
			hostnameKey: "ignored.test", targetKey: "ignored.example.net", "external-dns.kubernetes.io/controller": "other",
		}),
		// metadataStatic sources, host name targets, and one domain in
		// two virtual hosts.
		glooProxy(gs, "external", nil, httpListener(
			vhost(true, []any{"e.test", "dup.test"}, [2]string{"apps", "external-vs"}),
			vhost(true, []any{"dup.test"}, [2]string{"apps", "external-vs"}),
		)),
		glooVirtualService("apps", "external-vs", map[string]string{"external-dns.kubernetes.io/ttl": "24"}),
		// The target annotation wins over the Service.
		glooProxy(gs, "annotated", map[string]string{targetKey: "203.2.45.7"}, httpListener(vhost(false, []any{"i.test"}))),
		// Targets from the Ingress a Gateway names; no Service.
		glooProxy(gs, "via-gateway", nil, map[string]any{
			"httpListener":   map[string]any{"virtualHosts": []any{vhost(true, []any{"k.test"})}},
			"metadataStatic": map[string]any{"sources": []any{map[string]any{"resourceKind": "*v1.Gateway", "resourceRef": map[string]any{"namespace": gs, "name": "gw"}}}},
		}),
		obj("gateway.solo.io/v1", "Gateway", gs, "gw", map[string]string{"external-dns.kubernetes.io/ingress": "edge/front"}, nil),
		// An aggregate listener: virtual hosts by reference.
		glooProxy(gs, "aggregate", map[string]string{targetKey: "203.3.45.9"}, map[string]any{"aggregateListener": map[string]any{
			"httpFilterChains": []any{map[string]any{"virtualHostRefs": []any{"gloo-system.l", "missing"}}},
			"httpResources":    map[string]any{"virtualHosts": map[string]any{"gloo-system.l": map[string]any{"domains": []any{"l.test"}}, "unused": map[string]any{"domains": []any{"unused.test"}}}},
		}}),
		// Another Gloo namespace.
		glooProxy("gloo-two", "second", map[string]string{targetKey: "192.0.2.2"}, httpListener(vhost(false, []any{"second.test"}))),
		// Not ours.
		glooProxy(gs, "foreign", map[string]string{targetKey: "192.0.2.3", "external-dns.kubernetes.io/controller": "other"}, httpListener(vhost(false, []any{"foreign.test"}))),
		// Broken: a VirtualService that does not exist, one with a bad
		// TTL, a Proxy without its Service, a bad domain.
		glooProxy(gs, "missing-vs", map[string]string{targetKey: "192.0.2.4"}, httpListener(vhost(false, []any{"m.test"}, [2]string{"apps", "nope"}))),
		glooProxy(gs, "bad-ttl", map[string]string{targetKey: "192.0.2.4"}, httpListener(vhost(true, []any{"t.test"}, [2]string{"apps", "bad-ttl-vs"}))),
		glooVirtualService("apps", "bad-ttl-vs", map[string]string{"external-dns.kubernetes.io/ttl": "soon"}),
		glooProxy(gs, "no-service", nil, httpListener(vhost(false, []any{"n.test"}))),
		glooProxy(gs, "bad-domain", map[string]string{targetKey: "192.0.2.4"}, httpListener(vhost(false, []any{"ok.test", "bad..test"}))),
	}
	kubeObjs := []runtime.Object{
		lbService(gs, "internal", corev1.LoadBalancerIngress{IP: "203.0.113.2"}, corev1.LoadBalancerIngress{IP: "203.0.113.1"}),
		lbService(gs, "external", corev1.LoadBalancerIngress{Hostname: "a.example.org"}, corev1.LoadBalancerIngress{Hostname: "b.example.org"}),
		lbService(gs, "annotated", corev1.LoadBalancerIngress{IP: "203.1.115.1"}),
		&networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "edge", Name: "front"}, Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
			Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "198.51.100.7", Hostname: "not-used.example.net"}, {Hostname: "front.example.net"}},
		}}},
	}
	defaultNS := []string{
		"a.test 0 IN A  203.0.113.1;203.0.113.2 ",
		"l.test 0 IN A  203.3.45.9 ",
		"b.test 0 IN A  203.0.113.1;203.0.113.2 ",
		"c.test 42 IN A identifier 203.0.113.1;203.0.113.2 [{aws/geolocation-country-code LU}] ",
		"dup.test 24 IN CNAME  a.example.org;b.example.org ",
		"e.test 24 IN CNAME  a.example.org;b.example.org ",
		"i.test 0 IN A  203.2.45.7 ",
		"k.test 0 IN A  198.51.100.7 ",
		"k.test 0 IN CNAME  front.example.net ",
	}
	failed := []string{"proxy/gloo-system/bad-domain", "proxy/gloo-system/bad-ttl", "proxy/gloo-system/missing-vs", "proxy/gloo-system/no-service"}
	tests := []struct {
		name    string
		cfg     kubernetes.GlooProxyConfig
		want    []string
		failed  []string
		wantErr string
	}{
		{name: "gloo-system by default", want: sorted(defaultNS), failed: failed},
		{name: "two Gloo namespaces", cfg: kubernetes.GlooProxyConfig{GlooNamespaces: []string{"gloo-two", gs}},
			want: sorted(defaultNS, []string{"second.test 0 IN A  192.0.2.2 "}), failed: failed},
		{name: "the other namespace only", cfg: kubernetes.GlooProxyConfig{GlooNamespaces: []string{"gloo-two"}},
			want: []string{"second.test 0 IN A  192.0.2.2 "}},
		{name: "Namespace narrows the Gloo namespaces", cfg: kubernetes.GlooProxyConfig{GlooNamespaces: []string{"gloo-two", gs}, Options: kubernetes.Options{Namespace: "gloo-two"}},
			want: []string{"second.test 0 IN A  192.0.2.2 "}},
		{name: "Namespace outside them", cfg: kubernetes.GlooProxyConfig{Options: kubernetes.Options{Namespace: "gloo-two"}}, want: []string{}},
		{name: "annotation filter on the Proxy", cfg: kubernetes.GlooProxyConfig{Options: kubernetes.Options{AnnotationFilter: targetKey + "=203.2.45.7"}},
			want: []string{"i.test 0 IN A  203.2.45.7 "}},
		{
			name: "template for a Proxy without domains",
			cfg: kubernetes.GlooProxyConfig{GlooNamespaces: []string{"gloo-two"}, Options: kubernetes.Options{
				CombineFQDN: true, FQDNTemplate: fqdn.MustTemplate("{{.metadata.name}}.tmpl.test"),
				TargetTemplate: fqdn.MustTemplate("192.0.2.99")}},
			want: []string{"second.test 0 IN A  192.0.2.2 ", "second.tmpl.test 0 IN A  192.0.2.99 "},
		},
		{
			name: "an FQDN template without a target template gives no records",
			cfg: kubernetes.GlooProxyConfig{GlooNamespaces: []string{"gloo-two"}, Options: kubernetes.Options{
				CombineFQDN: true, FQDNTemplate: fqdn.MustTemplate("{{.metadata.name}}.tmpl.test")}},
			want: []string{"second.test 0 IN A  192.0.2.2 "},
		},
		{name: "empty namespace", cfg: kubernetes.GlooProxyConfig{GlooNamespaces: []string{""}}, wantErr: "empty Gloo namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := kubernetes.NewGlooProxySource(ctx, fake.NewClientset(kubeObjs...), crd2Client(dynObjs...), tt.cfg)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "gloo-proxy", src.String())
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			if len(tt.failed) == 0 {
				require.NoError(t, err)
			} else {
				var pe *source.PartialError
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, tt.failed, keys(pe.Failed))
				assert.ErrorContains(t, pe.Failed["proxy/gloo-system/missing-vs"], "Proxy gloo-system/missing-vs: spec.listeners[0].httpListener.virtualHosts[0].metadata.sources[0]: VirtualService apps/nope: not found")
				assert.ErrorContains(t, pe.Failed["proxy/gloo-system/bad-ttl"], "annotation external-dns.kubernetes.io/ttl=\"soon\"")
				assert.ErrorContains(t, pe.Failed["proxy/gloo-system/no-service"], "Proxy gloo-system/no-service: Service gloo-system/no-service not found")
				assert.ErrorContains(t, pe.Failed["proxy/gloo-system/bad-domain"], "Proxy gloo-system/bad-domain: spec.listeners[0].httpListener.virtualHosts[0].domains[1]")
			}
			assert.Equal(t, tt.want, render(eps))
		})
	}
}

// TestGlooProxySourceEvents: with factories the caller starts, the
// source is not ready before, and a change of a VirtualService (whose
// annotations the endpoints carry) fires the handler.
func TestGlooProxySourceEvents(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dyn := crd2Client(glooProxy("gloo-system", "p", map[string]string{targetKey: "192.0.2.1"}, httpListener(vhost(false, []any{"p.test"}, [2]string{"apps", "vs"}))))
	kube := fake.NewClientset()
	dynFactory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	factory := k8sinformers.NewSharedInformerFactory(kube, 0)
	src, err := kubernetes.NewGlooProxySource(ctx, kube, dyn, kubernetes.GlooProxyConfig{DynamicFactory: dynFactory, Factory: factory})
	require.NoError(t, err)
	assert.False(t, src.HasSynced())
	calls := make(chan struct{}, 16)
	src.AddEventHandler(ctx, func() {
		select {
		case calls <- struct{}{}:
		default:
		}
	})
	dynFactory.Start(ctx.Done())
	factory.Start(ctx.Done())
	require.NoError(t, src.WaitForSync(ctx))
	<-calls // the Proxy's add
	_, err = src.Endpoints(ctx)
	require.ErrorContains(t, err, "VirtualService apps/vs: not found")
	_, err = dyn.Resource(kubernetes.GlooVirtualServiceGVR).Namespace("apps").Create(ctx, glooVirtualService("apps", "vs", map[string]string{"external-dns.kubernetes.io/ttl": "5"}), metav1.CreateOptions{})
	require.NoError(t, err)
	<-calls
	eventually(t, func() bool {
		eps, err := src.Endpoints(ctx)
		return err == nil && assert.ObjectsAreEqual([]string{"p.test 5 IN A  192.0.2.1 "}, render(eps))
	})
}
