package kubernetes_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// printEndpoints waits for src to sync and prints its endpoints.
func printEndpoints(ctx context.Context, src interface {
	source.Source
	WaitForSync(context.Context) error
},
) {
	if err := src.WaitForSync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	eps, err := src.Endpoints(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ep := range eps {
		resource, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
		fmt.Println(ep.DNSName, ep.RecordType, ep.Targets, resource)
	}
}

// crdObject builds an unstructured object from its JSON-like form.
func crdObject(apiVersion, kind, ns, name string, ann map[string]string, body map[string]any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: body}
	o.SetAPIVersion(apiVersion)
	o.SetKind(kind)
	o.SetNamespace(ns)
	o.SetName(name)
	o.SetAnnotations(ann)
	return o
}

// A VirtualService bound to an Istio Gateway of istio-system: its host
// points at the load balancer of the ingress gateway Service.
func ExampleNewIstioVirtualServiceSource() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kube := fake.NewClientset(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "istio-system", Name: "istio-ingressgateway"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"istio": "ingressgateway"}},
		Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}}},
	})
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		kubernetes.IstioGatewayGVR:        "GatewayList",
		kubernetes.IstioVirtualServiceGVR: "VirtualServiceList",
	})
	// Objects are created under their resource explicitly: the fake
	// would guess "gatewaies" for Gateway.
	for gvr, o := range map[schema.GroupVersionResource]*unstructured.Unstructured{
		kubernetes.IstioGatewayGVR: crdObject("networking.istio.io/v1", "Gateway", "istio-system", "public", nil, map[string]any{"spec": map[string]any{
			"selector": map[string]any{"istio": "ingressgateway"},
			"servers":  []any{map[string]any{"hosts": []any{"*/*.example.com"}}},
		}}),
		kubernetes.IstioVirtualServiceGVR: crdObject("networking.istio.io/v1", "VirtualService", "shop", "web", nil, map[string]any{"spec": map[string]any{
			"hosts":    []any{"shop.example.com"},
			"gateways": []any{"istio-system/public", "mesh"},
		}}),
	} {
		if err := dyn.Tracker().Create(gvr, o, o.GetNamespace()); err != nil {
			fmt.Println(err)
			return
		}
	}
	src, err := kubernetes.NewIstioVirtualServiceSource(ctx, kube, dyn, kubernetes.IstioVirtualServiceConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	printEndpoints(ctx, src)
	// Output:
	// shop.example.com A 192.0.2.10 virtualservice/shop/web
}

// An OpenShift Route admitted by two routers: with RouterName the record
// points at the canonical host name of that router.
func ExampleNewOpenShiftRouteSource() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	admitted := []any{map[string]any{"type": "Admitted", "status": "True"}}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{kubernetes.OpenShiftRouteGVR: "RouteList"},
		crdObject("route.openshift.io/v1", "Route", "shop", "web", nil, map[string]any{
			"spec": map[string]any{"host": "shop.apps.example.com"},
			"status": map[string]any{"ingress": []any{
				map[string]any{"routerName": "default", "host": "shop.apps.example.com", "routerCanonicalHostname": "router-default.apps.example.com", "conditions": admitted},
				map[string]any{"routerName": "public", "host": "shop.apps.example.com", "routerCanonicalHostname": "router-public.apps.example.com", "conditions": admitted},
			}},
		}))
	src, err := kubernetes.NewOpenShiftRouteSource(ctx, dyn, kubernetes.OpenShiftRouteConfig{RouterName: "public"})
	if err != nil {
		fmt.Println(err)
		return
	}
	printEndpoints(ctx, src)
	// Output:
	// shop.apps.example.com CNAME router-public.apps.example.com route/shop/web
}

// An Ambassador Host whose annotation names the Service of the Ambassador
// load balancer ("name.namespace" here).
func ExampleNewAmbassadorHostSource() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kube := fake.NewClientset(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ambassador", Name: "edge"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{Hostname: "edge.elb.example.net"}}}},
	})
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{kubernetes.AmbassadorHostGVR: "HostList"},
		crdObject("getambassador.io/v3alpha1", "Host", "shop", "web", map[string]string{kubernetes.AmbassadorServiceAnnotation: "edge.ambassador"},
			map[string]any{"spec": map[string]any{"hostname": "shop.example.com"}}))
	src, err := kubernetes.NewAmbassadorHostSource(ctx, kube, dyn, kubernetes.AmbassadorHostConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	printEndpoints(ctx, src)
	// Output:
	// shop.example.com CNAME edge.elb.example.net host/shop/web
}

// A Kong TCPIngress: its rule hosts point at its load balancer status.
func ExampleNewKongTCPIngressSource() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{kubernetes.KongTCPIngressGVR: "TCPIngressList"},
		crdObject("configuration.konghq.com/v1beta1", "TCPIngress", "db", "pg", nil, map[string]any{
			"spec":   map[string]any{"rules": []any{map[string]any{"host": "pg.example.com", "port": int64(9000)}}},
			"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.30"}}}},
		}))
	src, err := kubernetes.NewKongTCPIngressSource(ctx, dyn, kubernetes.KongTCPIngressConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	printEndpoints(ctx, src)
	// Output:
	// pg.example.com A 192.0.2.30 tcpingress/db/pg
}

// A Skipper RouteGroup: its hosts point at status.loadBalancer.routeGroup.
func ExampleNewSkipperRouteGroupSource() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{kubernetes.SkipperRouteGroupGVR: "RouteGroupList"},
		crdObject("zalando.org/v1", "RouteGroup", "shop", "web", nil, map[string]any{
			"spec":   map[string]any{"hosts": []any{"shop.example.com", "www.shop.example.com"}},
			"status": map[string]any{"loadBalancer": map[string]any{"routeGroup": []any{map[string]any{"hostname": "skipper.elb.example.net"}}}},
		}))
	src, err := kubernetes.NewSkipperRouteGroupSource(ctx, dyn, kubernetes.SkipperRouteGroupConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	printEndpoints(ctx, src)
	// Output:
	// shop.example.com CNAME skipper.elb.example.net routegroup/shop/web
	// www.shop.example.com CNAME skipper.elb.example.net routegroup/shop/web
}
