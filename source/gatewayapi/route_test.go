package gatewayapi_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8sinformers "k8s.io/client-go/informers"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/gatewayapi"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

const (
	hostAnn   = "external-dns.alpha.kubernetes.io/hostname"
	targetAnn = "external-dns.alpha.kubernetes.io/target"
	ttlAnn    = "external-dns.alpha.kubernetes.io/ttl"
	hsAnn     = "external-dns.alpha.kubernetes.io/gateway-hostname-source"
)

var (
	http80    = listenerSpec{name: "http", protocol: "HTTP", port: 80}
	httpsWild = listenerSpec{name: "https", protocol: "HTTPS", port: 443, hostname: "*.example.com"}
)

func newSource(ctx context.Context, t *testing.T, kind gatewayapi.RouteKind, cfg gatewayapi.Config, nss []*corev1.Namespace, objs ...*unstructured.Unstructured) syncer {
	t.Helper()
	kube, dyn := newKube(nss...), dynClient(t, objs...)
	var (
		s   syncer
		err error
	)
	switch kind.Kind {
	case "HTTPRoute":
		s, err = gatewayapi.NewHTTPRouteSource(ctx, kube, dyn, cfg)
	case "GRPCRoute":
		s, err = gatewayapi.NewGRPCRouteSource(ctx, kube, dyn, cfg)
	case "TLSRoute":
		s, err = gatewayapi.NewTLSRouteSource(ctx, kube, dyn, cfg)
	case "TCPRoute":
		s, err = gatewayapi.NewTCPRouteSource(ctx, kube, dyn, cfg)
	case "UDPRoute":
		s, err = gatewayapi.NewUDPRouteSource(ctx, kube, dyn, cfg)
	}
	require.NoError(t, err)
	require.NoError(t, s.WaitForSync(ctx))
	return s
}

