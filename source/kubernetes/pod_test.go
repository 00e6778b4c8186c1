package kubernetes_test

import (
	"context"
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
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

const (
	internalKey = "external-dns.kubernetes.io/internal-hostname"
	targetKey   = "external-dns.kubernetes.io/target"
	ttlKey      = "external-dns.kubernetes.io/ttl"
)

// kubePod returns a Pod on nodeName with the given pod IPs (the first is
// status.podIP); mut changes it further.
func kubePod(ns, name, nodeName string, hostNetwork bool, ann map[string]string, ips []string, mut ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann, ResourceVersion: "1"},
		Spec:       corev1.PodSpec{NodeName: nodeName, HostNetwork: hostNetwork},
	}
	for i, ip := range ips {
		if i == 0 {
			p.Status.PodIP = ip
		}
		p.Status.PodIPs = append(p.Status.PodIPs, corev1.PodIP{IP: ip})
	}
	for _, m := range mut {
		m(p)
	}
	return p
}

func podLabels(l map[string]string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Labels = l }
}

func TestPodSource(t *testing.T) {
	nodes := []runtime.Object{
		kubeNode("n1", nil, []corev1.NodeAddress{extIP("203.0.113.1"), intIP("10.1.0.1"), intIP("2001:db8::1")}),
		kubeNode("n2", nil, []corev1.NodeAddress{extIP("203.0.113.2"), intIP("10.1.0.2")}),
		kubeNode("internal-only", nil, []corev1.NodeAddress{intIP("10.1.0.3")}),
	}
	objs := func(pods ...runtime.Object) []runtime.Object {
		return append(append([]runtime.Object{}, nodes...), pods...)
	}
	tests := []struct {
		name   string
		cfg    kubernetes.PodConfig
		objs   []runtime.Object
		want   []string
		failed map[string]string
	}{
		{
			name: "hostname to the node's external and IPv6 internal addresses; internal-hostname to the pod IP",
			objs: objs(kubePod("kube-system", "p1", "n1", true, map[string]string{
				hostnameKey: "a.example.org", internalKey: "internal.a.example.org",
			}, []string{"10.1.0.1"})),
			want: []string{
				"a.example.org 0 IN A  203.0.113.1 ",
				"a.example.org 0 IN AAAA  2001:db8::1 ",
				"internal.a.example.org 0 IN A  10.1.0.1 ",
			},
		},
		{
			name: "pods sharing a hostname are merged: one record with every node",
			objs: objs(
				kubePod("kube-system", "p1", "n1", true, map[string]string{hostnameKey: "a.example.org", internalKey: "internal.a.example.org"}, []string{"10.1.0.1"}),
				kubePod("kube-system", "p2", "n2", true, map[string]string{hostnameKey: "a.example.org", internalKey: "internal.a.example.org"}, []string{"10.1.0.2"}),
			),
			want: []string{
				"a.example.org 0 IN A  203.0.113.1;203.0.113.2 ",
				"a.example.org 0 IN AAAA  2001:db8::1 ",
				"internal.a.example.org 0 IN A  10.1.0.1;10.1.0.2 ",
			},
		},
		{
			name: "different TTLs are not merged",
			objs: objs(
				kubePod("ns", "p1", "n1", true, map[string]string{hostnameKey: "a.example.org", ttlKey: "1h30m"}, []string{"10.1.0.1"}),
				kubePod("ns", "p2", "n2", true, map[string]string{hostnameKey: "a.example.org"}, []string{"10.1.0.2"}),
				kubePod("ns", "p3", "n2", true, map[string]string{hostnameKey: "b.example.org"}, []string{"10.1.0.2"}),
			),
			want: []string{
				"a.example.org 0 IN A  203.0.113.2 ",
				"a.example.org 5400 IN A  203.0.113.1 ",
				"a.example.org 5400 IN AAAA  2001:db8::1 ",
				"b.example.org 0 IN A  203.0.113.2 ",
			},
		},
		{
			name: "hostname of a non-hostNetwork pod also points at its node by default",
			objs: objs(kubePod("ns", "p1", "n2", false, map[string]string{hostnameKey: "a.example.org", internalKey: "i.example.org"}, []string{"10.2.0.5"})),
			want: []string{
				"a.example.org 0 IN A  203.0.113.2 ",
				"i.example.org 0 IN A  10.2.0.5 ",
			},
		},
		{
			name: "IgnoreNonHostNetworkPods drops the annotations of non-hostNetwork pods",
			cfg:  kubernetes.PodConfig{IgnoreNonHostNetworkPods: true, PodSourceDomain: "pods.example.org"},
			objs: objs(
				kubePod("ns", "p1", "n1", true, map[string]string{hostnameKey: "a.example.org", internalKey: "i.example.org", ttlKey: "1"}, []string{"10.1.0.1"}),
				kubePod("ns", "p2", "n2", false, map[string]string{hostnameKey: "a.example.org", internalKey: "i.example.org"}, []string{"10.2.0.5"}),
			),
			want: []string{
				"a.example.org 1 IN A  203.0.113.1 ",
				"a.example.org 1 IN AAAA  2001:db8::1 ",
				"i.example.org 1 IN A  10.1.0.1 ",
				"p1.pods.example.org 1 IN A  10.1.0.1 ",
			},
		},
		{
			name: "IgnoreNonHostNetworkPods leaves the FQDN template of non-hostNetwork pods",
			cfg: kubernetes.PodConfig{IgnoreNonHostNetworkPods: true, Options: kubernetes.Options{
				FQDNTemplate: fqdn.MustTemplate("{{.Name}}.tmpl.example.org"),
			}},
			objs: objs(kubePod("ns", "p2", "n2", false, map[string]string{hostnameKey: "a.example.org"}, []string{"10.2.0.5"})),
			want: []string{"p2.tmpl.example.org 0 IN A  10.2.0.5 "},
		},
		{
			name: "hostname of a pod on an unknown node or without a node gives nothing",
			objs: objs(
				kubePod("ns", "p1", "gone", true, map[string]string{hostnameKey: "a.example.org"}, []string{"10.1.0.1"}),
				kubePod("ns", "p2", "", true, map[string]string{hostnameKey: "b.example.org"}, nil),
			),
			want: []string{},
		},
		{
			name: "hostname on a node with only an internal IPv4 address gives nothing",
			objs: objs(kubePod("ns", "p1", "internal-only", true, map[string]string{hostnameKey: "a.example.org"}, []string{"10.1.0.3"})),
			want: []string{},
		},
		{
			name: "target annotation replaces the targets of hostname, internal-hostname and pod-source-domain",
			cfg:  kubernetes.PodConfig{PodSourceDomain: "pods.example.org"},
			objs: objs(kubePod("ns", "p1", "n1", true, map[string]string{
				hostnameKey: "a.example.org", internalKey: "i.example.org",
				targetKey: "198.51.100.1,2001:db8::99,edge.example.net.",
			}, []string{"10.1.0.1"})),
			want: []string{
				"a.example.org 0 IN A  198.51.100.1 ",
				"a.example.org 0 IN AAAA  2001:db8::99 ",
				"a.example.org 0 IN CNAME  edge.example.net ",
				"i.example.org 0 IN A  198.51.100.1 ",
				"i.example.org 0 IN AAAA  2001:db8::99 ",
				"i.example.org 0 IN CNAME  edge.example.net ",
				"p1.pods.example.org 0 IN A  198.51.100.1 ",
				"p1.pods.example.org 0 IN AAAA  2001:db8::99 ",
				"p1.pods.example.org 0 IN CNAME  edge.example.net ",
			},
		},
		{
			name: "hostname and internal-hostname with one name add up",
			objs: objs(kubePod("ns", "p1", "n2", true, map[string]string{hostnameKey: "a.example.org", internalKey: "a.example.org"}, []string{"10.1.0.2"})),
			want: []string{"a.example.org 0 IN A  10.1.0.2;203.0.113.2 "},
		},
		{
			name: "several names, alpha prefix",
			objs: objs(kubePod("ns", "p1", "n2", true, map[string]string{
				"external-dns.alpha.kubernetes.io/hostname":          "a.example.org, b.example.org.",
				"external-dns.alpha.kubernetes.io/internal-hostname": "i1.example.org,i2.example.org",
			}, []string{"10.1.0.2"})),
			want: []string{
				"a.example.org 0 IN A  203.0.113.2 ",
				"b.example.org 0 IN A  203.0.113.2 ",
				"i1.example.org 0 IN A  10.1.0.2 ",
				"i2.example.org 0 IN A  10.1.0.2 ",
			},
		},
		{
			name: "internal-hostname uses the primary pod IP only (IPv6 primary)",
			objs: objs(kubePod("ns", "p1", "n1", false, map[string]string{internalKey: "i.example.org"}, []string{"fd00::5", "10.2.0.5"})),
			want: []string{"i.example.org 0 IN AAAA  fd00::5 "},
		},
		{
			name: "pod without an IP yet: internal-hostname gives nothing",
			objs: objs(kubePod("ns", "p1", "", false, map[string]string{internalKey: "i.example.org"}, nil)),
			want: []string{},
		},
		{
			name: "pod-source-domain publishes every pod by name",
			cfg:  kubernetes.PodConfig{PodSourceDomain: "pods.example.org"},
			objs: objs(
				kubePod("ns", "p1", "n1", false, nil, []string{"10.2.0.1"}),
				kubePod("other", "p2", "n1", false, map[string]string{ttlKey: "300"}, []string{"fd00::2", "10.2.0.2"}),
				kubePod("ns", "pending", "", false, nil, nil),
			),
			want: []string{
				"p1.pods.example.org 0 IN A  10.2.0.1 ",
				"p2.pods.example.org 300 IN AAAA  fd00::2 ",
			},
		},
		{
			name: "FQDN template names point at all pod IPs, not at the target annotation",
			cfg:  kubernetes.PodConfig{Options: kubernetes.Options{FQDNTemplate: fqdn.MustTemplate("{{.Name}}.{{.Namespace}}.example.org")}},
			objs: objs(kubePod("ns", "p1", "n1", false, map[string]string{ttlKey: "60", targetKey: "198.51.100.1"}, []string{"10.2.0.1", "fd00::1"})),
			want: []string{
				"p1.ns.example.org 60 IN A  10.2.0.1 ",
				"p1.ns.example.org 60 IN AAAA  fd00::1 ",
			},
		},
		{
			name: "FQDN template is not used for pods the annotations give endpoints",
			cfg:  kubernetes.PodConfig{Options: kubernetes.Options{FQDNTemplate: fqdn.MustTemplate("{{.Name}}.tmpl.example.org")}},
			objs: objs(
				kubePod("ns", "p1", "n1", false, map[string]string{internalKey: "i.example.org"}, []string{"10.2.0.1"}),
				// The hostname's node is unknown: no endpoint, so the template applies.
				kubePod("ns", "p2", "gone", false, map[string]string{hostnameKey: "a.example.org"}, []string{"10.2.0.2"}),
			),
			want: []string{
				"i.example.org 0 IN A  10.2.0.1 ",
				"p2.tmpl.example.org 0 IN A  10.2.0.2 ",
			},
		},
		{
			name: "FQDN template with CombineFQDN adds to the annotations",
			cfg: kubernetes.PodConfig{Options: kubernetes.Options{
				FQDNTemplate: fqdn.MustTemplate("{{.Name}}.tmpl.example.org"), CombineFQDN: true,
			}},
			objs: objs(kubePod("ns", "p1", "n2", true, map[string]string{hostnameKey: "a.example.org"}, []string{"10.1.0.2"})),
			want: []string{
				"a.example.org 0 IN A  203.0.113.2 ",
				"p1.tmpl.example.org 0 IN A  10.1.0.2 ",
			},
		},
		{
			name: "FQDN target template for pods without annotation endpoints, before the FQDN template",
			cfg: kubernetes.PodConfig{Options: kubernetes.Options{
				FQDNTargetTemplate: fqdn.MustTemplate("{{.Name}}.pairs.example.org:{{.Status.HostIP}}"),
				FQDNTemplate:       fqdn.MustTemplate("{{.Name}}.tmpl.example.org"),
			}},
			objs: objs(
				kubePod("ns", "p1", "n1", false, map[string]string{internalKey: "i.example.org"}, []string{"10.2.0.1"}, func(p *corev1.Pod) { p.Status.HostIP = "10.1.0.1" }),
				kubePod("ns", "p2", "n1", false, map[string]string{ttlKey: "60"}, []string{"10.2.0.2"}, func(p *corev1.Pod) { p.Status.HostIP = "10.1.0.1" }),
				// No host IP yet: the pair is skipped, the FQDN template runs.
				kubePod("ns", "p3", "n1", false, nil, []string{"10.2.0.3"}),
			),
			want: []string{
				"i.example.org 0 IN A  10.2.0.1 ",
				"p2.pairs.example.org 0 IN A  10.1.0.1 ",
				"p3.tmpl.example.org 0 IN A  10.2.0.3 ",
			},
		},
		{
			name: "IgnoreHostnameAnnotation does not apply to pods",
			cfg:  kubernetes.PodConfig{Options: kubernetes.Options{IgnoreHostnameAnnotation: true}},
			objs: objs(kubePod("ns", "p1", "n2", true, map[string]string{hostnameKey: "a.example.org", internalKey: "i.example.org"}, []string{"10.1.0.2"})),
			want: []string{
				"a.example.org 0 IN A  203.0.113.2 ",
				"i.example.org 0 IN A  10.1.0.2 ",
			},
		},
		{
			name: "controller annotation: another controller's pod is skipped",
			objs: objs(
				kubePod("ns", "p1", "n1", false, map[string]string{internalKey: "i1.example.org", "external-dns.kubernetes.io/controller": "dns-controller"}, []string{"10.2.0.1"}),
				kubePod("ns", "p2", "n1", false, map[string]string{internalKey: "i2.example.org", "external-dns.kubernetes.io/controller": "other"}, []string{"10.2.0.2"}),
			),
			want: []string{"i1.example.org 0 IN A  10.2.0.1 "},
		},
		{
			name: "set-identifier and provider-specific annotations are not read",
			objs: objs(kubePod("ns", "p1", "n1", false, map[string]string{
				internalKey: "i.example.org", "external-dns.kubernetes.io/set-identifier": "eu",
				"external-dns.kubernetes.io/cloudflare-proxied": "true",
			}, []string{"10.2.0.1"})),
			want: []string{"i.example.org 0 IN A  10.2.0.1 "},
		},
		{
			name: "annotation filter",
			cfg:  kubernetes.PodConfig{Options: kubernetes.Options{AnnotationFilter: "dns=yes"}},
			objs: objs(
				kubePod("ns", "p1", "n1", false, map[string]string{internalKey: "i1.example.org", "dns": "yes"}, []string{"10.2.0.1"}),
				kubePod("ns", "p2", "n1", false, map[string]string{internalKey: "i2.example.org"}, []string{"10.2.0.2"}),
			),
			want: []string{"i1.example.org 0 IN A  10.2.0.1 "},
		},
		{
			name: "label selector",
			cfg:  kubernetes.PodConfig{Options: kubernetes.Options{LabelSelector: "app in (web)"}},
			objs: objs(
				kubePod("ns", "p1", "n1", false, map[string]string{internalKey: "i1.example.org"}, []string{"10.2.0.1"}, podLabels(map[string]string{"app": "web"})),
				kubePod("ns", "p2", "n1", false, map[string]string{internalKey: "i2.example.org"}, []string{"10.2.0.2"}, podLabels(map[string]string{"app": "db"})),
			),
			want: []string{"i1.example.org 0 IN A  10.2.0.1 "},
		},
		{
			name: "namespace; the node of a pod is found all the same",
			cfg:  kubernetes.PodConfig{Options: kubernetes.Options{Namespace: "kube-system"}},
			objs: objs(
				kubePod("kube-system", "p1", "n2", true, map[string]string{hostnameKey: "a.example.org"}, []string{"10.1.0.2"}),
				kubePod("default", "p2", "n1", true, map[string]string{hostnameKey: "b.example.org"}, []string{"10.1.0.1"}),
			),
			want: []string{"a.example.org 0 IN A  203.0.113.2 "},
		},
		{
			name: "invalid annotations fail the pod, the others are published",
			objs: objs(
				kubePod("ns", "bad-ttl", "n1", false, map[string]string{internalKey: "i1.example.org", ttlKey: "forever"}, []string{"10.2.0.1"}),
				kubePod("ns", "bad-name", "n1", false, map[string]string{internalKey: strings.Repeat("a", 64) + ".example.org"}, []string{"10.2.0.2"}),
				kubePod("ns", "good", "n1", false, map[string]string{internalKey: "i3.example.org"}, []string{"10.2.0.3"}),
			),
			want: []string{"i3.example.org 0 IN A  10.2.0.3 "},
			failed: map[string]string{
				"pod/ns/bad-ttl":  `Pod ns/bad-ttl: annotation external-dns.kubernetes.io/ttl="forever"`,
				"pod/ns/bad-name": "Pod ns/bad-name: annotation " + internalKey,
			},
		},
		{
			name: "pod-source-domain name with a label over 63 octets fails the pod",
			cfg:  kubernetes.PodConfig{PodSourceDomain: "pods.example.org"},
			objs: objs(kubePod("ns", strings.Repeat("p", 64), "n1", false, nil, []string{"10.2.0.1"})),
			want: []string{},
			failed: map[string]string{
				"pod/ns/" + strings.Repeat("p", 64): "Pod ns/" + strings.Repeat("p", 64),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := kubernetes.NewPodSource(ctx, fake.NewClientset(tt.objs...), tt.cfg)
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

// TestPodSourceSortedOutput checks the order of the endpoints themselves
// (TestPodSource compares sorted renderings).
func TestPodSourceSortedOutput(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(
		kubePod("ns", "p1", "", false, map[string]string{internalKey: "z.example.org,a.example.org"}, []string{"fd00::1"}),
		kubePod("ns", "p2", "", false, map[string]string{internalKey: "m.example.org,a.example.org"}, []string{"10.2.0.2"}),
	)
	src, err := kubernetes.NewPodSource(ctx, client, kubernetes.PodConfig{})
	require.NoError(t, err)
	started(t, ctx, src)
	eps, err := src.Endpoints(ctx)
	require.NoError(t, err)
	var got []string
	for _, ep := range eps {
		got = append(got, ep.DNSName+" "+ep.RecordType)
	}
	assert.Equal(t, []string{"a.example.org A", "a.example.org AAAA", "m.example.org A", "z.example.org AAAA"}, got)
}

func TestPodSourceEventsAndReadiness(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(kubeNode("n1", nil, []corev1.NodeAddress{extIP("203.0.113.1")}))
	src, err := kubernetes.NewPodSource(ctx, client, kubernetes.PodConfig{})
	require.NoError(t, err)
	assert.Equal(t, "pod", src.String())
	calls := started(t, ctx, src)
	assert.True(t, src.HasSynced())

	p := kubePod("ns", "p1", "n1", true, map[string]string{hostnameKey: "a.example.org"}, []string{"10.1.0.1"})
	_, err = client.CoreV1().Pods("ns").Create(ctx, p, metav1.CreateOptions{})
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() >= 1 })
	eventually(t, func() bool { eps, _ := src.Endpoints(ctx); return len(eps) == 1 })

	// A change of the node's address is an event too, and is published.
	n := kubeNode("n1", nil, []corev1.NodeAddress{extIP("203.0.113.9")})
	n.ResourceVersion = "2"
	before := calls.Load()
	_, err = client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() > before })
	eventually(t, func() bool {
		eps, _ := src.Endpoints(ctx)
		return len(eps) == 1 && eps[0].Targets[0] == "203.0.113.9"
	})

	before = calls.Load()
	require.NoError(t, client.CoreV1().Pods("ns").Delete(ctx, "p1", metav1.DeleteOptions{}))
	eventually(t, func() bool { return calls.Load() > before })
	eventually(t, func() bool { eps, _ := src.Endpoints(ctx); return len(eps) == 0 })
}

