package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	routev1 "github.com/openshift/api/route/v1"
	routefake "github.com/openshift/client-go/route/clientset/versioned/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	xsource "sigs.k8s.io/external-dns/source"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// openShiftRouteDiff is the openshift-route source under differential
// test, with --openshift-router-name as given. external-dns reads Routes
// through the typed OpenShift clientset, which the fakeCluster serves
// empty: its builder loads the cluster's Routes, converted through JSON
// into the stand-in routev1.Route, into an OpenShift fake of its own.
func openShiftRouteDiff(routerName string) sourceDiff {
	return sourceDiff{
		Name: xtypes.OpenShiftRoute,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			opts, err := zonesyncUnstructuredOptions(s)
			if err != nil {
				return nil, err
			}
			client, _ := c.DynamicKubernetesClient()
			return kubernetes.NewOpenShiftRouteSource(ctx, client, kubernetes.OpenShiftRouteConfig{Options: opts, RouterName: routerName})
		},
		ExternalDNS: func(ctx context.Context, c *fakeCluster, s sourceSettings) (xsource.Source, error) {
			cfg, err := s.externalDNSConfig()
			if err != nil {
				return nil, err
			}
			cfg.OCPRouterName = routerName
			var routes []runtime.Object
			for _, u := range c.objects {
				if u.GroupVersionKind().Group != "route.openshift.io" || u.GetKind() != "Route" {
					continue
				}
				data, err := u.MarshalJSON()
				if err != nil {
					return nil, err
				}
				r := &routev1.Route{}
				if err := json.Unmarshal(data, r); err != nil {
					return nil, fmt.Errorf("route %s/%s: %w", u.GetNamespace(), u.GetName(), err)
				}
				routes = append(routes, r)
			}
			return xsource.NewOcpRouteSource(ctx, routefake.NewSimpleClientset(routes...), cfg)
		},
		Rules: []sourceRule{{
			Name: "openshift-invalid-ingress-host-rejects-object",
			Reason: "zonesync refuses a Route whose admitted status.ingress[].host is not a valid DNS name and reports it in a " +
				"PartialError, publishing nothing for it; external-dns publishes it as it is",
			Match: func(d disagreement) bool {
				return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 &&
					strings.Contains(d.Failed.Error(), "status.ingress[")
			},
		}, sharedNameMergeRule("openshift-route")},
	}
}

// routeIngressConditions draws the conditions of one status.ingress
// entry: admitted, refused, none, unknown, another type only, or a
// refused Admitted condition before an accepted one (the first counts).
func (g *gen) routeIngressConditions() []any {
	cond := func(typ, status string) map[string]any { return map[string]any{"type": typ, "status": status} }
	switch g.r.IntN(8) {
	case 0:
		return []any{cond("Admitted", "False")}
	case 1:
		return nil
	case 2:
		return []any{cond("Admitted", "Unknown")}
	case 3:
		return []any{cond("Ready", "True")}
	case 4:
		return []any{cond("Admitted", "False"), cond("Admitted", "True")}
	case 5:
		return []any{cond("Ready", "False"), cond("Admitted", "True")}
	}
	return []any{cond("Admitted", "True")}
}

// openShiftRoutes draws n Routes: spec.host, and up to three
// status.ingress entries from several routers, each with a host (mostly
// spec.host), a canonical host name (sometimes missing) and conditions.
func (g *gen) openShiftRoutes(n int) []runtime.Object {
	var objs []runtime.Object
	for range n {
		m := g.meta("route")
		spec := map[string]any{"to": map[string]any{"kind": "Service", "name": "svc"}}
		host := ""
		switch {
		case g.chance(6):
		case g.chance(4):
			host = g.sharedHost()
		default:
			host = g.hostname(m.Name)
		}
		if host != "" {
			spec["host"] = host
		}
		var ingress []any
		for range g.r.IntN(4) {
			e := map[string]any{"routerName": pick(g.r, "default", "default", "internal", "sharded")}
			switch {
			case g.chance(5):
				e["host"] = g.hostname("st-" + m.Name)
			case host != "":
				e["host"] = host
			}
			if !g.chance(5) {
				e["routerCanonicalHostname"] = pick(g.r, "router-default.apps.example.net", "router-internal.apps.example.net", "apps.example.net.")
			}
			if conds := g.routeIngressConditions(); conds != nil {
				e["conditions"] = conds
			}
			ingress = append(ingress, e)
		}
		fields := map[string]any{"spec": spec}
		if ingress != nil {
			fields["status"] = map[string]any{"ingress": ingress}
		}
		objs = append(objs, customResource("route.openshift.io/v1", "Route", m, fields))
	}
	return objs
}

