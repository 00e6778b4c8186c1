package kubernetes_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// crd2Resources are the resources of the Traefik, Gloo and F5 sources,
// with their list kinds.
var crd2Resources = map[schema.GroupVersionResource]string{
	kubernetes.TraefikIngressRouteGVR:          "IngressRouteList",
	kubernetes.TraefikIngressRouteTCPGVR:       "IngressRouteTCPList",
	kubernetes.TraefikIngressRouteUDPGVR:       "IngressRouteUDPList",
	kubernetes.TraefikLegacyIngressRouteGVR:    "IngressRouteList",
	kubernetes.TraefikLegacyIngressRouteTCPGVR: "IngressRouteTCPList",
	kubernetes.TraefikLegacyIngressRouteUDPGVR: "IngressRouteUDPList",
	kubernetes.GlooProxyGVR:                    "ProxyList",
	kubernetes.GlooVirtualServiceGVR:           "VirtualServiceList",
	kubernetes.GlooGatewayGVR:                  "GatewayList",
	kubernetes.F5VirtualServerGVR:              "VirtualServerList",
	kubernetes.F5TransportServerGVR:            "TransportServerList",
}

// crd2Client returns a dynamic fake serving crd2Resources and holding
// objs, each created under the resource of its apiVersion and kind.
func crd2Client(objs ...*unstructured.Unstructured) *dynamicfake.FakeDynamicClient {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), crd2Resources)
	for _, o := range objs {
		created := false
		for gvr, list := range crd2Resources {
			if gvr.GroupVersion().String() == o.GetAPIVersion() && list == o.GetKind()+"List" {
				if err := client.Tracker().Create(gvr, o, o.GetNamespace()); err != nil {
					panic(err)
				}
				created = true
			}
		}
		if !created {
			panic("no resource for " + o.GetAPIVersion() + " " + o.GetKind())
		}
	}
	return client
}

// router returns a Traefik router of the given group and kind whose
// routes match the given rules.
func router(group, kind, ns, name string, ann map[string]string, rules ...string) *unstructured.Unstructured {
	var routes []any
	for _, r := range rules {
		routes = append(routes, map[string]any{"match": r, "kind": "Rule"})
	}
	return obj(group+"/v1alpha1", kind, ns, name, ann, map[string]any{"spec": map[string]any{"routes": routes}})
}

