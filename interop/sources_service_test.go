package interop

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// serviceDiff is the service source under differential test.
func serviceDiff() sourceDiff {
	return sourceDiff{
		Name: xtypes.Service,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			tmpl, err := s.zonesyncTemplate()
			if err != nil {
				return nil, err
			}
			client, _ := c.KubeClient()
			cfg := kubernetes.ServiceConfig{
				Options:         s.zonesyncOptions(tmpl),
				PublishInternal: s.PublishInternal, PublishHostIP: s.PublishHostIP,
			}
			for _, t := range s.ServiceTypeFilter {
				cfg.ServiceTypeFilter = append(cfg.ServiceTypeFilter, corev1.ServiceType(t))
			}
			return kubernetes.NewServiceSource(ctx, client, cfg)
		},
		Rules: serviceRules(),
	}
}

// nodes are the cluster's nodes in every service run.
func serviceNodes() []runtime.Object {
	node := func(name string, addrs ...corev1.NodeAddress) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Addresses: addrs}}
	}
	return []runtime.Object{
		node("node1", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.1"}),
		node("node2", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.2"}, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "2001:db8::2"}),
		node("node3", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.3"}),
	}
}

func serviceNodeIP(node string) string {
	return map[string]string{"node1": "10.0.0.1", "node2": "10.0.0.2", "node3": "10.0.0.3"}[node]
}

// services draws n Services with what they need: EndpointSlices and pods
// for headless ones.
func (g *gen) services(n int) []runtime.Object {
	objs := serviceNodes()
	for range n {
		m := g.meta("svc")
		svc := &corev1.Service{ObjectMeta: m}
		if g.chance(6) {
			m.Annotations["external-dns.kubernetes.io/internal-hostname"] = "int-" + m.Name + ".example.com"
		}
		if g.chance(8) {
			g.setAnn(m.Annotations, "access", pick(g.r, "public", "private"), func() string { return "private" })
		}
		switch g.r.IntN(5) {
		case 0, 1:
			svc.Spec.Type = corev1.ServiceTypeLoadBalancer
			svc.Spec.ClusterIP = fmt.Sprintf("10.96.0.%d", g.n%250)
			for range g.r.IntN(3) {
				if g.chance(3) {
					svc.Status.LoadBalancer.Ingress = append(svc.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{Hostname: pick(g.r, "elb1.example.net", "elb2.example.net")})
				} else {
					svc.Status.LoadBalancer.Ingress = append(svc.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: pick(g.r, "192.0.2.1", "192.0.2.2", "2001:db8::1")})
				}
			}
			if g.chance(5) {
				svc.Spec.ExternalIPs = []string{pick(g.r, "198.51.100.1", "198.51.100.2")}
			}
		case 2:
			svc.Spec.Type = corev1.ServiceTypeClusterIP
			if g.chance(2) {
				svc.Spec.ClusterIP = corev1.ClusterIPNone
				svc.Spec.PublishNotReadyAddresses = g.chance(4)
				if g.chance(5) {
					g.setAnn(m.Annotations, "endpoints-type", pick(g.r, "NodeExternalIP", "HostIP"), func() string { return "HostIP" })
				}
				objs = append(objs, g.headless(svc)...)
			} else {
				svc.Spec.ClusterIP = fmt.Sprintf("10.96.1.%d", g.n%250)
			}
		case 3:
			svc.Spec.Type = corev1.ServiceTypeNodePort
			svc.Spec.ClusterIP = fmt.Sprintf("10.96.2.%d", g.n%250)
			svc.Spec.Ports = []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, NodePort: 30000 + int32(g.n)}}
			if g.chance(3) {
				svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
			}
		case 4:
			svc.Spec.Type = corev1.ServiceTypeExternalName
			svc.Spec.ExternalName = pick(g.r, "backend.example.net", "192.0.2.50", "2001:db8::50")
		}
		objs = append(objs, svc)
	}
	return objs
}

