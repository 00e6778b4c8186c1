package kubernetes_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source/kubernetes"
)

// A Service source over a clientset (here a fake one; in a program
// kubernetes.NewForConfig). The source starts its informers and returns
// at once; WaitForSync blocks until the cache is complete.
func ExampleNewServiceSource() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "shop", Name: "web",
			Annotations: map[string]string{"external-dns.kubernetes.io/hostname": "shop.example.com"},
		},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{
			Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}, {IP: "2001:db8::10"}},
		}},
	})
	src, err := kubernetes.NewServiceSource(ctx, client, kubernetes.ServiceConfig{
		Options: kubernetes.Options{Namespace: "shop"},
	})
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
	// shop.example.com A 192.0.2.10 service/shop/web
	// shop.example.com AAAA 2001:db8::10 service/shop/web
}
