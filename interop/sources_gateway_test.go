package interop

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/gatewayapi"
)

// This file holds what the Gateway API route sources share in the
// differential tests — the source builders, their rules, and a generator
// of Namespaces, Gateways, ListenerSets and routes — and the HTTPRoute
// tests. The other route kinds are in sources_gateway_routes_test.go,
// ListenerSets in sources_gateway_listenerset_test.go.

const gwGroup = "gateway.networking.k8s.io"

// gatewayRouteKind is one route kind under test.
type gatewayRouteKind struct {
	name     string // external-dns's source name
	kind     string // the route's kind
	version  string // the route's API version
	protocol string // the listener protocol it attaches to
	hosts    bool   // whether the kind has spec.hostnames
	build    func(context.Context, *fakeCluster, gatewayapi.Config) (source.Source, error)
}

func gatewayRouteKinds() []gatewayRouteKind {
	dyn := func(f func(context.Context, *fakeCluster, gatewayapi.Config) (source.Source, error)) func(context.Context, *fakeCluster, gatewayapi.Config) (source.Source, error) {
		return f
	}
	return []gatewayRouteKind{{
		name: xtypes.GatewayHttpRoute, kind: "HTTPRoute", version: "v1", protocol: "HTTP", hosts: true,
		build: dyn(func(ctx context.Context, c *fakeCluster, cfg gatewayapi.Config) (source.Source, error) {
			kube, _ := c.KubeClient()
			d, _ := c.DynamicKubernetesClient()
			return gatewayapi.NewHTTPRouteSource(ctx, kube, d, cfg)
		}),
	}, {
		name: xtypes.GatewayGrpcRoute, kind: "GRPCRoute", version: "v1", protocol: "HTTPS", hosts: true,
		build: dyn(func(ctx context.Context, c *fakeCluster, cfg gatewayapi.Config) (source.Source, error) {
			kube, _ := c.KubeClient()
			d, _ := c.DynamicKubernetesClient()
			return gatewayapi.NewGRPCRouteSource(ctx, kube, d, cfg)
		}),
	}, {
		name: xtypes.GatewayTlsRoute, kind: "TLSRoute", version: "v1", protocol: "TLS", hosts: true,
		build: dyn(func(ctx context.Context, c *fakeCluster, cfg gatewayapi.Config) (source.Source, error) {
			kube, _ := c.KubeClient()
			d, _ := c.DynamicKubernetesClient()
			return gatewayapi.NewTLSRouteSource(ctx, kube, d, cfg)
		}),
	}, {
		name: xtypes.GatewayTcpRoute, kind: "TCPRoute", version: "v1alpha2", protocol: "TCP",
		build: dyn(func(ctx context.Context, c *fakeCluster, cfg gatewayapi.Config) (source.Source, error) {
			kube, _ := c.KubeClient()
			d, _ := c.DynamicKubernetesClient()
			return gatewayapi.NewTCPRouteSource(ctx, kube, d, cfg)
		}),
	}, {
		name: xtypes.GatewayUdpRoute, kind: "UDPRoute", version: "v1alpha2", protocol: "UDP",
		build: dyn(func(ctx context.Context, c *fakeCluster, cfg gatewayapi.Config) (source.Source, error) {
			kube, _ := c.KubeClient()
			d, _ := c.DynamicKubernetesClient()
			return gatewayapi.NewUDPRouteSource(ctx, kube, d, cfg)
		}),
	}}
}

// gatewayRouteKindNamed returns the kind of external-dns source name.
func gatewayRouteKindNamed(name string) gatewayRouteKind {
	for _, k := range gatewayRouteKinds() {
		if k.name == name {
			return k
		}
	}
	panic("no route kind " + name)
}