func TestRouteSources(t *testing.T) {
	http, tcp, tls, udp, grpc := gatewayapi.HTTPRouteKind(), gatewayapi.TCPRouteKind(), gatewayapi.TLSRouteKind(), gatewayapi.UDPRouteKind(), gatewayapi.GRPCRouteKind()
	gwDefault := gw("default", "gw", nil, []string{"1.2.3.4"}, http80)
	tests := []struct {
		name string
		kind gatewayapi.RouteKind
		cfg  gatewayapi.Config
		nss  []*corev1.Namespace
		objs []*unstructured.Unstructured
		want []string
	}{
		{
			name: "attached route gets the gateway address",
			kind: http,
			objs: []*unstructured.Unstructured{gwDefault, rt(http, "default", "web", nil, []string{"web.example.com"}, parent{name: "gw", accepted: yes()})},
			want: []string{"web.example.com 0 IN A  1.2.3.4 httproute/default/web"},
		},
		{
			name: "not accepted, no status and unknown gateway give nothing",
			kind: http,
			objs: []*unstructured.Unstructured{
				gwDefault,
				rt(http, "default", "refused", nil, []string{"a.example.com"}, parent{name: "gw", accepted: no()}),
				rt(http, "default", "pending", nil, []string{"b.example.com"}, parent{name: "gw"}),
				rt(http, "default", "missing", nil, []string{"c.example.com"}, parent{name: "nope", accepted: yes()}),
			},
		},
		{
			name: "listener hostname: exact, wildcard and none",
			kind: http,
			objs: []*unstructured.Unstructured{
				gw("default", "gw", nil, []string{"1.2.3.4"},
					listenerSpec{name: "exact", protocol: "HTTP", port: 80, hostname: "exact.example.com"},
					httpsWild),
				rt(http, "default", "exact", nil, []string{"exact.example.com", "other.org"}, parent{name: "gw", section: "exact", accepted: yes()}),
				rt(http, "default", "wild", nil, []string{"a.example.com", "b.c.example.com", "example.com", "*.example.com", "*.sub.example.com"}, parent{name: "gw", section: "https", accepted: yes()}),
				rt(http, "default", "nohosts", nil, nil, parent{name: "gw", section: "exact", accepted: yes()}),
			},
			want: []string{
				"*.example.com 0 IN A  1.2.3.4 httproute/default/wild",
				"*.sub.example.com 0 IN A  1.2.3.4 httproute/default/wild",
				"a.example.com 0 IN A  1.2.3.4 httproute/default/wild",
				"b.c.example.com 0 IN A  1.2.3.4 httproute/default/wild",
				"exact.example.com 0 IN A  1.2.3.4 httproute/default/exact",
			},
		},
		{
			name: "route without hostnames on a listener without hostname gives nothing",
			kind: http,
			objs: []*unstructured.Unstructured{gwDefault, rt(http, "default", "web", nil, nil, parent{name: "gw", accepted: yes()})},
		},
		{
			name: "several parents: targets joined, only accepted ones",
			kind: http,
			objs: []*unstructured.Unstructured{
				gw("default", "a", nil, []string{"10.0.0.1"}, http80),
				gw("default", "b", nil, []string{"10.0.0.2", "2001:db8::2"}, http80),
				gw("default", "c", nil, []string{"10.0.0.3"}, http80),
				rt(http, "default", "web", nil, []string{"web.example.com"},
					parent{name: "a", accepted: yes()}, parent{name: "b", accepted: yes()}, parent{name: "c", accepted: no()}),
			},
			want: []string{
				"web.example.com 0 IN A  10.0.0.1;10.0.0.2 httproute/default/web",
				"web.example.com 0 IN AAAA  2001:db8::2 httproute/default/web",
			},
		},
		{
			name: "cross-namespace attachment: All allowed, Same refused, Selector by namespace labels",
			kind: http,
			nss: []*corev1.Namespace{
				namespace("team-a", map[string]string{"dns": "yes"}),
				namespace("team-b", nil),
			},
			objs: []*unstructured.Unstructured{
				gw("infra", "gw", nil, []string{"1.2.3.4"},
					listenerSpec{name: "all", protocol: "HTTP", port: 80, hostname: "*.all.example.com", from: "All"},
					listenerSpec{name: "same", protocol: "HTTP", port: 80, hostname: "*.same.example.com"},
					listenerSpec{name: "sel", protocol: "HTTP", port: 80, hostname: "*.sel.example.com", from: "Selector", selector: map[string]string{"dns": "yes"}}),
				rt(http, "team-a", "a", nil, []string{"a.all.example.com", "a.same.example.com", "a.sel.example.com"}, parent{ns: "infra", name: "gw", accepted: yes()}),
				rt(http, "team-b", "b", nil, []string{"b.all.example.com", "b.same.example.com", "b.sel.example.com"}, parent{ns: "infra", name: "gw", accepted: yes()}),
			},
			want: []string{
				"a.all.example.com 0 IN A  1.2.3.4 httproute/team-a/a",
				"a.sel.example.com 0 IN A  1.2.3.4 httproute/team-a/a",
				"b.all.example.com 0 IN A  1.2.3.4 httproute/team-b/b",
			},
		},
		{
			name: "allowedRoutes kinds and port",
			kind: http,
			objs: []*unstructured.Unstructured{
				gw("default", "gw", nil, []string{"1.2.3.4"},
					listenerSpec{name: "grpc-only", protocol: "HTTP", port: 80, hostname: "g.example.com", kinds: []string{"GRPCRoute"}},
					listenerSpec{name: "h8080", protocol: "HTTP", port: 8080, hostname: "p.example.com"},
					listenerSpec{name: "h80", protocol: "HTTP", port: 80, hostname: "q.example.com"}),
				rt(http, "default", "web", nil, nil, parent{name: "gw", port: 8080, accepted: yes()}),
			},
			want: []string{"p.example.com 0 IN A  1.2.3.4 httproute/default/web"},
		},
		{
			name: "address types: IP and hostname",
			kind: http,
			objs: []*unstructured.Unstructured{
				gw("default", "gw", nil, []string{"lb.example.net", "192.0.2.1"}, http80),
				rt(http, "default", "web", nil, []string{"web.example.com"}, parent{name: "gw", accepted: yes()}),
			},
			want: []string{
				"web.example.com 0 IN A  192.0.2.1 httproute/default/web",
				"web.example.com 0 IN CNAME  lb.example.net httproute/default/web",
			},
		},
		{
			name: "target annotation: route over gateway over addresses",
			kind: http,
			objs: []*unstructured.Unstructured{
				gw("default", "gw", map[string]string{targetAnn: "gw-target.example.net"}, []string{"1.2.3.4"}, http80),
				rt(http, "default", "plain", nil, []string{"plain.example.com"}, parent{name: "gw", accepted: yes()}),
				rt(http, "default", "own", map[string]string{targetAnn: "203.0.113.9", ttlAnn: "60"}, []string{"own.example.com"}, parent{name: "gw", accepted: yes()}),
			},
			want: []string{
				"own.example.com 60 IN A  203.0.113.9 httproute/default/own",
				"plain.example.com 0 IN CNAME  gw-target.example.net httproute/default/plain",
			},
		},
		{
			name: "hostname annotation and gateway-hostname-source",
			kind: http,
			objs: []*unstructured.Unstructured{
				gw("default", "gw", nil, []string{"1.2.3.4"}, http80),
				rt(http, "default", "both", map[string]string{hostAnn: "ann.example.com"}, []string{"spec.example.com"}, parent{name: "gw", accepted: yes()}),
				rt(http, "default", "annonly", map[string]string{hostAnn: "only.example.com", hsAnn: "annotation-only"}, []string{"ignored.example.com"}, parent{name: "gw", accepted: yes()}),
				rt(http, "default", "defined", map[string]string{hostAnn: "ignored2.example.com", hsAnn: "defined-hosts-only"}, []string{"defined.example.com"}, parent{name: "gw", accepted: yes()}),
			},
			want: []string{
				"ann.example.com 0 IN A  1.2.3.4 httproute/default/both",
				"defined.example.com 0 IN A  1.2.3.4 httproute/default/defined",
				"only.example.com 0 IN A  1.2.3.4 httproute/default/annonly",
				"spec.example.com 0 IN A  1.2.3.4 httproute/default/both",
			},
		},
		{
			name: "gateway filters: name, namespace and labels",
			kind: http,
			cfg:  gatewayapi.Config{GatewayName: "gw", GatewayNamespace: "infra"},
			objs: []*unstructured.Unstructured{
				gw("infra", "gw", nil, []string{"1.1.1.1"}, listenerSpec{name: "http", protocol: "HTTP", port: 80, from: "All"}),
				gw("infra", "other", nil, []string{"2.2.2.2"}, listenerSpec{name: "http", protocol: "HTTP", port: 80, from: "All"}),
				gw("elsewhere", "gw", nil, []string{"3.3.3.3"}, listenerSpec{name: "http", protocol: "HTTP", port: 80, from: "All"}),
				rt(http, "default", "web", nil, []string{"web.example.com"},
					parent{ns: "infra", name: "gw", accepted: yes()}, parent{ns: "infra", name: "other", accepted: yes()}, parent{ns: "elsewhere", name: "gw", accepted: yes()}),
			},
			want: []string{"web.example.com 0 IN A  1.1.1.1 httproute/default/web"},
		},
		{
			name: "gateway label selector",
			kind: http,
			cfg:  gatewayapi.Config{GatewayLabelSelector: "dns=public"},
			objs: func() []*unstructured.Unstructured {
				pub := gw("default", "pub", nil, []string{"1.1.1.1"}, http80)
				pub.SetLabels(map[string]string{"dns": "public"})
				priv := gw("default", "priv", nil, []string{"2.2.2.2"}, http80)
				priv.SetLabels(map[string]string{"dns": "private"})
				return []*unstructured.Unstructured{pub, priv,
					rt(http, "default", "web", nil, []string{"web.example.com"}, parent{name: "pub", accepted: yes()}, parent{name: "priv", accepted: yes()})}
			}(),
			want: []string{"web.example.com 0 IN A  1.1.1.1 httproute/default/web"},
		},
		{
			name: "route filters: namespace, annotation filter and label selector",
			kind: http,
			cfg:  gatewayapi.Config{Options: kubeopts.Options{Namespace: "default", AnnotationFilter: "dns=public"}},
			objs: []*unstructured.Unstructured{
				gw("default", "gw", nil, []string{"1.2.3.4"}, listenerSpec{name: "http", protocol: "HTTP", port: 80, from: "All"}),
				rt(http, "default", "pub", map[string]string{"dns": "public"}, []string{"pub.example.com"}, parent{name: "gw", accepted: yes()}),
				rt(http, "default", "priv", map[string]string{"dns": "private"}, []string{"priv.example.com"}, parent{name: "gw", accepted: yes()}),
				rt(http, "other", "pub", map[string]string{"dns": "public"}, []string{"other.example.com"}, parent{ns: "default", name: "gw", accepted: yes()}),
			},
			want: []string{"pub.example.com 0 IN A  1.2.3.4 httproute/default/pub"},
		},
		{
			name: "TCP route: names from the annotation, attaches to TCP and TLS listeners only",
			kind: tcp,
			objs: []*unstructured.Unstructured{
				gw("default", "gw", nil, []string{"1.2.3.4"},
					listenerSpec{name: "tls", protocol: "TLS", port: 443},
					listenerSpec{name: "http", protocol: "HTTP", port: 80, hostname: "http.example.com"}),
				rt(tcp, "default", "db", map[string]string{hostAnn: "db.example.com"}, nil, parent{name: "gw", accepted: yes()}),
			},
			want: []string{"db.example.com 0 IN A  1.2.3.4 tcproute/default/db"},
		},
		{
			name: "UDP route attaches to UDP listeners only",
			kind: udp,
			objs: []*unstructured.Unstructured{
				gw("default", "gw", nil, []string{"1.2.3.4"},
					listenerSpec{name: "dns", protocol: "UDP", port: 53, hostname: "dns.example.com"},
					listenerSpec{name: "tcp", protocol: "TCP", port: 53, hostname: "tcp.example.com"}),
				rt(udp, "default", "dns", nil, nil, parent{name: "gw", accepted: yes()}),
			},
			want: []string{"dns.example.com 0 IN A  1.2.3.4 udproute/default/dns"},
		},
		{
			name: "TLS route",
			kind: tls,
			objs: []*unstructured.Unstructured{
				gw("default", "gw", nil, []string{"1.2.3.4"}, listenerSpec{name: "tls", protocol: "TLS", port: 443, hostname: "*.example.com"}, http80),
				rt(tls, "default", "t", nil, []string{"t.example.com"}, parent{name: "gw", accepted: yes()}),
			},
			want: []string{"t.example.com 0 IN A  1.2.3.4 tlsroute/default/t"},
		},
		{
			name: "GRPC route on an HTTPS listener",
			kind: grpc,
			objs: []*unstructured.Unstructured{
				gw("default", "gw", nil, []string{"1.2.3.4"}, httpsWild, listenerSpec{name: "tls", protocol: "TLS", port: 8443}),
				rt(grpc, "default", "g", nil, []string{"g.example.com"}, parent{name: "gw", accepted: yes()}),
			},
			want: []string{"g.example.com 0 IN A  1.2.3.4 grpcroute/default/g"},
		},
		{
			name: "two routes for one name are merged",
			kind: http,
			objs: []*unstructured.Unstructured{
				gw("default", "a", nil, []string{"10.0.0.1"}, http80),
				gw("default", "b", nil, []string{"10.0.0.2"}, http80),
				rt(http, "default", "r1", nil, []string{"web.example.com"}, parent{name: "a", accepted: yes()}),
				rt(http, "default", "r2", nil, []string{"web.example.com"}, parent{name: "b", accepted: yes()}),
			},
			want: []string{"web.example.com 0 IN A  10.0.0.1;10.0.0.2 httproute/default/r1"},
		},
		{
			name: "merging: different TTLs and different CNAME targets stay apart",
			kind: http,
			objs: []*unstructured.Unstructured{
				gw("default", "a", nil, []string{"a.lb.example.net"}, http80),
				gw("default", "b", nil, []string{"b.lb.example.net"}, http80),
				gw("default", "c", nil, []string{"10.0.0.3"}, http80),
				rt(http, "default", "r1", nil, []string{"cname.example.com"}, parent{name: "a", accepted: yes()}),
				rt(http, "default", "r2", nil, []string{"cname.example.com"}, parent{name: "b", accepted: yes()}),
				rt(http, "default", "r3", nil, []string{"ip.example.com"}, parent{name: "c", accepted: yes()}),
				rt(http, "default", "r4", map[string]string{ttlAnn: "30"}, []string{"ip.example.com"}, parent{name: "c", accepted: yes()}),
			},
			want: []string{
				"cname.example.com 0 IN CNAME  a.lb.example.net httproute/default/r1",
				"cname.example.com 0 IN CNAME  b.lb.example.net httproute/default/r2",
				"ip.example.com 0 IN A  10.0.0.3 httproute/default/r3",
				"ip.example.com 30 IN A  10.0.0.3 httproute/default/r4",
			},
		},
		{
			name: "parent in status but not in spec.parentRefs is ignored",
			kind: http,
			objs: func() []*unstructured.Unstructured {
				r := rt(http, "default", "web", nil, []string{"web.example.com"}, parent{name: "gw", accepted: yes()})
				_ = unstructured.SetNestedSlice(r.Object, []any{map[string]any{"name": "other"}}, "spec", "parentRefs")
				return []*unstructured.Unstructured{gwDefault, r}
			}(),
		},
		{
			name: "controller annotation naming another controller skips the route",
			kind: http,
			objs: []*unstructured.Unstructured{
				gwDefault,
				rt(http, "default", "theirs", map[string]string{"external-dns.alpha.kubernetes.io/controller": "someone-else"}, []string{"web.example.com"}, parent{name: "gw", accepted: yes()}),
			},
		},
		{
			name: "FQDN template for a route without names",
			kind: tcp,
			cfg:  gatewayapi.Config{Options: kubeopts.Options{FQDNTemplate: mustTemplate(t, "{{.metadata.name}}.tcp.example.com")}},
			objs: []*unstructured.Unstructured{
				gw("default", "gw", nil, []string{"1.2.3.4"}, listenerSpec{name: "tcp", protocol: "TCP", port: 5432}),
				rt(tcp, "default", "db", nil, nil, parent{name: "gw", accepted: yes()}),
			},
			want: []string{"db.tcp.example.com 0 IN A  1.2.3.4 tcproute/default/db"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			s := newSource(ctx, t, tt.kind, tt.cfg, tt.nss, tt.objs...)
			eps, err := s.Endpoints(ctx)
			require.NoError(t, err)
			if tt.want == nil {
				tt.want = []string{}
			}
			assert.Equal(t, tt.want, render(eps))
		})
	}
}

