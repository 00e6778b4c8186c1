package gatewayapi_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source/gatewayapi"
)

// An HTTPRoute source over a dynamic client and a clientset (fakes here;
// in a program dynamic.NewForConfig and kubernetes.NewForConfig). The
// route asks for two names; the listener it attaches to accepts only
// names under example.com, so one is published, at the Gateway's address.
func ExampleNewHTTPRouteSource() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gateway := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
		"metadata": map[string]any{"namespace": "infra", "name": "public"},
		"spec": map[string]any{"listeners": []any{map[string]any{
			"name": "https", "protocol": "HTTPS", "port": int64(443), "hostname": "*.example.com",
			"allowedRoutes": map[string]any{"namespaces": map[string]any{"from": "All"}},
		}}},
		"status": map[string]any{"addresses": []any{map[string]any{"type": "IPAddress", "value": "192.0.2.10"}}},
	}}
	parentRef := map[string]any{"namespace": "infra", "name": "public"}
	route := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
		"metadata": map[string]any{"namespace": "shop", "name": "web"},
		"spec": map[string]any{
			"hostnames":  []any{"shop.example.com", "shop.example.org"},
			"parentRefs": []any{parentRef},
		},
		"status": map[string]any{"parents": []any{map[string]any{
			"parentRef": runtime.DeepCopyJSONValue(parentRef), "controllerName": "example.com/gateway",
			"conditions": []any{map[string]any{"type": "Accepted", "status": "True"}},
		}}},
	}}
	// The fake needs every resource's list kind, and objects created
	// under their resource (it would guess "gatewaies").
	listKinds := map[schema.GroupVersionResource]string{
		gatewayapi.GatewayGVR():        "GatewayList",
		gatewayapi.HTTPRouteKind().GVR: "HTTPRouteList",
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds)
	if err := dyn.Tracker().Create(gatewayapi.GatewayGVR(), gateway, "infra"); err != nil {
		fmt.Println(err)
		return
	}
	if err := dyn.Tracker().Create(gatewayapi.HTTPRouteKind().GVR, route, "shop"); err != nil {
		fmt.Println(err)
		return
	}

	src, err := gatewayapi.NewHTTPRouteSource(ctx, fake.NewClientset(), dyn, gatewayapi.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
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
		resource, _ := ep.Labels.Get("resource")
		fmt.Println(ep.DNSName, ep.RecordType, ep.Targets, resource)
	}
	// Output:
	// shop.example.com A 192.0.2.10 httproute/shop/web
}
