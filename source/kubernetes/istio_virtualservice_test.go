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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// crdLists maps the resources of the sources of this file set to their
// list kinds, for the dynamic fake.
var crdLists = map[schema.GroupVersionResource]string{
	kubernetes.IstioGatewayGVR:        "GatewayList",
	kubernetes.IstioVirtualServiceGVR: "VirtualServiceList",
	kubernetes.OpenShiftRouteGVR:      "RouteList",
	kubernetes.AmbassadorHostGVR:      "HostList",
	kubernetes.KongTCPIngressGVR:      "TCPIngressList",
	kubernetes.SkipperRouteGroupGVR:   "RouteGroupList",
}

// crdClient returns a dynamic fake holding objs, each created under the
// resource of crdLists its apiVersion and kind name.
func crdClient(t *testing.T, objs ...*unstructured.Unstructured) *dynamicfake.FakeDynamicClient {
	t.Helper()
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), crdLists)
	for _, o := range objs {
		created := false
		for gvr, list := range crdLists {
			if gvr.GroupVersion().String() == o.GetAPIVersion() && list == o.GetKind()+"List" {
				require.NoError(t, client.Tracker().Create(gvr, o, o.GetNamespace()))
				created = true
			}
		}
		require.True(t, created, "no resource for %s %s", o.GetAPIVersion(), o.GetKind())
	}
	return client
}

// failedKeys returns the sorted resource keys of a *source.PartialError,
// nil for a nil error; any other error fails the test.
func failedKeys(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	return slices.Sorted(maps.Keys(pe.Failed))
}

func istioGateway(ns, name string, ann map[string]string, selector map[string]any, hosts ...any) *unstructured.Unstructured {
	spec := map[string]any{"servers": []any{map[string]any{"port": map[string]any{"number": int64(80)}, "hosts": hosts}}}
	if selector != nil {
		spec["selector"] = selector
	}
	return obj("networking.istio.io/v1", "Gateway", ns, name, ann, map[string]any{"spec": spec})
}

func virtualService(ns, name string, ann map[string]string, hosts, gateways []any, mut ...func(map[string]any)) *unstructured.Unstructured {
	spec := map[string]any{"hosts": hosts, "gateways": gateways}
	for _, m := range mut {
		m(spec)
	}
	return obj("networking.istio.io/v1", "VirtualService", ns, name, ann, map[string]any{"spec": spec})
}