func TestRouteErrorsArePerObject(t *testing.T) {
	http := gatewayapi.HTTPRouteKind()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s := newSource(ctx, t, http, gatewayapi.Config{}, nil,
		gw("default", "gw", nil, []string{"1.2.3.4"}, http80),
		gw("default", "badgw", map[string]string{targetAnn: "bad..example.com"}, []string{"1.2.3.4"}, http80),
		rt(http, "default", "bad", map[string]string{ttlAnn: "soon"}, []string{"bad.example.com"}, parent{name: "gw", accepted: yes()}),
		rt(http, "default", "viabad", nil, []string{"via.example.com"}, parent{name: "badgw", accepted: yes()}),
		rt(http, "default", "good", nil, []string{"good.example.com"}, parent{name: "gw", accepted: yes()}),
	)
	eps, err := s.Endpoints(ctx)
	assert.Equal(t, []string{"good.example.com 0 IN A  1.2.3.4 httproute/default/good"}, render(eps))
	var partial *source.PartialError
	require.ErrorAs(t, err, &partial)
	assert.Len(t, partial.Failed, 2)
	assert.Contains(t, partial.Failed, "httproute/default/bad")
	assert.Contains(t, partial.Failed, "httproute/default/viabad")
	assert.ErrorContains(t, err, "Gateway default/badgw")
	var annErr *annotations.Error
	assert.True(t, errors.As(err, &annErr))
}

