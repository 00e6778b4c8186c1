package kubernetes_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

func ambassadorHost(ns, name string, ann map[string]string, hostname string) *unstructured.Unstructured {
	spec := map[string]any{}
	if hostname != "" {
		spec["hostname"] = hostname
	}
	return obj("getambassador.io/v3alpha1", "Host", ns, name, ann, map[string]any{"spec": spec})
}

func TestAmbassadorHostSource(t *testing.T) {
	const svcKey = kubernetes.AmbassadorServiceAnnotation
	kube := func() *fake.Clientset {
		return fake.NewClientset(
			svc("ambassador", "edge", corev1.ServiceTypeLoadBalancer, nil,
				lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.20"}, corev1.LoadBalancerIngress{Hostname: "edge-lb.example.net"})),
			svc("default", "plain", corev1.ServiceTypeLoadBalancer, nil, lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.21"})),
			svc("ambassador", "fixed", corev1.ServiceTypeLoadBalancer, nil, func(s *corev1.Service) { s.Spec.ExternalIPs = []string{"198.51.100.7"} },
				lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.22"})),
		)
	}
	tests := []struct {
		name   string
		cfg    kubernetes.AmbassadorHostConfig
		hosts  []*unstructured.Unstructured
		want   []string
		failed []string
	}{
		{
			name: "the three forms of the service annotation",
			hosts: []*unstructured.Unstructured{
				ambassadorHost("app", "slash", map[string]string{svcKey: "ambassador/edge"}, "slash.example.com"),
				ambassadorHost("app", "dotted", map[string]string{svcKey: "edge.ambassador"}, "dotted.example.com"),
				ambassadorHost("app", "bare", map[string]string{svcKey: "plain"}, "bare.example.com"),
				ambassadorHost("app", "external-ips", map[string]string{svcKey: "ambassador/fixed"}, "fixed.example.com"),
			},
			want: []string{
				"bare.example.com 0 IN A  192.0.2.21 host/app/bare",
				"dotted.example.com 0 IN A  192.0.2.20 host/app/dotted",
				"dotted.example.com 0 IN CNAME  edge-lb.example.net host/app/dotted",
				"fixed.example.com 0 IN A  198.51.100.7 host/app/external-ips",
				"slash.example.com 0 IN A  192.0.2.20 host/app/slash",
				"slash.example.com 0 IN CNAME  edge-lb.example.net host/app/slash",
			},
		},
		{
			name: "no service annotation, unknown service, no hostname",
			hosts: []*unstructured.Unstructured{
				ambassadorHost("app", "unannotated", map[string]string{"external-dns.kubernetes.io/target": "192.0.2.1"}, "u.example.com"),
				ambassadorHost("app", "unknown", map[string]string{svcKey: "ambassador/absent"}, "absent.example.com"),
				ambassadorHost("app", "nameless", map[string]string{svcKey: "ambassador/edge"}, ""),
			},
		},
		{
			name: "annotations: target wins over the service, hostname, ttl, set identifier, controller",
			hosts: []*unstructured.Unstructured{
				ambassadorHost("app", "target", map[string]string{
					svcKey:                              "ambassador/edge",
					"external-dns.kubernetes.io/target": "override.example.net",
					"external-dns.kubernetes.io/ttl":    "300",
				}, "target.example.com"),
				// With a target, the service reference is not read.
				ambassadorHost("app", "target-bad-ref", map[string]string{
					svcKey:                              "a/b/c",
					"external-dns.kubernetes.io/target": "192.0.2.30",
				}, "tbr.example.com"),
				ambassadorHost("app", "named", map[string]string{
					svcKey:      "ambassador/edge",
					hostnameKey: "extra.example.com",
					"external-dns.kubernetes.io/set-identifier": "blue",
				}, "named.example.com"),
				ambassadorHost("app", "other", map[string]string{svcKey: "ambassador/edge", "external-dns.kubernetes.io/controller": "other"}, "other.example.com"),
			},
			want: []string{
				"extra.example.com 0 IN A blue 192.0.2.20 host/app/named",
				"extra.example.com 0 IN CNAME blue edge-lb.example.net host/app/named",
				"named.example.com 0 IN A blue 192.0.2.20 host/app/named",
				"named.example.com 0 IN CNAME blue edge-lb.example.net host/app/named",
				"target.example.com 300 IN CNAME  override.example.net host/app/target",
				"tbr.example.com 0 IN A  192.0.2.30 host/app/target-bad-ref",
			},
		},
		{
			name: "filters",
			cfg:  kubernetes.AmbassadorHostConfig{Options: kubernetes.Options{Namespace: "app", AnnotationFilter: "dns=public"}},
			hosts: []*unstructured.Unstructured{
				ambassadorHost("app", "in", map[string]string{svcKey: "ambassador/edge", "dns": "public"}, "in.example.com"),
				ambassadorHost("app", "out", map[string]string{svcKey: "ambassador/edge", "dns": "private"}, "out.example.com"),
				ambassadorHost("shop", "elsewhere", map[string]string{svcKey: "ambassador/edge", "dns": "public"}, "elsewhere.example.com"),
			},
			want: []string{
				"in.example.com 0 IN A  192.0.2.20 host/app/in",
				"in.example.com 0 IN CNAME  edge-lb.example.net host/app/in",
			},
		},
		{
			name: "malformed",
			hosts: []*unstructured.Unstructured{
				ambassadorHost("app", "bad-ref", map[string]string{svcKey: "a/b/c"}, "a.example.com"),
				ambassadorHost("app", "empty-ref", map[string]string{svcKey: ""}, "b.example.com"),
				ambassadorHost("app", "bad-hostname", map[string]string{svcKey: "ambassador/edge"}, "-bad-.example..com"),
				ambassadorHost("app", "bad-ttl", map[string]string{svcKey: "ambassador/edge", "external-dns.kubernetes.io/ttl": "x"}, "c.example.com"),
				obj("getambassador.io/v3alpha1", "Host", "app", "hostname-not-string", map[string]string{svcKey: "ambassador/edge"},
					map[string]any{"spec": map[string]any{"hostname": []any{"d.example.com"}}}),
			},
			failed: []string{"host/app/bad-hostname", "host/app/bad-ref", "host/app/bad-ttl", "host/app/empty-ref", "host/app/hostname-not-string"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := kubernetes.NewAmbassadorHostSource(ctx, kube(), crdClient(t, tt.hosts...), tt.cfg)
			require.NoError(t, err)
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			assert.Equal(t, tt.failed, failedKeys(t, err))
			if tt.want == nil {
				tt.want = []string{}
			}
			assert.Equal(t, tt.want, render(eps))
		})
	}
}

// TestAmbassadorHostServiceEvents: a change of the load balancer Service
// is an event and changes the targets; the error for a bad reference
// names the annotation.
func TestAmbassadorHostServiceEvents(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kube := fake.NewClientset()
	dyn := crdClient(t,
		ambassadorHost("app", "web", map[string]string{kubernetes.AmbassadorServiceAnnotation: "edge.ambassador"}, "web.example.com"),
		ambassadorHost("app", "bad", map[string]string{kubernetes.AmbassadorServiceAnnotation: "x/"}, "bad.example.com"),
	)
	src, err := kubernetes.NewAmbassadorHostSource(ctx, kube, dyn, kubernetes.AmbassadorHostConfig{})
	require.NoError(t, err)
	calls := started(t, ctx, src)
	eps, err := src.Endpoints(ctx)
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	assert.EqualError(t, pe.Failed["host/app/bad"],
		`Host app/bad: annotation external-dns.ambassador-service: "x/" is neither "name", "name.namespace" nor "namespace/name"`)
	assert.Empty(t, eps)

	_, err = kube.CoreV1().Services("ambassador").Create(ctx, svc("ambassador", "edge", corev1.ServiceTypeLoadBalancer, nil,
		lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.40"})), metav1.CreateOptions{})
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() >= 1 })
	eventually(t, func() bool {
		eps, _ := src.Endpoints(ctx)
		return len(render(eps)) == 1 && render(eps)[0] == "web.example.com 0 IN A  192.0.2.40 host/app/web"
	})
}