// istioKube holds the gateway Services and the Ingress the tests' Istio
// Gateways point at.
func istioKube() *fake.Clientset {
	selects := func(v string) func(*corev1.Service) {
		return func(s *corev1.Service) { s.Spec.Selector = map[string]string{"istio": v} }
	}
	return fake.NewClientset(
		svc("istio-system", "ingressgateway", corev1.ServiceTypeLoadBalancer, nil, selects("ingressgateway"),
			lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.10"})),
		svc("istio-system", "internalgateway", corev1.ServiceTypeLoadBalancer, nil, selects("internal"),
			lbStatus(corev1.LoadBalancerIngress{Hostname: "internal-lb.example.net"})),
		ingress("istio-system", "front", nil, nil, []networkingv1.IngressLoadBalancerIngress{
			{IP: "192.0.2.50", Hostname: "ignored-when-ip.example.net"},
			{Hostname: "front-lb.example.net"},
		}),
	)
}

// istioGateways are the Gateways of the VirtualService tests.
func istioGateways() []*unstructured.Unstructured {
	return []*unstructured.Unstructured{
		istioGateway("istio-system", "public", nil, map[string]any{"istio": "ingressgateway"}, "*/*.example.com"),
		istioGateway("istio-system", "internal", nil, map[string]any{"istio": "internal"}, "app/api.internal.example.com"),
		istioGateway("app", "local", map[string]string{"external-dns.kubernetes.io/target": "local-target.example.net"}, nil, "./local.example.com"),
		istioGateway("istio-system", "via-ingress", map[string]string{"external-dns.kubernetes.io/ingress": "istio-system/front"}, map[string]any{"istio": "ingressgateway"}, "*"),
		istioGateway("istio-system", "missing-ingress", map[string]string{"external-dns.kubernetes.io/ingress": "nope"}, nil, "*"),
		istioGateway("istio-system", "other-controller", map[string]string{
			"external-dns.kubernetes.io/controller": "someone-else",
			"external-dns.kubernetes.io/target":     "other-target.example.net",
		}, nil, "*"),
	}
}

func TestIstioVirtualServiceSource(t *testing.T) {
	gws := func(names ...any) []any { return names }
	tests := []struct {
		name   string
		cfg    kubernetes.IstioVirtualServiceConfig
		vs     []*unstructured.Unstructured
		want   []string
		failed []string
	}{
		{
			name: "cross-namespace gateway; mesh, * and namespace prefixes",
			vs: []*unstructured.Unstructured{
				virtualService("app", "web", nil, []any{"web.example.com", "*", "app/prefixed.example.com"}, gws("mesh", "istio-system/public")),
			},
			want: []string{
				"prefixed.example.com 0 IN A  192.0.2.10 virtualservice/app/web",
				"web.example.com 0 IN A  192.0.2.10 virtualservice/app/web",
			},
		},
		{
			name: "each host gets the targets of the gateways it binds to",
			vs: []*unstructured.Unstructured{
				virtualService("app", "multi", nil, []any{"api.internal.example.com", "www.example.com", "www.example.org"},
					gws("istio-system/public", "istio-system/internal")),
			},
			want: []string{
				"api.internal.example.com 0 IN A  192.0.2.10 virtualservice/app/multi",
				"api.internal.example.com 0 IN CNAME  internal-lb.example.net virtualservice/app/multi",
				"www.example.com 0 IN A  192.0.2.10 virtualservice/app/multi",
			},
		},
		{
			name: "a server host limited to another namespace does not bind",
			vs: []*unstructured.Unstructured{
				virtualService("shop", "api", nil, []any{"api.internal.example.com"}, gws("istio-system/internal")),
			},
		},
		{
			name: "a gateway without namespace is in the VirtualService's; \".\" binds only there",
			vs: []*unstructured.Unstructured{
				virtualService("app", "local", nil, []any{"local.example.com"}, gws("local")),
				virtualService("shop", "local", nil, []any{"local.example.com"}, gws("app/local")),
			},
			want: []string{"local.example.com 0 IN CNAME  local-target.example.net virtualservice/app/local"},
		},
		{
			name: "exportTo must include the gateway's namespace",
			vs: []*unstructured.Unstructured{
				virtualService("app", "private", nil, []any{"private.example.com"}, gws("istio-system/public"),
					func(spec map[string]any) { spec["exportTo"] = []any{"."} }),
				virtualService("app", "exported", nil, []any{"exported.example.com"}, gws("istio-system/public"),
					func(spec map[string]any) { spec["exportTo"] = []any{".", "istio-system"} }),
				virtualService("app", "everywhere", nil, []any{"everywhere.example.com"}, gws("istio-system/public"),
					func(spec map[string]any) { spec["exportTo"] = []any{"*"} }),
			},
			want: []string{
				"everywhere.example.com 0 IN A  192.0.2.10 virtualservice/app/everywhere",
				"exported.example.com 0 IN A  192.0.2.10 virtualservice/app/exported",
			},
		},
		{
			name: "a gateway's ingress annotation wins over its selector",
			vs: []*unstructured.Unstructured{
				virtualService("app", "ing", nil, []any{"ing.example.com"}, gws("istio-system/via-ingress")),
			},
			want: []string{
				"ing.example.com 0 IN A  192.0.2.50 virtualservice/app/ing",
				"ing.example.com 0 IN CNAME  front-lb.example.net virtualservice/app/ing",
			},
		},
		{
			name: "a gateway of another controller still gives its targets",
			vs: []*unstructured.Unstructured{
				virtualService("app", "other", nil, []any{"other.example.com"}, gws("istio-system/other-controller")),
			},
			want: []string{"other.example.com 0 IN CNAME  other-target.example.net virtualservice/app/other"},
		},
		{
			name: "missing gateways and no gateways give nothing",
			vs: []*unstructured.Unstructured{
				virtualService("app", "absent", nil, []any{"absent.example.com"}, gws("istio-system/absent")),
				virtualService("app", "mesh-only", nil, []any{"reviews.example.com"}, gws("mesh")),
			},
		},
		{
			name: "annotations: target wins, hostname binds like spec hosts, ttl, set identifier, provider-specific",
			vs: []*unstructured.Unstructured{
				virtualService("app", "annotated", map[string]string{
					"external-dns.kubernetes.io/target":         "192.0.2.77,edge.example.net",
					"external-dns.kubernetes.io/ttl":            "60",
					"external-dns.kubernetes.io/set-identifier": "eu",
				}, []any{"annotated.example.com"}, nil),
				virtualService("app", "extra", map[string]string{
					hostnameKey:                        "extra.example.com,extra.example.org",
					"external-dns.kubernetes.io/alias": "true",
				}, []any{"main.example.com"}, gws("istio-system/public")),
				virtualService("app", "skipped", map[string]string{"external-dns.kubernetes.io/controller": "other"},
					[]any{"skipped.example.com"}, gws("istio-system/public")),
			},
			want: []string{
				"annotated.example.com 60 IN A eu 192.0.2.77 virtualservice/app/annotated",
				"annotated.example.com 60 IN CNAME eu edge.example.net virtualservice/app/annotated",
				"extra.example.com 0 IN A  192.0.2.10 [{alias true}] virtualservice/app/extra",
				"main.example.com 0 IN A  192.0.2.10 [{alias true}] virtualservice/app/extra",
			},
		},
		{
			name: "template for VirtualServices without hosts",
			cfg: kubernetes.IstioVirtualServiceConfig{Options: kubernetes.Options{
				FQDNTemplate: fqdn.MustTemplate("{{.metadata.name}}.tmpl.example.com"),
			}},
			vs: []*unstructured.Unstructured{
				virtualService("app", "hostless", nil, []any{}, gws("istio-system/public")),
				virtualService("app", "hosted", nil, []any{"hosted.example.com"}, gws("istio-system/public")),
			},
			want: []string{
				"hosted.example.com 0 IN A  192.0.2.10 virtualservice/app/hosted",
				"hostless.tmpl.example.com 0 IN A  192.0.2.10 virtualservice/app/hostless",
			},
		},
		{
			name: "filters and namespace",
			cfg: kubernetes.IstioVirtualServiceConfig{Options: kubernetes.Options{
				Namespace: "app", AnnotationFilter: "dns in (public)", LabelSelector: "team=web",
			}},
			vs: []*unstructured.Unstructured{
				withLabels(virtualService("app", "selected", map[string]string{"dns": "public"}, []any{"sel.example.com"}, gws("istio-system/public")), "team", "web"),
				withLabels(virtualService("app", "wrong-annotation", map[string]string{"dns": "private"}, []any{"a.example.com"}, gws("istio-system/public")), "team", "web"),
				virtualService("app", "no-label", map[string]string{"dns": "public"}, []any{"b.example.com"}, gws("istio-system/public")),
				withLabels(virtualService("shop", "other-ns", map[string]string{"dns": "public"}, []any{"c.example.com"}, gws("istio-system/public")), "team", "web"),
			},
			want: []string{"sel.example.com 0 IN A  192.0.2.10 virtualservice/app/selected"},
		},
		{
			name: "malformed objects are reported, the others published",
			vs: []*unstructured.Unstructured{
				virtualService("app", "good", nil, []any{"good.example.com"}, gws("istio-system/public")),
				virtualService("app", "missing-ingress", nil, []any{"m.example.com"}, gws("istio-system/missing-ingress")),
				virtualService("app", "bad-gateway-ref", nil, []any{"g.example.com"}, gws("a/b/c")),
				virtualService("app", "bad-ttl", map[string]string{"external-dns.kubernetes.io/ttl": "soon"}, []any{"t.example.com"}, gws("istio-system/public")),
				virtualService("app", "bad-host", nil, []any{"bad..example.com"}, gws("istio-system/public")),
				virtualService("app", "hosts-not-strings", nil, []any{int64(7)}, gws("istio-system/public")),
			},
			want:   []string{"good.example.com 0 IN A  192.0.2.10 virtualservice/app/good"},
			failed: []string{"virtualservice/app/bad-gateway-ref", "virtualservice/app/bad-host", "virtualservice/app/bad-ttl", "virtualservice/app/hosts-not-strings", "virtualservice/app/missing-ingress"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			dyn := crdClient(t, append(istioGateways(), tt.vs...)...)
			src, err := kubernetes.NewIstioVirtualServiceSource(ctx, istioKube(), dyn, tt.cfg)
			require.NoError(t, err)
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			assert.Equal(t, tt.failed, failedKeys(t, err))
			if tt.want == nil {
				tt.want = []string{}
			}
			assert.Equal(t, tt.want, render(eps))
		})
	}
}

func withLabels(u *unstructured.Unstructured, kv ...string) *unstructured.Unstructured {
	l := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[kv[i]] = kv[i+1]
	}
	u.SetLabels(l)
	return u
}