func TestRouteSourceEvents(t *testing.T) {
	http := gatewayapi.HTTPRouteKind()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	kube := newKube()
	gateway := gw("default", "gw", nil, []string{"1.2.3.4"}, http80)
	dyn := dynClient(t, gateway)
	s, err := gatewayapi.NewHTTPRouteSource(ctx, kube, dyn, gatewayapi.Config{})
	require.NoError(t, err)
	calls := started(t, ctx, s)
	endpoints := func() []string {
		eps, err := s.Endpoints(ctx)
		require.NoError(t, err)
		return render(eps)
	}
	routes := dyn.Resource(http.GVR).Namespace("default")
	gateways := dyn.Resource(gatewayapi.GatewayGVR()).Namespace("default")

	route := rt(http, "default", "web", nil, []string{"web.example.com"}, parent{name: "gw", accepted: yes()})
	_, err = routes.Create(ctx, route, createOpts)
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() >= 1 && len(endpoints()) == 1 })

	before := calls.Load()
	updated := gw("default", "gw", nil, []string{"5.6.7.8"}, http80)
	updated.SetResourceVersion("2")
	_, err = gateways.Update(ctx, updated, updateOpts)
	require.NoError(t, err)
	eventually(t, func() bool {
		return calls.Load() > before && assert.ObjectsAreEqual([]string{"web.example.com 0 IN A  5.6.7.8 httproute/default/web"}, endpoints())
	})

	// A changed route is read again (the source keeps parsed routes
	// while their resourceVersion stays the same).
	before = calls.Load()
	changed := rt(http, "default", "web", nil, []string{"new.example.com"}, parent{name: "gw", accepted: yes()})
	changed.SetResourceVersion("2")
	_, err = routes.Update(ctx, changed, updateOpts)
	require.NoError(t, err)
	eventually(t, func() bool {
		return calls.Load() > before && assert.ObjectsAreEqual([]string{"new.example.com 0 IN A  5.6.7.8 httproute/default/web"}, endpoints())
	})

	before = calls.Load()
	_, err = kube.CoreV1().Namespaces().Create(ctx, namespace("new", nil), createNsOpts)
	require.NoError(t, err)
	eventually(t, func() bool { return calls.Load() > before })

	before = calls.Load()
	require.NoError(t, routes.Delete(ctx, "web", deleteOpts))
	eventually(t, func() bool { return calls.Load() > before && len(endpoints()) == 0 })
}

