package gatewayapi

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// FuzzRouteEndpoints feeds arbitrary route and Gateway objects (JSON, as
// users write them) through the route logic: it must not panic, and every
// endpoint it returns must carry the route's resource key and a valid
// name.
func FuzzRouteEndpoints(f *testing.F) {
	f.Add(`{"metadata":{"namespace":"default","name":"web"},"spec":{"hostnames":["web.example.com"],"parentRefs":[{"name":"gw"}]},"status":{"parents":[{"parentRef":{"name":"gw"},"conditions":[{"type":"Accepted","status":"True"}]}]}}`,
		`{"metadata":{"namespace":"default","name":"gw"},"spec":{"listeners":[{"name":"http","protocol":"HTTP","port":80,"hostname":"*.example.com"}]},"status":{"addresses":[{"value":"1.2.3.4"}]}}`)
	f.Add(`{"metadata":{"namespace":"a","name":"r","annotations":{"external-dns.alpha.kubernetes.io/hostname":"x.example.com"}},"spec":{"parentRefs":[{"name":"gw","namespace":"default","sectionName":"s","port":53}]},"status":{"parents":[{"parentRef":{"name":"gw","namespace":"default","sectionName":"s","port":53},"conditions":[{"type":"Accepted","status":"True"}]}]}}`,
		`{"metadata":{"namespace":"default","name":"gw","annotations":{"external-dns.alpha.kubernetes.io/target":"lb.example.net"}},"spec":{"listeners":[{"name":"s","protocol":"HTTP","port":53,"allowedRoutes":{"namespaces":{"from":"Selector","selector":{"matchExpressions":[{"key":"k","operator":"Exists"}]}},"kinds":[{"kind":"HTTPRoute"}]}}]}}`)
	f.Add(`{"spec":{"hostnames":"nope"}}`, `{"spec":{"listeners":[{"port":"80"}]}}`)
	f.Fuzz(func(t *testing.T, routeJSON, gatewayJSON string) {
		var ro, go_ map[string]any
		if json.Unmarshal([]byte(routeJSON), &ro) != nil || json.Unmarshal([]byte(gatewayJSON), &go_) != nil {
			return
		}
		namespaces := cache.NewSharedIndexInformer(&cache.ListWatch{}, &corev1.Namespace{}, 0, cache.Indexers{})
		_ = namespaces.GetStore().Add(&corev1.Namespace{})
		s := &routeSource{name: "gateway-httproute", kind: HTTPRouteKind(), namespaces: namespaces}
		r, g := &unstructured.Unstructured{Object: ro}, &unstructured.Unstructured{Object: go_}
		ref := source.ObjectRef{Kind: "HTTPRoute", Namespace: r.GetNamespace(), Name: r.GetName()}
		gateways := map[string]*gatewayInfo{g.GetNamespace() + "/" + g.GetName(): s.gatewayInfo(g)}
		var rt route
		if convert(r, "HTTPRoute", &rt) != nil {
			return
		}
		eps, err := s.routeEndpoints(ref, r, &rt, gateways, nil)
		if err != nil {
			return
		}
		for _, ep := range source.MergeEndpoints(eps) {
			if labelValue(ep.Labels, endpoint.ResourceLabelKey) != ref.Key() {
				t.Fatalf("endpoint %s has resource %q, want %q", ep, labelValue(ep.Labels, endpoint.ResourceLabelKey), ref.Key())
			}
			if len(ep.Targets) == 0 {
				t.Fatalf("endpoint %s has no targets", ep)
			}
		}
	})
}

// labelValue returns the value of key in l, "" when it is not set.
func labelValue(l endpoint.Labels, key string) string {
	v, _ := l.Get(key)
	return v
}
