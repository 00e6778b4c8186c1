package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	xsource "sigs.k8s.io/external-dns/source"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// skipperRouteGroupDiff is the skipper-routegroup source under
// differential test. external-dns lists RouteGroups with plain HTTP GETs
// of /apis/zalando.org/v1[/namespaces/NS]/routegroups against the API
// server URL it is given: its builder points it at a loopback server that
// answers those with the cluster's RouteGroups.
func skipperRouteGroupDiff() sourceDiff {
	return sourceDiff{
		Name: xtypes.SkipperRouteGroup,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			opts, err := zonesyncUnstructuredOptions(s)
			if err != nil {
				return nil, err
			}
			client, _ := c.DynamicKubernetesClient()
			return kubernetes.NewSkipperRouteGroupSource(ctx, client, kubernetes.SkipperRouteGroupConfig{Options: opts})
		},
		ExternalDNS: func(ctx context.Context, c *fakeCluster, s sourceSettings) (xsource.Source, error) {
			cfg, err := s.externalDNSConfig()
			if err != nil {
				return nil, err
			}
			srv := httptest.NewServer(http.HandlerFunc(c.serveRouteGroups))
			c.t.Cleanup(srv.Close)
			return xsource.NewRouteGroupSource(cfg, "", "", srv.URL)
		},
		Rules: []sourceRule{{
			Name: "skipper-invalid-spec-host-rejects-object",
			Reason: "zonesync refuses a RouteGroup with a spec.hosts entry that is not a valid DNS name and reports it in a " +
				"PartialError, publishing nothing for it; external-dns publishes it as it is",
			Match: func(d disagreement) bool {
				return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 &&
					strings.Contains(d.Failed.Error(), "spec.hosts[")
			},
		}, sharedNameMergeRule("skipper-routegroup")},
	}
}

// sharedNameMergeRule is the known difference of the endpoints several
// objects give one name: both sides join them (name, record type, set
// identifier, TTL; CNAMEs only with equal targets), but external-dns
// labels the joined endpoint with the first object in informer (random)
// order, zonesync with the first in namespace/name order. It matches a
// record the other side publishes with the same key under another object
// or with more or fewer targets (joined with those of an object zonesync
// refuses), or both.
func sharedNameMergeRule(name string) sourceRule {
	return sourceRule{
		Name: name + "-merged-name-owner",
		Reason: "both sides join the endpoints several objects give one name, type, set identifier and TTL; external-dns " +
			"labels the result with the first object in informer (random) order, zonesync with the first in name order " +
			"(deterministic output); or the joined targets differ by those of an object zonesync refuses",
		Match: func(d disagreement) bool {
			if d.Failed != nil {
				return false
			}
			sameKey := func(r record) bool {
				return r.Name == d.Record.Name && r.Type == d.Record.Type && r.SetIdentifier == d.Record.SetIdentifier && r.TTL == d.Record.TTL
			}
			subset := func(x, y []string) bool {
				return !slices.ContainsFunc(x, func(t string) bool { return !slices.Contains(y, t) })
			}
			for _, all := range []map[record]bool{d.AllZonesync, d.AllExternalDNS} {
				for r := range all {
					if !sameKey(r) || r == d.Record {
						continue
					}
					// Another owner, or targets joined with those of
					// an object zonesync refuses, or both.
					if a, b := r.targetList(), d.Record.targetList(); subset(a, b) || subset(b, a) {
						return true
					}
				}
			}
			return false
		},
	}
}

// sharedHost is a host name several generated objects may share.
func (g *gen) sharedHost() string { return pick(g.r, "shared.example.com", "shared2.example.com") }

// serveRouteGroups answers the RouteGroup list requests of external-dns's
// skipper-routegroup source, for all namespaces or one.
func (c *fakeCluster) serveRouteGroups(w http.ResponseWriter, r *http.Request) {
	const gv = "zalando.org/v1"
	ns, known := "", r.URL.Path == "/apis/"+gv+"/routegroups"
	if rest, ok := strings.CutPrefix(r.URL.Path, "/apis/"+gv+"/namespaces/"); ok {
		var tail string
		ns, tail, _ = strings.Cut(rest, "/")
		known = ns != "" && tail == "routegroups"
	}
	if r.Method != http.MethodGet || !known {
		http.NotFound(w, r)
		return
	}
	items := []map[string]any{}
	for _, u := range c.objects {
		if u.GetAPIVersion() != gv || u.GetKind() != "RouteGroup" || (ns != "" && u.GetNamespace() != ns) {
			continue
		}
		items = append(items, u.DeepCopy().Object)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"apiVersion": gv, "kind": "RouteGroupList", "metadata": map[string]any{"resourceVersion": "1"}, "items": items,
	})
}

// routeGroupStatus draws up to three entries of
// status.loadBalancer.routeGroup: an address, a host name, both, or
// neither.
func (g *gen) routeGroupStatus() map[string]any {
	var lbs []any
	for range g.r.IntN(4) {
		switch g.r.IntN(5) {
		case 0:
			lbs = append(lbs, map[string]any{"hostname": pick(g.r, "skipper1.example.net", "skipper2.example.net")})
		case 1:
			lbs = append(lbs, map[string]any{"ip": "192.0.2.3", "hostname": "skipper3.example.net"})
		case 2:
			lbs = append(lbs, map[string]any{})
		default:
			lbs = append(lbs, map[string]any{"ip": pick(g.r, "192.0.2.1", "192.0.2.2", "2001:db8::1")})
		}
	}
	if lbs == nil {
		return map[string]any{}
	}
	return map[string]any{"routeGroup": lbs}
}

