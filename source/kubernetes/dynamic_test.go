package kubernetes_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

var widgetGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// dynClient returns a dynamic fake holding objs. They are created under
// their resource explicitly: the fake's own guess turns Gateway into
// "gatewaies".
func dynClient(objs ...*unstructured.Unstructured) *dynamicfake.FakeDynamicClient {
	resources := map[schema.GroupVersionResource]string{
		kubernetes.DNSEndpointGVR:  "DNSEndpointList",
		kubernetes.IstioGatewayGVR: "GatewayList",
		kubernetes.HTTPProxyGVR:    "HTTPProxyList",
		widgetGVR:                  "WidgetList",
	}
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), resources)
	for _, o := range objs {
		for gvr, list := range resources {
			if gvr.GroupVersion().String() == o.GetAPIVersion() && list == o.GetKind()+"List" {
				if err := client.Tracker().Create(gvr, o, o.GetNamespace()); err != nil {
					panic(err)
				}
			}
		}
	}
	return client
}

func obj(apiVersion, kind, ns, name string, ann map[string]string, fields map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	for k, v := range fields {
		u.Object[k] = v
	}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetResourceVersion("1")
	if ann != nil {
		u.SetAnnotations(ann)
	}
	return u
}

func dnsEndpoint(ns, name string, gen int64, endpoints ...any) *unstructured.Unstructured {
	u := obj("externaldns.k8s.io/v1alpha1", "DNSEndpoint", ns, name, nil, map[string]any{"spec": map[string]any{"endpoints": endpoints}})
	u.SetGeneration(gen)
	return u
}

func TestDNSEndpointSource(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := dynClient(
		dnsEndpoint("ns", "good", 2,
			map[string]any{"dnsName": "a.example.com", "recordType": "A", "targets": []any{"192.0.2.2", "192.0.2.1"}, "recordTTL": int64(60),
				"setIdentifier": "eu", "labels": map[string]any{"team": "dns"}, "providerSpecific": []any{map[string]any{"name": "alias", "value": "true"}}},
			map[string]any{"dnsName": "txt.example.com", "recordType": "TXT", "targets": []any{"hello"}}),
		dnsEndpoint("ns", "bad", 1, map[string]any{"dnsName": "b.example.com", "recordType": "A", "targets": []any{"not-an-ip"}}),
	)
	src, err := kubernetes.NewDNSEndpointSource(ctx, client, kubernetes.DNSEndpointConfig{})
	require.NoError(t, err)
	calls := started(t, ctx, src)

	eps, err := src.Endpoints(ctx)
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	require.Contains(t, pe.Failed, "crd/ns/bad")
	assert.ErrorContains(t, pe.Failed["crd/ns/bad"], "DNSEndpoint ns/bad")
	assert.Equal(t, []string{
		"a.example.com 60 IN A eu 192.0.2.1;192.0.2.2 [{alias true}] crd/ns/good",
		`txt.example.com 0 IN TXT  hello crd/ns/good`,
	}, render(eps))
	for _, ep := range eps {
		if ep.DNSName == "a.example.com" {
			team, _ := ep.Labels.Get("team")
			assert.Equal(t, "dns", team, "labels of the CRD are kept")
		}
	}

	// The generation read is written back once, to the good object only.
	eventually(t, func() bool {
		got, err := client.Resource(kubernetes.DNSEndpointGVR).Namespace("ns").Get(ctx, "good", metav1.GetOptions{})
		require.NoError(t, err)
		g, _, _ := unstructured.NestedInt64(got.Object, "status", "observedGeneration")
		return g == 2
	})
	bad, err := client.Resource(kubernetes.DNSEndpointGVR).Namespace("ns").Get(ctx, "bad", metav1.GetOptions{})
	require.NoError(t, err)
	_, found, _ := unstructured.NestedInt64(bad.Object, "status", "observedGeneration")
	assert.False(t, found)
	eventually(t, func() bool { return calls.Load() >= 1 }) // the status write is an update event

	before := calls.Load()
	require.NoError(t, client.Resource(kubernetes.DNSEndpointGVR).Namespace("ns").Delete(ctx, "bad", metav1.DeleteOptions{}))
	eventually(t, func() bool { return calls.Load() > before })
	eventually(t, func() bool { _, err := src.Endpoints(ctx); return err == nil })
}

