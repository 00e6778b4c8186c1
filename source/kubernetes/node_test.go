package kubernetes_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// kubeNode returns a Node with addresses; mut changes it further.
func kubeNode(name string, ann map[string]string, addrs []corev1.NodeAddress, mut ...func(*corev1.Node)) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann, ResourceVersion: "1"},
		Status:     corev1.NodeStatus{Addresses: addrs},
	}
	for _, m := range mut {
		m(n)
	}
	return n
}

func extIP(a string) corev1.NodeAddress {
	return corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: a}
}
func intIP(a string) corev1.NodeAddress {
	return corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: a}
}

func unschedulable(n *corev1.Node) { n.Spec.Unschedulable = true }

func nodeLabels(l map[string]string) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Labels = l }
}

func TestNodeSource(t *testing.T) {
	tests := []struct {
		name string
		cfg  kubernetes.NodeConfig
		objs []runtime.Object
		want []string
		// failed maps the resource keys of failed Nodes to a part of
		// their error.
		failed map[string]string
	}{
		{
			name: "node name with its external address",
			objs: []runtime.Object{kubeNode("n1.example.org", nil, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want: []string{"n1.example.org 0 IN A  203.0.113.1 node/n1.example.org"},
		},
		{
			name: "hostname annotations are not read, so a bad one fails nothing",
			objs: []runtime.Object{kubeNode("n1.example.org", map[string]string{
				"external-dns.kubernetes.io/hostname":          "bad_host!.example.com",
				"external-dns.kubernetes.io/internal-hostname": "also bad!",
			}, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want: []string{"n1.example.org 0 IN A  203.0.113.1 node/n1.example.org"},
		},
		{
			name: "short node name is used as it is",
			objs: []runtime.Object{kubeNode("node1", nil, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want: []string{"node1 0 IN A  203.0.113.1 node/node1"},
		},
		{
			name: "external addresses win over internal ones; several external ones",
			objs: []runtime.Object{kubeNode("n1.example.org", nil, []corev1.NodeAddress{
				extIP("203.0.113.2"), intIP("10.0.0.1"), extIP("203.0.113.1"),
			})},
			want: []string{"n1.example.org 0 IN A  203.0.113.1;203.0.113.2 node/n1.example.org"},
		},
		{
			name: "internal IPv6 address is left out by default",
			objs: []runtime.Object{kubeNode("n1.example.org", nil, []corev1.NodeAddress{
				extIP("203.0.113.1"), intIP("10.0.0.1"), intIP("2001:db8::1"),
			})},
			want: []string{"n1.example.org 0 IN A  203.0.113.1 node/n1.example.org"},
		},
		{
			name: "external IPv6 address is published without ExposeInternalIPv6",
			objs: []runtime.Object{kubeNode("n1.example.org", nil, []corev1.NodeAddress{
				extIP("203.0.113.1"), extIP("2001:db8::8"), intIP("2001:db8::9"),
			})},
			want: []string{
				"n1.example.org 0 IN A  203.0.113.1 node/n1.example.org",
				"n1.example.org 0 IN AAAA  2001:db8::8 node/n1.example.org",
			},
		},
		{
			name: "ExposeInternalIPv6 adds the internal IPv6 address, not the internal IPv4 one",
			cfg:  kubernetes.NodeConfig{ExposeInternalIPv6: true},
			objs: []runtime.Object{kubeNode("n1.example.org", nil, []corev1.NodeAddress{
				extIP("203.0.113.1"), intIP("10.0.0.1"), intIP("2001:db8::1"),
			})},
			want: []string{
				"n1.example.org 0 IN A  203.0.113.1 node/n1.example.org",
				"n1.example.org 0 IN AAAA  2001:db8::1 node/n1.example.org",
			},
		},
		{
			name: "no external address: all internal ones, IPv6 too, without ExposeInternalIPv6",
			objs: []runtime.Object{kubeNode("n1.example.org", nil, []corev1.NodeAddress{
				intIP("10.0.0.1"), intIP("2001:db8::1"), {Type: corev1.NodeHostName, Address: "n1"},
			})},
			want: []string{
				"n1.example.org 0 IN A  10.0.0.1 node/n1.example.org",
				"n1.example.org 0 IN AAAA  2001:db8::1 node/n1.example.org",
			},
		},
		{
			name: "IPv6-only node",
			objs: []runtime.Object{kubeNode("n1.example.org", nil, []corev1.NodeAddress{intIP("2001:db8::8")})},
			want: []string{"n1.example.org 0 IN AAAA  2001:db8::8 node/n1.example.org"},
		},
		{
			name: "target annotation replaces the addresses; ttl annotation",
			objs: []runtime.Object{kubeNode("n1.example.org", map[string]string{
				"external-dns.kubernetes.io/target": "198.51.100.7,edge.example.net",
				"external-dns.kubernetes.io/ttl":    "1m",
			}, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want: []string{
				"n1.example.org 60 IN A  198.51.100.7 node/n1.example.org",
				"n1.example.org 60 IN CNAME  edge.example.net node/n1.example.org",
			},
		},
		{
			name: "alpha prefix is read",
			objs: []runtime.Object{kubeNode("n1.example.org", map[string]string{
				"external-dns.alpha.kubernetes.io/ttl": "30",
			}, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want: []string{"n1.example.org 30 IN A  203.0.113.1 node/n1.example.org"},
		},
		{
			name: "hostname, set-identifier and provider-specific annotations are not read",
			objs: []runtime.Object{kubeNode("n1.example.org", map[string]string{
				hostnameKey: "other.example.org",
				"external-dns.kubernetes.io/set-identifier": "eu",
				"external-dns.kubernetes.io/aws-weight":     "10",
			}, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want: []string{"n1.example.org 0 IN A  203.0.113.1 node/n1.example.org"},
		},
		{
			name: "FQDN template replaces the node name",
			cfg:  kubernetes.NodeConfig{Options: kubernetes.Options{FQDNTemplate: fqdn.MustTemplate("{{.Name}}.nodes.example.org")}},
			objs: []runtime.Object{kubeNode("n1", nil, []corev1.NodeAddress{extIP("203.0.113.1"), intIP("2001:db8::1")})},
			want: []string{"n1.nodes.example.org 0 IN A  203.0.113.1 node/n1"},
		},
		{
			name: "FQDN template with CombineFQDN adds to the node name",
			cfg: kubernetes.NodeConfig{Options: kubernetes.Options{
				FQDNTemplate: fqdn.MustTemplate("{{.Name}}.nodes.example.org"), CombineFQDN: true,
			}},
			objs: []runtime.Object{kubeNode("n1", nil, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want: []string{
				"n1 0 IN A  203.0.113.1 node/n1",
				"n1.nodes.example.org 0 IN A  203.0.113.1 node/n1",
			},
		},
		{
			name: "template names point at the target annotation too",
			cfg:  kubernetes.NodeConfig{Options: kubernetes.Options{FQDNTemplate: fqdn.MustTemplate("{{.Name}}.nodes.example.org")}},
			objs: []runtime.Object{kubeNode("n1", map[string]string{"external-dns.kubernetes.io/target": "198.51.100.1"}, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want: []string{"n1.nodes.example.org 0 IN A  198.51.100.1 node/n1"},
		},
		{
			name: "FQDN target template replaces the node name; its records carry no TTL",
			cfg: kubernetes.NodeConfig{Options: kubernetes.Options{
				FQDNTargetTemplate: fqdn.MustTemplate(`{{.Name}}.pairs.example.org:{{index .Labels "ip"}}`),
			}},
			objs: []runtime.Object{kubeNode("n1", map[string]string{"external-dns.kubernetes.io/ttl": "60"}, []corev1.NodeAddress{extIP("203.0.113.1")},
				nodeLabels(map[string]string{"ip": "198.51.100.5"}))},
			want: []string{"n1.pairs.example.org 0 IN A  198.51.100.5 node/n1"},
		},
		{
			name: "FQDN target template with CombineFQDN adds to the node name and the FQDN template",
			cfg: kubernetes.NodeConfig{Options: kubernetes.Options{
				FQDNTargetTemplate: fqdn.MustTemplate("{{.Name}}.pairs.example.org:198.51.100.5"),
				FQDNTemplate:       fqdn.MustTemplate("{{.Name}}.nodes.example.org"),
				CombineFQDN:        true,
			}},
			objs: []runtime.Object{kubeNode("n1", nil, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want: []string{
				"n1 0 IN A  203.0.113.1 node/n1",
				"n1.nodes.example.org 0 IN A  203.0.113.1 node/n1",
				"n1.pairs.example.org 0 IN A  198.51.100.5 node/n1",
			},
		},
		{
			name: "FQDN template runs when the FQDN target template gives nothing",
			cfg: kubernetes.NodeConfig{Options: kubernetes.Options{
				FQDNTargetTemplate: fqdn.MustTemplate(`{{index .Labels "missing"}}`),
				FQDNTemplate:       fqdn.MustTemplate("{{.Name}}.nodes.example.org"),
			}},
			objs: []runtime.Object{kubeNode("n1", nil, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want: []string{"n1.nodes.example.org 0 IN A  203.0.113.1 node/n1"},
		},
		{
			name: "isSource answers for the node source",
			cfg: kubernetes.NodeConfig{Options: kubernetes.Options{
				FQDNTemplate: fqdn.MustTemplate(`{{if isSource "node"}}{{.Name}}.node.example.org{{end}}`),
			}},
			objs: []runtime.Object{kubeNode("n1", nil, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want: []string{"n1.node.example.org 0 IN A  203.0.113.1 node/n1"},
		},
		{
			name: "one template name for all nodes merges their addresses, labelled with the first node",
			cfg:  kubernetes.NodeConfig{Options: kubernetes.Options{FQDNTemplate: fqdn.MustTemplate("nodes.example.org")}},
			objs: []runtime.Object{
				kubeNode("n2", nil, []corev1.NodeAddress{extIP("203.0.113.2")}),
				kubeNode("n1", nil, []corev1.NodeAddress{extIP("203.0.113.1"), extIP("2001:db8::1")}),
				kubeNode("n3", map[string]string{"external-dns.kubernetes.io/ttl": "60"}, []corev1.NodeAddress{extIP("203.0.113.3")}),
			},
			want: []string{
				"nodes.example.org 0 IN A  203.0.113.1;203.0.113.2 node/n1",
				"nodes.example.org 0 IN AAAA  2001:db8::1 node/n1",
				"nodes.example.org 60 IN A  203.0.113.3 node/n3",
			},
		},
		{
			name: "unschedulable node skipped by default",
			objs: []runtime.Object{
				kubeNode("n1.example.org", nil, []corev1.NodeAddress{extIP("203.0.113.1")}, unschedulable),
				kubeNode("n2.example.org", nil, []corev1.NodeAddress{extIP("203.0.113.2")}),
			},
			want: []string{"n2.example.org 0 IN A  203.0.113.2 node/n2.example.org"},
		},
		{
			name: "unschedulable node published with IncludeUnschedulable",
			cfg:  kubernetes.NodeConfig{IncludeUnschedulable: true},
			objs: []runtime.Object{kubeNode("n1.example.org", nil, []corev1.NodeAddress{extIP("203.0.113.1")}, unschedulable)},
			want: []string{"n1.example.org 0 IN A  203.0.113.1 node/n1.example.org"},
		},
		{
			name: "controller annotation: ours published, another controller's skipped",
			objs: []runtime.Object{
				kubeNode("n1.example.org", map[string]string{"external-dns.kubernetes.io/controller": "dns-controller"}, []corev1.NodeAddress{extIP("203.0.113.1")}),
				kubeNode("n2.example.org", map[string]string{"external-dns.kubernetes.io/controller": "other"}, []corev1.NodeAddress{extIP("203.0.113.2")}),
			},
			want: []string{"n1.example.org 0 IN A  203.0.113.1 node/n1.example.org"},
		},
		{
			name: "annotation filter",
			cfg:  kubernetes.NodeConfig{Options: kubernetes.Options{AnnotationFilter: "dns in (public)"}},
			objs: []runtime.Object{
				kubeNode("n1.example.org", map[string]string{"dns": "public"}, []corev1.NodeAddress{extIP("203.0.113.1")}),
				kubeNode("n2.example.org", map[string]string{"dns": "private"}, []corev1.NodeAddress{extIP("203.0.113.2")}),
				kubeNode("n3.example.org", nil, []corev1.NodeAddress{extIP("203.0.113.3")}),
			},
			want: []string{"n1.example.org 0 IN A  203.0.113.1 node/n1.example.org"},
		},
		{
			name: "label selector",
			cfg:  kubernetes.NodeConfig{Options: kubernetes.Options{LabelSelector: "role=edge"}},
			objs: []runtime.Object{
				kubeNode("n1.example.org", nil, []corev1.NodeAddress{extIP("203.0.113.1")}, nodeLabels(map[string]string{"role": "edge"})),
				kubeNode("n2.example.org", nil, []corev1.NodeAddress{extIP("203.0.113.2")}, nodeLabels(map[string]string{"role": "worker"})),
			},
			want: []string{"n1.example.org 0 IN A  203.0.113.1 node/n1.example.org"},
		},
		{
			name: "namespace does not apply to nodes",
			cfg:  kubernetes.NodeConfig{Options: kubernetes.Options{Namespace: "ns"}},
			objs: []runtime.Object{kubeNode("n1.example.org", nil, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want: []string{"n1.example.org 0 IN A  203.0.113.1 node/n1.example.org"},
		},
		{
			name: "node without an address fails, the others are published",
			objs: []runtime.Object{
				kubeNode("n1.example.org", nil, nil),
				kubeNode("n2.example.org", nil, []corev1.NodeAddress{extIP("203.0.113.2")}),
			},
			want:   []string{"n2.example.org 0 IN A  203.0.113.2 node/n2.example.org"},
			failed: map[string]string{"node/n1.example.org": "Node n1.example.org: status.addresses holds no ExternalIP or InternalIP address"},
		},
		{
			name: "node without an address but with a target annotation is published",
			objs: []runtime.Object{kubeNode("n1.example.org", map[string]string{"external-dns.kubernetes.io/target": "198.51.100.1"}, nil)},
			want: []string{"n1.example.org 0 IN A  198.51.100.1 node/n1.example.org"},
		},
		{
			name:   "invalid ttl annotation fails the node",
			objs:   []runtime.Object{kubeNode("n1.example.org", map[string]string{"external-dns.kubernetes.io/ttl": "forever"}, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want:   []string{},
			failed: map[string]string{"node/n1.example.org": `Node n1.example.org: annotation external-dns.kubernetes.io/ttl="forever"`},
		},
		{
			name:   "invalid target annotation fails the node",
			objs:   []runtime.Object{kubeNode("n1.example.org", map[string]string{"external-dns.kubernetes.io/target": "bad..example.net"}, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want:   []string{},
			failed: map[string]string{"node/n1.example.org": `annotation external-dns.kubernetes.io/target="bad..example.net"`},
		},
		{
			name:   "node name with a label over 63 octets fails",
			objs:   []runtime.Object{kubeNode(strings.Repeat("a", 64)+".example.org", nil, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want:   []string{},
			failed: map[string]string{"node/" + strings.Repeat("a", 64) + ".example.org": "63"},
		},
		{
			name:   "failing template fails the node",
			cfg:    kubernetes.NodeConfig{Options: kubernetes.Options{FQDNTemplate: fqdn.MustTemplate("{{.Name}} space.example.org")}},
			objs:   []runtime.Object{kubeNode("n1", nil, []corev1.NodeAddress{extIP("203.0.113.1")})},
			want:   []string{},
			failed: map[string]string{"node/n1": "Node n1: FQDN template"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := kubernetes.NewNodeSource(ctx, fake.NewClientset(tt.objs...), tt.cfg)
			require.NoError(t, err)
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			assert.Equal(t, tt.want, render(eps))
			if len(tt.failed) == 0 {
				require.NoError(t, err)
				return
			}
			var pe *source.PartialError
			require.ErrorAs(t, err, &pe)
			assert.Len(t, pe.Failed, len(tt.failed))
			for key, msg := range tt.failed {
				require.Contains(t, pe.Failed, key)
				assert.ErrorContains(t, pe.Failed[key], msg)
			}
		})
	}
}

func TestNodeSourceAnnotationErrorIsTyped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(kubeNode("n1.example.org", map[string]string{"external-dns.kubernetes.io/ttl": "-1"}, []corev1.NodeAddress{extIP("203.0.113.1")}))
	src, err := kubernetes.NewNodeSource(ctx, client, kubernetes.NodeConfig{})
	require.NoError(t, err)
	started(t, ctx, src)
	_, err = src.Endpoints(ctx)
	var ae *annotations.Error
	require.True(t, errors.As(err, &ae))
	assert.Equal(t, "external-dns.kubernetes.io/ttl", ae.Key)
}

func TestNodeSourceEventsAndReadiness(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset()
	src, err := kubernetes.NewNodeSource(ctx, client, kubernetes.NodeConfig{})
	require.NoError(t, err)
	assert.Equal(t, "node", src.String())
	calls := started(t, ctx, src)
	assert.True(t, src.HasSynced())

	n := kubeNode("n1.example.org", nil, []corev1.NodeAddress{extIP("203.0.113.1")})
	_, err = client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() >= 1 })
	eventually(t, func() bool { eps, _ := src.Endpoints(ctx); return len(eps) == 1 })

	// Cordoning the node removes it.
	n.Spec.Unschedulable = true
	n.ResourceVersion = "2"
	before := calls.Load()
	_, err = client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() > before })
	eventually(t, func() bool { eps, _ := src.Endpoints(ctx); return len(eps) == 0 })

	before = calls.Load()
	require.NoError(t, client.CoreV1().Nodes().Delete(ctx, "n1.example.org", metav1.DeleteOptions{}))
	eventually(t, func() bool { return calls.Load() > before })
}

func TestNodeSourceSharedFactory(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(kubeNode("n1.example.org", map[string]string{"dns": "public"}, []corev1.NodeAddress{extIP("203.0.113.1")}))
	factory := k8sinformers.NewSharedInformerFactory(client, 0)
	all, err := kubernetes.NewNodeSource(ctx, client, kubernetes.NodeConfig{Factory: factory})
	require.NoError(t, err)
	private, err := kubernetes.NewNodeSource(ctx, client, kubernetes.NodeConfig{Factory: factory, Options: kubernetes.Options{AnnotationFilter: "dns=private"}})
	require.NoError(t, err)
	assert.False(t, all.HasSynced(), "a user factory is not started by the source")
	factory.Start(ctx.Done())
	require.NoError(t, all.WaitForSync(ctx))
	require.NoError(t, private.WaitForSync(ctx))
	eps, err := all.Endpoints(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"n1.example.org 0 IN A  203.0.113.1 node/n1.example.org"}, render(eps))
	eps, err = private.Endpoints(ctx)
	require.NoError(t, err)
	assert.Empty(t, eps)
}

func TestNodeSourceBadConfig(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	_, err := kubernetes.NewNodeSource(ctx, client, kubernetes.NodeConfig{Options: kubernetes.Options{AnnotationFilter: "a in (("}})
	require.ErrorContains(t, err, "node source: annotation filter")
	_, err = kubernetes.NewNodeSource(ctx, client, kubernetes.NodeConfig{Options: kubernetes.Options{LabelSelector: "!!"}})
	require.ErrorContains(t, err, "node source: label selector")
	_, err = kubernetes.NewNodeSource(ctx, client, kubernetes.NodeConfig{Options: kubernetes.Options{Annotations: annotations.Config{Prefixes: []string{"no-slash"}}}})
	require.ErrorContains(t, err, "node source")
}

func TestNodeSourceCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	src, err := kubernetes.NewNodeSource(ctx, fake.NewClientset(), kubernetes.NodeConfig{})
	require.NoError(t, err)
	cancel()
	_, err = src.Endpoints(ctx)
	require.ErrorIs(t, err, context.Canceled)
}
