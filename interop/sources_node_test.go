package interop

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// nodeDiff is the node source under differential test.
func nodeDiff() sourceDiff {
	return sourceDiff{
		Name: xtypes.Node,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			tmpl, err := s.zonesyncTemplate()
			if err != nil {
				return nil, err
			}
			client, _ := c.KubeClient()
			return kubernetes.NewNodeSource(ctx, client, kubernetes.NodeConfig{
				Options:              s.zonesyncOptions(tmpl),
				IncludeUnschedulable: s.IncludeUnschedulable,
				ExposeInternalIPv6:   s.ExposeInternalIPv6,
			})
		},
		Rules: nodeRules(),
	}
}

// nodeRules are the known differences of the node source: none beyond
// the common ones. (A bad hostname annotation, which the node source does
// not read, made zonesync refuse the Node once.)
func nodeRules() []sourceRule { return nil }

// nodes draws n Nodes named like hosts (the node source publishes the
// name as it is): ExternalIP and InternalIP addresses of both families,
// some cordoned. Every Node has an address or a target annotation, as
// external-dns fails the whole source on one without.
func (g *gen) nodes(n int) []runtime.Object {
	var objs []runtime.Object
	for range n {
		m := g.meta("node")
		m.Namespace = ""
		m.Name += ".nodes.example.com"
		node := &corev1.Node{ObjectMeta: m}
		node.Spec.Unschedulable = g.chance(4)
		add := func(t corev1.NodeAddressType, addr string) {
			node.Status.Addresses = append(node.Status.Addresses, corev1.NodeAddress{Type: t, Address: addr})
		}
		if g.chance(3) {
			add(corev1.NodeHostName, m.Name)
		}
		external := g.r.IntN(3)
		for range external {
			add(corev1.NodeExternalIP, pick(g.r, "203.0.113.1", "203.0.113.2", "2001:db8:e::1"))
		}
		internal := g.r.IntN(3)
		if external == 0 && internal == 0 {
			internal = 1
		}
		for i := range internal {
			if g.chance(3) {
				add(corev1.NodeInternalIP, fmt.Sprintf("fd00::%d:%d", g.n, i))
			} else {
				add(corev1.NodeInternalIP, fmt.Sprintf("10.0.%d.%d", g.n%250, i+1))
			}
		}
		objs = append(objs, node)
	}
	return objs
}

// nodeTemplate is the FQDN template of the node runs: Nodes have no
// namespace.
const nodeTemplate = "{{.Name}}.tmpl.example.com"

func TestNodeSourceAgreement(t *testing.T) {
	sd := nodeDiff()
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			if s.FQDNTemplate != "" {
				s.FQDNTemplate = nodeTemplate
			}
			s.IncludeUnschedulable = g.chance(2)
			s.ExposeInternalIPv6 = g.chance(2)
			sd.check(t, g.String(), s, g.nodes(100)...)
		})
	}
}

// Hand-written cases: each node setting, which must agree exactly.
func TestNodeSourceCases(t *testing.T) {
	sd := nodeDiff()
	node := func(name string, unschedulable bool, anns map[string]string, addrs ...corev1.NodeAddress) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: anns},
			Spec:       corev1.NodeSpec{Unschedulable: unschedulable},
			Status:     corev1.NodeStatus{Addresses: addrs},
		}
	}
	ext := func(a string) corev1.NodeAddress { return corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: a} }
	in := func(a string) corev1.NodeAddress { return corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: a} }
	dual := func() []runtime.Object {
		return []runtime.Object{
			node("a.nodes.example.com", false, nil, ext("203.0.113.1"), in("10.0.0.1"), in("fd00::1")),
			node("b.nodes.example.com", false, nil, in("10.0.0.2"), in("fd00::2")),
			node("c.nodes.example.com", true, nil, ext("203.0.113.3")),
		}
	}
	for _, tc := range []struct {
		name string
		s    sourceSettings
		objs []runtime.Object
		want int // records on both sides
	}{{
		name: "defaults: unschedulable excluded, no internal IPv6 beside external",
		objs: dual(),
		want: 3, // a A; b A, AAAA
	}, {
		name: "ExposeInternalIPv6",
		s:    sourceSettings{ExposeInternalIPv6: true},
		objs: dual(),
		want: 4, // a A, AAAA; b A, AAAA
	}, {
		name: "exclude-unschedulable=false",
		s:    sourceSettings{IncludeUnschedulable: true},
		objs: dual(),
		want: 4, // c A too
	}, {
		name: "FQDN template",
		s:    sourceSettings{FQDNTemplate: "{{.Name}}.tmpl.example.com"},
		objs: dual(),
		want: 3,
	}, {
		name: "FQDN template combined with the node name",
		s:    sourceSettings{FQDNTemplate: "{{.Name}}.tmpl.example.com", CombineFQDN: true},
		objs: dual(),
		want: 6,
	}, {
		name: "target and ttl annotations, hostname annotation not read",
		objs: []runtime.Object{node("d.nodes.example.com", false, map[string]string{
			"external-dns.kubernetes.io/target": "lb.example.net", "external-dns.kubernetes.io/ttl": "120",
			"external-dns.kubernetes.io/hostname": "ignored.example.com",
		}, ext("203.0.113.4"))},
		want: 1,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			out := sd.check(t, "hand-written", tc.s, tc.objs...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and %d records: %v", tc.want, out.Explained, len(out.Zonesync), sortedRecords(out.Zonesync))
			}
		})
	}
}
