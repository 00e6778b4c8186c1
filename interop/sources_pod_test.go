package interop

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// podDiff is the pod source under differential test.
func podDiff() sourceDiff {
	return sourceDiff{
		Name: xtypes.Pod,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			tmpl, err := s.zonesyncTemplate()
			if err != nil {
				return nil, err
			}
			client, _ := c.KubeClient()
			return kubernetes.NewPodSource(ctx, client, kubernetes.PodConfig{
				Options:                  s.zonesyncOptions(tmpl),
				PodSourceDomain:          s.PodSourceDomain,
				IgnoreNonHostNetworkPods: s.IgnoreNonHostNetworkPods,
			})
		},
		Rules: podRules(),
	}
}

// podRules are the known differences of the pod source.
func podRules() []sourceRule {
	return []sourceRule{{
		Name: "pod-without-ip-empty-cname",
		Reason: "deliberate: for a Pod without a pod IP yet, external-dns publishes its internal-hostname and " +
			"pod-source-domain names as a CNAME with an empty target; zonesync publishes nothing for them " +
			"until the Pod has an IP (PodSource documents it)",
		Match: func(d disagreement) bool {
			return d.Only == externalDNSOnly && d.Record.Type == "CNAME" && d.Record.Targets == ""
		},
	}}
}

// podNodes are the cluster's nodes in every pod run: the hostname
// annotation's names point at a node's ExternalIP and IPv6 InternalIP
// addresses.
func podNodes() []runtime.Object {
	node := func(name string, addrs ...corev1.NodeAddress) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Addresses: addrs}}
	}
	return []runtime.Object{
		node("node1", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.1"}),
		node("node2", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.2"}, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "fd00::2"},
			corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "2001:db8::2"}),
		node("node3", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.3"}),
	}
}

// pods draws n Pods: host network or not, pod IPs of one or both
// families (or none yet), on a known node, an unknown one or none, with
// the generator's annotations and sometimes internal-hostname.
func (g *gen) pods(n int) []runtime.Object {
	objs := podNodes()
	for range n {
		m := g.meta("pod")
		validPodAnnotations(m.Annotations)
		pod := &corev1.Pod{ObjectMeta: m}
		if g.chance(4) {
			m.Annotations["external-dns.kubernetes.io/internal-hostname"] = pick(g.r, "int-"+m.Name+".example.com", "int-"+m.Name+".example.com,int2-"+m.Name+".example.com")
		}
		pod.Spec.HostNetwork = g.chance(2)
		switch g.r.IntN(6) {
		case 0:
			// not scheduled
		case 1:
			pod.Spec.NodeName = "node9"
		default:
			pod.Spec.NodeName = pick(g.r, "node1", "node2", "node3")
		}
		v4 := fmt.Sprintf("10.244.%d.%d", g.n/250, g.n%250)
		v6 := fmt.Sprintf("fd00:244::%x", g.n)
		if pod.Spec.NodeName != "" {
			switch g.r.IntN(6) {
			case 0:
				// no IP yet
			case 1:
				pod.Status.PodIP = v6
				pod.Status.PodIPs = []corev1.PodIP{{IP: v6}}
			case 2:
				pod.Status.PodIP = v4
				pod.Status.PodIPs = []corev1.PodIP{{IP: v4}, {IP: v6}}
			default:
				pod.Status.PodIP = v4
				pod.Status.PodIPs = []corev1.PodIP{{IP: v4}}
			}
		}
		objs = append(objs, pod)
	}
	return objs
}

// validPodAnnotations replaces the annotation values zonesync refuses (a
// TTL outside 1..2147483647 or not a number, a host name that is not a DNS
// name) with valid ones: neither source labels a Pod's endpoints with
// their resource, so the records of a refused Pod could not be traced back
// to it and judged by the common rules (the other sources cover them).
func validPodAnnotations(anns map[string]string) {
	for k, v := range anns {
		switch {
		case strings.HasSuffix(k, "/ttl"):
			if n, err := strconv.ParseInt(v, 10, 64); err != nil || n < 1 || n > math.MaxInt32 {
				anns[k] = "120"
			}
		case strings.HasSuffix(k, "hostname"):
			anns[k] = strings.ReplaceAll(v, "bad_host!", "good-host-")
		}
	}
}