// gatewayRouteDiff is the route source of kind k under differential test.
func gatewayRouteDiff(k gatewayRouteKind) sourceDiff {
	return sourceDiff{
		Name: k.name,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			// zonesync's template sees the route's map, external-dns's
			// the typed route (see docs/compatibility.md).
			s.FQDNTemplate = strings.NewReplacer("{{.Name}}", "{{.metadata.name}}", "{{.Namespace}}", "{{.metadata.namespace}}").Replace(s.FQDNTemplate)
			tmpl, err := s.zonesyncTemplate()
			if err != nil {
				return nil, err
			}
			return k.build(ctx, c, gatewayapi.Config{
				Options:              s.zonesyncOptions(tmpl),
				GatewayName:          s.GatewayName,
				GatewayNamespace:     s.GatewayNamespace,
				GatewayLabelSelector: s.GatewayLabelFilter,
				GatewayListenerSets:  s.GatewayListenerSets,
			})
		},
		Rules: gatewayRules(),
	}
}

// gatewayRules are the known differences of the route sources.
func gatewayRules() []sourceRule {
	return []sourceRule{{
		Name: "gateway-merged-name-owner",
		Reason: "both sides merge the endpoints several routes give one name into one, labelled with the first route's " +
			"resource and properties; external-dns takes the routes in informer order (random), zonesync in name order, " +
			"so a shared name may carry another route's resource label",
		Match: func(d disagreement) bool {
			all := d.AllExternalDNS
			if d.Only == externalDNSOnly {
				all = d.AllZonesync
			}
			for r := range all {
				if r.Name != d.Record.Name || r.Type != d.Record.Type || r.SetIdentifier != d.Record.SetIdentifier || r.TTL != d.Record.TTL {
					continue
				}
				a, b := r.targetList(), d.Record.targetList()
				subset := func(x, y []string) bool {
					return !slices.ContainsFunc(x, func(t string) bool { return !slices.Contains(y, t) })
				}
				if r.Resource != d.Record.Resource || subset(a, b) || subset(b, a) {
					return true
				}
			}
			return false
		},
	}, {
		Name: "gateway-hostname-annotation-trailing-dot",
		Reason: "deliberate: a trailing dot is the absolute form of the same name; zonesync drops it from a route's " +
			"hostname annotation entry before intersecting it with the listener hostnames, as its other sources do; " +
			"external-dns intersects the name with its dot, which is not a valid RFC 1123 name to it, so that entry " +
			"matches no listener with a hostname and publishes nothing",
		Match: func(d disagreement) bool {
			v, ok := d.annotation("hostname")
			if !ok || d.Only != zonesyncOnly || d.Failed != nil {
				return false
			}
			for h := range strings.SplitSeq(strings.ReplaceAll(v, " ", ""), ",") {
				if strings.HasSuffix(h, ".") && strings.EqualFold(strings.TrimSuffix(h, "."), d.Record.Name) {
					return true
				}
			}
			return false
		},
	}, {
		Name: "gateway-route-target-annotation",
		Reason: "deliberate: zonesync reads the target annotation on a route too, where it overrides the targets " +
			"of its Gateways and ListenerSets; external-dns reads it only on Gateways and ListenerSets",
		Match: func(d disagreement) bool {
			_, ok := d.annotation("target")
			return ok && d.Failed == nil
		},
	}}
}

// gatewayNamespaces are the Namespaces the generated objects live in, with
// the labels allowedRoutes selectors look at.
func gatewayNamespaces() []runtime.Object {
	ns := func(name string, lbls map[string]string) runtime.Object {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls}}
	}
	return []runtime.Object{
		ns("default", map[string]string{"kubernetes.io/metadata.name": "default"}),
		ns("team-a", map[string]string{"kubernetes.io/metadata.name": "team-a", "env": "prod"}),
		ns("team-b", map[string]string{"kubernetes.io/metadata.name": "team-b", "env": "dev"}),
	}
}

// gwObject returns an unstructured Gateway API object.
func gwObject(version, kind, namespace, name string, labels, anns map[string]string, spec, status map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	if status != nil {
		u.Object["status"] = status
	}
	u.SetAPIVersion(gwGroup + "/" + version)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	if len(labels) > 0 {
		u.SetLabels(labels)
	}
	if len(anns) > 0 {
		u.SetAnnotations(anns)
	}
	return u
}

// condition is a status condition of type t.
func condition(t, status string) map[string]any {
	return map[string]any{"type": t, "status": status, "reason": "Test", "message": "", "lastTransitionTime": "2024-01-01T00:00:00Z"}
}

// gwListener is one listener of a drawn Gateway or ListenerSet.
type gwListener struct {
	name, protocol, hostname string
	port                     int64
}