func TestIstioGatewaySource(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gw := func(name string, ann map[string]string, hosts ...any) *unstructured.Unstructured {
		return obj("networking.istio.io/v1", "Gateway", "app", name, ann, map[string]any{"spec": map[string]any{
			"selector": map[string]any{"istio": "ingressgateway"},
			"servers":  []any{map[string]any{"hosts": hosts}},
		}})
	}
	kube := fake.NewClientset(
		// An entry with both an IP and a host name gives its IP only, as
		// in external-dns's Istio sources.
		svc("istio-system", "istio-ingressgateway", corev1.ServiceTypeLoadBalancer, nil,
			lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.10", Hostname: "elb.example.net"}), func(s *corev1.Service) { s.Spec.Selector = map[string]string{"istio": "ingressgateway"} }),
		svc("istio-system", "other", corev1.ServiceTypeLoadBalancer, nil,
			lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.99"}), func(s *corev1.Service) { s.Spec.Selector = map[string]string{"istio": "egress"} }),
	)
	dyn := dynClient(
		gw("web", map[string]string{"external-dns.kubernetes.io/ttl": "30"}, "app/web.example.com", "*", "api.example.com"),
		gw("override", map[string]string{"external-dns.kubernetes.io/target": "edge.example.net"}, "o.example.com"),
		gw("bad", map[string]string{"external-dns.kubernetes.io/target": "bad..target"}, "bad.example.com"),
	)
	src, err := kubernetes.NewIstioGatewaySource(ctx, kube, dyn, kubernetes.IstioGatewayConfig{})
	require.NoError(t, err)
	started(t, ctx, src)
	eps, err := src.Endpoints(ctx)
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, pe.Failed, "gateway/app/bad")
	assert.Equal(t, []string{
		"api.example.com 30 IN A  192.0.2.10 gateway/app/web",
		"o.example.com 0 IN CNAME  edge.example.net gateway/app/override",
		"web.example.com 30 IN A  192.0.2.10 gateway/app/web",
	}, render(eps))
}

func TestHTTPProxySource(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	proxy := func(name, fqdn string, labels map[string]string) *unstructured.Unstructured {
		spec := map[string]any{}
		if fqdn != "" {
			spec["virtualhost"] = map[string]any{"fqdn": fqdn}
		}
		u := obj("projectcontour.io/v1", "HTTPProxy", "ns", name, nil, map[string]any{
			"spec":   spec,
			"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.5"}, map[string]any{"hostname": "lb.example.net"}}}},
		})
		u.SetLabels(labels)
		return u
	}
	dyn := dynClient(
		proxy("root", "app.example.com", map[string]string{"dns": "on"}),
		proxy("included", "", map[string]string{"dns": "on"}),
		proxy("unselected", "x.example.com", nil),
	)
	src, err := kubernetes.NewHTTPProxySource(ctx, dyn, kubernetes.HTTPProxyConfig{Options: kubernetes.Options{LabelSelector: "dns=on"}})
	require.NoError(t, err)
	calls := started(t, ctx, src)
	eps, err := src.Endpoints(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"app.example.com 0 IN A  192.0.2.5 HTTPProxy/ns/root",
		"app.example.com 0 IN CNAME  lb.example.net HTTPProxy/ns/root",
	}, render(eps))

	_, err = dyn.Resource(kubernetes.HTTPProxyGVR).Namespace("ns").Create(ctx, proxy("new", "new.example.com", map[string]string{"dns": "on"}), metav1.CreateOptions{})
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() >= 1 })
	eventually(t, func() bool { eps, _ := src.Endpoints(ctx); return len(eps) == 4 })
}

