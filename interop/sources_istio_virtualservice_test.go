package interop

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// istioVirtualServiceDiff is the istio-virtualservice source under
// differential test.
func istioVirtualServiceDiff() sourceDiff {
	return sourceDiff{
		Name: xtypes.IstioVirtualService,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			tmpl, err := s.zonesyncTemplate()
			if err != nil {
				return nil, err
			}
			kube, _ := c.KubeClient()
			dyn, _ := c.DynamicKubernetesClient()
			return kubernetes.NewIstioVirtualServiceSource(ctx, kube, dyn, kubernetes.IstioVirtualServiceConfig{Options: s.zonesyncOptions(tmpl)})
		},
		Rules: istioRules(),
	}
}

// istioVSGatewayHosts are the server hosts of the Gateways VirtualServices
// bind to: catch-alls, wildcards and names under namespace parts.
var istioVSGatewayHosts = []string{
	"*", "*/*", "./*", "team-a/*", "default/*.example.com", "*.example.com", "*/*.other.org",
	"sub.vs1.example.com", "istio-system/*", "team-b/*.example.com",
}

// istioVirtualServices draws n VirtualServices, the Gateways they name
// (three per namespace, "gw0".."gw2", every one with a selector) and the
// objects those target.
func (g *gen) istioVirtualServices(n int, s sourceSettings) []runtime.Object {
	objs := g.istioTargetObjects()
	for _, ns := range istioNamespaces {
		for i := range 3 {
			gw := g.istioGateway("gw", ns, s)
			gw.SetName(fmt.Sprintf("gw%d", i))
			if _, ok, _ := unstructured.NestedStringMap(gw.Object, "spec", "selector"); !ok {
				_ = unstructured.SetNestedStringMap(gw.Object, map[string]string{"istio": "ingressgateway"}, "spec", "selector")
			}
			var hosts []any
			for range 1 + g.r.IntN(2) {
				hosts = append(hosts, pick(g.r, istioVSGatewayHosts...))
			}
			_ = unstructured.SetNestedSlice(gw.Object, []any{map[string]any{
				"port": map[string]any{"number": int64(80), "name": "http", "protocol": "HTTP"}, "hosts": hosts,
			}}, "spec", "servers")
			objs = append(objs, gw)
		}
	}
	for range n {
		m := g.meta("vs")
		var hosts []any
		for range 1 + g.r.IntN(2) {
			h := g.hostname(m.Name)
			switch g.r.IntN(8) {
			case 0:
				h = "*"
			case 1:
				h = m.Namespace + "/" + h
			}
			hosts = append(hosts, h)
		}
		var gateways []any
		for range g.r.IntN(3) {
			gw := fmt.Sprintf("gw%d", g.r.IntN(3))
			switch g.r.IntN(6) {
			case 0:
				gw = "mesh"
			case 1:
				gw = "missing"
			case 2, 3:
				gw = pick(g.r, istioNamespaces...) + "/" + gw
			}
			gateways = append(gateways, gw)
		}
		spec := map[string]any{"hosts": hosts}
		if len(gateways) > 0 {
			spec["gateways"] = gateways
		}
		if g.chance(4) {
			var exportTo []any
			for range 1 + g.r.IntN(2) {
				exportTo = append(exportTo, pick(g.r, ".", "*", "istio-system", m.Namespace, "team-b"))
			}
			spec["exportTo"] = exportTo
		}
		objs = append(objs, istioObject("VirtualService", m, spec))
	}
	return objs
}

func TestIstioVirtualServiceSourceAgreement(t *testing.T) {
	sd := istioVirtualServiceDiff()
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			if seed == 2 {
				s.Namespace = "team-a" // one run with a namespace setting at least
			}
			s.IgnoreHostnameAnnotation = g.chance(5)
			sd.check(t, g.String(), s, g.istioVirtualServices(150, s)...)
		})
	}
}