// gwParent is a drawn Gateway or ListenerSet routes may attach to.
type gwParent struct {
	kind, namespace, name string
	listeners             []gwListener
}

// gatewayWorld is what one generator run drew.
type gatewayWorld struct {
	parents []gwParent
	objs    []runtime.Object
}

// listenerHostname draws a listener hostname ("" for none).
func (g *gen) listenerHostname(owner string) string {
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return ""
	case 3:
		return "*.example.com"
	case 4:
		return "*." + owner + ".example.com"
	case 5:
		return "api." + owner + ".example.com"
	case 6:
		return "WWW.Example.com"
	case 7:
		return "*.other.org"
	case 8:
		return pick(g.r, "bad_host.example.com", "192.0.2.80")
	}
	return "example.com"
}

// gwListeners draws the listeners of a Gateway or ListenerSet named owner,
// speaking mostly protocol.
func (g *gen) gwListeners(owner, protocol string) ([]gwListener, []any) {
	var ls []gwListener
	var raw []any
	for i := range 1 + g.r.IntN(4) {
		l := gwListener{name: fmt.Sprintf("l%d", i), protocol: protocol, hostname: g.listenerHostname(owner), port: 80}
		if g.chance(3) {
			l.protocol = pick(g.r, "HTTP", "HTTPS", "TLS", "TCP", "UDP")
		}
		switch l.protocol {
		case "HTTPS", "TLS":
			l.port = 443
		case "TCP", "UDP":
			l.port = pick(g.r, int64(53), int64(5432))
		}
		if g.chance(5) {
			l.port = 8443
		}
		m := map[string]any{"name": l.name, "protocol": l.protocol, "port": l.port}
		if l.hostname != "" {
			m["hostname"] = l.hostname
		}
		ar := map[string]any{}
		switch g.r.IntN(6) {
		case 0:
			ar["namespaces"] = map[string]any{"from": "All"}
		case 1:
			ar["namespaces"] = map[string]any{"from": "Same"}
		case 2:
			ar["namespaces"] = map[string]any{"from": "Selector", "selector": map[string]any{"matchLabels": map[string]any{"env": "prod"}}}
		case 3:
			ar["namespaces"] = map[string]any{"from": "Selector", "selector": map[string]any{"matchExpressions": []any{
				map[string]any{"key": "env", "operator": "In", "values": []any{"prod", "dev"}},
			}}}
		}
		if g.chance(6) {
			k := map[string]any{"kind": pick(g.r, "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute")}
			if g.chance(2) {
				k["group"] = gwGroup
			}
			ar["kinds"] = []any{k}
		}
		if len(ar) > 0 {
			m["allowedRoutes"] = ar
		}
		ls = append(ls, l)
		raw = append(raw, m)
	}
	return ls, raw
}

// gateways draws n Gateways whose listeners speak mostly protocol.
func (g *gen) gateways(w *gatewayWorld, n int, protocol string) {
	for range n {
		name := g.name("gw")
		ns := g.namespace()
		labels := map[string]string{}
		if !g.chance(3) {
			labels["gwteam"] = pick(g.r, "a", "b")
		}
		anns := map[string]string{}
		if g.chance(3) {
			var ts []string
			for range 1 + g.r.IntN(2) {
				ts = append(ts, g.target())
			}
			g.setAnn(anns, "target", strings.Join(ts, ","), func() string { return "203.0.113.99" })
		}
		if g.chance(10) {
			g.setAnn(anns, "ttl", pick(g.r, "abc", "0"), func() string { return "-1" })
		}
		ls, raw := g.gwListeners(name, protocol)
		spec := map[string]any{"gatewayClassName": "test", "listeners": raw}
		switch g.r.IntN(4) {
		case 0:
			spec["allowedListeners"] = map[string]any{"namespaces": map[string]any{"from": "All"}}
		case 1:
			spec["allowedListeners"] = map[string]any{"namespaces": map[string]any{"from": "Same"}}
		case 2:
			spec["allowedListeners"] = map[string]any{"namespaces": map[string]any{"from": "Selector", "selector": map[string]any{"matchLabels": map[string]any{"env": "prod"}}}}
		}
		var addrs []any
		for range g.r.IntN(3) {
			v := pick(g.r, "192.0.2.1", "192.0.2.2", "2001:db8::1", "gw-lb.example.net")
			a := map[string]any{"value": v}
			if g.chance(2) {
				if strings.Contains(v, "lb") {
					a["type"] = "Hostname"
				} else {
					a["type"] = "IPAddress"
				}
			}
			addrs = append(addrs, a)
		}
		var status map[string]any
		if len(addrs) > 0 {
			status = map[string]any{"addresses": addrs}
		}
		w.parents = append(w.parents, gwParent{kind: "Gateway", namespace: ns, name: name, listeners: ls})
		w.objs = append(w.objs, gwObject("v1", "Gateway", ns, name, labels, anns, spec, status))
	}
}

