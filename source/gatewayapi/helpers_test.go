package gatewayapi_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source/gatewayapi"
)

// listKinds maps every resource the sources read to its list kind: the
// dynamic fake cannot guess them ("gateways" would become "gatewaies").
func listKinds() map[schema.GroupVersionResource]string {
	m := map[schema.GroupVersionResource]string{gatewayapi.GatewayGVR(): "GatewayList", gatewayapi.ListenerSetGVR(): "ListenerSetList"}
	for _, k := range []gatewayapi.RouteKind{gatewayapi.HTTPRouteKind(), gatewayapi.GRPCRouteKind(), gatewayapi.TLSRouteKind(), gatewayapi.TCPRouteKind(), gatewayapi.UDPRouteKind()} {
		m[k.GVR] = k.Kind + "List"
	}
	return m
}

// gvrOf returns the resource of an object built by gw or rt.
func gvrOf(u *unstructured.Unstructured) schema.GroupVersionResource {
	for gvr, list := range listKinds() {
		if gvr.GroupVersion().String() == u.GetAPIVersion() && list == u.GetKind()+"List" {
			return gvr
		}
	}
	panic("no resource for " + u.GetKind())
}

func dynClient(t testing.TB, objs ...*unstructured.Unstructured) *dynamicfake.FakeDynamicClient {
	t.Helper()
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds())
	for _, o := range objs {
		require.NoError(t, client.Tracker().Create(gvrOf(o), o, o.GetNamespace()))
	}
	return client
}

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// listenerSpec is a listener in the test's short form.
type listenerSpec struct {
	name, hostname, protocol string
	port                     int64
	from                     string            // allowedRoutes.namespaces.from, "" for the default
	selector                 map[string]string // matchLabels for from=Selector
	kinds                    []string          // allowedRoutes.kinds
}

func gw(ns, name string, ann map[string]string, addrs []string, listeners ...listenerSpec) *unstructured.Unstructured {
	var ls []any
	for _, l := range listeners {
		m := map[string]any{"name": l.name, "protocol": l.protocol, "port": l.port}
		if l.hostname != "" {
			m["hostname"] = l.hostname
		}
		allowed := map[string]any{}
		if l.from != "" {
			nsm := map[string]any{"from": l.from}
			if l.selector != nil {
				sel := map[string]any{}
				for k, v := range l.selector {
					sel[k] = v
				}
				nsm["selector"] = map[string]any{"matchLabels": sel}
			}
			allowed["namespaces"] = nsm
		}
		if l.kinds != nil {
			var ks []any
			for _, k := range l.kinds {
				ks = append(ks, map[string]any{"kind": k})
			}
			allowed["kinds"] = ks
		}
		if len(allowed) > 0 {
			m["allowedRoutes"] = allowed
		}
		ls = append(ls, m)
	}
	var as []any
	for _, a := range addrs {
		typ := "IPAddress"
		if a != "" && (a[0] < '0' || a[0] > '9') && !slices.Contains([]byte(a), ':') {
			typ = "Hostname"
		}
		as = append(as, map[string]any{"type": typ, "value": a})
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
		"spec":   map[string]any{"gatewayClassName": "test", "listeners": ls},
		"status": map[string]any{"addresses": as},
	}}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetResourceVersion("1")
	if ann != nil {
		u.SetAnnotations(ann)
	}
	return u
}

// parent is a parentRef (and, when accepted is set, its status entry).
type parent struct {
	ns, name, section string
	port              int64
	accepted          *bool // nil: no status entry
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func rt(kind gatewayapi.RouteKind, ns, name string, ann map[string]string, hostnames []string, parents ...parent) *unstructured.Unstructured {
	var refs, statuses []any
	for _, p := range parents {
		ref := map[string]any{"name": p.name}
		if p.ns != "" {
			ref["namespace"] = p.ns
		}
		if p.section != "" {
			ref["sectionName"] = p.section
		}
		if p.port != 0 {
			ref["port"] = p.port
		}
		refs = append(refs, ref)
		if p.accepted != nil {
			status := "False"
			if *p.accepted {
				status = "True"
			}
			statuses = append(statuses, map[string]any{
				"parentRef":      runtime.DeepCopyJSONValue(ref),
				"controllerName": "example.com/gateway",
				"conditions": []any{map[string]any{
					"type": "Accepted", "status": status, "reason": "Test", "message": "",
					"lastTransitionTime": "2026-01-01T00:00:00Z",
				}},
			})
		}
	}
	spec := map[string]any{"parentRefs": refs}
	if hostnames != nil {
		var hs []any
		for _, h := range hostnames {
			hs = append(hs, h)
		}
		spec["hostnames"] = hs
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kind.GVR.GroupVersion().String(), "kind": kind.Kind,
		"spec": spec, "status": map[string]any{"parents": statuses},
	}}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetResourceVersion("1")
	if ann != nil {
		u.SetAnnotations(ann)
	}
	return u
}

// render returns the endpoints as sorted strings "name ttl IN type set targets resource".
func render(eps []*endpoint.Endpoint) []string {
	out := make([]string, 0, len(eps))
	for _, ep := range eps {
		resource, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
		out = append(out, ep.String()+" "+resource)
	}
	slices.Sort(out)
	return out
}

type syncer interface {
	Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error)
	WaitForSync(ctx context.Context) error
	AddEventHandler(ctx context.Context, handler func())
}

// started waits for s to sync and registers a handler counting calls.
func started(t *testing.T, ctx context.Context, s syncer) *atomic.Int32 {
	t.Helper()
	require.NoError(t, s.WaitForSync(ctx))
	var calls atomic.Int32
	s.AddEventHandler(ctx, func() { calls.Add(1) })
	return &calls
}

func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, 5*time.Millisecond)
}

func newKube(nss ...*corev1.Namespace) *fake.Clientset {
	objs := make([]runtime.Object, len(nss))
	for i, ns := range nss {
		objs[i] = ns
	}
	return fake.NewClientset(objs...)
}

var (
	createOpts   = metav1.CreateOptions{}
	createNsOpts = metav1.CreateOptions{}
	updateOpts   = metav1.UpdateOptions{}
	deleteOpts   = metav1.DeleteOptions{}
)
