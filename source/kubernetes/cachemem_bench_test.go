package kubernetes_test

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source/kubernetes"
)

// clusterMeta gives an object the metadata it has in a real cluster: Helm
// labels, annotations of other controllers, a last-applied configuration
// of about 1.5 KB and three managedFields entries of 1–1.5 KB each, on top
// of the two external-dns annotations the sources read.
func clusterMeta(o metav1.Object, i int) {
	fields := `{"f:metadata":{"f:annotations":{".":{},"f:external-dns.kubernetes.io/hostname":{},"f:external-dns.kubernetes.io/ttl":{}},"f:labels":{".":{},"f:app.kubernetes.io/instance":{},"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{},"f:helm.sh/chart":{}}},"f:spec":{` +
		strings.Repeat(`"f:field":{".":{},"f:name":{},"f:port":{},"f:protocol":{}},`, 14) + `"f:end":{}}}`
	managed := func(manager, sub string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}, Subresource: sub}
	}
	o.SetManagedFields([]metav1.ManagedFieldsEntry{managed("kubectl-client-side-apply", ""), managed("controller", "status"), managed("helm", "")})
	o.SetLabels(map[string]string{
		"app.kubernetes.io/instance": fmt.Sprintf("release-%d", i), "app.kubernetes.io/managed-by": "Helm",
		"app.kubernetes.io/name": "app", "helm.sh/chart": "app-1.2.3",
	})
	o.SetAnnotations(map[string]string{
		"external-dns.kubernetes.io/hostname":              fmt.Sprintf("app-%d.example.com", i),
		"external-dns.kubernetes.io/ttl":                   "300",
		"meta.helm.sh/release-name":                        fmt.Sprintf("release-%d", i),
		"meta.helm.sh/release-namespace":                   "apps",
		"kubectl.kubernetes.io/last-applied-configuration": strings.Repeat(`{"apiVersion":"v1","kind":"Object","spec":{}}`, 34),
	})
	o.SetResourceVersion("1")
}

// condition is one status condition as controllers write them.
func condition(kind string) map[string]any {
	return map[string]any{"type": kind, "status": "True", "reason": "Reconciled", "lastTransitionTime": "2026-01-01T00:00:00Z",
		"message": "The object was reconciled by its controller and is ready to serve traffic."}
}

