package informers_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/cache"

	"github.com/zonesync/zonesync/informers"
)

// realisticService builds a Service shaped like one in a real cluster:
// three managedFields entries (kubectl apply, a controller writing the
// load balancer status, a mutating webhook) whose FieldsV1 JSON is about
// 1–2 KB each, a last-applied-configuration annotation holding the applied
// JSON, a handful of labels and annotations, and a load balancer status.
func realisticService(i int) *corev1.Service {
	name := fmt.Sprintf("svc-%05d", i)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("team-%02d", i%50), Name: name,
			UID: types.UID(fmt.Sprintf("0d6f9b1e-5c8a-4f7e-9a51-%012d", i)), ResourceVersion: fmt.Sprint(100000 + i),
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
			Labels: map[string]string{
				"app.kubernetes.io/name": name, "app.kubernetes.io/instance": name + "-prod",
				"app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "web-1.4.2",
			},
			Annotations: map[string]string{
				"external-dns.kubernetes.io/hostname":                     name + ".example.com",
				"external-dns.kubernetes.io/ttl":                          "300",
				"meta.helm.sh/release-name":                               name,
				"meta.helm.sh/release-namespace":                          "prod",
				"service.beta.kubernetes.io/aws-load-balancer-type":       "nlb",
				"service.beta.kubernetes.io/aws-load-balancer-scheme":     "internet-facing",
				"service.beta.kubernetes.io/aws-load-balancer-nlb-target": "ip",
			},
		},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeLoadBalancer, ClusterIP: fmt.Sprintf("10.96.%d.%d", i/250, i%250),
			ClusterIPs: []string{fmt.Sprintf("10.96.%d.%d", i/250, i%250)},
			Selector:   map[string]string{"app.kubernetes.io/name": name},
			Ports: []corev1.ServicePort{
				{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: 30080},
				{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(8443), NodePort: 30443},
			},
		},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{
			{Hostname: name + "-0123456789abcdef.elb.eu-west-1.amazonaws.com"},
		}}},
	}
	applied, _ := json.Marshal(svc) // what kubectl apply last sent, before the fields below
	svc.Annotations[informers.LastAppliedAnnotation] = string(applied)
	managed := func(manager string, op metav1.ManagedFieldsOperationType, sub string, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{
			Manager: manager, Operation: op, APIVersion: "v1", Subresource: sub,
			Time: &svc.CreationTimestamp, FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)},
		}
	}
	var spec strings.Builder
	spec.WriteString(`{"f:metadata":{"f:annotations":{".":{},"f:external-dns.kubernetes.io/hostname":{},"f:external-dns.kubernetes.io/ttl":{},"f:kubectl.kubernetes.io/last-applied-configuration":{},"f:meta.helm.sh/release-name":{},"f:meta.helm.sh/release-namespace":{},"f:service.beta.kubernetes.io/aws-load-balancer-nlb-target":{},"f:service.beta.kubernetes.io/aws-load-balancer-scheme":{},"f:service.beta.kubernetes.io/aws-load-balancer-type":{}},"f:labels":{".":{},"f:app.kubernetes.io/instance":{},"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{},"f:helm.sh/chart":{}}},"f:spec":{"f:allocateLoadBalancerNodePorts":{},"f:externalTrafficPolicy":{},"f:internalTrafficPolicy":{},`)
	spec.WriteString(`"f:ports":{".":{},"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}},"k:{\"port\":443,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}},"f:selector":{},"f:sessionAffinity":{},"f:type":{}}}`)
	svc.ManagedFields = []metav1.ManagedFieldsEntry{
		managed("kubectl-client-side-apply", metav1.ManagedFieldsOperationUpdate, "", spec.String()),
		managed("aws-load-balancer-controller", metav1.ManagedFieldsOperationUpdate, "status",
			`{"f:status":{"f:loadBalancer":{"f:ingress":{}}},"f:metadata":{"f:finalizers":{".":{},"v:\"service.k8s.aws/resources\"":{}}}}`+strings.Repeat(" ", 1024)),
		managed("helm", metav1.ManagedFieldsOperationUpdate, "", strings.Replace(spec.String(), "f:spec", "f:spec ", 1)),
	}
	return svc
}

// BenchmarkServiceCacheMemory stores 10,000 realistic Services in a cache
// store, once as they come from the API server and once through the
// transformer a source uses, and reports the heap retained per object.
func BenchmarkServiceCacheMemory(b *testing.B) {
	const n = 10000
	transform := informers.TransformerWithOptions[*corev1.Service](informers.TransformOptions{
		RemoveManagedFields: true, RemoveLastApplied: true, RemoveStatusConditions: true,
		DropAnnotations: true, KeepAnnotationPrefixes: []string{"external-dns.kubernetes.io/", "external-dns.alpha.kubernetes.io/"},
	})
	retained := func(fn cache.TransformFunc) float64 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		store := cache.NewStore(cache.MetaNamespaceKeyFunc)
		for i := range n {
			var obj any = realisticService(i)
			if fn != nil {
				obj, _ = fn(obj)
			}
			_ = store.Add(obj)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(store)
		return float64(after.HeapAlloc-before.HeapAlloc) / n
	}
	var plain, slim float64
	for b.Loop() {
		plain = retained(nil)
		slim = retained(transform)
	}
	b.ReportMetric(plain, "B/obj-plain")
	b.ReportMetric(slim, "B/obj-transformed")
	b.ReportMetric(100*slim/plain, "%-retained")
}
