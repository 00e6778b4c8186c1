package kubernetes_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// fakeResolver answers from a table; other names fail.
type fakeResolver map[string][]string

func (r fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ips, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]net.IPAddr, 0, len(ips))
	for _, ip := range ips {
		out = append(out, net.IPAddr{IP: net.ParseIP(ip)})
	}
	return out, nil
}

func TestServiceSourceOptions(t *testing.T) {
	v6node := func(name, ext, v4, v6 string, unschedulable bool) *corev1.Node {
		n := node(name, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: ext},
			corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: v4}, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: v6})
		n.Spec.Unschedulable = unschedulable
		return n
	}
	nodes := []runtime.Object{
		v6node("n1", "203.0.113.1", "10.1.0.1", "fd00::1", false),
		v6node("n2", "203.0.113.2", "10.1.0.2", "fd00::2", false),
		v6node("n3", "203.0.113.3", "10.1.0.3", "fd00::3", true), // cordoned
	}
	np := func(name string, ann map[string]string, mut ...func(*corev1.Service)) *corev1.Service {
		return svc("ns", name, corev1.ServiceTypeNodePort, ann, append([]func(*corev1.Service){func(s *corev1.Service) {
			s.Spec.Selector = map[string]string{"app": "db"}
		}}, mut...)...)
	}
	local := func(s *corev1.Service) { s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal }
	terminating := func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{}; p.Finalizers = []string{"x"} }
	pending := func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }
	otherApp := func(p *corev1.Pod) { p.Labels = map[string]string{"app": "web"} }
	headless := func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone; s.Spec.ClusterIPs = nil }
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Name: "db-abc", Labels: map[string]string{discoveryv1.LabelServiceName: "db"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.2.0.1"}, NodeName: ptrTo("n1"), Conditions: discoveryv1.EndpointConditions{Ready: ptrTo(true)}, TargetRef: podRef("db-0")},
			{Addresses: []string{"10.2.0.3"}, NodeName: ptrTo("n2"), Conditions: discoveryv1.EndpointConditions{Ready: ptrTo(false)}, TargetRef: podRef("db-2")},
			{Addresses: []string{"10.2.0.9"}, Conditions: discoveryv1.EndpointConditions{Ready: ptrTo(true)}}, // not a pod
		},
	}
	lb := func(name string, ann map[string]string, ings ...corev1.LoadBalancerIngress) *corev1.Service {
		return svc("ns", name, corev1.ServiceTypeLoadBalancer, ann, lbStatus(ings...))
	}
	resolver := fakeResolver{"lb.elb.example.net": {"192.0.2.10", "2001:db8::10", "::ffff:192.0.2.11"}}

	tests := []struct {
		name string
		cfg  kubernetes.ServiceConfig
		objs []runtime.Object
		want []string
		fail map[string]string // resource key -> error text
	}{
		{
			name: "default: node port leaves out cordoned nodes, no internal IPv6",
			objs: []runtime.Object{np("np", map[string]string{hostnameKey: "np.example.com"})},
			want: []string{"np.example.com 0 IN A  203.0.113.1;203.0.113.2 service/ns/np"},
		},
		{
			name: "include unschedulable nodes",
			cfg:  kubernetes.ServiceConfig{IncludeUnschedulable: true},
			objs: []runtime.Object{np("np", map[string]string{hostnameKey: "np.example.com"})},
			want: []string{"np.example.com 0 IN A  203.0.113.1;203.0.113.2;203.0.113.3 service/ns/np"},
		},
		{
			name: "expose internal IPv6 with external addresses, not with private access",
			cfg:  kubernetes.ServiceConfig{ExposeInternalIPv6: true},
			objs: []runtime.Object{
				np("np", map[string]string{hostnameKey: "np.example.com"}),
				np("pub", map[string]string{hostnameKey: "pub.example.com", "external-dns.kubernetes.io/access": "public"}),
				np("priv", map[string]string{hostnameKey: "priv.example.com", "external-dns.kubernetes.io/access": "private"}),
			},
			want: []string{
				"np.example.com 0 IN A  203.0.113.1;203.0.113.2 service/ns/np",
				"np.example.com 0 IN AAAA  fd00::1;fd00::2 service/ns/np",
				"priv.example.com 0 IN A  10.1.0.1;10.1.0.2 service/ns/priv",
				"priv.example.com 0 IN AAAA  fd00::1;fd00::2 service/ns/priv",
				"pub.example.com 0 IN A  203.0.113.1;203.0.113.2 service/ns/pub",
				"pub.example.com 0 IN AAAA  fd00::1;fd00::2 service/ns/pub",
			},
		},
		{
			name: "traffic policy Local: only nodes with a ready pod of the service",
			objs: []runtime.Object{
				np("np", map[string]string{hostnameKey: "np.example.com"}, local),
				pod("ns", "db-0", "n1", "10.1.0.1", true),
				pod("ns", "db-1", "n2", "10.1.0.2", false),
				pod("ns", "web-0", "n2", "10.1.0.2", true, otherApp),
				pod("other", "db-9", "n2", "10.1.0.2", true),
			},
			want: []string{"np.example.com 0 IN A  203.0.113.1 service/ns/np"},
		},
		{
			name: "traffic policy Local: ready terminating pods when no other is ready",
			objs: []runtime.Object{
				np("np", map[string]string{hostnameKey: "np.example.com"}, local),
				pod("ns", "db-0", "n1", "10.1.0.1", false),
				pod("ns", "db-1", "n2", "10.1.0.2", true, terminating),
			},
			want: []string{"np.example.com 0 IN A  203.0.113.2 service/ns/np"},
		},
		{
			name: "traffic policy Local: running pods when none is ready; pending ones never",
			objs: []runtime.Object{
				np("np", map[string]string{hostnameKey: "np.example.com"}, local),
				pod("ns", "db-0", "n1", "10.1.0.1", false),
				pod("ns", "db-1", "n2", "10.1.0.2", true, pending),
			},
			want: []string{"np.example.com 0 IN A  203.0.113.1 service/ns/np"},
		},
		{
			name: "traffic policy Local: no running pod, no node targets, only SRV",
			objs: []runtime.Object{
				np("np", map[string]string{hostnameKey: "np.example.com"}, local, func(s *corev1.Service) {
					s.Spec.Ports = []corev1.ServicePort{{Protocol: corev1.ProtocolTCP, Port: 80, NodePort: 30080}}
				}),
			},
			want: []string{"_np._tcp.np.example.com 0 IN SRV  0 50 30080 np.example.com. service/ns/np"},
		},
		{
			name: "traffic policy Local with a cordoned node and unschedulable excluded",
			objs: []runtime.Object{
				np("np", map[string]string{hostnameKey: "np.example.com"}, local),
				pod("ns", "db-0", "n3", "10.1.0.3", true),
				pod("ns", "db-1", "n1", "10.1.0.1", true),
			},
			want: []string{"np.example.com 0 IN A  203.0.113.1 service/ns/np"},
		},
		{
			name: "headless: not-ready addresses published with AlwaysPublishNotReadyAddresses",
			cfg:  kubernetes.ServiceConfig{AlwaysPublishNotReadyAddresses: true},
			objs: []runtime.Object{svc("ns", "db", corev1.ServiceTypeClusterIP, map[string]string{hostnameKey: "db.example.com"}, headless), slice},
			want: []string{"db.example.com 0 IN A  10.2.0.1;10.2.0.3;10.2.0.9 service/ns/db"},
		},
		{
			name: "headless default: ready addresses only",
			objs: []runtime.Object{svc("ns", "db", corev1.ServiceTypeClusterIP, map[string]string{hostnameKey: "db.example.com"}, headless), slice},
			want: []string{"db.example.com 0 IN A  10.2.0.1;10.2.0.9 service/ns/db"},
		},
		{
			name: "headless HostIP: pod status.hostIP; endpoints that are not pods or whose pod is unknown give none",
			objs: []runtime.Object{svc("ns", "db", corev1.ServiceTypeClusterIP, map[string]string{
				hostnameKey: "db.example.com", "external-dns.kubernetes.io/endpoints-type": "HostIP",
			}, headless), slice, pod("ns", "db-0", "n1", "192.168.7.1", true)},
			want: []string{"db.example.com 0 IN A  192.168.7.1 service/ns/db"},
		},
		{
			name: "headless NodeExternalIP with internal IPv6",
			cfg:  kubernetes.ServiceConfig{ExposeInternalIPv6: true},
			objs: []runtime.Object{svc("ns", "db", corev1.ServiceTypeClusterIP, map[string]string{
				hostnameKey: "db.example.com", "external-dns.kubernetes.io/endpoints-type": "NodeExternalIP",
			}, headless), slice},
			want: []string{
				"db.example.com 0 IN A  203.0.113.1 service/ns/db",
				"db.example.com 0 IN AAAA  fd00::1 service/ns/db",
			},
		},
		{
			name: "load balancer host name kept as a CNAME by default",
			cfg:  kubernetes.ServiceConfig{Resolver: resolver},
			objs: []runtime.Object{lb("web", map[string]string{hostnameKey: "web.example.com"}, corev1.LoadBalancerIngress{Hostname: "lb.elb.example.net"})},
			want: []string{"web.example.com 0 IN CNAME  lb.elb.example.net service/ns/web"},
		},
		{
			name: "load balancer host name resolved to A and AAAA, with status IPs",
			cfg:  kubernetes.ServiceConfig{ResolveLoadBalancerHostname: true, Resolver: resolver},
			objs: []runtime.Object{lb("web", map[string]string{hostnameKey: "web.example.com"},
				corev1.LoadBalancerIngress{IP: "192.0.2.1"}, corev1.LoadBalancerIngress{Hostname: "lb.elb.example.net"})},
			want: []string{
				"web.example.com 0 IN A  192.0.2.1;192.0.2.10;192.0.2.11 service/ns/web",
				"web.example.com 0 IN AAAA  2001:db8::10 service/ns/web",
			},
		},
		{
			name: "resolution: target annotation wins, external IPs win, failure fails the service",
			cfg:  kubernetes.ServiceConfig{ResolveLoadBalancerHostname: true, Resolver: resolver},
			objs: []runtime.Object{
				lb("a", map[string]string{hostnameKey: "a.example.com", "external-dns.kubernetes.io/target": "edge.example.net"},
					corev1.LoadBalancerIngress{Hostname: "gone.example.net"}),
				lb("b", map[string]string{hostnameKey: "b.example.com"}, corev1.LoadBalancerIngress{Hostname: "gone.example.net"}),
				svc("ns", "c", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "c.example.com"},
					lbStatus(corev1.LoadBalancerIngress{Hostname: "gone.example.net"}), func(s *corev1.Service) { s.Spec.ExternalIPs = []string{"198.51.100.1"} }),
			},
			want: []string{
				"a.example.com 0 IN CNAME  edge.example.net service/ns/a",
				"c.example.com 0 IN A  198.51.100.1 service/ns/c",
			},
			fail: map[string]string{"service/ns/b": `"gone.example.net": resolving`},
		},
		{
			name: "ignore hostname annotation: hostname and internal-hostname left out, template used",
			cfg: kubernetes.ServiceConfig{Options: kubernetes.Options{IgnoreHostnameAnnotation: true,
				FQDNTemplate: fqdn.MustTemplate("{{.Name}}.tmpl.example.com")}},
			objs: []runtime.Object{lb("web", map[string]string{
				hostnameKey: "web.example.com", "external-dns.kubernetes.io/internal-hostname": "web.internal.example.com",
			}, corev1.LoadBalancerIngress{IP: "192.0.2.1"})},
			want: []string{"web.tmpl.example.com 0 IN A  192.0.2.1 service/ns/web"},
		},
		{
			name: "ignore hostname annotation without template: nothing",
			cfg:  kubernetes.ServiceConfig{Options: kubernetes.Options{IgnoreHostnameAnnotation: true}},
			objs: []runtime.Object{lb("web", map[string]string{hostnameKey: "web.example.com"}, corev1.LoadBalancerIngress{IP: "192.0.2.1"})},
			want: []string{},
		},
		{
			name: "fqdn target template: used when annotations give nothing, and then the FQDN template is not",
			cfg: kubernetes.ServiceConfig{Options: kubernetes.Options{
				FQDNTemplate:       fqdn.MustTemplate("{{.Name}}.tmpl.example.com"),
				FQDNTargetTemplate: fqdn.MustTemplate(`{{.Name}}.pairs.example.com:{{.Spec.ClusterIP}},{{.Name}}.pairs.example.com:2001:db8::7,{{.Name}}-lb.pairs.example.com:{{range .Status.LoadBalancer.Ingress}}{{.IP}}{{end}}`),
			}},
			objs: []runtime.Object{
				lb("web", map[string]string{"external-dns.kubernetes.io/ttl": "60"}, corev1.LoadBalancerIngress{IP: "192.0.2.1"}),
				lb("ann", map[string]string{hostnameKey: "ann.example.com"}, corev1.LoadBalancerIngress{IP: "192.0.2.2"}),
			},
			want: []string{
				"ann.example.com 0 IN A  192.0.2.2 service/ns/ann",
				"web-lb.pairs.example.com 0 IN A  192.0.2.1 service/ns/web",
				"web.pairs.example.com 0 IN A  10.0.0.1 service/ns/web",
				"web.pairs.example.com 0 IN AAAA  2001:db8::7 service/ns/web",
			},
		},
		{
			name: "fqdn target template giving nothing: the FQDN template runs",
			cfg: kubernetes.ServiceConfig{Options: kubernetes.Options{
				FQDNTemplate:       fqdn.MustTemplate("{{.Name}}.tmpl.example.com"),
				FQDNTargetTemplate: fqdn.MustTemplate(`{{if eq .Name "x"}}x.example.com:10.9.9.9{{end}}`),
			}},
			objs: []runtime.Object{lb("web", nil, corev1.LoadBalancerIngress{IP: "192.0.2.1"})},
			want: []string{"web.tmpl.example.com 0 IN A  192.0.2.1 service/ns/web"},
		},
		{
			name: "combine: annotation, pairs and template names together; target template unused",
			cfg: kubernetes.ServiceConfig{Options: kubernetes.Options{CombineFQDN: true,
				FQDNTemplate:       fqdn.MustTemplate("{{.Name}}.tmpl.example.com,web.example.com"),
				FQDNTargetTemplate: fqdn.MustTemplate(`{{.Name}}.pairs.example.com:{{.Spec.ClusterIP}}`),
				TargetTemplate:     fqdn.MustTemplate(`10.7.7.7`),
			}},
			objs: []runtime.Object{lb("web", map[string]string{hostnameKey: "web.example.com"}, corev1.LoadBalancerIngress{IP: "192.0.2.1"})},
			want: []string{
				"web.example.com 0 IN A  192.0.2.1 service/ns/web",
				"web.pairs.example.com 0 IN A  10.0.0.1 service/ns/web",
				"web.tmpl.example.com 0 IN A  192.0.2.1 service/ns/web",
			},
		},
		{
			name: "cluster IP without publish-internal: neither annotated nor template names give records",
			cfg:  kubernetes.ServiceConfig{Options: kubernetes.Options{FQDNTemplate: fqdn.MustTemplate("{{.Name}}.tmpl.example.com")}},
			objs: []runtime.Object{svc("ns", "a", corev1.ServiceTypeClusterIP, map[string]string{hostnameKey: "a.example.com"})},
			want: []string{},
		},
		{
			name: "isSource is bound to service",
			cfg: kubernetes.ServiceConfig{Options: kubernetes.Options{
				FQDNTemplate: fqdn.MustTemplate(`{{if isSource "service"}}{{.Name}}.svc.example.com{{end}},{{if isSource "ingress"}}{{.Name}}.ing.example.com{{end}}`),
			}},
			objs: []runtime.Object{lb("web", nil, corev1.LoadBalancerIngress{IP: "192.0.2.1"})},
			want: []string{"web.svc.example.com 0 IN A  192.0.2.1 service/ns/web"},
		},
		{
			name: "bad fqdn target template pair fails the service",
			cfg:  kubernetes.ServiceConfig{Options: kubernetes.Options{FQDNTargetTemplate: fqdn.MustTemplate(`a/b.example.com:10.0.0.1`)}},
			objs: []runtime.Object{lb("web", nil, corev1.LoadBalancerIngress{IP: "192.0.2.1"})},
			want: []string{},
			fail: map[string]string{"service/ns/web": "contains '/'"},
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
			assert.Equal(t, tt.want, render(eps))
			if len(tt.fail) == 0 {
				require.NoError(t, err)
				return
			}
			var pe *source.PartialError
			require.True(t, errors.As(err, &pe), "error %v", err)
			require.Len(t, pe.Failed, len(tt.fail))
			for key, text := range tt.fail {
				require.Contains(t, pe.Failed, key)
				assert.ErrorContains(t, pe.Failed[key], text)
			}
		})
	}
}

func TestServiceSourceNoPodInformerForOtherTypes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(svc("ns", "web", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "web.example.com"},
		lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.1"})))
	src, err := kubernetes.NewServiceSource(ctx, client, kubernetes.ServiceConfig{ServiceTypeFilter: []corev1.ServiceType{corev1.ServiceTypeLoadBalancer}})
	require.NoError(t, err)
	started(t, ctx, src)
	for _, a := range client.Actions() {
		assert.NotEqual(t, "pods", a.GetResource().Resource, "no pod informer is needed for load balancers")
	}
	eps, err := src.Endpoints(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"web.example.com 0 IN A  192.0.2.1 service/ns/web"}, render(eps))
}