// virtualService is a VirtualService of hosts bound to gateways.
func virtualService(ns, name string, anns map[string]string, hosts, gateways, exportTo []string) *unstructured.Unstructured {
	toAny := func(ss []string) []any {
		var out []any
		for _, s := range ss {
			out = append(out, s)
		}
		return out
	}
	spec := map[string]any{"hosts": toAny(hosts), "gateways": toAny(gateways)}
	if exportTo != nil {
		spec["exportTo"] = toAny(exportTo)
	}
	return istioObject("VirtualService", metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: anns}, spec)
}

// Hand-written cases: each way a VirtualService binds to a Gateway (or
// does not), which must agree exactly.
func TestIstioVirtualServiceSourceCases(t *testing.T) {
	sd := istioVirtualServiceDiff()
	gwSvc := istioLBService("istio-system", "ingressgateway", map[string]string{"istio": "ingressgateway"}, "192.0.2.1", "elb.example.net")
	gw := istioGatewayObject("istio-system", "gw", nil, "*/*.example.com", "./local.org")
	localGw := istioGatewayObject("default", "gw", map[string]string{"external-dns.kubernetes.io/target": "203.0.113.7"}, "default/*")
	for _, tc := range []struct {
		name string
		s    sourceSettings
		objs []runtime.Object
		want int // records on both sides
	}{{
		name: "gateway by namespace/name, wildcard server host",
		objs: []runtime.Object{gwSvc, gw, virtualService("default", "vs", nil, []string{"a.example.com", "default/b.example.com", "*"}, []string{"istio-system/gw"}, nil)},
		want: 4,
	}, {
		name: "gateway by name in the same namespace, target annotation of the Gateway",
		objs: []runtime.Object{gwSvc, localGw, virtualService("default", "vs", nil, []string{"a.example.com", "a.other.org"}, []string{"gw"}, nil)},
		want: 2,
	}, {
		name: "host not matching the server hosts",
		objs: []runtime.Object{gwSvc, gw, virtualService("default", "vs", nil, []string{"a.other.org"}, []string{"istio-system/gw"}, nil)},
		want: 0,
	}, {
		name: "'.' server host only for a VirtualService of the Gateway's namespace",
		objs: []runtime.Object{gwSvc, gw,
			virtualService("istio-system", "same", nil, []string{"local.org"}, []string{"gw"}, nil),
			virtualService("default", "other", nil, []string{"local.org"}, []string{"istio-system/gw"}, nil)},
		want: 2,
	}, {
		name: "mesh and missing gateways, hostname annotation",
		objs: []runtime.Object{gwSvc, gw, virtualService("default", "vs", map[string]string{"external-dns.kubernetes.io/hostname": "ann.example.com"}, []string{"a.example.com"}, []string{"mesh", "missing", "istio-system/gw"}, nil)},
		want: 4,
	}, {
		name: "exportTo '.' keeps it from a Gateway of another namespace",
		objs: []runtime.Object{gwSvc, gw, localGw,
			virtualService("default", "vs", nil, []string{"a.example.com"}, []string{"istio-system/gw", "gw"}, []string{"."})},
		want: 1,
	}, {
		name: "exportTo naming the Gateway's namespace",
		objs: []runtime.Object{gwSvc, gw, virtualService("default", "vs", nil, []string{"a.example.com"}, []string{"istio-system/gw"}, []string{"istio-system"})},
		want: 2,
	}, {
		name: "target annotation of the VirtualService",
		objs: []runtime.Object{virtualService("default", "vs", map[string]string{"external-dns.kubernetes.io/target": "lb.example.net"}, []string{"a.example.com"}, []string{"mesh"}, nil)},
		want: 1,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			out := sd.check(t, "hand-written", tc.s, tc.objs...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and %d records: %v", tc.want, out.Explained, len(out.Zonesync), sortedRecords(out.Zonesync))
			}
		})
	}
}