// listenerSets draws n ListenerSets attached to the drawn Gateways (some
// to missing ones), accepted or not, with their listeners' status.
func (g *gen) listenerSets(w *gatewayWorld, n int, protocol string) {
	var gws []gwParent
	for _, p := range w.parents {
		if p.kind == "Gateway" {
			gws = append(gws, p)
		}
	}
	for range n {
		name := g.name("ls")
		ns := g.namespace()
		anns := map[string]string{}
		if g.chance(3) {
			g.setAnn(anns, "target", g.target(), func() string { return "203.0.113.98" })
		}
		if g.chance(8) {
			anns["dns"] = pick(g.r, "public", "private")
		}
		ls, raw := g.gwListeners(name, protocol)
		parentRef := map[string]any{"name": "missing-gw"}
		if len(gws) > 0 && !g.chance(8) {
			gw := gws[g.r.IntN(len(gws))]
			parentRef["name"] = gw.name
			if gw.namespace != ns || g.chance(3) {
				parentRef["namespace"] = gw.namespace
			}
		}
		if g.chance(3) {
			parentRef["group"] = gwGroup
			parentRef["kind"] = "Gateway"
		}
		spec := map[string]any{"parentRef": parentRef, "listeners": raw}
		status := map[string]any{}
		if !g.chance(5) {
			status["conditions"] = []any{condition("Accepted", pick(g.r, "True", "True", "True", "False"))}
		}
		var lst []any
		for _, l := range ls {
			if g.chance(6) {
				continue // no status entry
			}
			lst = append(lst, map[string]any{
				"name": l.name, "attachedRoutes": int64(0), "supportedKinds": []any{},
				"conditions": []any{condition("Accepted", pick(g.r, "True", "True", "True", "False"))},
			})
		}
		if len(lst) > 0 {
			status["listeners"] = lst
		}
		w.parents = append(w.parents, gwParent{kind: "ListenerSet", namespace: ns, name: name, listeners: ls})
		w.objs = append(w.objs, gwObject("v1", "ListenerSet", ns, name, nil, anns, spec, status))
	}
}

// routeHostname draws a spec.hostnames entry, often one the parent's
// listeners match.
func (g *gen) routeHostname(route string, p *gwParent) string {
	if p != nil && len(p.listeners) > 0 && g.chance(2) {
		l := p.listeners[g.r.IntN(len(p.listeners))]
		switch {
		case strings.HasPrefix(l.hostname, "*."):
			return pick(g.r, route, "a.b."+route, "*") + l.hostname[1:]
		case l.hostname != "":
			return pick(g.r, l.hostname, strings.ToUpper(l.hostname))
		}
	}
	switch g.r.IntN(8) {
	case 0:
		return "*.example.com"
	case 1:
		return "example.com"
	case 2:
		return "bad_host!" + route + ".example.com"
	case 3:
		return route + ".other.org"
	}
	return route + ".example.com"
}