// TestIstioVirtualServiceErrors checks the messages: they name the
// VirtualService, the field and the Gateway at fault.
func TestIstioVirtualServiceErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dyn := crdClient(t, append(istioGateways(),
		virtualService("app", "ref", nil, []any{"g.example.com"}, []any{"mesh", "a/b/c"}),
		virtualService("app", "ingress", nil, []any{"m.example.com"}, []any{"istio-system/missing-ingress"}),
	)...)
	src, err := kubernetes.NewIstioVirtualServiceSource(ctx, istioKube(), dyn, kubernetes.IstioVirtualServiceConfig{})
	require.NoError(t, err)
	started(t, ctx, src)
	_, err = src.Endpoints(ctx)
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	assert.EqualError(t, pe.Failed["virtualservice/app/ref"], `VirtualService app/ref: spec.gateways[1]: "a/b/c" is neither "name" nor "namespace/name"`)
	assert.EqualError(t, pe.Failed["virtualservice/app/ingress"], "VirtualService app/ingress: spec.gateways[0]: Gateway istio-system/missing-ingress: ingress annotation: Ingress istio-system/nope not found")
}

// TestIstioGatewayIngressAnnotation: the Gateway source takes the targets
// of a Gateway whose ingress annotation names an Ingress from that
// Ingress, and follows its changes.
func TestIstioGatewayIngressAnnotation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ingressKey := "external-dns.kubernetes.io/ingress"
	kube := istioKube()
	dyn := crdClient(t,
		istioGateway("istio-system", "via-ingress", map[string]string{ingressKey: "istio-system/front"}, map[string]any{"istio": "ingressgateway"}, "a.example.com"),
		istioGateway("istio-system", "same-ns", map[string]string{ingressKey: "front"}, nil, "b.example.com"),
		istioGateway("istio-system", "target-wins", map[string]string{ingressKey: "front", "external-dns.kubernetes.io/target": "192.0.2.99"}, nil, "c.example.com"),
		istioGateway("istio-system", "selector", nil, map[string]any{"istio": "ingressgateway"}, "d.example.com"),
		istioGateway("istio-system", "missing", map[string]string{ingressKey: "other/front"}, nil, "e.example.com"),
		istioGateway("istio-system", "malformed", map[string]string{ingressKey: "/front"}, nil, "f.example.com"),
	)
	src, err := kubernetes.NewIstioGatewaySource(ctx, kube, dyn, kubernetes.IstioGatewayConfig{})
	require.NoError(t, err)
	calls := started(t, ctx, src)
	eps, err := src.Endpoints(ctx)
	assert.Equal(t, []string{"gateway/istio-system/malformed", "gateway/istio-system/missing"}, failedKeys(t, err))
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	assert.EqualError(t, pe.Failed["gateway/istio-system/malformed"], `Gateway istio-system/malformed: ingress annotation: "/front" is neither "name" nor "namespace/name"`)
	assert.Equal(t, []string{
		"a.example.com 0 IN A  192.0.2.50 gateway/istio-system/via-ingress",
		"a.example.com 0 IN CNAME  front-lb.example.net gateway/istio-system/via-ingress",
		"b.example.com 0 IN A  192.0.2.50 gateway/istio-system/same-ns",
		"b.example.com 0 IN CNAME  front-lb.example.net gateway/istio-system/same-ns",
		"c.example.com 0 IN A  192.0.2.99 gateway/istio-system/target-wins",
		"d.example.com 0 IN A  192.0.2.10 gateway/istio-system/selector",
	}, render(eps))

	// The Ingress appearing is an event, and the Gateway then publishes.
	_, err = kube.NetworkingV1().Ingresses("other").Create(ctx, ingress("other", "front", nil, nil,
		[]networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.60"}}), metav1.CreateOptions{})
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() >= 1 })
	eventually(t, func() bool {
		eps, _ := src.Endpoints(ctx)
		return slices.Contains(render(eps), "e.example.com 0 IN A  192.0.2.60 gateway/istio-system/missing")
	})
}
