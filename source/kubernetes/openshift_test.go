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

// routeIngress is one status.ingress entry of a Route; admitted is the
// status of its Admitted condition, "" for none.
func routeIngress(router, host, canonical, admitted string) map[string]any {
	e := map[string]any{"routerName": router, "host": host}
	if canonical != "" {
		e["routerCanonicalHostname"] = canonical
	}
	if admitted != "" {
		e["conditions"] = []any{map[string]any{"type": "Admitted", "status": admitted}}
	}
	return e
}

func route(ns, name string, ann map[string]string, host string, ingresses ...any) *unstructured.Unstructured {
	return obj("route.openshift.io/v1", "Route", ns, name, ann, map[string]any{
		"spec":   map[string]any{"host": host, "to": map[string]any{"kind": "Service", "name": name}},
		"status": map[string]any{"ingress": ingresses},
	})
}

func TestOpenShiftRouteSource(t *testing.T) {
	routes := []*unstructured.Unstructured{
		route("app", "web", nil, "web.apps.example.com",
			routeIngress("default", "web.apps.example.com", "router-default.apps.example.com", "True")),
		// Only the shard router admitted it; default refused it.
		route("app", "sharded", nil, "shard.apps.example.com",
			routeIngress("default", "shard.apps.example.com", "router-default.apps.example.com", "False"),
			routeIngress("shard", "shard.apps.example.com", "router-shard.apps.example.com", "True")),
		// Both routers admitted it: the first wins unless a router is named.
		route("app", "both", nil, "both.apps.example.com",
			routeIngress("default", "both.apps.example.com", "router-default.apps.example.com", "True"),
			routeIngress("shard", "both.apps.example.com", "router-shard.apps.example.com", "True")),
		route("app", "pending", nil, "pending.apps.example.com"),
		route("app", "no-condition", nil, "nc.apps.example.com",
			routeIngress("default", "nc.apps.example.com", "router-default.apps.example.com", "")),
		route("app", "no-canonical", nil, "ncn.apps.example.com",
			routeIngress("default", "ncn.apps.example.com", "", "True")),
		route("app", "annotated", map[string]string{
			hostnameKey:                         "alias.example.com",
			"external-dns.kubernetes.io/target": "192.0.2.8",
			"external-dns.kubernetes.io/ttl":    "1m",
		}, "annotated.apps.example.com",
			routeIngress("default", "annotated.apps.example.com", "router-default.apps.example.com", "True")),
		route("app", "pending-annotated", map[string]string{
			hostnameKey:                         "pa.example.com",
			"external-dns.kubernetes.io/target": "192.0.2.9",
		}, "pa.apps.example.com"),
	}
	tests := []struct {
		name   string
		cfg    kubernetes.OpenShiftRouteConfig
		extra  []*unstructured.Unstructured
		want   []string
		failed []string
	}{
		{
			name: "first admitting router",
			want: []string{
				"alias.example.com 60 IN A  192.0.2.8 route/app/annotated",
				"annotated.apps.example.com 60 IN A  192.0.2.8 route/app/annotated",
				"both.apps.example.com 0 IN CNAME  router-default.apps.example.com route/app/both",
				"pa.example.com 0 IN A  192.0.2.9 route/app/pending-annotated",
				"shard.apps.example.com 0 IN CNAME  router-shard.apps.example.com route/app/sharded",
				"web.apps.example.com 0 IN CNAME  router-default.apps.example.com route/app/web",
			},
		},
		{
			name: "named router",
			cfg:  kubernetes.OpenShiftRouteConfig{RouterName: "shard"},
			want: []string{
				"alias.example.com 60 IN A  192.0.2.8 route/app/annotated",
				"both.apps.example.com 0 IN CNAME  router-shard.apps.example.com route/app/both",
				"pa.example.com 0 IN A  192.0.2.9 route/app/pending-annotated",
				"shard.apps.example.com 0 IN CNAME  router-shard.apps.example.com route/app/sharded",
			},
		},
		{
			name: "template for routes without an admitted host",
			cfg: kubernetes.OpenShiftRouteConfig{Options: kubernetes.Options{
				LabelSelector: "dns=yes",
				FQDNTemplate:  fqdn.MustTemplate("{{.metadata.name}}.tmpl.example.com"),
			}},
			extra: []*unstructured.Unstructured{
				withLabels(route("app", "tmpl-admitted", nil, "", routeIngress("default", "", "router-default.apps.example.com", "True")), "dns", "yes"),
				withLabels(route("app", "tmpl-pending", nil, "x.apps.example.com"), "dns", "yes"),
			},
			want: []string{"tmpl-admitted.tmpl.example.com 0 IN CNAME  router-default.apps.example.com route/app/tmpl-admitted"},
		},
		{
			name: "malformed status",
			cfg:  kubernetes.OpenShiftRouteConfig{Options: kubernetes.Options{LabelSelector: "dns=yes"}},
			extra: []*unstructured.Unstructured{
				withLabels(route("app", "not-object", nil, "a.example.com", "router"), "dns", "yes"),
				withLabels(route("app", "bad-host", nil, "a.example.com", routeIngress("default", "bad..example.com", "router.example.com", "True")), "dns", "yes"),
				withLabels(route("app", "bad-conditions", nil, "a.example.com", map[string]any{"host": "a.example.com", "conditions": "Admitted"}), "dns", "yes"),
				withLabels(route("app", "ok", nil, "ok.example.com", routeIngress("default", "ok.example.com", "router.example.com", "True")), "dns", "yes"),
			},
			want:   []string{"ok.example.com 0 IN CNAME  router.example.com route/app/ok"},
			failed: []string{"route/app/bad-conditions", "route/app/bad-host", "route/app/not-object"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var objs []*unstructured.Unstructured
			for _, r := range append(routes, tt.extra...) {
				objs = append(objs, r.DeepCopy())
			}
			src, err := kubernetes.NewOpenShiftRouteSource(ctx, crdClient(t, objs...), tt.cfg)
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

// TestOpenShiftRouteAdmission: a Route is published once a router admits
// it, and the error for a bad status names the field.
func TestOpenShiftRouteAdmission(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dyn := crdClient(t,
		route("app", "web", nil, "web.apps.example.com"),
		route("app", "bad", nil, "a.example.com", routeIngress("default", "bad..example.com", "router.example.com", "True")),
	)
	src, err := kubernetes.NewOpenShiftRouteSource(ctx, dyn, kubernetes.OpenShiftRouteConfig{})
	require.NoError(t, err)
	calls := started(t, ctx, src)
	eps, err := src.Endpoints(ctx)
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	assert.ErrorContains(t, pe.Failed["route/app/bad"], `Route app/bad: status.ingress[0].host: DNS name "bad..example.com"`)
	assert.Empty(t, eps)

	admitted := route("app", "web", nil, "web.apps.example.com",
		routeIngress("default", "web.apps.example.com", "router-default.apps.example.com", "True"))
	admitted.SetResourceVersion("2")
	_, err = dyn.Resource(kubernetes.OpenShiftRouteGVR).Namespace("app").Update(ctx, admitted, metav1.UpdateOptions{})
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() >= 1 })
	eventually(t, func() bool {
		eps, _ := src.Endpoints(ctx)
		return len(eps) == 1 && eps[0].DNSName == "web.apps.example.com"
	})
}