// cacheKinds are the custom resources of the sources measured, with an
// object of each as its controller leaves it.
var cacheKinds = []struct {
	source string
	gvr    schema.GroupVersionResource
	list   string
	object func(i int) *unstructured.Unstructured
	build  func(ctx context.Context, client *dynamicfake.FakeDynamicClient, factory dynamicinformer.DynamicSharedInformerFactory) (interface{ WaitForSync(context.Context) error }, error)
}{
	{
		source: "istio-virtualservice", gvr: kubernetes.IstioVirtualServiceGVR, list: "VirtualServiceList",
		object: func(i int) *unstructured.Unstructured {
			return obj("networking.istio.io/v1", "VirtualService", "apps", fmt.Sprintf("vs-%d", i), nil, map[string]any{
				"spec": map[string]any{"hosts": []any{fmt.Sprintf("vs-%d.example.com", i)}, "gateways": []any{"istio-system/gw"},
					"http": []any{map[string]any{"route": []any{map[string]any{"destination": map[string]any{"host": "app", "port": map[string]any{"number": int64(80)}}}}}}},
				"status": map[string]any{"conditions": []any{condition("Reconciled")}},
			})
		},
		build: func(ctx context.Context, c *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (interface{ WaitForSync(context.Context) error }, error) {
			return kubernetes.NewIstioVirtualServiceSource(ctx, fake.NewClientset(), c, kubernetes.IstioVirtualServiceConfig{DynamicFactory: f})
		},
	},
	{
		source: "openshift-route", gvr: kubernetes.OpenShiftRouteGVR, list: "RouteList",
		object: func(i int) *unstructured.Unstructured {
			return obj("route.openshift.io/v1", "Route", "apps", fmt.Sprintf("route-%d", i), nil, map[string]any{
				"spec": map[string]any{"host": fmt.Sprintf("route-%d.apps.example.com", i), "to": map[string]any{"kind": "Service", "name": "app"}},
				"status": map[string]any{"ingress": []any{map[string]any{"host": fmt.Sprintf("route-%d.apps.example.com", i), "routerName": "default",
					"routerCanonicalHostname": "router-default.apps.example.com", "conditions": []any{map[string]any{"type": "Admitted", "status": "True"}}}}},
			})
		},
		build: func(ctx context.Context, c *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (interface{ WaitForSync(context.Context) error }, error) {
			return kubernetes.NewOpenShiftRouteSource(ctx, c, kubernetes.OpenShiftRouteConfig{DynamicFactory: f})
		},
	},
	{
		source: "traefik-proxy", gvr: kubernetes.TraefikIngressRouteGVR, list: "IngressRouteList",
		object: func(i int) *unstructured.Unstructured {
			return obj("traefik.io/v1alpha1", "IngressRoute", "apps", fmt.Sprintf("ir-%d", i), nil, map[string]any{
				"spec": map[string]any{"entryPoints": []any{"websecure"}, "routes": []any{map[string]any{
					"match": fmt.Sprintf("Host(`ir-%d.example.com`) && PathPrefix(`/api`)", i), "kind": "Rule",
					"services": []any{map[string]any{"name": "app", "port": int64(80)}}}}},
			})
		},
		build: func(ctx context.Context, c *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (interface{ WaitForSync(context.Context) error }, error) {
			return kubernetes.NewTraefikProxySource(ctx, c, kubernetes.TraefikProxyConfig{DynamicFactory: f})
		},
	},
	{
		source: "f5-virtualserver", gvr: kubernetes.F5VirtualServerGVR, list: "VirtualServerList",
		object: func(i int) *unstructured.Unstructured {
			return obj("cis.f5.com/v1", "VirtualServer", "apps", fmt.Sprintf("vs-%d", i), nil, map[string]any{
				"spec":   map[string]any{"host": fmt.Sprintf("f5-%d.example.com", i), "virtualServerAddress": "192.0.2.10", "pools": []any{map[string]any{"path": "/", "service": "app", "servicePort": int64(80)}}},
				"status": map[string]any{"vsAddress": "192.0.2.10", "status": "Ok"},
			})
		},
		build: func(ctx context.Context, c *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (interface{ WaitForSync(context.Context) error }, error) {
			return kubernetes.NewF5VirtualServerSource(ctx, c, kubernetes.F5VirtualServerConfig{Options: kubernetes.Options{}, DynamicFactory: f})
		},
	},
	{
		source: "f5-transportserver", gvr: kubernetes.F5TransportServerGVR, list: "TransportServerList",
		object: func(i int) *unstructured.Unstructured {
			return obj("cis.f5.com/v1", "TransportServer", "apps", fmt.Sprintf("ts-%d", i), nil, map[string]any{
				"spec":   map[string]any{"host": fmt.Sprintf("ts-%d.example.com", i), "virtualServerAddress": "192.0.2.11", "pool": map[string]any{"service": "db", "servicePort": int64(5432)}},
				"status": map[string]any{"vsAddress": "192.0.2.11", "status": "Ok"},
			})
		},
		build: func(ctx context.Context, c *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (interface{ WaitForSync(context.Context) error }, error) {
			return kubernetes.NewF5TransportServerSource(ctx, c, kubernetes.F5TransportServerConfig{DynamicFactory: f})
		},
	},
	{
		source: "ambassador-host", gvr: kubernetes.AmbassadorHostGVR, list: "HostList",
		object: func(i int) *unstructured.Unstructured {
			return obj("getambassador.io/v3alpha1", "Host", "apps", fmt.Sprintf("host-%d", i), nil, map[string]any{
				"spec":   map[string]any{"hostname": fmt.Sprintf("amb-%d.example.com", i), "acmeProvider": map[string]any{"authority": "none"}, "tlsSecret": map[string]any{"name": "tls"}},
				"status": map[string]any{"state": "Ready", "tlsCertificateSource": "Other"},
			})
		},
		build: func(ctx context.Context, c *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (interface{ WaitForSync(context.Context) error }, error) {
			return kubernetes.NewAmbassadorHostSource(ctx, fake.NewClientset(), c, kubernetes.AmbassadorHostConfig{DynamicFactory: f})
		},
	},
	{
		source: "skipper-routegroup", gvr: kubernetes.SkipperRouteGroupGVR, list: "RouteGroupList",
		object: func(i int) *unstructured.Unstructured {
			return obj("zalando.org/v1", "RouteGroup", "apps", fmt.Sprintf("rg-%d", i), nil, map[string]any{
				"spec": map[string]any{"hosts": []any{fmt.Sprintf("rg-%d.example.com", i)}, "backends": []any{map[string]any{"name": "app", "type": "service", "serviceName": "app", "servicePort": int64(80)}},
					"routes": []any{map[string]any{"pathSubtree": "/", "backends": []any{map[string]any{"backendName": "app"}}}}},
				"status": map[string]any{"loadBalancer": map[string]any{"routeGroup": []any{map[string]any{"ip": "192.0.2.1"}}}},
			})
		},
		build: func(ctx context.Context, c *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (interface{ WaitForSync(context.Context) error }, error) {
			return kubernetes.NewSkipperRouteGroupSource(ctx, c, kubernetes.SkipperRouteGroupConfig{DynamicFactory: f})
		},
	},
	{
		source: "gloo-proxy", gvr: kubernetes.GlooProxyGVR, list: "ProxyList",
		object: func(i int) *unstructured.Unstructured {
			o := obj("gloo.solo.io/v1", "Proxy", "gloo-system", fmt.Sprintf("proxy-%d", i), nil, map[string]any{
				"spec": map[string]any{"listeners": []any{map[string]any{"name": "http", "bindPort": int64(8080), "httpListener": map[string]any{
					"virtualHosts": []any{map[string]any{"name": "vh", "domains": []any{fmt.Sprintf("gloo-%d.example.com", i)}}}}}}},
				"status": map[string]any{"state": int64(1), "reportedBy": "gloo"},
			})
			return o
		},
		build: func(ctx context.Context, c *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (interface{ WaitForSync(context.Context) error }, error) {
			return kubernetes.NewGlooProxySource(ctx, fake.NewClientset(), c, kubernetes.GlooProxyConfig{DynamicFactory: f})
		},
	},
	{
		source: "kong-tcpingress", gvr: kubernetes.KongTCPIngressGVR, list: "TCPIngressList",
		object: func(i int) *unstructured.Unstructured {
			return obj("configuration.konghq.com/v1beta1", "TCPIngress", "apps", fmt.Sprintf("tcp-%d", i), nil, map[string]any{
				"spec":   map[string]any{"rules": []any{map[string]any{"host": fmt.Sprintf("tcp-%d.example.com", i), "port": int64(9000), "backend": map[string]any{"serviceName": "db", "servicePort": int64(5432)}}}},
				"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}}},
			})
		},
		build: func(ctx context.Context, c *dynamicfake.FakeDynamicClient, f dynamicinformer.DynamicSharedInformerFactory) (interface{ WaitForSync(context.Context) error }, error) {
			return kubernetes.NewKongTCPIngressSource(ctx, c, kubernetes.KongTCPIngressConfig{DynamicFactory: f})
		},
	},
}

// retainedPerObject returns the heap the source built by build retains
// once synced, per object of n: runtime.GC and MemStats.HeapAlloc before
// the source is built (the fake client already holds the objects) and
// after its informers have synced, the source kept alive.
func retainedPerObject(b *testing.B, n int, build func(ctx context.Context) (interface{ WaitForSync(context.Context) error }, error)) float64 {
	b.Helper()
	goroutines := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		// Let the informers stop, so that the next measurement does
		// not count what this one still holds.
		cancel()
		for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > goroutines && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	}()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	src, err := build(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if err := src.WaitForSync(ctx); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(src)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}

// BenchmarkSourceCacheMemory measures, for the sources added in milestone
// 3, the heap their informer caches retain per object: once through a
// shared informer factory (the source sets no transform; objects are kept
// as the API server sends them) and once with the source's own factory
// and the transform it sets. 2,000 objects of each kind, shaped as in a
// real cluster (see clusterMeta).
func BenchmarkSourceCacheMemory(b *testing.B) {
	const n = 2000
	report := func(b *testing.B, plain, slim float64) {
		b.ReportMetric(plain, "B/obj-plain")
		b.ReportMetric(slim, "B/obj-transformed")
		b.ReportMetric(100*slim/plain, "%-retained")
	}
	lists := maps.Clone(crdLists)
	maps.Copy(lists, crd2Resources)
	for _, k := range cacheKinds {
		b.Run(k.source, func(b *testing.B) {
			client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(k8sruntime.NewScheme(), lists)
			for i := range n {
				o := k.object(i)
				clusterMeta(o, i)
				if err := client.Tracker().Create(k.gvr, o, o.GetNamespace()); err != nil {
					b.Fatal(err)
				}
			}
			var plain, slim float64
			for b.Loop() {
				plain = retainedPerObject(b, n, func(ctx context.Context) (interface{ WaitForSync(context.Context) error }, error) {
					f := dynamicinformer.NewDynamicSharedInformerFactory(client, 0)
					src, err := k.build(ctx, client, f)
					f.Start(ctx.Done())
					return src, err
				})
				slim = retainedPerObject(b, n, func(ctx context.Context) (interface{ WaitForSync(context.Context) error }, error) {
					return k.build(ctx, client, nil)
				})
			}
			report(b, plain, slim)
		})
	}
	b.Run("node", func(b *testing.B) {
		kube := fake.NewClientset()
		for i := range n {
			node := kubeNode(fmt.Sprintf("node-%d.example.com", i), nil, []corev1.NodeAddress{extIP("203.0.113.1"), intIP("10.0.0.1")})
			clusterMeta(node, i)
			for j := range 40 { // the images a busy node has pulled
				node.Status.Images = append(node.Status.Images, corev1.ContainerImage{
					Names: []string{fmt.Sprintf("registry.example.com/team/image-%d@sha256:%064d", j, j), fmt.Sprintf("registry.example.com/team/image-%d:v1.%d", j, j)}, SizeBytes: 1 << 26})
			}
			for _, c := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
				node.Status.Conditions = append(node.Status.Conditions, corev1.NodeCondition{Type: c, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficient", Message: "kubelet has sufficient resources available"})
			}
			if _, err := kube.CoreV1().Nodes().Create(context.Background(), node, metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		var plain, slim float64
		for b.Loop() {
			plain = retainedPerObject(b, n, func(ctx context.Context) (interface{ WaitForSync(context.Context) error }, error) {
				f := k8sinformers.NewSharedInformerFactory(kube, 0)
				src, err := kubernetes.NewNodeSource(ctx, kube, kubernetes.NodeConfig{Factory: f})
				f.Start(ctx.Done())
				return src, err
			})
			slim = retainedPerObject(b, n, func(ctx context.Context) (interface{ WaitForSync(context.Context) error }, error) {
				return kubernetes.NewNodeSource(ctx, kube, kubernetes.NodeConfig{})
			})
		}
		report(b, plain, slim)
	})
	b.Run("pod", func(b *testing.B) {
		kube := fake.NewClientset()
		for i := range n {
			p := pod("apps", fmt.Sprintf("pod-%d", i), "node-1", "10.0.0.1", true)
			clusterMeta(p, i)
			p.Status.PodIP = "10.1.0.1"
			for j := range 6 {
				p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: fmt.Sprintf("vol-%d", j), VolumeSource: corev1.VolumeSource{
					ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: fmt.Sprintf("config-%d", j)}}}})
			}
			for j := range 3 {
				p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: fmt.Sprintf("c-%d", j), Ready: true,
					Image: "registry.example.com/team/app:v1", ImageID: fmt.Sprintf("registry.example.com/team/app@sha256:%064d", j),
					ContainerID: fmt.Sprintf("containerd://%064d", j)})
			}
			if _, err := kube.CoreV1().Pods("apps").Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		var plain, slim float64
		for b.Loop() {
			plain = retainedPerObject(b, n, func(ctx context.Context) (interface{ WaitForSync(context.Context) error }, error) {
				f := k8sinformers.NewSharedInformerFactory(kube, 0)
				src, err := kubernetes.NewPodSource(ctx, kube, kubernetes.PodConfig{Factory: f})
				f.Start(ctx.Done())
				return src, err
			})
			slim = retainedPerObject(b, n, func(ctx context.Context) (interface{ WaitForSync(context.Context) error }, error) {
				return kubernetes.NewPodSource(ctx, kube, kubernetes.PodConfig{})
			})
		}
		report(b, plain, slim)
	})
}
