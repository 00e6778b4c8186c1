package kubernetes_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

const hostnameKey = "external-dns.kubernetes.io/hostname"

func svc(ns, name string, typ corev1.ServiceType, ann map[string]string, mut ...func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann, ResourceVersion: "1"},
		Spec:       corev1.ServiceSpec{Type: typ, ClusterIP: "10.0.0.1", ClusterIPs: []string{"10.0.0.1"}},
	}
	for _, m := range mut {
		m(s)
	}
	return s
}

func lbStatus(targets ...corev1.LoadBalancerIngress) func(*corev1.Service) {
	return func(s *corev1.Service) { s.Status.LoadBalancer.Ingress = targets }
}

func node(name string, addrs ...corev1.NodeAddress) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Addresses: addrs}}
}

func podRef(name string) *corev1.ObjectReference {
	return &corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: name}
}

// pod returns a running pod labelled app=db on node with status.hostIP
// hostIP, ready or not.
func pod(ns, name, node, hostIP string, ready bool, mut ...func(*corev1.Pod)) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "db"}},
		Spec:       corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, HostIP: hostIP,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
	}
	for _, m := range mut {
		m(p)
	}
	return p
}

func TestServiceSource(t *testing.T) {
	nodes := []runtime.Object{
		node("n1", corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.1"}, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.1.0.1"}),
		node("n2", corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.2"}, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.1.0.2"}),
	}
	headless := func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone; s.Spec.ClusterIPs = nil }
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db-abc", Labels: map[string]string{discoveryv1.LabelServiceName: "db"}},
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.2.0.1"}, Hostname: ptrTo("db-0"), NodeName: ptrTo("n1"), Conditions: discoveryv1.EndpointConditions{Ready: ptrTo(true)}, TargetRef: podRef("db-0")},
			{Addresses: []string{"10.2.0.2"}, Hostname: ptrTo("db-1"), NodeName: ptrTo("n2"), Conditions: discoveryv1.EndpointConditions{Ready: ptrTo(true)}, TargetRef: podRef("db-1")},
			{Addresses: []string{"10.2.0.3"}, Hostname: ptrTo("db-2"), NodeName: ptrTo("n2"), Conditions: discoveryv1.EndpointConditions{Ready: ptrTo(false)}, TargetRef: podRef("db-2")},
		},
	}
	tests := []struct {
		name string
		cfg  kubernetes.ServiceConfig
		objs []runtime.Object
		want []string
	}{
		{
			name: "load balancer IPs and hostname, TTL and set identifier",
			objs: []runtime.Object{svc("ns", "web", corev1.ServiceTypeLoadBalancer, map[string]string{
				hostnameKey: "web.example.com,www.example.com", "external-dns.kubernetes.io/ttl": "60",
				"external-dns.kubernetes.io/set-identifier": "eu",
			}, lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.1"}, corev1.LoadBalancerIngress{IP: "192.0.2.2"}, corev1.LoadBalancerIngress{IP: "2001:db8::1"}))},
			want: []string{
				"web.example.com 60 IN A eu 192.0.2.1;192.0.2.2 service/ns/web",
				"web.example.com 60 IN AAAA eu 2001:db8::1 service/ns/web",
				"www.example.com 60 IN A eu 192.0.2.1;192.0.2.2 service/ns/web",
				"www.example.com 60 IN AAAA eu 2001:db8::1 service/ns/web",
			},
		},
		{
			name: "load balancer hostname is a CNAME; alpha prefix read",
			objs: []runtime.Object{svc("ns", "web", corev1.ServiceTypeLoadBalancer, map[string]string{
				"external-dns.alpha.kubernetes.io/hostname": "web.example.com",
			}, lbStatus(corev1.LoadBalancerIngress{Hostname: "lb.elb.example.net"}))},
			want: []string{"web.example.com 0 IN CNAME  lb.elb.example.net service/ns/web"},
		},
		{
			name: "external IPs override the status; target annotation overrides all",
			objs: []runtime.Object{
				svc("ns", "a", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "a.example.com"},
					lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.1"}), func(s *corev1.Service) { s.Spec.ExternalIPs = []string{"198.51.100.1"} }),
				svc("ns", "b", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "b.example.com", "external-dns.kubernetes.io/target": "edge.example.net"},
					lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.1"})),
			},
			want: []string{
				"a.example.com 0 IN A  198.51.100.1 service/ns/a",
				"b.example.com 0 IN CNAME  edge.example.net service/ns/b",
			},
		},
		{
			name: "cluster IP only with publish-internal; internal-hostname always",
			cfg:  kubernetes.ServiceConfig{PublishInternal: true},
			objs: []runtime.Object{
				svc("ns", "a", corev1.ServiceTypeClusterIP, map[string]string{hostnameKey: "a.example.com"}),
				svc("ns", "b", corev1.ServiceTypeLoadBalancer, map[string]string{"external-dns.kubernetes.io/internal-hostname": "b.internal.example.com"}),
			},
			want: []string{
				"a.example.com 0 IN A  10.0.0.1 service/ns/a",
				"b.internal.example.com 0 IN A  10.0.0.1 service/ns/b",
			},
		},
		{
			name: "cluster IP without publish-internal gives nothing",
			objs: []runtime.Object{svc("ns", "a", corev1.ServiceTypeClusterIP, map[string]string{hostnameKey: "a.example.com"})},
			want: []string{},
		},
		{
			name: "headless: ready pod IPs and per-pod names",
			objs: []runtime.Object{svc("ns", "db", corev1.ServiceTypeClusterIP, map[string]string{hostnameKey: "db.example.com"}, headless), slice},
			want: []string{
				"db-0.db.example.com 0 IN A  10.2.0.1 service/ns/db",
				"db-1.db.example.com 0 IN A  10.2.0.2 service/ns/db",
				"db.example.com 0 IN A  10.2.0.1;10.2.0.2 service/ns/db",
			},
		},
		{
			name: "headless with endpoints-type NodeExternalIP and not-ready addresses",
			objs: []runtime.Object{svc("ns", "db", corev1.ServiceTypeClusterIP, map[string]string{
				hostnameKey: "db.example.com", "external-dns.kubernetes.io/endpoints-type": "NodeExternalIP",
			}, headless, func(s *corev1.Service) { s.Spec.PublishNotReadyAddresses = true }), slice},
			want: []string{
				"db-0.db.example.com 0 IN A  203.0.113.1 service/ns/db",
				"db-1.db.example.com 0 IN A  203.0.113.2 service/ns/db",
				"db-2.db.example.com 0 IN A  203.0.113.2 service/ns/db",
				"db.example.com 0 IN A  203.0.113.1;203.0.113.2 service/ns/db",
			},
		},
		{
			name: "headless with publish-host-ip: the pods' status.hostIP",
			cfg:  kubernetes.ServiceConfig{PublishHostIP: true},
			objs: []runtime.Object{svc("ns", "db", corev1.ServiceTypeClusterIP, map[string]string{hostnameKey: "db.example.com"}, headless), slice,
				pod("ns", "db-0", "n1", "10.1.0.1", true), pod("ns", "db-1", "n2", "10.1.0.2", true)},
			want: []string{
				"db-0.db.example.com 0 IN A  10.1.0.1 service/ns/db",
				"db-1.db.example.com 0 IN A  10.1.0.2 service/ns/db",
				"db.example.com 0 IN A  10.1.0.1;10.1.0.2 service/ns/db",
			},
		},
		{
			name: "node port: external node IPs and SRV; private access",
			objs: []runtime.Object{
				svc("ns", "np", corev1.ServiceTypeNodePort, map[string]string{hostnameKey: "np.example.com"}, func(s *corev1.Service) {
					s.Spec.Ports = []corev1.ServicePort{{Protocol: corev1.ProtocolUDP, Port: 53, NodePort: 30053}}
				}),
				svc("ns", "priv", corev1.ServiceTypeNodePort, map[string]string{hostnameKey: "priv.example.com", "external-dns.kubernetes.io/access": "private"}),
			},
			want: []string{
				"_np._udp.np.example.com 0 IN SRV  0 50 30053 np.example.com. service/ns/np",
				"np.example.com 0 IN A  203.0.113.1;203.0.113.2 service/ns/np",
				"priv.example.com 0 IN A  10.1.0.1;10.1.0.2 service/ns/priv",
			},
		},
		{
			name: "external name",
			objs: []runtime.Object{svc("ns", "ext", corev1.ServiceTypeExternalName, map[string]string{hostnameKey: "ext.example.com"},
				func(s *corev1.Service) { s.Spec.ExternalName = "backend.example.net" })},
			want: []string{"ext.example.com 0 IN CNAME  backend.example.net service/ns/ext"},
		},
		{
			name: "FQDN template, namespace, filters and type filter",
			cfg: kubernetes.ServiceConfig{
				Options: kubernetes.Options{
					Namespace: "ns", AnnotationFilter: "dns=public", LabelSelector: "team=web",
					FQDNTemplate: fqdn.MustTemplate("{{.Name}}.{{.Namespace}}.example.com"),
				},
				ServiceTypeFilter: []corev1.ServiceType{corev1.ServiceTypeLoadBalancer},
			},
			objs: []runtime.Object{
				svc("ns", "a", corev1.ServiceTypeLoadBalancer, map[string]string{"dns": "public"}, lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.1"}),
					func(s *corev1.Service) { s.Labels = map[string]string{"team": "web"} }),
				svc("ns", "no-label", corev1.ServiceTypeLoadBalancer, map[string]string{"dns": "public"}, lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.2"})),
				svc("ns", "no-ann", corev1.ServiceTypeLoadBalancer, nil, lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.3"}),
					func(s *corev1.Service) { s.Labels = map[string]string{"team": "web"} }),
				svc("other", "a", corev1.ServiceTypeLoadBalancer, map[string]string{"dns": "public"}, lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.4"}),
					func(s *corev1.Service) { s.Labels = map[string]string{"team": "web"} }),
				svc("ns", "np", corev1.ServiceTypeNodePort, map[string]string{"dns": "public"},
					func(s *corev1.Service) { s.Labels = map[string]string{"team": "web"} }),
			},
			want: []string{"a.ns.example.com 0 IN A  192.0.2.1 service/ns/a"},
		},
		{
			name: "another controller's Service is skipped",
			objs: []runtime.Object{svc("ns", "a", corev1.ServiceTypeLoadBalancer, map[string]string{
				hostnameKey: "a.example.com", "external-dns.kubernetes.io/controller": "someone-else",
			}, lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.1"}))},
			want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			client := fake.NewClientset(append(tt.objs, nodes...)...)
			src, err := kubernetes.NewServiceSource(ctx, client, tt.cfg)
			require.NoError(t, err)
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			require.NoError(t, err)
			assert.Equal(t, tt.want, render(eps))
		})
	}
}

func TestServiceSourcePartialError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(
		svc("ns", "good", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "good.example.com"}, lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.1"})),
		svc("ns", "bad", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "bad.example.com", "external-dns.kubernetes.io/ttl": "forever"}, lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.2"})),
	)
	src, err := kubernetes.NewServiceSource(ctx, client, kubernetes.ServiceConfig{})
	require.NoError(t, err)
	started(t, ctx, src)
	eps, err := src.Endpoints(ctx)
	assert.Equal(t, []string{"good.example.com 0 IN A  192.0.2.1 service/ns/good"}, render(eps))
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	require.Contains(t, pe.Failed, "service/ns/bad")
	assert.ErrorContains(t, pe.Failed["service/ns/bad"], "Service ns/bad")
	var ae *annotations.Error
	assert.True(t, errors.As(err, &ae))
}

func TestServiceSourceEventsAndReadiness(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset()
	src, err := kubernetes.NewServiceSource(ctx, client, kubernetes.ServiceConfig{})
	require.NoError(t, err)
	calls := started(t, ctx, src)
	assert.True(t, src.HasSynced())

	s := svc("ns", "web", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "web.example.com"}, lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.1"}))
	_, err = client.CoreV1().Services("ns").Create(ctx, s, metav1.CreateOptions{})
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() >= 1 })
	eventually(t, func() bool { eps, _ := src.Endpoints(ctx); return len(eps) == 1 })

	s.Status.LoadBalancer.Ingress[0].IP = "192.0.2.9"
	s.ResourceVersion = "2"
	before := calls.Load()
	_, err = client.CoreV1().Services("ns").Update(ctx, s, metav1.UpdateOptions{})
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() > before })
	eventually(t, func() bool {
		eps, _ := src.Endpoints(ctx)
		return len(eps) == 1 && eps[0].Targets[0] == "192.0.2.9"
	})

	before = calls.Load()
	require.NoError(t, client.CoreV1().Services("ns").Delete(ctx, "web", metav1.DeleteOptions{}))
	eventually(t, func() bool { return calls.Load() > before })
	eventually(t, func() bool { eps, _ := src.Endpoints(ctx); return len(eps) == 0 })
}

func TestServiceSourceNotReadyBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(svc("ns", "web", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "web.example.com"}))
	factory := k8sinformers.NewSharedInformerFactory(client, 0)
	src, err := kubernetes.NewServiceSource(ctx, client, kubernetes.ServiceConfig{Factory: factory})
	require.NoError(t, err)
	assert.False(t, src.HasSynced(), "a user factory is not started by the source")
	assert.False(t, source.HasSynced(src))
	factory.Start(ctx.Done())
	require.NoError(t, src.WaitForSync(ctx))
	assert.True(t, src.HasSynced())

	// A second source with the same filters shares the informer and index.
	_, err = kubernetes.NewServiceSource(ctx, client, kubernetes.ServiceConfig{Factory: factory})
	require.NoError(t, err)
}

func TestServiceSourceBadConfig(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	_, err := kubernetes.NewServiceSource(ctx, client, kubernetes.ServiceConfig{Options: kubernetes.Options{AnnotationFilter: "a in (("}})
	require.ErrorContains(t, err, "annotation filter")
	_, err = kubernetes.NewServiceSource(ctx, client, kubernetes.ServiceConfig{Options: kubernetes.Options{LabelSelector: "!!"}})
	require.ErrorContains(t, err, "label selector")
}