// routes draws n routes of kind k attached to the drawn parents (some
// missing), with spec.hostnames, parentRefs (sectionName, port,
// cross-namespace) and status.parents (Accepted or not, some not in
// spec).
func (g *gen) routes(w *gatewayWorld, k gatewayRouteKind, n int) {
	for range n {
		m := g.meta(strings.ToLower(k.kind[:3]))
		// zonesync reads a route's target annotation, external-dns does
		// not (rule gateway-route-target-annotation, hand-written case):
		// drawn here it would also change every name a route shares.
		delete(m.Annotations, "external-dns.kubernetes.io/target")
		delete(m.Annotations, "external-dns.alpha.kubernetes.io/target")
		if g.chance(8) {
			m.Annotations["external-dns.alpha.kubernetes.io/gateway-hostname-source"] = pick(g.r, "defined-hosts-only", "annotation-only", "Annotation-Only", "other")
		}
		var refs, parents []any
		var first *gwParent
		for range 1 + g.r.IntN(2)*g.r.IntN(3) {
			ref := map[string]any{"name": "missing"}
			var p *gwParent
			if len(w.parents) > 0 && !g.chance(10) {
				p = &w.parents[g.r.IntN(len(w.parents))]
				ref["name"] = p.name
				if p.namespace != m.Namespace || g.chance(4) {
					ref["namespace"] = p.namespace
				}
				if p.kind != "Gateway" || g.chance(4) {
					ref["kind"] = p.kind
					ref["group"] = gwGroup
				}
				if len(p.listeners) > 0 && g.chance(3) {
					ref["sectionName"] = p.listeners[g.r.IntN(len(p.listeners))].name
				}
				if g.chance(6) {
					ref["port"] = pick(g.r, int64(80), int64(443), int64(53))
				}
				if first == nil {
					first = p
				}
			}
			refs = append(refs, ref)
			if g.chance(8) {
				continue // no status entry
			}
			st := map[string]any{"parentRef": ref, "controllerName": "example.com/gateway"}
			if !g.chance(6) {
				st["conditions"] = []any{condition("Accepted", pick(g.r, "True", "True", "True", "False"))}
			}
			parents = append(parents, st)
		}
		if g.chance(10) && len(w.parents) > 0 {
			// Accepted by a parent the spec does not name.
			p := w.parents[g.r.IntN(len(w.parents))]
			parents = append(parents, map[string]any{
				"parentRef": map[string]any{"name": p.name, "namespace": p.namespace, "kind": p.kind, "group": gwGroup}, "controllerName": "example.com/gateway",
				"conditions": []any{condition("Accepted", "True")},
			})
		}
		spec := map[string]any{"parentRefs": refs}
		if k.hosts {
			var hosts []any
			for range g.r.IntN(3) {
				hosts = append(hosts, g.routeHostname(m.Name, first))
			}
			if len(hosts) > 0 {
				spec["hostnames"] = hosts
			}
		}
		var status map[string]any
		if len(parents) > 0 {
			status = map[string]any{"parents": parents}
		}
		w.objs = append(w.objs, gwObject(k.version, k.kind, m.Namespace, m.Name, m.Labels, m.Annotations, spec, status))
	}
}

// gatewaySettings draws the Gateway flags beside the common ones.
func (g *gen) gatewaySettings() sourceSettings {
	s := g.settings()
	if g.chance(5) {
		s.GatewayName = "gw1"
	}
	if g.chance(5) {
		s.GatewayNamespace = pick(g.r, "default", "team-a")
	}
	switch g.r.IntN(5) {
	case 0:
		s.GatewayLabelFilter = "gwteam=a"
	case 1:
		s.GatewayLabelFilter = "gwteam"
	}
	s.IgnoreHostnameAnnotation = g.chance(6)
	return s
}

// gatewayWorldOf draws a whole world for kind k: namespaces, Gateways,
// ListenerSets when lsets, and routes.
func (g *gen) gatewayWorldOf(k gatewayRouteKind, lsets bool, routes int) []runtime.Object {
	w := &gatewayWorld{objs: gatewayNamespaces()}
	g.gateways(w, 6+g.r.IntN(4), k.protocol)
	if lsets {
		g.listenerSets(w, 4+g.r.IntN(4), k.protocol)
	}
	g.routes(w, k, routes)
	return w.objs
}

// checkGatewayRoutes runs the seeded differential test of kind k.
func checkGatewayRoutes(t *testing.T, k gatewayRouteKind, lsets bool) {
	sd := gatewayRouteDiff(k)
	agree := 0
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.gatewaySettings()
			s.GatewayListenerSets = lsets
			agree += countAgree(sd.check(t, g.String(), s, g.gatewayWorldOf(k, lsets, 150)...))
		})
	}
	if agree == 0 {
		t.Errorf("no record agrees in any run: the generator draws nothing useful")
	}
}

