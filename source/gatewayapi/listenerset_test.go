package gatewayapi_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic/dynamicinformer"
	k8sinformers "k8s.io/client-go/informers"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/gatewayapi"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// lsSpec is a ListenerSet in the test's short form.
type lsSpec struct {
	ns, name string
	ann      map[string]string
	// parentNs and parentName are spec.parentRef (parentNs "" leaves
	// the namespace out).
	parentNs, parentName string
	// accepted is status.conditions Accepted (nil: no condition).
	accepted *bool
	// listenerStatus is status.listeners: Accepted per listener name; a
	// listener missing here has no status entry. Nil: every listener is
	// Accepted.
	listenerStatus map[string]bool
	listeners      []listenerSpec
}

func condition(ok bool) []any {
	status := "False"
	if ok {
		status = "True"
	}
	return []any{map[string]any{"type": "Accepted", "status": status, "reason": "Test", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}}
}

func lset(l lsSpec) *unstructured.Unstructured {
	// The listener entries have the fields of Gateway listeners.
	entries, _, _ := unstructured.NestedSlice(gw("", "", nil, nil, l.listeners...).Object, "spec", "listeners")
	ref := map[string]any{"name": l.parentName}
	if l.parentNs != "" {
		ref["namespace"] = l.parentNs
	}
	status := map[string]any{}
	if l.accepted != nil {
		status["conditions"] = condition(*l.accepted)
	}
	var lstatus []any
	for _, lis := range l.listeners {
		ok, found := true, true
		if l.listenerStatus != nil {
			ok, found = l.listenerStatus[lis.name]
		}
		if found {
			lstatus = append(lstatus, map[string]any{"name": lis.name, "attachedRoutes": int64(0), "conditions": condition(ok)})
		}
	}
	if lstatus != nil {
		status["listeners"] = lstatus
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "ListenerSet",
		"spec":   map[string]any{"parentRef": ref, "listeners": entries},
		"status": status,
	}}
	u.SetNamespace(l.ns)
	u.SetName(l.name)
	u.SetResourceVersion("1")
	if l.ann != nil {
		u.SetAnnotations(l.ann)
	}
	return u
}

// allowListeners sets a Gateway's spec.allowedListeners.namespaces.
func allowListeners(u *unstructured.Unstructured, from string, selector map[string]string) *unstructured.Unstructured {
	nsm := map[string]any{"from": from}
	if selector != nil {
		sel := map[string]any{}
		for k, v := range selector {
			sel[k] = v
		}
		nsm["selector"] = map[string]any{"matchLabels": sel}
	}
	_ = unstructured.SetNestedField(u.Object, map[string]any{"namespaces": nsm}, "spec", "allowedListeners")
	return u
}

// toKind turns the route's parentRefs (spec and status) named name into
// references of the given group and kind.
func toKind(u *unstructured.Unstructured, group, kind string, names ...string) *unstructured.Unstructured {
	set := func(ref map[string]any) {
		for _, n := range names {
			if ref["name"] == n {
				ref["group"], ref["kind"] = group, kind
			}
		}
	}
	refs, _, _ := unstructured.NestedSlice(u.Object, "spec", "parentRefs")
	for _, r := range refs {
		set(r.(map[string]any))
	}
	_ = unstructured.SetNestedSlice(u.Object, refs, "spec", "parentRefs")
	parents, _, _ := unstructured.NestedSlice(u.Object, "status", "parents")
	for _, p := range parents {
		set(p.(map[string]any)["parentRef"].(map[string]any))
	}
	_ = unstructured.SetNestedSlice(u.Object, parents, "status", "parents")
	return u
}

// viaLS is a route whose parents named in lsNames are ListenerSets.
func viaLS(u *unstructured.Unstructured, lsNames ...string) *unstructured.Unstructured {
	return toKind(u, gatewayapi.Group, "ListenerSet", lsNames...)
}