func TestOpenShiftRouteSourceAgreement(t *testing.T) {
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			s.IgnoreHostnameAnnotation = g.chance(5)
			router := pick(g.r, "", "", "default", "internal", "missing")
			openShiftRouteDiff(router).check(t, fmt.Sprintf("%v, router name %q", g, router), s, g.openShiftRoutes(200)...)
		})
	}
}

// Hand-written cases, which must agree exactly.
func TestOpenShiftRouteSourceCases(t *testing.T) {
	type ingress struct{ router, host, canonical, admitted string }
	route := func(name string, anns map[string]string, ings ...ingress) runtime.Object {
		var entries []any
		for _, i := range ings {
			e := map[string]any{"routerName": i.router, "host": i.host, "routerCanonicalHostname": i.canonical}
			if i.admitted != "" {
				e["conditions"] = []any{map[string]any{"type": "Admitted", "status": i.admitted}}
			}
			entries = append(entries, e)
		}
		return customResource("route.openshift.io/v1", "Route", metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: anns},
			map[string]any{"spec": map[string]any{"host": name + ".example.com"}, "status": map[string]any{"ingress": entries}})
	}
	routers := route("web", nil,
		ingress{"refused", "web.example.com", "refused.apps.example.net", "False"},
		ingress{"pending", "web.example.com", "pending.apps.example.net", ""},
		ingress{"nocanonical", "web.example.com", "", "True"},
		ingress{"default", "web.example.com", "default.apps.example.net", "True"},
		ingress{"internal", "internal.web.example.com", "internal.apps.example.net", "True"},
	)
	annotated := map[string]string{"external-dns.kubernetes.io/hostname": "ann.example.com", "external-dns.kubernetes.io/ttl": "60"}
	for _, tc := range []struct {
		name, router string
		s            sourceSettings
		objs         []runtime.Object
		want         int
	}{
		{name: "first admitted router with a canonical host name", objs: []runtime.Object{routers}, want: 1},
		{name: "router name picks its entry", router: "internal", objs: []runtime.Object{routers}, want: 1},
		{name: "router name of a refused entry", router: "refused", objs: []runtime.Object{routers}, want: 0},
		{name: "router name of no entry", router: "missing", objs: []runtime.Object{routers}, want: 0},
		{name: "hostname annotation and TTL", objs: []runtime.Object{route("web", annotated, ingress{"default", "web.example.com", "default.apps.example.net", "True"})}, want: 2},
		{name: "IgnoreHostnameAnnotation", s: sourceSettings{IgnoreHostnameAnnotation: true},
			objs: []runtime.Object{route("web", annotated, ingress{"default", "web.example.com", "default.apps.example.net", "True"})}, want: 1},
		{name: "target annotation, not admitted", objs: []runtime.Object{route("web",
			map[string]string{"external-dns.kubernetes.io/hostname": "ann.example.com", "external-dns.kubernetes.io/target": "192.0.2.1"},
			ingress{"default", "web.example.com", "default.apps.example.net", "False"})}, want: 1},
		{name: "FQDN template, not admitted", s: sourceSettings{FQDNTemplate: "{{.Name}}.{{.Namespace}}.tmpl.example.com"},
			objs: []runtime.Object{route("web", map[string]string{"external-dns.kubernetes.io/target": "lb.example.net"})}, want: 1},
		{name: "FQDN template combined", s: sourceSettings{FQDNTemplate: "{{.Name}}.{{.Namespace}}.tmpl.example.com", CombineFQDN: true},
			objs: []runtime.Object{routers}, want: 2},
		{name: "annotation filter", s: sourceSettings{AnnotationFilter: "dns in (public)"}, objs: []runtime.Object{routers}, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := openShiftRouteDiff(tc.router).check(t, "hand-written", tc.s, tc.objs...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and %d records: %v", tc.want, out.Explained, len(out.Zonesync), sortedRecords(out.Zonesync))
			}
		})
	}
}

// Two Routes admitted under one host by the same router: external-dns
// and zonesync join their equal CNAMEs into one endpoint, labelled with
// one of them (see sharedNameMergeRule).
func TestOpenShiftRouteSourceSharedHost(t *testing.T) {
	route := func(name string) runtime.Object {
		return customResource("route.openshift.io/v1", "Route", metav1.ObjectMeta{Namespace: "default", Name: name},
			map[string]any{"spec": map[string]any{"host": "shared.example.com"}, "status": map[string]any{"ingress": []any{map[string]any{
				"routerName": "default", "host": "shared.example.com", "routerCanonicalHostname": "router.apps.example.net",
				"conditions": []any{map[string]any{"type": "Admitted", "status": "True"}},
			}}}})
	}
	out := openShiftRouteDiff("").check(t, "hand-written", sourceSettings{}, route("a"), route("b"))
	if len(out.ExternalDNS) != 1 || len(out.Zonesync) != 1 {
		t.Errorf("want one joined record on each side, got %v and %v", sortedRecords(out.ExternalDNS), sortedRecords(out.Zonesync))
	}
}