func TestPodSourceAgreement(t *testing.T) {
	sd := podDiff()
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			if g.chance(2) {
				s.PodSourceDomain = "pods.example.com"
			}
			s.IgnoreNonHostNetworkPods = g.chance(3)
			sd.check(t, g.String(), s, g.pods(150)...)
		})
	}
}

// Hand-written cases: each pod setting and annotation, which must agree
// exactly.
func TestPodSourceCases(t *testing.T) {
	sd := podDiff()
	pod := func(name string, hostNetwork bool, node string, anns map[string]string, ips ...string) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: anns},
			Spec:       corev1.PodSpec{HostNetwork: hostNetwork, NodeName: node},
		}
		for i, ip := range ips {
			if i == 0 {
				p.Status.PodIP = ip
			}
			p.Status.PodIPs = append(p.Status.PodIPs, corev1.PodIP{IP: ip})
		}
		return p
	}
	withNodes := func(objs ...runtime.Object) []runtime.Object { return append(podNodes(), objs...) }
	hostname := func(h string) map[string]string { return map[string]string{"external-dns.kubernetes.io/hostname": h} }
	for _, tc := range []struct {
		name string
		s    sourceSettings
		objs []runtime.Object
		want int // records on both sides
	}{{
		name: "hostname: node external and internal IPv6 addresses",
		objs: withNodes(pod("a", true, "node2", hostname("a.example.com"), "10.0.0.2")),
		want: 1, // AAAA 2001:db8::2 fd00::2
	}, {
		name: "hostname on a pod network Pod",
		objs: withNodes(pod("a", false, "node1", hostname("a.example.com"), "10.244.0.1")),
		want: 1,
	}, {
		name: "internal-hostname points at the pod IP",
		objs: withNodes(pod("a", false, "node1", map[string]string{"external-dns.kubernetes.io/internal-hostname": "a.internal.example.com"}, "10.244.0.1")),
		want: 1,
	}, {
		name: "target annotation replaces both",
		objs: withNodes(pod("a", true, "node1", map[string]string{
			"external-dns.kubernetes.io/hostname": "a.example.com", "external-dns.kubernetes.io/internal-hostname": "a.internal.example.com",
			"external-dns.kubernetes.io/target": "192.0.2.7",
		}, "10.244.0.1")),
		want: 2,
	}, {
		name: "PodSourceDomain",
		s:    sourceSettings{PodSourceDomain: "pods.example.com"},
		objs: withNodes(pod("a", false, "node1", nil, "10.244.0.1"), pod("b", true, "node3", nil, "10.0.0.3")),
		want: 2,
	}, {
		name: "IgnoreNonHostNetworkPods",
		s:    sourceSettings{IgnoreNonHostNetworkPods: true, PodSourceDomain: "pods.example.com"},
		objs: withNodes(pod("a", false, "node1", hostname("a.example.com"), "10.244.0.1"), pod("b", true, "node1", hostname("b.example.com"), "10.0.0.1")),
		want: 2, // b.example.com, b.pods.example.com
	}, {
		name: "FQDN template over all pod IPs",
		s:    sourceSettings{FQDNTemplate: "{{.Name}}.tmpl.example.com"},
		objs: withNodes(pod("a", false, "node1", nil, "10.244.0.1", "fd00:244::1")),
		want: 2,
	}, {
		name: "shared name merges the Pods' addresses",
		objs: withNodes(pod("a", true, "node1", hostname("web.example.com"), "10.0.0.1"), pod("b", true, "node2", hostname("web.example.com"), "10.0.0.2")),
		want: 2, // A 203.0.113.1; AAAA 2001:db8::2 fd00::2
	}} {
		t.Run(tc.name, func(t *testing.T) {
			out := sd.check(t, "hand-written", tc.s, tc.objs...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and %d records: %v", tc.want, out.Explained, len(out.Zonesync), sortedRecords(out.Zonesync))
			}
		})
	}
}
