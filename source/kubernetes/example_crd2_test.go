package kubernetes_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source/kubernetes"
)

func printEndpointList(eps []*endpoint.Endpoint, err error) {
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ep := range eps {
		resource, _ := ep.Labels.Get("resource")
		fmt.Println(ep.DNSName, ep.RecordType, ep.Targets, resource)
	}
}

// A Traefik source: the hosts of the router's rule, pointing at the
// target annotation (Traefik routers carry no address of their own).
func ExampleNewTraefikProxySource() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// In a program: dynamic.NewForConfig.
	client := crd2Client(router("traefik.io", "IngressRoute", "shop", "web",
		map[string]string{"external-dns.kubernetes.io/target": "traefik.example.net"},
		"Host(`shop.example.com`, `www.shop.example.com`) && PathPrefix(`/`)"))
	src, err := kubernetes.NewTraefikProxySource(ctx, client, kubernetes.TraefikProxyConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := src.WaitForSync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	printEndpointList(src.Endpoints(ctx))
	// Output:
	// shop.example.com CNAME traefik.example.net ingressroute/shop/web
	// www.shop.example.com CNAME traefik.example.net ingressroute/shop/web
}

// An F5 VirtualServer source: published once CIS has written the
// virtual server address into the status.
func ExampleNewF5VirtualServerSource() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := crd2Client(obj("cis.f5.com/v1", "VirtualServer", "shop", "web", nil, map[string]any{
		"spec":   map[string]any{"host": "shop.example.com", "hostAliases": []any{"www.shop.example.com"}},
		"status": map[string]any{"vsAddress": "192.0.2.10", "status": "Ok"},
	}))
	src, err := kubernetes.NewF5VirtualServerSource(ctx, client, kubernetes.F5VirtualServerConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := src.WaitForSync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	printEndpointList(src.Endpoints(ctx))
	// Output:
	// shop.example.com A 192.0.2.10 f5-virtualserver/shop/web
	// www.shop.example.com A 192.0.2.10 f5-virtualserver/shop/web
}

// A Gloo source: the domains of the Proxy's virtual hosts, pointing at
// the load balancer of the proxy's Service (gateway-proxy in
// gloo-system), with no resource label as external-dns writes them.
func ExampleNewGlooProxySource() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dyn := crd2Client(glooProxy("gloo-system", "gateway-proxy", nil, httpListener(vhost(false, []any{"shop.example.com"}))))
	kube := fake.NewClientset(lbService("gloo-system", "gateway-proxy", corev1.LoadBalancerIngress{IP: "192.0.2.20"}))
	src, err := kubernetes.NewGlooProxySource(ctx, kube, dyn, kubernetes.GlooProxyConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := src.WaitForSync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	printEndpointList(src.Endpoints(ctx))
	// Output:
	// shop.example.com A 192.0.2.20
}