func TestUnstructuredSource(t *testing.T) {
	widget := func(name string, ann map[string]string, status map[string]any) *unstructured.Unstructured {
		return obj("example.com/v1", "Widget", "ns", name, ann, map[string]any{"status": status})
	}
	objs := []*unstructured.Unstructured{
		widget("w1", nil, map[string]any{"hosts": []any{"w1.example.com", "alt.example.com"}, "addresses": []any{map[string]any{"ip": "192.0.2.1"}, map[string]any{"ip": "2001:db8::1"}}}),
		widget("w2", map[string]string{hostnameKey: "ann.example.com", "external-dns.kubernetes.io/set-identifier": "s"}, map[string]any{"addresses": []any{map[string]any{"ip": "192.0.2.2"}}}),
		widget("bad", nil, map[string]any{"hosts": []any{"bad..example.com"}, "addresses": []any{map[string]any{"ip": "192.0.2.3"}}}),
	}
	tests := []struct {
		name    string
		cfg     kubernetes.UnstructuredConfig
		want    []string
		failed  []string
		wantErr string
	}{
		{
			name:   "JSON paths",
			cfg:    kubernetes.UnstructuredConfig{HostnameJSONPath: "{.status.hosts}", TargetJSONPath: "{.status.addresses[*].ip}"},
			failed: []string{"widget/ns/bad"},
			want: []string{
				"alt.example.com 0 IN A  192.0.2.1 widget/ns/w1",
				"alt.example.com 0 IN AAAA  2001:db8::1 widget/ns/w1",
				"ann.example.com 0 IN A s 192.0.2.2 widget/ns/w2",
				"w1.example.com 0 IN A  192.0.2.1 widget/ns/w1",
				"w1.example.com 0 IN AAAA  2001:db8::1 widget/ns/w1",
			},
		},
		{
			name: "templates and a forced record type",
			cfg: kubernetes.UnstructuredConfig{
				Options: kubernetes.Options{FQDNTemplate: fqdn.MustTemplate("{{.metadata.name}}.widgets.example.com"),
					TargetTemplate: fqdn.MustTemplate("{{.metadata.namespace}}.target.example.net")},
				RecordType: "CNAME",
			},
			want: []string{
				"ann.example.com 0 IN CNAME s ns.target.example.net widget/ns/w2",
				"bad.widgets.example.com 0 IN CNAME  ns.target.example.net widget/ns/bad",
				"w1.widgets.example.com 0 IN CNAME  ns.target.example.net widget/ns/w1",
			},
		},
		{name: "bad JSON path", cfg: kubernetes.UnstructuredConfig{HostnameJSONPath: "{.status.hosts"}, wantErr: "hostname JSON path"},
		{name: "unknown record type", cfg: kubernetes.UnstructuredConfig{RecordType: "BOGUS"}, wantErr: "BOGUS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tt.cfg.GVR = widgetGVR
			src, err := kubernetes.NewUnstructuredSource(ctx, dynClient(objs...), tt.cfg)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			if len(tt.failed) > 0 {
				var pe *source.PartialError
				require.ErrorAs(t, err, &pe)
				for _, k := range tt.failed {
					assert.ErrorContains(t, pe.Failed[k], "Widget ns/bad")
				}
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, render(eps))
		})
	}
	_, err := kubernetes.NewUnstructuredSource(context.Background(), dynClient(), kubernetes.UnstructuredConfig{})
	require.ErrorContains(t, err, "GVR")
}

// TestDynamicSourcesReadinessAndEvents: with a factory the caller starts,
// every dynamic source reports not ready until it is started, then fires
// its handler when an object it reads is added.
func TestDynamicSourcesReadinessAndEvents(t *testing.T) {
	tests := []struct {
		name string
		gvr  schema.GroupVersionResource
		obj  *unstructured.Unstructured
		make func(ctx context.Context, dyn *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (syncer, error)
	}{
		{"dnsendpoint", kubernetes.DNSEndpointGVR, dnsEndpoint("ns", "e", 1),
			func(ctx context.Context, dyn *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (syncer, error) {
				return kubernetes.NewDNSEndpointSource(ctx, dyn, kubernetes.DNSEndpointConfig{DynamicFactory: f})
			}},
		{"istio", kubernetes.IstioGatewayGVR, obj("networking.istio.io/v1", "Gateway", "ns", "g", nil, map[string]any{"spec": map[string]any{}}),
			func(ctx context.Context, dyn *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (syncer, error) {
				return kubernetes.NewIstioGatewaySource(ctx, fake.NewClientset(), dyn, kubernetes.IstioGatewayConfig{DynamicFactory: f})
			}},
		{"httpproxy", kubernetes.HTTPProxyGVR, obj("projectcontour.io/v1", "HTTPProxy", "ns", "p", nil, map[string]any{"spec": map[string]any{}}),
			func(ctx context.Context, dyn *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (syncer, error) {
				return kubernetes.NewHTTPProxySource(ctx, dyn, kubernetes.HTTPProxyConfig{DynamicFactory: f})
			}},
		{"unstructured", widgetGVR, obj("example.com/v1", "Widget", "ns", "w", nil, nil),
			func(ctx context.Context, dyn *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (syncer, error) {
				return kubernetes.NewUnstructuredSource(ctx, dyn, kubernetes.UnstructuredConfig{GVR: widgetGVR, DynamicFactory: f})
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			dyn := dynClient()
			factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
			src, err := tt.make(ctx, dyn, factory)
			require.NoError(t, err)
			assert.False(t, src.HasSynced())
			assert.False(t, source.HasSynced(src))
			var calls atomic.Int32
			src.AddEventHandler(ctx, func() { calls.Add(1) })
			factory.Start(ctx.Done())
			require.NoError(t, src.WaitForSync(ctx))
			_, err = dyn.Resource(tt.gvr).Namespace("ns").Create(ctx, tt.obj, metav1.CreateOptions{})
			require.NoError(t, err)
			eventually(t, func() bool { return calls.Load() >= 1 })
		})
	}
}