func mustTemplate(t *testing.T, text string) *fqdn.Template {
	t.Helper()
	tmpl, err := fqdn.NewTemplate(text)
	require.NoError(t, err)
	return tmpl
}

// Sources given a factory share its informers, set no transform and start
// nothing: the program starts the factory after constructing them.
func TestSharedFactory(t *testing.T) {
	http, grpc := gatewayapi.HTTPRouteKind(), gatewayapi.GRPCRouteKind()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	dyn := dynClient(t,
		gw("default", "gw", nil, []string{"1.2.3.4"}, http80, httpsWild),
		rt(http, "default", "web", map[string]string{"team": "a"}, []string{"web.example.com"}, parent{name: "gw", accepted: yes()}),
		rt(http, "other", "web", nil, []string{"other.example.com"}, parent{ns: "default", name: "gw", accepted: yes()}),
		rt(grpc, "default", "api", nil, []string{"api.example.com"}, parent{name: "gw", accepted: yes()}),
	)
	kube := newKube()
	factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	kubeFactory := k8sinformers.NewSharedInformerFactory(kube, 0)
	cfg := gatewayapi.Config{Options: kubeopts.Options{Namespace: "default"}, DynamicFactory: factory, Factory: kubeFactory}
	hs, err := gatewayapi.NewHTTPRouteSource(ctx, kube, dyn, cfg)
	require.NoError(t, err)
	gs, err := gatewayapi.NewGRPCRouteSource(ctx, kube, dyn, cfg)
	require.NoError(t, err)
	assert.False(t, hs.HasSynced(), "a shared factory is started by its owner")
	factory.Start(ctx.Done())
	kubeFactory.Start(ctx.Done())
	require.NoError(t, hs.WaitForSync(ctx))
	require.NoError(t, gs.WaitForSync(ctx))
	eps, err := hs.Endpoints(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"web.example.com 0 IN A  1.2.3.4 httproute/default/web"}, render(eps))
	eps, err = gs.Endpoints(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"api.example.com 0 IN A  1.2.3.4 grpcroute/default/api"}, render(eps))
	assert.Equal(t, "gateway-httproute", hs.String())
	assert.Equal(t, "gateway-grpcroute", gs.String())
}