func TestGatewayHTTPRouteSourceAgreement(t *testing.T) {
	checkGatewayRoutes(t, gatewayRouteKindNamed(xtypes.GatewayHttpRoute), false)
}

// Hand-written cases: one per Gateway setting, which must agree exactly.
func TestGatewayHTTPRouteSourceCases(t *testing.T) {
	sd := gatewayRouteDiff(gatewayRouteKindNamed(xtypes.GatewayHttpRoute))
	listener := func(name, host string) any {
		l := map[string]any{"name": name, "protocol": "HTTP", "port": int64(80), "allowedRoutes": map[string]any{"namespaces": map[string]any{"from": "All"}}}
		if host != "" {
			l["hostname"] = host
		}
		return l
	}
	gw := func(ns, name string, labels, anns map[string]string, addr string, listeners ...any) *unstructured.Unstructured {
		return gwObject("v1", "Gateway", ns, name, labels, anns, map[string]any{"gatewayClassName": "test", "listeners": listeners},
			map[string]any{"addresses": []any{map[string]any{"value": addr}}})
	}
	route := func(ns, name string, anns map[string]string, hosts []any, refs ...map[string]any) *unstructured.Unstructured {
		var refList, parents []any
		for _, r := range refs {
			refList = append(refList, r)
			parents = append(parents, map[string]any{"parentRef": r, "controllerName": "example.com/gw", "conditions": []any{condition("Accepted", "True")}})
		}
		spec := map[string]any{"parentRefs": refList}
		if hosts != nil {
			spec["hostnames"] = hosts
		}
		return gwObject("v1", "HTTPRoute", ns, name, nil, anns, spec, map[string]any{"parents": parents})
	}
	world := func(routeAnns map[string]string) []runtime.Object {
		return append(gatewayNamespaces(),
			gw("default", "public", map[string]string{"tier": "public"}, nil, "192.0.2.1", listener("web", "*.example.com"), listener("api", "api.example.com")),
			gw("team-a", "internal", map[string]string{"tier": "internal"}, map[string]string{"external-dns.kubernetes.io/target": "lb.example.net"}, "192.0.2.2", listener("web", "")),
			route("team-b", "shop", routeAnns, []any{"shop.example.com", "api.example.com"},
				map[string]any{"name": "public", "namespace": "default"},
				map[string]any{"name": "internal", "namespace": "team-a", "sectionName": "web"}),
			route("default", "blog", nil, nil, map[string]any{"name": "public", "sectionName": "web"}),
		)
	}
	for _, tc := range []struct {
		name string
		s    sourceSettings
		anns map[string]string
		want int // records on both sides
	}{{
		name: "listeners, sections, cross-namespace parents and the Gateway target annotation",
		want: 5,
	}, {
		name: "GatewayName",
		s:    sourceSettings{GatewayName: "internal"},
		want: 2,
	}, {
		name: "GatewayNamespace",
		s:    sourceSettings{GatewayNamespace: "default"},
		want: 3,
	}, {
		name: "GatewayLabelFilter",
		s:    sourceSettings{GatewayLabelFilter: "tier=internal"},
		want: 2,
	}, {
		name: "route hostname annotation and gateway-hostname-source",
		anns: map[string]string{"external-dns.kubernetes.io/hostname": "extra.example.com", "external-dns.kubernetes.io/gateway-hostname-source": "annotation-only"},
		want: 3,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			out := sd.check(t, "hand-written", tc.s, world(tc.anns)...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and %d records: %v", tc.want, out.Explained, len(out.Zonesync), sortedRecords(out.Zonesync))
			}
		})
	}
	t.Run("route target annotation", func(t *testing.T) {
		out := sd.check(t, "hand-written", sourceSettings{}, world(map[string]string{"external-dns.kubernetes.io/target": "203.0.113.5"})...)
		if out.Explained["gateway-route-target-annotation"] == 0 {
			t.Errorf("want the route target annotation difference, got %v", out.Explained)
		}
	})
}