func TestPodSourceSharedFactory(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(
		kubeNode("n1", nil, []corev1.NodeAddress{extIP("203.0.113.1")}),
		kubePod("ns", "p1", "n1", true, map[string]string{hostnameKey: "a.example.org"}, []string{"10.1.0.1"}),
	)
	factory := k8sinformers.NewSharedInformerFactory(client, 0)
	src, err := kubernetes.NewPodSource(ctx, client, kubernetes.PodConfig{Factory: factory})
	require.NoError(t, err)
	assert.False(t, src.HasSynced(), "a user factory is not started by the source")
	// A second source with the same filters shares the informer and index.
	_, err = kubernetes.NewPodSource(ctx, client, kubernetes.PodConfig{Factory: factory})
	require.NoError(t, err)
	factory.Start(ctx.Done())
	require.NoError(t, src.WaitForSync(ctx))
	eps, err := src.Endpoints(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.example.org 0 IN A  203.0.113.1 "}, render(eps))
}

func TestPodSourceBadConfig(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	_, err := kubernetes.NewPodSource(ctx, client, kubernetes.PodConfig{Options: kubernetes.Options{AnnotationFilter: "a in (("}})
	require.ErrorContains(t, err, "pod source: annotation filter")
	_, err = kubernetes.NewPodSource(ctx, client, kubernetes.PodConfig{Options: kubernetes.Options{LabelSelector: "!!"}})
	require.ErrorContains(t, err, "pod source: label selector")
}
