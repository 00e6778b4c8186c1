package kubernetes_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// A Node source naming every schedulable Node by a template. The cordoned
// node is left out, as external-dns leaves it out by default.
func ExampleNewNodeSource() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(
		&corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "worker-1"},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeExternalIP, Address: "203.0.113.1"},
				{Type: corev1.NodeInternalIP, Address: "10.0.0.1"},
			}},
		},
		&corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "worker-2"},
			Spec:       corev1.NodeSpec{Unschedulable: true},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeExternalIP, Address: "203.0.113.2"},
			}},
		},
	)
	src, err := kubernetes.NewNodeSource(ctx, client, kubernetes.NodeConfig{
		Options: kubernetes.Options{FQDNTemplate: fqdn.MustTemplate("{{.Name}}.nodes.example.com")},
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
	// worker-1.nodes.example.com A 203.0.113.1 node/worker-1
}

// A Pod source: the hostNetwork Pods of a DaemonSet sharing one hostname
// publish one record with the external addresses of all their Nodes, and
// PodSourceDomain names every Pod after itself.
func ExampleNewPodSource() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	node := func(name, ip string) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Status:     corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: ip}}},
		}
	}
	pod := func(name, nodeName, podIP string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: "ingress", Name: name,
				Annotations: map[string]string{"external-dns.kubernetes.io/hostname": "edge.example.com"},
			},
			Spec:   corev1.PodSpec{NodeName: nodeName, HostNetwork: true},
			Status: corev1.PodStatus{PodIP: podIP, PodIPs: []corev1.PodIP{{IP: podIP}}},
		}
	}
	client := fake.NewClientset(
		node("worker-1", "203.0.113.1"), node("worker-2", "203.0.113.2"),
		pod("edge-a", "worker-1", "10.0.0.1"), pod("edge-b", "worker-2", "10.0.0.2"),
	)
	src, err := kubernetes.NewPodSource(ctx, client, kubernetes.PodConfig{
		Options:                  kubernetes.Options{Namespace: "ingress"},
		PodSourceDomain:          "pods.example.com",
		IgnoreNonHostNetworkPods: true,
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
		fmt.Println(ep.DNSName, ep.RecordType, ep.Targets)
	}
	// Output:
	// edge-a.pods.example.com A 10.0.0.1
	// edge-b.pods.example.com A 10.0.0.2
	// edge.example.com A 203.0.113.1;203.0.113.2
}
