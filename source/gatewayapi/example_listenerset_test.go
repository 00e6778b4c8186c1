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

// With GatewayListenerSets an HTTPRoute attaches to a ListenerSet: a team
// adds a listener for its own names to a Gateway it does not own. The
// route's names are intersected with the ListenerSet's listener and point
// at the address of the Gateway the ListenerSet is attached to.
func ExampleConfig_gatewayListenerSets() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	accepted := []any{map[string]any{"type": "Accepted", "status": "True"}}
	gateway := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
		"metadata": map[string]any{"namespace": "infra", "name": "public"},
		"spec": map[string]any{
			"listeners": []any{map[string]any{"name": "http", "protocol": "HTTP", "port": int64(80)}},
			// The Gateway takes ListenerSets from every namespace.
			"allowedListeners": map[string]any{"namespaces": map[string]any{"from": "All"}},
		},
		"status": map[string]any{"addresses": []any{map[string]any{"type": "IPAddress", "value": "192.0.2.10"}}},
	}}
	listenerSet := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "ListenerSet",
		"metadata": map[string]any{"namespace": "shop", "name": "shop"},
		"spec": map[string]any{
			"parentRef": map[string]any{"namespace": "infra", "name": "public"},
			"listeners": []any{map[string]any{"name": "https", "protocol": "HTTPS", "port": int64(443), "hostname": "*.shop.example.com"}},
		},
		"status": map[string]any{
			"conditions": accepted,
			"listeners":  []any{map[string]any{"name": "https", "conditions": accepted}},
		},
	}}
	parentRef := map[string]any{"group": gatewayapi.Group, "kind": "ListenerSet", "name": "shop"}
	route := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
		"metadata": map[string]any{"namespace": "shop", "name": "web"},
		"spec": map[string]any{
			"hostnames":  []any{"www.shop.example.com", "www.example.org"},
			"parentRefs": []any{parentRef},
		},
		"status": map[string]any{"parents": []any{map[string]any{
			"parentRef": runtime.DeepCopyJSONValue(parentRef), "controllerName": "example.com/gateway",
			"conditions": accepted,
		}}},
	}}
	listKinds := map[schema.GroupVersionResource]string{
		gatewayapi.GatewayGVR():        "GatewayList",
		gatewayapi.ListenerSetGVR():    "ListenerSetList",
		gatewayapi.HTTPRouteKind().GVR: "HTTPRouteList",
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds)
	for gvr, obj := range map[schema.GroupVersionResource]*unstructured.Unstructured{
		gatewayapi.GatewayGVR():        gateway,
		gatewayapi.ListenerSetGVR():    listenerSet,
		gatewayapi.HTTPRouteKind().GVR: route,
	} {
		if err := dyn.Tracker().Create(gvr, obj, obj.GetNamespace()); err != nil {
			fmt.Println(err)
			return
		}
	}

	src, err := gatewayapi.NewHTTPRouteSource(ctx, fake.NewClientset(), dyn, gatewayapi.Config{GatewayListenerSets: true})
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
	// www.shop.example.com A 192.0.2.10 httproute/shop/web
}