// skipperRouteGroups draws n RouteGroups: spec.hosts (some empty or
// invalid) and the route group load balancer status.
func (g *gen) skipperRouteGroups(n int) []runtime.Object {
	var objs []runtime.Object
	for range n {
		m := g.meta("rg")
		spec := map[string]any{"backends": []any{map[string]any{"name": "svc", "type": "service", "serviceName": "svc", "servicePort": int64(80)}}}
		var hosts []any
		for range g.r.IntN(4) {
			switch {
			case g.chance(6):
				hosts = append(hosts, "")
			case g.chance(8):
				hosts = append(hosts, g.sharedHost())
			default:
				hosts = append(hosts, g.hostname(m.Name))
			}
		}
		if hosts != nil {
			spec["hosts"] = hosts
		}
		objs = append(objs, customResource("zalando.org/v1", "RouteGroup", m,
			map[string]any{"spec": spec, "status": map[string]any{"loadBalancer": g.routeGroupStatus()}}))
	}
	return objs
}

func TestSkipperRouteGroupSourceAgreement(t *testing.T) {
	sd := skipperRouteGroupDiff()
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			s.IgnoreHostnameAnnotation = g.chance(5)
			sd.check(t, g.String(), s, g.skipperRouteGroups(200)...)
		})
	}
}

// Hand-written cases, which must agree exactly.
func TestSkipperRouteGroupSourceCases(t *testing.T) {
	routeGroup := func(ns, name string, anns map[string]string, hosts ...any) runtime.Object {
		return customResource("zalando.org/v1", "RouteGroup", metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: anns},
			map[string]any{
				"spec": map[string]any{"hosts": hosts},
				"status": map[string]any{"loadBalancer": map[string]any{"routeGroup": []any{
					map[string]any{"ip": "192.0.2.1"}, map[string]any{"ip": "192.0.2.2", "hostname": "skipper.example.net"},
				}}},
			})
	}
	annotated := map[string]string{"external-dns.kubernetes.io/hostname": "ann.example.com", "external-dns.kubernetes.io/ttl": "60"}
	web := routeGroup("default", "web", annotated, "a.example.com", "", "b.example.com")
	for _, tc := range []struct {
		name string
		s    sourceSettings
		objs []runtime.Object
		want int
	}{
		{name: "spec hosts and annotation, load balancer status", objs: []runtime.Object{web}, want: 6},
		{name: "IgnoreHostnameAnnotation", s: sourceSettings{IgnoreHostnameAnnotation: true}, objs: []runtime.Object{web}, want: 4},
		{name: "target annotation", objs: []runtime.Object{routeGroup("default", "web", map[string]string{"external-dns.kubernetes.io/target": "lb.example.net"}, "a.example.com")}, want: 1},
		{name: "namespace", s: sourceSettings{Namespace: "team-a"},
			objs: []runtime.Object{web, routeGroup("team-a", "api", nil, "api.example.com")}, want: 2},
		{name: "annotation filter", s: sourceSettings{AnnotationFilter: "dns in (public)"}, objs: []runtime.Object{web}, want: 0},
		{name: "label selector", s: sourceSettings{LabelSelector: "team=a"}, objs: []runtime.Object{web}, want: 0},
		{name: "FQDN template, no hosts", s: sourceSettings{FQDNTemplate: "{{.Name}}.{{.Namespace}}.tmpl.example.com"},
			objs: []runtime.Object{routeGroup("default", "web", nil)}, want: 2},
		{name: "FQDN template combined", s: sourceSettings{FQDNTemplate: "{{.Name}}.{{.Namespace}}.tmpl.example.com", CombineFQDN: true},
			objs: []runtime.Object{routeGroup("default", "web", nil, "a.example.com")}, want: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := skipperRouteGroupDiff().check(t, "hand-written", tc.s, tc.objs...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and %d records: %v", tc.want, out.Explained, len(out.Zonesync), sortedRecords(out.Zonesync))
			}
		})
	}
}

// Two RouteGroups with one host and different addresses: both sides join
// them into one A endpoint with both addresses, labelled with the first
// RouteGroup.
func TestSkipperRouteGroupSourceSharedHost(t *testing.T) {
	routeGroup := func(name, ip string) runtime.Object {
		return customResource("zalando.org/v1", "RouteGroup", metav1.ObjectMeta{Namespace: "default", Name: name},
			map[string]any{"spec": map[string]any{"hosts": []any{"shared.example.com"}},
				"status": map[string]any{"loadBalancer": map[string]any{"routeGroup": []any{map[string]any{"ip": ip}}}}})
	}
	out := skipperRouteGroupDiff().check(t, "hand-written", sourceSettings{}, routeGroup("a", "192.0.2.1"), routeGroup("b", "192.0.2.2"))
	want := record{Name: "shared.example.com", Type: "A", Targets: "192.0.2.1 192.0.2.2", Resource: "routegroup/default/a"}
	if len(out.ExternalDNS) != 1 || !out.ExternalDNS[want] || len(out.Zonesync) != 1 || !out.Zonesync[want] {
		t.Errorf("want %v on both sides, got %v and %v", want, sortedRecords(out.ExternalDNS), sortedRecords(out.Zonesync))
	}
}