func TestTraefikProxySource(t *testing.T) {
	const io, containo = "traefik.io", "traefik.containo.us"
	lb := map[string]string{targetKey: "lb.example.net"}
	objs := []*unstructured.Unstructured{
		router(io, "IngressRoute", "web", "site", map[string]string{targetKey: "192.0.2.1,2001:db8::1", "external-dns.kubernetes.io/ttl": "60"},
			"Host(`www.example.com`) && PathPrefix(`/`)", "Host(`a.example.com`, `b.example.com`) || Host(`*`)"),
		router(io, "IngressRoute", "web", "no-target", nil, "Host(`quiet.example.com`)"),
		router(io, "IngressRoute", "web", "annotated", map[string]string{targetKey: "lb.example.net", hostnameKey: "extra.example.com",
			"external-dns.kubernetes.io/set-identifier": "eu", "external-dns.kubernetes.io/aws-weight": "10"}, "HostHeader(`hh.example.com`)"),
		router(io, "IngressRouteTCP", "web", "db", lb, "HostSNI(`db.example.com`)", "HostSNI(`*`)"),
		obj(io+"/v1alpha1", "IngressRouteUDP", "web", "dns", map[string]string{targetKey: "192.0.2.53", hostnameKey: "udp.example.com"}, map[string]any{"spec": map[string]any{}}),
		router(containo, "IngressRoute", "old", "legacy", lb, "Host(`legacy.example.com`)"),
		router(containo, "IngressRouteTCP", "old", "legacy-tcp", lb, "HostSNI(`legacy-tcp.example.com`)"),
		obj(containo+"/v1alpha1", "IngressRouteUDP", "old", "legacy-udp", map[string]string{targetKey: "192.0.2.54", hostnameKey: "legacy-udp.example.com"}, nil),
		router(io, "IngressRoute", "web", "other-controller", map[string]string{targetKey: "192.0.2.9", "external-dns.kubernetes.io/controller": "someone-else"}, "Host(`other.example.com`)"),
		router(io, "IngressRoute", "web", "bad-ttl", map[string]string{targetKey: "192.0.2.9", "external-dns.kubernetes.io/ttl": "forever"}, "Host(`ttl.example.com`)"),
		router(io, "IngressRoute", "web", "bad-rule", lb, "Host(`broken.example.com) || Path(`/x`)"),
		obj(io+"/v1alpha1", "IngressRoute", "web", "bad-routes", lb, map[string]any{"spec": map[string]any{"routes": []any{"Host(`x`)"}}}),
	}
	newRoutes := []string{
		"a.example.com 60 IN A  192.0.2.1 ingressroute/web/site",
		"a.example.com 60 IN AAAA  2001:db8::1 ingressroute/web/site",
		"b.example.com 60 IN A  192.0.2.1 ingressroute/web/site",
		"b.example.com 60 IN AAAA  2001:db8::1 ingressroute/web/site",
		"db.example.com 0 IN CNAME  lb.example.net ingressroutetcp/web/db",
		"extra.example.com 0 IN CNAME eu lb.example.net [{aws/weight 10}] ingressroute/web/annotated",
		"hh.example.com 0 IN CNAME eu lb.example.net [{aws/weight 10}] ingressroute/web/annotated",
		"udp.example.com 0 IN A  192.0.2.53 ingressrouteudp/web/dns",
		"www.example.com 60 IN A  192.0.2.1 ingressroute/web/site",
		"www.example.com 60 IN AAAA  2001:db8::1 ingressroute/web/site",
	}
	legacyRoutes := []string{
		"legacy-tcp.example.com 0 IN CNAME  lb.example.net ingressroutetcp/old/legacy-tcp",
		"legacy-udp.example.com 0 IN A  192.0.2.54 ingressrouteudp/old/legacy-udp",
		"legacy.example.com 0 IN CNAME  lb.example.net ingressroute/old/legacy",
	}
	badKeys := []string{"ingressroute/web/bad-ttl", "ingressroute/web/bad-rule", "ingressroute/web/bad-routes"}
	tests := []struct {
		name    string
		cfg     kubernetes.TraefikProxyConfig
		want    []string
		failed  []string
		wantErr string
	}{
		{name: "traefik.io by default", want: newRoutes, failed: badKeys},
		{name: "both groups", cfg: kubernetes.TraefikProxyConfig{EnableLegacy: true}, want: sorted(newRoutes, legacyRoutes), failed: badKeys},
		{name: "legacy only", cfg: kubernetes.TraefikProxyConfig{EnableLegacy: true, DisableNew: true}, want: legacyRoutes},
		{name: "namespace", cfg: kubernetes.TraefikProxyConfig{EnableLegacy: true, Options: kubernetes.Options{Namespace: "old"}}, want: legacyRoutes},
		{
			name: "annotation filter",
			cfg:  kubernetes.TraefikProxyConfig{Options: kubernetes.Options{AnnotationFilter: "external-dns.kubernetes.io/set-identifier=eu"}},
			want: []string{
				"extra.example.com 0 IN CNAME eu lb.example.net [{aws/weight 10}] ingressroute/web/annotated",
				"hh.example.com 0 IN CNAME eu lb.example.net [{aws/weight 10}] ingressroute/web/annotated",
			},
		},
		{
			name: "template for routers without hosts",
			cfg: kubernetes.TraefikProxyConfig{EnableLegacy: true, DisableNew: true, Options: kubernetes.Options{
				Namespace: "old", FQDNTemplate: fqdn.MustTemplate("{{.metadata.name}}.tmpl.example.com")}},
			want: legacyRoutes, // every legacy router has a host
		},
		{
			name: "template combined",
			cfg: kubernetes.TraefikProxyConfig{EnableLegacy: true, DisableNew: true, Options: kubernetes.Options{
				Namespace: "old", CombineFQDN: true, FQDNTemplate: fqdn.MustTemplate("{{.metadata.name}}.tmpl.example.com"),
				TargetTemplate: fqdn.MustTemplate("tmpl-lb.example.net")}},
			want: sorted(legacyRoutes, []string{
				"legacy-tcp.tmpl.example.com 0 IN CNAME  tmpl-lb.example.net ingressroutetcp/old/legacy-tcp",
				"legacy-udp.tmpl.example.com 0 IN CNAME  tmpl-lb.example.net ingressrouteudp/old/legacy-udp",
				"legacy.tmpl.example.com 0 IN CNAME  tmpl-lb.example.net ingressroute/old/legacy",
			}),
		},
		{
			name: "an FQDN template without a target template adds no records",
			cfg: kubernetes.TraefikProxyConfig{EnableLegacy: true, DisableNew: true, Options: kubernetes.Options{
				Namespace: "old", CombineFQDN: true, FQDNTemplate: fqdn.MustTemplate("{{.metadata.name}}.tmpl.example.com")}},
			want: legacyRoutes,
		},
		{name: "nothing to read", cfg: kubernetes.TraefikProxyConfig{DisableNew: true}, wantErr: "DisableNew"},
		{name: "bad label selector", cfg: kubernetes.TraefikProxyConfig{Options: kubernetes.Options{LabelSelector: "a in ("}}, wantErr: "label selector"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := kubernetes.NewTraefikProxySource(ctx, crd2Client(objs...), tt.cfg)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "traefik-proxy", src.String())
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			if len(tt.failed) == 0 {
				require.NoError(t, err)
			} else {
				var pe *source.PartialError
				require.ErrorAs(t, err, &pe)
				assert.ElementsMatch(t, tt.failed, keys(pe.Failed))
			}
			assert.Equal(t, tt.want, render(eps))
		})
	}
}

