package interop

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	xtypes "sigs.k8s.io/external-dns/source/types"
)

// Hand-written ListenerSet cases: the HTTPRoutes below attach only to
// ListenerSets, so every record comes through one. With
// GatewayListenerSets both sides must publish exactly the same records;
// without it both must publish nothing.
func TestGatewayListenerSetCases(t *testing.T) {
	sd := gatewayRouteDiff(gatewayRouteKindNamed(xtypes.GatewayHttpRoute))
	accepted := []any{condition("Accepted", "True")}
	listener := func(name, host string) map[string]any {
		l := map[string]any{"name": name, "protocol": "HTTP", "port": int64(80), "allowedRoutes": map[string]any{"namespaces": map[string]any{"from": "All"}}}
		if host != "" {
			l["hostname"] = host
		}
		return l
	}
	// The Gateway's own listener matches none of the routes' names, and no
	// route names the Gateway.
	gw := func(ns, name, from string, anns map[string]string, addr string) *unstructured.Unstructured {
		return gwObject("v1", "Gateway", ns, name, nil, anns, map[string]any{
			"gatewayClassName": "test",
			"listeners":        []any{listener("own", "gw-only.example.org")},
			"allowedListeners": map[string]any{"namespaces": map[string]any{"from": from}},
		}, map[string]any{"addresses": []any{map[string]any{"value": addr}}})
	}
	lset := func(ns, name string, anns map[string]string, parent map[string]any, listeners ...map[string]any) *unstructured.Unstructured {
		var raw, st []any
		for _, l := range listeners {
			raw = append(raw, l)
			st = append(st, map[string]any{"name": l["name"], "attachedRoutes": int64(0), "supportedKinds": []any{}, "conditions": accepted})
		}
		return gwObject("v1", "ListenerSet", ns, name, nil, anns, map[string]any{"parentRef": parent, "listeners": raw},
			map[string]any{"conditions": accepted, "listeners": st})
	}
	route := func(ns, name string, hosts []any, refs ...map[string]any) *unstructured.Unstructured {
		var refList, parents []any
		for _, r := range refs {
			refList = append(refList, r)
			parents = append(parents, map[string]any{"parentRef": r, "controllerName": "example.com/gw", "conditions": accepted})
		}
		return gwObject("v1", "HTTPRoute", ns, name, nil, nil, map[string]any{"parentRefs": refList, "hostnames": hosts}, map[string]any{"parents": parents})
	}
	lsRef := func(ns, name, section string) map[string]any {
		r := map[string]any{"group": gwGroup, "kind": "ListenerSet", "name": name, "namespace": ns}
		if section != "" {
			r["sectionName"] = section
		}
		return r
	}
	world := append(gatewayNamespaces(),
		gw("default", "shared", "All", nil, "192.0.2.1"),
		gw("team-b", "samens", "Same", map[string]string{"external-dns.kubernetes.io/target": "gw-lb.example.net"}, "192.0.2.2"),
		// Attached to shared from another namespace, two listeners.
		lset("team-a", "apps", nil, map[string]any{"name": "shared", "namespace": "default"},
			listener("wild", "*.apps.example.com"), listener("api", "api.example.com")),
		// Its own target annotation wins over the Gateway's address.
		lset("team-b", "own-target", map[string]string{"external-dns.kubernetes.io/target": "203.0.113.7"},
			map[string]any{"name": "samens"}, listener("web", "")),
		// Not allowed: samens takes ListenerSets of its own namespace only.
		lset("team-a", "refused", nil, map[string]any{"name": "samens", "namespace": "team-b"}, listener("web", "")),
		route("team-a", "shop", []any{"shop.apps.example.com", "nomatch.other.org"}, lsRef("team-a", "apps", "")),
		route("default", "api-only", []any{"x.apps.example.com", "api.example.com"}, lsRef("team-a", "apps", "api")),
		route("team-b", "blog", []any{"blog.example.com"}, lsRef("team-b", "own-target", "")),
		route("team-a", "lost", []any{"lost.example.com"}, lsRef("team-a", "refused", "")),
	)
	for _, tc := range []struct {
		name string
		s    sourceSettings
		want int // records on both sides
	}{{
		// shop: shop.apps A (192.0.2.1); api-only: api A, not x.apps (its
		// section is the api listener); blog: blog A 203.0.113.7.
		name: "GatewayListenerSets", s: sourceSettings{GatewayListenerSets: true}, want: 3,
	}, {
		name: "GatewayListenerSets with GatewayNamespace", s: sourceSettings{GatewayListenerSets: true, GatewayNamespace: "team-b"}, want: 1,
	}, {
		name: "ListenerSets off", want: 0,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			out := sd.check(t, "hand-written", tc.s, world...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want || len(out.ExternalDNS) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and zonesync %v, external-dns %v", tc.want, out.Explained, sortedRecords(out.Zonesync), sortedRecords(out.ExternalDNS))
			}
		})
	}
}