func TestConfigErrors(t *testing.T) {
	ctx := t.Context()
	for name, cfg := range map[string]gatewayapi.Config{
		"annotation filter":      {Options: kubeopts.Options{AnnotationFilter: "a in ("}},
		"label selector":         {Options: kubeopts.Options{LabelSelector: "!!"}},
		"gateway label selector": {GatewayLabelSelector: "a in ("},
		"annotation prefix":      {Options: kubeopts.Options{Annotations: annotations.Config{Prefixes: []string{"no-slash"}}}},
	} {
		_, err := gatewayapi.NewHTTPRouteSource(ctx, newKube(), dynClient(t), cfg)
		assert.ErrorContains(t, err, "gateway-httproute source", name)
	}
	_, err := gatewayapi.NewTCPRouteSource(ctx, nil, dynClient(t), gatewayapi.Config{})
	assert.ErrorContains(t, err, "gateway-tcproute source: a clientset")
	_, err = gatewayapi.NewUDPRouteSource(ctx, newKube(), nil, gatewayapi.Config{})
	assert.ErrorContains(t, err, "gateway-udproute source: a dynamic client")
}

// Clusters whose CRDs serve TLSRoute only as v1alpha2 set RouteGVR.
func TestRouteGVROverride(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	alpha := gatewayapi.TLSRouteKind()
	alpha.GVR.Version = "v1alpha2"
	kinds := listKinds()
	kinds[alpha.GVR] = "TLSRouteList"
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), kinds)
	gateway := gw("default", "gw", nil, []string{"1.2.3.4"}, listenerSpec{name: "tls", protocol: "TLS", port: 443})
	require.NoError(t, dyn.Tracker().Create(gatewayapi.GatewayGVR(), gateway, "default"))
	route := rt(alpha, "default", "t", nil, []string{"t.example.com"}, parent{name: "gw", accepted: yes()})
	require.NoError(t, dyn.Tracker().Create(alpha.GVR, route, "default"))

	s, err := gatewayapi.NewTLSRouteSource(ctx, newKube(), dyn, gatewayapi.Config{RouteGVR: alpha.GVR})
	require.NoError(t, err)
	require.NoError(t, s.WaitForSync(ctx))
	eps, err := s.Endpoints(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"t.example.com 0 IN A  1.2.3.4 tlsroute/default/t"}, render(eps))
}