func TestListenerSets(t *testing.T) {
	http, tcp := gatewayapi.HTTPRouteKind(), gatewayapi.TCPRouteKind()
	on := gatewayapi.Config{GatewayListenerSets: true}
	// A Gateway taking ListenerSets from every namespace; its own
	// listener has a hostname of its own so that names through the
	// Gateway and through a ListenerSet are told apart.
	gwAll := func() *unstructured.Unstructured {
		return allowListeners(gw("default", "gw", nil, []string{"10.0.0.1", "2001:db8::1"},
			listenerSpec{name: "base", protocol: "HTTP", port: 80, hostname: "*.base.example.com"}), "All", nil)
	}
	appLS := lsSpec{ns: "default", name: "ls", parentName: "gw", accepted: yes(),
		listeners: []listenerSpec{{name: "app", protocol: "HTTP", port: 8080, hostname: "*.apps.example.com"}}}
	webRoute := func(hosts ...string) *unstructured.Unstructured {
		return viaLS(rt(http, "default", "web", nil, hosts, parent{name: "ls", accepted: yes()}), "ls")
	}
	with := func(l lsSpec, f func(*lsSpec)) lsSpec { f(&l); return l }

	tests := []struct {
		name string
		kind gatewayapi.RouteKind
		cfg  gatewayapi.Config
		nss  []*corev1.Namespace
		objs []*unstructured.Unstructured
		want []string
	}{
		{
			name: "off: a route attached only through a ListenerSet publishes nothing",
			kind: http,
			objs: []*unstructured.Unstructured{gwAll(), lset(appLS), webRoute("web.apps.example.com")},
		},
		{
			name: "off: a route attached to a Gateway and a ListenerSet gets the Gateway names only",
			kind: http,
			objs: []*unstructured.Unstructured{
				gwAll(), lset(appLS),
				viaLS(rt(http, "default", "web", nil, []string{"web.apps.example.com", "web.base.example.com"},
					parent{name: "ls", accepted: yes()}, parent{name: "gw", accepted: yes()}), "ls"),
			},
			want: []string{
				"web.base.example.com 0 IN A  10.0.0.1 httproute/default/web",
				"web.base.example.com 0 IN AAAA  2001:db8::1 httproute/default/web",
			},
		},
		{
			name: "on: names from the ListenerSet listeners, targets from the parent Gateway",
			kind: http,
			cfg:  on,
			objs: []*unstructured.Unstructured{gwAll(), lset(appLS), webRoute("web.apps.example.com", "web.base.example.com", "web.example.org")},
			want: []string{
				"web.apps.example.com 0 IN A  10.0.0.1 httproute/default/web",
				"web.apps.example.com 0 IN AAAA  2001:db8::1 httproute/default/web",
			},
		},
		{
			name: "on: a route attached to both gets the names of both",
			kind: http,
			cfg:  on,
			objs: []*unstructured.Unstructured{
				gwAll(), lset(appLS),
				viaLS(rt(http, "default", "web", nil, []string{"web.apps.example.com", "web.base.example.com"},
					parent{name: "ls", accepted: yes()}, parent{name: "gw", accepted: yes()}), "ls"),
			},
			want: []string{
				"web.apps.example.com 0 IN A  10.0.0.1 httproute/default/web",
				"web.apps.example.com 0 IN AAAA  2001:db8::1 httproute/default/web",
				"web.base.example.com 0 IN A  10.0.0.1 httproute/default/web",
				"web.base.example.com 0 IN AAAA  2001:db8::1 httproute/default/web",
			},
		},
		{
			name: "route parent status: not Accepted, missing, or not in spec.parentRefs",
			kind: http,
			cfg:  on,
			objs: func() []*unstructured.Unstructured {
				notInSpec := viaLS(rt(http, "default", "c", nil, []string{"c.apps.example.com"}, parent{name: "ls", accepted: yes()}), "ls")
				_ = unstructured.SetNestedSlice(notInSpec.Object, []any{map[string]any{"name": "gw"}}, "spec", "parentRefs")
				return []*unstructured.Unstructured{
					gwAll(), lset(appLS),
					viaLS(rt(http, "default", "a", nil, []string{"a.apps.example.com"}, parent{name: "ls", accepted: no()}), "ls"),
					viaLS(rt(http, "default", "b", nil, []string{"b.apps.example.com"}, parent{name: "ls"}), "ls"),
					notInSpec,
				}
			}(),
		},
		{
			name: "the ListenerSet must be Accepted",
			kind: http,
			cfg:  on,
			objs: []*unstructured.Unstructured{
				gwAll(),
				lset(with(appLS, func(l *lsSpec) { l.name, l.accepted = "refused", no() })),
				lset(with(appLS, func(l *lsSpec) { l.name, l.accepted = "pending", nil })),
				viaLS(rt(http, "default", "web", nil, []string{"web.apps.example.com"},
					parent{name: "refused", accepted: yes()}, parent{name: "pending", accepted: yes()}), "refused", "pending"),
			},
		},
		{
			name: "only listeners whose status says Accepted take part",
			kind: http,
			cfg:  on,
			objs: []*unstructured.Unstructured{
				gwAll(),
				lset(with(appLS, func(l *lsSpec) {
					l.listeners = []listenerSpec{
						{name: "ok", protocol: "HTTP", port: 80, hostname: "ok.example.com"},
						{name: "refused", protocol: "HTTP", port: 80, hostname: "refused.example.com"},
						{name: "nostatus", protocol: "HTTP", port: 80, hostname: "nostatus.example.com"},
					}
					l.listenerStatus = map[string]bool{"ok": true, "refused": false}
				})),
				webRoute("ok.example.com", "refused.example.com", "nostatus.example.com"),
				viaLS(rt(http, "default", "sect", nil, []string{"refused.example.com"}, parent{name: "ls", section: "refused", accepted: yes()}), "ls"),
			},
			want: []string{
				"ok.example.com 0 IN A  10.0.0.1 httproute/default/web",
				"ok.example.com 0 IN AAAA  2001:db8::1 httproute/default/web",
			},
		},
		{
			name: "the Gateway's allowedListeners: absent (None), None, Same, Selector",
			kind: http,
			cfg:  on,
			nss: []*corev1.Namespace{
				namespace("infra", nil),
				namespace("edge", map[string]string{"listeners": "yes"}),
				namespace("other", nil),
			},
			objs: func() []*unstructured.Unstructured {
				lis := listenerSpec{name: "app", protocol: "HTTP", port: 80, from: "All"}
				plain := func(ns, name string) *unstructured.Unstructured {
					return gw(ns, name, nil, []string{"10.0.0.1"}, http80)
				}
				ls := func(ns, name, gwName string, host string) *unstructured.Unstructured {
					l := lis
					l.hostname = host
					return lset(lsSpec{ns: ns, name: name, parentNs: "infra", parentName: gwName, accepted: yes(), listeners: []listenerSpec{l}})
				}
				route := rt(http, "apps", "web", nil, []string{"absent.example.com", "none.example.com", "same.example.com", "notsame.example.com", "sel.example.com", "notsel.example.com"},
					parent{ns: "infra", name: "absent", accepted: yes()},
					parent{ns: "infra", name: "none", accepted: yes()},
					parent{ns: "infra", name: "same", accepted: yes()},
					parent{ns: "edge", name: "notsame", accepted: yes()},
					parent{ns: "edge", name: "sel", accepted: yes()},
					parent{ns: "other", name: "notsel", accepted: yes()})
				return []*unstructured.Unstructured{
					plain("infra", "gw-absent"),
					allowListeners(plain("infra", "gw-none"), "None", nil),
					allowListeners(plain("infra", "gw-same"), "Same", nil),
					allowListeners(plain("infra", "gw-sel"), "Selector", map[string]string{"listeners": "yes"}),
					ls("infra", "absent", "gw-absent", "absent.example.com"),
					ls("infra", "none", "gw-none", "none.example.com"),
					ls("infra", "same", "gw-same", "same.example.com"),
					ls("edge", "notsame", "gw-same", "notsame.example.com"),
					ls("edge", "sel", "gw-sel", "sel.example.com"),
					ls("other", "notsel", "gw-sel", "notsel.example.com"),
					viaLS(route, "absent", "none", "same", "notsame", "sel", "notsel"),
				}
			}(),
			want: []string{
				"same.example.com 0 IN A  10.0.0.1 httproute/apps/web",
				"sel.example.com 0 IN A  10.0.0.1 httproute/apps/web",
			},
		},
		{
			name: "sectionName names a ListenerSet listener; a Gateway listener's name is not one",
			kind: http,
			cfg:  on,
			objs: []*unstructured.Unstructured{
				gwAll(),
				lset(with(appLS, func(l *lsSpec) {
					l.listeners = []listenerSpec{
						{name: "api", protocol: "HTTP", port: 80, hostname: "*.api.example.com"},
						{name: "web", protocol: "HTTPS", port: 443, hostname: "*.example.com"},
					}
				})),
				viaLS(rt(http, "default", "sect", nil, []string{"x.api.example.com", "y.example.com"}, parent{name: "ls", section: "api", accepted: yes()}), "ls"),
				viaLS(rt(http, "default", "all", nil, []string{"a.api.example.com", "b.example.com"}, parent{name: "ls", accepted: yes()}), "ls"),
				viaLS(rt(http, "default", "base", nil, []string{"x.base.example.com"}, parent{name: "ls", section: "base", accepted: yes()}), "ls"),
				viaLS(rt(http, "default", "port", nil, []string{"p.api.example.com", "q.example.com"}, parent{name: "ls", port: 443, accepted: yes()}), "ls"),
			},
			want: []string{
				"a.api.example.com 0 IN A  10.0.0.1 httproute/default/all",
				"a.api.example.com 0 IN AAAA  2001:db8::1 httproute/default/all",
				"b.example.com 0 IN A  10.0.0.1 httproute/default/all",
				"b.example.com 0 IN AAAA  2001:db8::1 httproute/default/all",
				"p.api.example.com 0 IN A  10.0.0.1 httproute/default/port",
				"p.api.example.com 0 IN AAAA  2001:db8::1 httproute/default/port",
				"q.example.com 0 IN A  10.0.0.1 httproute/default/port",
				"q.example.com 0 IN AAAA  2001:db8::1 httproute/default/port",
				"x.api.example.com 0 IN A  10.0.0.1 httproute/default/sect",
				"x.api.example.com 0 IN AAAA  2001:db8::1 httproute/default/sect",
			},
		},
		{
			name: "hostname intersection with ListenerSet listener hostnames and wildcards",
			kind: http,
			cfg:  on,
			objs: []*unstructured.Unstructured{
				gwAll(),
				lset(with(appLS, func(l *lsSpec) {
					l.listeners = []listenerSpec{
						{name: "wild", protocol: "HTTP", port: 80, hostname: "*.example.com"},
						{name: "exact", protocol: "HTTP", port: 81, hostname: "exact.example.org"},
						{name: "any", protocol: "HTTP", port: 82},
					}
				})),
				viaLS(rt(http, "default", "wild", nil, []string{"a.example.com", "b.c.example.com", "example.com", "*.example.com", "*.net"},
					parent{name: "ls", section: "wild", accepted: yes()}), "ls"),
				viaLS(rt(http, "default", "nohosts", nil, nil, parent{name: "ls", section: "exact", accepted: yes()}), "ls"),
				viaLS(rt(http, "default", "nohosts-any", nil, nil, parent{name: "ls", section: "any", accepted: yes()}), "ls"),
				viaLS(rt(http, "default", "any", nil, []string{"Mixed.Example.NET"}, parent{name: "ls", section: "any", accepted: yes()}), "ls"),
			},
			want: []string{
				"*.example.com 0 IN A  10.0.0.1 httproute/default/wild",
				"*.example.com 0 IN AAAA  2001:db8::1 httproute/default/wild",
				"a.example.com 0 IN A  10.0.0.1 httproute/default/wild",
				"a.example.com 0 IN AAAA  2001:db8::1 httproute/default/wild",
				"b.c.example.com 0 IN A  10.0.0.1 httproute/default/wild",
				"b.c.example.com 0 IN AAAA  2001:db8::1 httproute/default/wild",
				"exact.example.org 0 IN A  10.0.0.1 httproute/default/nohosts",
				"exact.example.org 0 IN AAAA  2001:db8::1 httproute/default/nohosts",
				"mixed.example.net 0 IN A  10.0.0.1 httproute/default/any",
				"mixed.example.net 0 IN AAAA  2001:db8::1 httproute/default/any",
			},
		},
		{
			name: "allowedRoutes of a ListenerSet listener: Same is the ListenerSet's namespace, All, Selector",
			kind: http,
			cfg:  on,
			nss: []*corev1.Namespace{
				namespace("infra", nil),
				namespace("edge", nil),
				namespace("team-a", map[string]string{"dns": "yes"}),
			},
			objs: func() []*unstructured.Unstructured {
				ls := lset(lsSpec{ns: "edge", name: "ls", parentNs: "infra", parentName: "gw", accepted: yes(), listeners: []listenerSpec{
					{name: "same", protocol: "HTTP", port: 80, hostname: "*.same.example.com"},
					{name: "all", protocol: "HTTP", port: 80, hostname: "*.all.example.com", from: "All"},
					{name: "sel", protocol: "HTTP", port: 80, hostname: "*.sel.example.com", from: "Selector", selector: map[string]string{"dns": "yes"}},
				}})
				hosts := func(p string) []string {
					return []string{p + ".same.example.com", p + ".all.example.com", p + ".sel.example.com"}
				}
				return []*unstructured.Unstructured{
					allowListeners(gw("infra", "gw", nil, []string{"10.0.0.1"}, http80), "All", nil),
					ls,
					viaLS(rt(http, "edge", "e", nil, hosts("e"), parent{name: "ls", accepted: yes()}), "ls"),
					viaLS(rt(http, "infra", "i", nil, hosts("i"), parent{ns: "edge", name: "ls", accepted: yes()}), "ls"),
					viaLS(rt(http, "team-a", "a", nil, hosts("a"), parent{ns: "edge", name: "ls", accepted: yes()}), "ls"),
				}
			}(),
			want: []string{
				"a.all.example.com 0 IN A  10.0.0.1 httproute/team-a/a",
				"a.sel.example.com 0 IN A  10.0.0.1 httproute/team-a/a",
				"e.all.example.com 0 IN A  10.0.0.1 httproute/edge/e",
				"e.same.example.com 0 IN A  10.0.0.1 httproute/edge/e",
				"i.all.example.com 0 IN A  10.0.0.1 httproute/infra/i",
			},
		},
		{
			name: "cross-namespace parents: route, ListenerSet and Gateway in three namespaces",
			kind: http,
			cfg:  gatewayapi.Config{GatewayListenerSets: true, Options: kubeopts.Options{Namespace: "apps"}, GatewayNamespace: "infra"},
			nss: []*corev1.Namespace{
				namespace("infra", nil),
				namespace("edge", map[string]string{"listener-sets": "on"}),
				namespace("apps", nil),
			},
			objs: []*unstructured.Unstructured{
				allowListeners(gw("infra", "shared", nil, []string{"10.0.0.1"}, http80), "Selector", map[string]string{"listener-sets": "on"}),
				lset(lsSpec{ns: "edge", name: "edge-ls", parentNs: "infra", parentName: "shared", accepted: yes(),
					listeners: []listenerSpec{{name: "app", protocol: "HTTP", port: 8080, hostname: "app.example.com", from: "All"}}}),
				// A spec.parentRef without a namespace names a Gateway of
				// the ListenerSet's own namespace: there is none here.
				lset(lsSpec{ns: "edge", name: "local-parent", parentName: "shared", accepted: yes(),
					listeners: []listenerSpec{{name: "app", protocol: "HTTP", port: 8080, hostname: "local.example.com", from: "All"}}}),
				viaLS(rt(http, "apps", "rt", nil, []string{"app.example.com", "local.example.com"},
					parent{ns: "edge", name: "edge-ls", accepted: yes()}, parent{ns: "edge", name: "local-parent", accepted: yes()}), "edge-ls", "local-parent"),
				// A parentRef without a namespace names a ListenerSet
				// of the route's namespace.
				viaLS(rt(http, "apps", "samens", nil, []string{"app.example.com"}, parent{name: "edge-ls", accepted: yes()}), "edge-ls"),
			},
			want: []string{"app.example.com 0 IN A  10.0.0.1 httproute/apps/rt"},
		},
		{
			name: "the parent Gateway is missing or not selected",
			kind: http,
			cfg:  gatewayapi.Config{GatewayListenerSets: true, GatewayLabelSelector: "dns=public"},
			objs: func() []*unstructured.Unstructured {
				pub := allowListeners(gw("default", "pub", nil, []string{"10.0.0.1"}, http80), "All", nil)
				pub.SetLabels(map[string]string{"dns": "public"})
				priv := allowListeners(gw("default", "priv", nil, []string{"10.0.0.2"}, http80), "All", nil)
				lis := []listenerSpec{{name: "app", protocol: "HTTP", port: 80, hostname: "app.example.com"}}
				return []*unstructured.Unstructured{
					pub, priv,
					lset(lsSpec{ns: "default", name: "to-pub", parentName: "pub", accepted: yes(), listeners: lis}),
					lset(lsSpec{ns: "default", name: "to-priv", parentName: "priv", accepted: yes(), listeners: lis}),
					lset(lsSpec{ns: "default", name: "orphan", parentName: "gone", accepted: yes(), listeners: lis}),
					viaLS(rt(http, "default", "rt", nil, []string{"app.example.com"},
						parent{name: "to-pub", accepted: yes()}, parent{name: "to-priv", accepted: yes()}, parent{name: "orphan", accepted: yes()}),
						"to-pub", "to-priv", "orphan"),
				}
			}(),
			want: []string{"app.example.com 0 IN A  10.0.0.1 httproute/default/rt"},
		},
		{
			name: "GatewayName filters by the parent Gateway's name, not the ListenerSet's",
			kind: http,
			cfg:  gatewayapi.Config{GatewayListenerSets: true, GatewayName: "gw"},
			objs: []*unstructured.Unstructured{
				gwAll(),
				allowListeners(gw("default", "other", nil, []string{"10.0.0.9"}, http80), "All", nil),
				lset(appLS),
				lset(with(appLS, func(l *lsSpec) { l.name, l.parentName = "gw", "other" })),
				viaLS(rt(http, "default", "web", nil, []string{"web.apps.example.com"},
					parent{name: "ls", accepted: yes()}, parent{name: "gw", accepted: yes()}), "ls", "gw"),
			},
			want: []string{
				"web.apps.example.com 0 IN A  10.0.0.1 httproute/default/web",
				"web.apps.example.com 0 IN AAAA  2001:db8::1 httproute/default/web",
			},
		},
		{
			name: "targets: route annotation over ListenerSet annotation over Gateway annotation over addresses",
			kind: http,
			cfg:  on,
			objs: []*unstructured.Unstructured{
				allowListeners(gw("default", "gw", map[string]string{targetAnn: "gw.lb.example.net"}, []string{"10.0.0.1"}, http80), "All", nil),
				allowListeners(gw("default", "plain", nil, []string{"10.0.0.2"}, http80), "All", nil),
				lset(with(appLS, func(l *lsSpec) { l.name, l.ann = "own", map[string]string{targetAnn: "ls.lb.example.net"} })),
				lset(with(appLS, func(l *lsSpec) { l.name = "inherit" })),
				lset(with(appLS, func(l *lsSpec) { l.name, l.parentName = "addrs", "plain" })),
				viaLS(rt(http, "default", "a", nil, []string{"a.apps.example.com"}, parent{name: "own", accepted: yes()}), "own"),
				viaLS(rt(http, "default", "b", nil, []string{"b.apps.example.com"}, parent{name: "inherit", accepted: yes()}), "inherit"),
				viaLS(rt(http, "default", "c", nil, []string{"c.apps.example.com"}, parent{name: "addrs", accepted: yes()}), "addrs"),
				viaLS(rt(http, "default", "d", map[string]string{targetAnn: "192.0.2.7"}, []string{"d.apps.example.com"}, parent{name: "own", accepted: yes()}), "own"),
			},
			want: []string{
				"a.apps.example.com 0 IN CNAME  ls.lb.example.net httproute/default/a",
				"b.apps.example.com 0 IN CNAME  gw.lb.example.net httproute/default/b",
				"c.apps.example.com 0 IN A  10.0.0.2 httproute/default/c",
				"d.apps.example.com 0 IN A  192.0.2.7 httproute/default/d",
			},
		},
		{
			name: "protocols: a TCPRoute attaches to a TLS ListenerSet listener, not to an HTTP one",
			kind: tcp,
			cfg:  on,
			objs: []*unstructured.Unstructured{
				gwAll(),
				lset(with(appLS, func(l *lsSpec) {
					l.listeners = []listenerSpec{
						{name: "tls", protocol: "TLS", port: 5432, hostname: "db.example.com"},
						{name: "http", protocol: "HTTP", port: 80, hostname: "web.example.com"},
					}
				})),
				viaLS(rt(tcp, "default", "db", nil, nil, parent{name: "ls", accepted: yes()}), "ls"),
			},
			want: []string{
				"db.example.com 0 IN A  10.0.0.1 tcproute/default/db",
				"db.example.com 0 IN AAAA  2001:db8::1 tcproute/default/db",
			},
		},
		{
			name: "the route annotation filter selects ListenerSets too; their labels do not matter",
			kind: http,
			cfg:  gatewayapi.Config{GatewayListenerSets: true, Options: kubeopts.Options{AnnotationFilter: "dns=public", LabelSelector: "team=a"}},
			objs: func() []*unstructured.Unstructured {
				pub := map[string]string{"dns": "public"}
				route := func(name, ls string) *unstructured.Unstructured {
					r := viaLS(rt(http, "default", name, pub, []string{name + ".apps.example.com"}, parent{name: ls, accepted: yes()}), ls)
					r.SetLabels(map[string]string{"team": "a"})
					return r
				}
				return []*unstructured.Unstructured{
					gwAll(),
					lset(with(appLS, func(l *lsSpec) { l.name, l.ann = "marked", pub })),
					lset(with(appLS, func(l *lsSpec) { l.name = "unmarked" })),
					route("a", "marked"),
					route("b", "unmarked"),
				}
			}(),
			want: []string{
				"a.apps.example.com 0 IN A  10.0.0.1 httproute/default/a",
				"a.apps.example.com 0 IN AAAA  2001:db8::1 httproute/default/a",
			},
		},
		{
			name: "a ListenerSet of another controller is not selected",
			kind: http,
			cfg:  on,
			objs: []*unstructured.Unstructured{
				gwAll(),
				lset(with(appLS, func(l *lsSpec) {
					l.ann = map[string]string{"external-dns.alpha.kubernetes.io/controller": "someone-else"}
				})),
				webRoute("web.apps.example.com"),
			},
		},
		{
			name: "experimental XListenerSet parents are not read",
			kind: http,
			cfg:  on,
			objs: []*unstructured.Unstructured{
				gwAll(), lset(appLS),
				toKind(rt(http, "default", "web", nil, []string{"web.apps.example.com"}, parent{name: "ls", accepted: yes()}),
					"gateway.networking.x-k8s.io", "XListenerSet", "ls"),
			},
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

func TestListenerSetErrorsArePerRoute(t *testing.T) {
	http := gatewayapi.HTTPRouteKind()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	gateway := allowListeners(gw("default", "gw", nil, []string{"10.0.0.1"}, http80), "All", nil)
	badSel := allowListeners(gw("default", "badsel", nil, []string{"10.0.0.2"}, http80), "Selector", nil)
	_ = unstructured.SetNestedField(badSel.Object, map[string]any{"matchExpressions": []any{
		map[string]any{"key": "k", "operator": "Bogus"},
	}}, "spec", "allowedListeners", "namespaces", "selector")
	lis := []listenerSpec{{name: "app", protocol: "HTTP", port: 80, hostname: "*.example.com"}}
	s := newSource(ctx, t, http, gatewayapi.Config{GatewayListenerSets: true}, nil,
		gateway, badSel,
		lset(lsSpec{ns: "default", name: "good", parentName: "gw", accepted: yes(), listeners: lis}),
		lset(lsSpec{ns: "default", name: "badtarget", parentName: "gw", accepted: yes(), listeners: lis, ann: map[string]string{targetAnn: "bad..example.com"}}),
		lset(lsSpec{ns: "default", name: "badparent", parentName: "badsel", accepted: yes(), listeners: lis}),
		viaLS(rt(http, "default", "good", nil, []string{"good.example.com"}, parent{name: "good", accepted: yes()}), "good"),
		viaLS(rt(http, "default", "viatarget", nil, []string{"t.example.com"}, parent{name: "badtarget", accepted: yes()}), "badtarget"),
		viaLS(rt(http, "default", "viaparent", nil, []string{"p.example.com"}, parent{name: "badparent", accepted: yes()}), "badparent"),
		// Not accepted by its parent: the bad ListenerSet is not used.
		viaLS(rt(http, "default", "refused", nil, []string{"r.example.com"}, parent{name: "badtarget", accepted: no()}), "badtarget"),
	)
	eps, err := s.Endpoints(ctx)
	assert.Equal(t, []string{"good.example.com 0 IN A  10.0.0.1 httproute/default/good"}, render(eps))
	var partial *source.PartialError
	require.ErrorAs(t, err, &partial)
	assert.Len(t, partial.Failed, 2)
	assert.Contains(t, partial.Failed, "httproute/default/viatarget")
	assert.Contains(t, partial.Failed, "httproute/default/viaparent")
	assert.ErrorContains(t, err, "ListenerSet default/badtarget")
	assert.ErrorContains(t, err, "parent Gateway default/badsel spec.allowedListeners")
}

// ListenerSets are watched: a ListenerSet accepted later, and one
// deleted, change the endpoints and call the handler.
func TestListenerSetEvents(t *testing.T) {
	http := gatewayapi.HTTPRouteKind()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	kube := newKube()
	ls := lsSpec{ns: "default", name: "ls", parentName: "gw", listeners: []listenerSpec{{name: "app", protocol: "HTTP", port: 80, hostname: "*.example.com"}}}
	dyn := dynClient(t,
		allowListeners(gw("default", "gw", nil, []string{"10.0.0.1"}, http80), "All", nil),
		lset(ls),
		viaLS(rt(http, "default", "web", nil, []string{"web.example.com"}, parent{name: "ls", accepted: yes()}), "ls"),
	)
	s, err := gatewayapi.NewHTTPRouteSource(ctx, kube, dyn, gatewayapi.Config{GatewayListenerSets: true})
	require.NoError(t, err)
	calls := started(t, ctx, s)
	endpoints := func() []string {
		eps, err := s.Endpoints(ctx)
		require.NoError(t, err)
		return render(eps)
	}
	assert.Empty(t, endpoints(), "the ListenerSet is not accepted yet")

	lsets := dyn.Resource(gatewayapi.ListenerSetGVR()).Namespace("default")
	ls.accepted = yes()
	accepted := lset(ls)
	accepted.SetResourceVersion("2")
	before := calls.Load()
	_, err = lsets.Update(ctx, accepted, updateOpts)
	require.NoError(t, err)
	eventually(t, func() bool {
		return calls.Load() > before && assert.ObjectsAreEqual([]string{"web.example.com 0 IN A  10.0.0.1 httproute/default/web"}, endpoints())
	})

	before = calls.Load()
	require.NoError(t, lsets.Delete(ctx, "ls", deleteOpts))
	eventually(t, func() bool { return calls.Load() > before && len(endpoints()) == 0 })
}

// With a shared factory the ListenerSet informer comes from it too.
func TestListenerSetSharedFactory(t *testing.T) {
	http := gatewayapi.HTTPRouteKind()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	dyn := dynClient(t,
		allowListeners(gw("default", "gw", nil, []string{"10.0.0.1"}, http80), "All", nil),
		lset(lsSpec{ns: "default", name: "ls", parentName: "gw", accepted: yes(), listeners: []listenerSpec{{name: "app", protocol: "HTTP", port: 80, hostname: "*.example.com"}}}),
		viaLS(rt(http, "default", "web", nil, []string{"web.example.com"}, parent{name: "ls", accepted: yes()}), "ls"),
	)
	kube := newKube()
	factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	kubeFactory := k8sinformers.NewSharedInformerFactory(kube, 0)
	s, err := gatewayapi.NewHTTPRouteSource(ctx, kube, dyn, gatewayapi.Config{GatewayListenerSets: true, DynamicFactory: factory, Factory: kubeFactory})
	require.NoError(t, err)
	assert.False(t, s.HasSynced())
	factory.Start(ctx.Done())
	kubeFactory.Start(ctx.Done())
	require.NoError(t, s.WaitForSync(ctx))
	eps, err := s.Endpoints(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"web.example.com 0 IN A  10.0.0.1 httproute/default/web"}, render(eps))
}