// headless draws the EndpointSlice of a headless Service and the pods its
// endpoints point at, consistent with each other (the pod's hostname,
// node and host IP are the endpoint's).
func (g *gen) headless(svc *corev1.Service) []runtime.Object {
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: svc.Namespace, Name: svc.Name + "-abc", Labels: map[string]string{discoveryv1.LabelServiceName: svc.Name}},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	var objs []runtime.Object
	for i := range 1 + g.r.IntN(3) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, Name: fmt.Sprintf("%s-pod%d", svc.Name, i)}}
		pod.Spec.NodeName = pick(g.r, "node1", "node2", "node3")
		pod.Status.HostIP = serviceNodeIP(pod.Spec.NodeName)
		ip := fmt.Sprintf("10.244.%d.%d", g.n%250, i+1)
		pod.Status.PodIP = ip
		ep := discoveryv1.Endpoint{
			Addresses: []string{ip},
			NodeName:  &pod.Spec.NodeName,
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name},
		}
		ready := !g.chance(4)
		ep.Conditions.Ready = &ready
		if g.chance(3) {
			pod.Spec.Hostname = fmt.Sprintf("web-%d", i)
			ep.Hostname = &pod.Spec.Hostname
		}
		slice.Endpoints = append(slice.Endpoints, ep)
		objs = append(objs, pod)
	}
	return append(objs, slice)
}

func TestServiceSourceAgreement(t *testing.T) {
	sd := serviceDiff()
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			s.PublishInternal = g.chance(2)
			s.PublishHostIP = g.chance(5)
			if g.chance(4) {
				s.ServiceTypeFilter = []string{"LoadBalancer", "NodePort"}
			}
			sd.check(t, g.String(), s, g.services(150)...)
		})
	}
}

// serviceRules are the known differences of the service source: none
// beyond the rules every source shares. (externalTrafficPolicy=Local,
// internal-hostname on every Service type and on headless Services, the
// FQDN template after internal-hostname, and node-port SRV records under a
// target annotation were differences once; the service source now does as
// external-dns does, and the cases below keep it so.)
func serviceRules() []sourceRule { return nil }

// Hand-written cases: inputs on which the two sources once disagreed, and
// must agree exactly now.
func TestServiceSourceCases(t *testing.T) {
	sd := serviceDiff()
	nodePort := func(anns map[string]string) *corev1.Service {
		return &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "np", Annotations: anns},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ClusterIP: "10.96.0.1",
				Ports: []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, NodePort: 30080}}},
		}
	}
	for _, tc := range []struct {
		name string
		s    sourceSettings
		objs []runtime.Object
	}{{
		name: "load balancer agrees",
		objs: []runtime.Object{&corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "lb", Annotations: map[string]string{"external-dns.kubernetes.io/hostname": "lb.example.com", "external-dns.alpha.kubernetes.io/ttl": "60"}},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIP: "10.96.0.2"},
			Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}, {Hostname: "elb.example.net"}}}},
		}},
	}, {
		name: "internal-hostname on a NodePort Service",
		objs: append(serviceNodes(), nodePort(map[string]string{"external-dns.kubernetes.io/internal-hostname": "np.internal.example.com"})),
	}, {
		name: "target annotation on a NodePort Service",
		objs: append(serviceNodes(), nodePort(map[string]string{"external-dns.kubernetes.io/hostname": "np.example.com", "external-dns.kubernetes.io/target": "192.0.2.9"})),
	}, {
		name: "internal-hostname on an ExternalName Service",
		objs: []runtime.Object{&corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "ext", Annotations: map[string]string{"external-dns.kubernetes.io/internal-hostname": "ext.internal.example.com"}},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "db.example.net"},
		}},
	}, {
		name: "internal-hostname and hostname on a LoadBalancer Service",
		objs: []runtime.Object{&corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "lb", Annotations: map[string]string{
				"external-dns.kubernetes.io/hostname": "lb.example.com", "external-dns.kubernetes.io/internal-hostname": "lb.internal.example.com"}},
			Spec:   corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIP: "10.96.0.2"},
			Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}}},
		}},
	}, {
		name: "FQDN template and internal-hostname",
		s:    sourceSettings{FQDNTemplate: "{{.Name}}.tmpl.example.com"},
		objs: []runtime.Object{&corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "lb", Annotations: map[string]string{"external-dns.kubernetes.io/internal-hostname": "lb.internal.example.com"}},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIP: "10.96.0.2"},
			Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}}},
		}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			out := sd.check(t, "hand-written", tc.s, tc.objs...)
			if len(out.Explained) != 0 || len(out.Zonesync) == 0 {
				t.Errorf("want full agreement on a non-empty set, got %v and %d records", out.Explained, len(out.Zonesync))
			}
		})
	}
}