// TestTraefikProxySourceErrors: a malformed router is reported with its
// kind, name and the field at fault.
func TestTraefikProxySourceErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lb := map[string]string{targetKey: "lb.example.net"}
	src, err := kubernetes.NewTraefikProxySource(ctx, crd2Client(
		router("traefik.io", "IngressRoute", "web", "bad-rule", lb, "Host(`ok.example.com`)", "Host(`bad host.example.com`)"),
		obj("traefik.io/v1alpha1", "IngressRoute", "web", "bad-routes", lb, map[string]any{"spec": map[string]any{"routes": []any{"Host(`x`)"}}}),
		obj("traefik.io/v1alpha1", "IngressRoute", "web", "bad-match", lb, map[string]any{"spec": map[string]any{"routes": []any{map[string]any{"match": int64(7)}}}}),
		router("traefik.io", "IngressRouteTCP", "web", "bad-target", map[string]string{targetKey: "bad..target"}, "HostSNI(`t.example.com`)"),
	), kubernetes.TraefikProxyConfig{})
	require.NoError(t, err)
	started(t, ctx, src)
	eps, err := src.Endpoints(ctx)
	assert.Empty(t, eps)
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	assert.ErrorContains(t, pe.Failed["ingressroute/web/bad-rule"], "IngressRoute web/bad-rule: spec.routes[1].match host \"bad host.example.com\"")
	assert.ErrorContains(t, pe.Failed["ingressroute/web/bad-routes"], "IngressRoute web/bad-routes: spec.routes[0] is not an object")
	assert.ErrorContains(t, pe.Failed["ingressroute/web/bad-match"], "IngressRoute web/bad-match: spec.routes[0].match")
	assert.ErrorContains(t, pe.Failed["ingressroutetcp/web/bad-target"], "IngressRouteTCP web/bad-target: annotation external-dns.kubernetes.io/target")
}

func TestTraefikProxySourceEvents(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dyn := crd2Client()
	factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	src, err := kubernetes.NewTraefikProxySource(ctx, dyn, kubernetes.TraefikProxyConfig{EnableLegacy: true, DynamicFactory: factory})
	require.NoError(t, err)
	assert.False(t, src.HasSynced())
	calls := make(chan struct{}, 16)
	src.AddEventHandler(ctx, func() { calls <- struct{}{} })
	factory.Start(ctx.Done())
	require.NoError(t, src.WaitForSync(ctx))
	_, err = dyn.Resource(kubernetes.TraefikLegacyIngressRouteUDPGVR).Namespace("ns").Create(ctx,
		obj("traefik.containo.us/v1alpha1", "IngressRouteUDP", "ns", "u", map[string]string{targetKey: "192.0.2.1", hostnameKey: "u.example.com"}, nil), metav1.CreateOptions{})
	require.NoError(t, err)
	<-calls
	eventually(t, func() bool {
		eps, err := src.Endpoints(ctx)
		return err == nil && assert.ObjectsAreEqual([]string{"u.example.com 0 IN A  192.0.2.1 ingressrouteudp/ns/u"}, render(eps))
	})
}

// sorted returns the strings of all lists in one sorted list.
func sorted(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.Sort(out)
	return out
}

// keys returns the keys of m, sorted.
func keys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
