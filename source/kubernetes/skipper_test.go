package kubernetes_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

func routeGroup(ns, name string, ann map[string]string, hosts []any, lb ...any) *unstructured.Unstructured {
	return obj("zalando.org/v1", "RouteGroup", ns, name, ann, map[string]any{
		"spec":   map[string]any{"hosts": hosts, "backends": []any{map[string]any{"name": "app", "type": "service"}}},
		"status": map[string]any{"loadBalancer": map[string]any{"routeGroup": lb}},
	})
}

func TestSkipperRouteGroupSource(t *testing.T) {
	lbIP := map[string]any{"ip": "192.0.2.70"}
	lbHost := map[string]any{"hostname": "skipper-lb.example.net"}
	tests := []struct {
		name   string
		cfg    kubernetes.SkipperRouteGroupConfig
		objs   []*unstructured.Unstructured
		want   []string
		failed []string
	}{
		{
			name: "hosts and hostname annotation point at status.loadBalancer.routeGroup",
			objs: []*unstructured.Unstructured{
				routeGroup("web", "shop", map[string]string{hostnameKey: "shop-alias.example.com"}, []any{"shop.example.com", ""}, lbIP, lbHost),
				// status.loadBalancer.ingress is the Ingress field, not the
				// RouteGroup's: it is not read.
				obj("zalando.org/v1", "RouteGroup", "web", "ingress-status", nil, map[string]any{
					"spec":   map[string]any{"hosts": []any{"ignored.example.com"}},
					"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{lbIP}}},
				}),
			},
			want: []string{
				"shop-alias.example.com 0 IN A  192.0.2.70 routegroup/web/shop",
				"shop-alias.example.com 0 IN CNAME  skipper-lb.example.net routegroup/web/shop",
				"shop.example.com 0 IN A  192.0.2.70 routegroup/web/shop",
				"shop.example.com 0 IN CNAME  skipper-lb.example.net routegroup/web/shop",
			},
		},
		{
			name: "target annotation, set identifier, controller",
			objs: []*unstructured.Unstructured{
				routeGroup("web", "pinned", map[string]string{
					"external-dns.kubernetes.io/target":         "pinned-lb.example.net",
					"external-dns.kubernetes.io/set-identifier": "a",
				}, []any{"pinned.example.com"}, lbIP),
				routeGroup("web", "theirs", map[string]string{"external-dns.kubernetes.io/controller": "x"}, []any{"theirs.example.com"}, lbIP),
				routeGroup("web", "pending", nil, []any{"pending.example.com"}),
			},
			want: []string{"pinned.example.com 0 IN CNAME a pinned-lb.example.net routegroup/web/pinned"},
		},
		{
			name: "namespace, annotation filter, template, combine",
			cfg: kubernetes.SkipperRouteGroupConfig{Options: kubernetes.Options{
				Namespace:        "web",
				AnnotationFilter: "dns",
				FQDNTemplate:     fqdn.MustTemplate("{{.metadata.name}}.rg.example.com"),
				CombineFQDN:      true,
			}},
			objs: []*unstructured.Unstructured{
				routeGroup("web", "in", map[string]string{"dns": ""}, []any{"in.example.com"}, lbIP),
				routeGroup("web", "unmarked", nil, []any{"unmarked.example.com"}, lbIP),
				routeGroup("api", "other-ns", map[string]string{"dns": ""}, []any{"other.example.com"}, lbIP),
			},
			want: []string{
				"in.example.com 0 IN A  192.0.2.70 routegroup/web/in",
				"in.rg.example.com 0 IN A  192.0.2.70 routegroup/web/in",
			},
		},
		{
			name: "malformed",
			objs: []*unstructured.Unstructured{
				routeGroup("web", "bad-host", nil, []any{"a..example.com"}, lbIP),
				routeGroup("web", "hosts-not-strings", nil, []any{map[string]any{"host": "a.example.com"}}, lbIP),
				routeGroup("web", "ip-not-string", nil, []any{"b.example.com"}, map[string]any{"ip": int64(3)}),
				routeGroup("web", "bad-annotation", map[string]string{hostnameKey: "bad..example.com"}, []any{"c.example.com"}, lbIP),
			},
			failed: []string{"routegroup/web/bad-annotation", "routegroup/web/bad-host", "routegroup/web/hosts-not-strings", "routegroup/web/ip-not-string"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := kubernetes.NewSkipperRouteGroupSource(ctx, crdClient(t, tt.objs...), tt.cfg)
			require.NoError(t, err)
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			assert.Equal(t, tt.failed, failedKeys(t, err))
			if tt.failed != nil {
				var pe *source.PartialError
				require.ErrorAs(t, err, &pe)
				assert.ErrorContains(t, pe.Failed["routegroup/web/ip-not-string"], "RouteGroup web/ip-not-string: status.loadBalancer.routeGroup[0].ip: ")
				assert.ErrorContains(t, pe.Failed["routegroup/web/bad-host"], "RouteGroup web/bad-host: spec.hosts[0]: ")
			}
			if tt.want == nil {
				tt.want = []string{}
			}
			assert.Equal(t, tt.want, render(eps))
		})
	}
}

// TestSkipperRouteGroupEvents: RouteGroups are watched (external-dns polls
// them), and a custom group version is read through GVR.
func TestSkipperRouteGroupEvents(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dyn := crdClient(t)
	src, err := kubernetes.NewSkipperRouteGroupSource(ctx, dyn, kubernetes.SkipperRouteGroupConfig{GVR: kubernetes.SkipperRouteGroupGVR})
	require.NoError(t, err)
	calls := started(t, ctx, src)
	eps, err := src.Endpoints(ctx)
	require.NoError(t, err)
	assert.Empty(t, eps)
	_, err = dyn.Resource(kubernetes.SkipperRouteGroupGVR).Namespace("web").Create(ctx,
		routeGroup("web", "new", nil, []any{"new.example.com"}, map[string]any{"ip": "192.0.2.71"}), metav1.CreateOptions{})
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() >= 1 })
	eventually(t, func() bool {
		eps, _ := src.Endpoints(ctx)
		return len(eps) == 1 && eps[0].DNSName == "new.example.com"
	})
}
