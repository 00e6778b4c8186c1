package kubernetes_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sclient "k8s.io/client-go/kubernetes"

	"github.com/zonesync/zonesync/internal/kubetest"
	"github.com/zonesync/zonesync/internal/kubetest/kubedrive"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// The tests in kubeapi*_test.go run the sources against a real
// kube-apiserver (package kubetest): one for the test binary, a namespace
// per test.
var kube kubetest.Shared

func TestMain(m *testing.M) { os.Exit(kube.Main(m)) }

var widgetsGVR = schema.GroupVersionResource{Group: "kubeapi.zonesync.dev", Version: "v1", Resource: "widgets"}

// crd returns the CRD manifest testdata/crds/name.yaml.
func crd(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "crds", name+".yaml"))
	require.NoError(t, err)
	return b
}

// kubeStep changes the objects of a test and says what follows.
type kubeStep struct {
	name string
	do   func(t *testing.T, o *kubedrive.Objects)
	// endpoints are the source's endpoints afterwards (rendered by
	// kubedrive.Render), zone the records the Reconciler keeps; "{ns}"
	// stands for the test's namespace.
	endpoints, zone []string
	// check, when set, checks more once endpoints and zone are reached.
	check func(t *testing.T, o *kubedrive.Objects)
}

// newSourceFunc builds a source over the admin clients for namespace ns.
type newSourceFunc func(ctx context.Context, kube k8sclient.Interface, o *kubedrive.Objects) (syncer, error)

// TestSourcesAgainstAPIServer drives each source through the life of its
// objects on a real API server: created, changed (spec and status, the
// status through its subresource as controllers write it), deleted. After
// each step the source's endpoints follow its informers' watches, and a
// Reconciler whose Interval is an hour applies them through the cycles the
// source's events trigger.
func TestSourcesAgainstAPIServer(t *testing.T) {
	tests := []struct {
		name   string
		crds   []string
		source newSourceFunc
		steps  []kubeStep
	}{
		{
			name: "service",
			source: func(ctx context.Context, kube k8sclient.Interface, o *kubedrive.Objects) (syncer, error) {
				return kubernetes.NewServiceSource(ctx, kube, kubernetes.ServiceConfig{Options: kubernetes.Options{Namespace: o.Namespace}})
			},
			steps: []kubeStep{
				{
					name: "created with its load balancer",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.Create(kubedrive.Services, `
metadata:
  name: web
  annotations: {external-dns.kubernetes.io/hostname: web.example.com, external-dns.kubernetes.io/ttl: "60"}
spec:
  type: LoadBalancer
  allocateLoadBalancerNodePorts: false
  ports: [{port: 80}]
status:
  loadBalancer: {ingress: [{ip: 192.0.2.1}]}
`)
					},
					endpoints: []string{"web.example.com 60 IN A  192.0.2.1 service/{ns}/web"},
					zone:      []string{"web.example.com A 192.0.2.1"},
				},
				{
					name: "load balancer moves",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.UpdateStatus(kubedrive.Services, "web", func(u *unstructured.Unstructured) {
							setField(t, u, []any{map[string]any{"ip": "192.0.2.2"}, map[string]any{"ip": "192.0.2.3"}}, "status", "loadBalancer", "ingress")
						})
					},
					endpoints: []string{"web.example.com 60 IN A  192.0.2.2;192.0.2.3 service/{ns}/web"},
					zone:      []string{"web.example.com A 192.0.2.2;192.0.2.3"},
				},
				{
					name: "hostname annotation changes",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.Update(kubedrive.Services, "web", func(u *unstructured.Unstructured) {
							setField(t, u, "www.example.com", "metadata", "annotations", "external-dns.kubernetes.io/hostname")
							setField(t, u, []any{map[string]any{"ip": "192.0.2.2"}}, "status", "loadBalancer", "ingress") // ignored by an update
						})
					},
					endpoints: []string{"www.example.com 60 IN A  192.0.2.2;192.0.2.3 service/{ns}/web"},
					zone:      []string{"www.example.com A 192.0.2.2;192.0.2.3"},
				},
				{
					name: "deleted",
					do:   func(t *testing.T, o *kubedrive.Objects) { o.Delete(kubedrive.Services, "web") },
				},
			},
		},
		{
			name: "ingress",
			source: func(ctx context.Context, kube k8sclient.Interface, o *kubedrive.Objects) (syncer, error) {
				return kubernetes.NewIngressSource(ctx, kube, kubernetes.IngressConfig{Options: kubernetes.Options{Namespace: o.Namespace}})
			},
			steps: []kubeStep{
				{
					name: "created with its status",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.Create(kubedrive.Ingresses, `
metadata: {name: app}
spec:
  defaultBackend: {service: {name: app, port: {number: 80}}}
  rules: [{host: app.example.com}, {host: api.example.com}]
status:
  loadBalancer: {ingress: [{ip: 192.0.2.10}]}
`)
					},
					endpoints: []string{
						"api.example.com 0 IN A  192.0.2.10 ingress/{ns}/app",
						"app.example.com 0 IN A  192.0.2.10 ingress/{ns}/app",
					},
					zone: []string{"api.example.com A 192.0.2.10", "app.example.com A 192.0.2.10"},
				},
				{
					name: "a rule goes",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.Update(kubedrive.Ingresses, "app", func(u *unstructured.Unstructured) {
							setField(t, u, []any{map[string]any{"host": "app.example.com"}}, "spec", "rules")
						})
					},
					endpoints: []string{"app.example.com 0 IN A  192.0.2.10 ingress/{ns}/app"},
					zone:      []string{"app.example.com A 192.0.2.10"},
				},
				{
					name: "status changes",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.UpdateStatus(kubedrive.Ingresses, "app", func(u *unstructured.Unstructured) {
							setField(t, u, []any{map[string]any{"ip": "2001:db8::10"}}, "status", "loadBalancer", "ingress")
						})
					},
					endpoints: []string{"app.example.com 0 IN AAAA  2001:db8::10 ingress/{ns}/app"},
					zone:      []string{"app.example.com AAAA 2001:db8::10"},
				},
				{
					name: "deleted",
					do:   func(t *testing.T, o *kubedrive.Objects) { o.Delete(kubedrive.Ingresses, "app") },
				},
			},
		},
		{
			name: "dnsendpoint",
			crds: []string{"dnsendpoints"},
			source: func(ctx context.Context, _ k8sclient.Interface, o *kubedrive.Objects) (syncer, error) {
				return kubernetes.NewDNSEndpointSource(ctx, o.Client, kubernetes.DNSEndpointConfig{Options: kubernetes.Options{Namespace: o.Namespace}})
			},
			steps: []kubeStep{
				{
					name: "created",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.Create(kubernetes.DNSEndpointGVR, `
apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata:
  name: records
  annotations: {team.example.com/owner: dns}
spec:
  endpoints:
  - {dnsName: a.example.com, recordType: A, targets: [192.0.2.2, 192.0.2.1], recordTTL: 300, labels: {team: dns}}
  - {dnsName: alias.example.com, recordType: CNAME, targets: [a.example.com]}
`)
					},
					endpoints: []string{
						"a.example.com 300 IN A  192.0.2.1;192.0.2.2 crd/{ns}/records",
						"alias.example.com 0 IN CNAME  a.example.com crd/{ns}/records",
					},
					zone:  []string{"a.example.com A 192.0.2.1;192.0.2.2", "alias.example.com CNAME a.example.com"},
					check: observedGeneration(1),
				},
				{
					name: "spec changes",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.Update(kubernetes.DNSEndpointGVR, "records", func(u *unstructured.Unstructured) {
							setField(t, u, []any{map[string]any{"dnsName": "a.example.com", "recordType": "A", "targets": []any{"192.0.2.3"}, "recordTTL": int64(300)}}, "spec", "endpoints")
						})
					},
					endpoints: []string{"a.example.com 300 IN A  192.0.2.3 crd/{ns}/records"},
					zone:      []string{"a.example.com A 192.0.2.3"},
					check:     observedGeneration(2),
				},
				{
					name: "deleted",
					do:   func(t *testing.T, o *kubedrive.Objects) { o.Delete(kubernetes.DNSEndpointGVR, "records") },
				},
			},
		},
		{
			name: "istio gateway",
			crds: []string{"istio-gateways"},
			source: func(ctx context.Context, kube k8sclient.Interface, o *kubedrive.Objects) (syncer, error) {
				return kubernetes.NewIstioGatewaySource(ctx, kube, o.Client, kubernetes.IstioGatewayConfig{Options: kubernetes.Options{Namespace: o.Namespace}})
			},
			steps: []kubeStep{
				{
					name: "gateway and its ingress Service created",
					do: func(t *testing.T, o *kubedrive.Objects) {
						// The Services are read cluster-wide: the selector
						// names the namespace to select this test's only.
						o.Create(kubedrive.Services, `
metadata: {name: ingressgateway}
spec:
  type: LoadBalancer
  allocateLoadBalancerNodePorts: false
  selector: {zonesync-test: "{ns}"}
  ports: [{port: 443}]
status:
  loadBalancer: {ingress: [{ip: 192.0.2.20}]}
`)
						o.Create(kubernetes.IstioGatewayGVR, `
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: public}
spec:
  selector: {zonesync-test: "{ns}"}
  servers:
  - port: {number: 443, name: https, protocol: HTTPS}
    hosts: ["{ns}/shop.example.com", "*/blog.example.com", "*"]
`)
					},
					endpoints: []string{
						"blog.example.com 0 IN A  192.0.2.20 gateway/{ns}/public",
						"shop.example.com 0 IN A  192.0.2.20 gateway/{ns}/public",
					},
					zone: []string{"blog.example.com A 192.0.2.20", "shop.example.com A 192.0.2.20"},
				},
				{
					name: "the ingress Service's load balancer moves",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.UpdateStatus(kubedrive.Services, "ingressgateway", func(u *unstructured.Unstructured) {
							setField(t, u, []any{map[string]any{"ip": "192.0.2.21"}}, "status", "loadBalancer", "ingress")
						})
					},
					endpoints: []string{
						"blog.example.com 0 IN A  192.0.2.21 gateway/{ns}/public",
						"shop.example.com 0 IN A  192.0.2.21 gateway/{ns}/public",
					},
					zone: []string{"blog.example.com A 192.0.2.21", "shop.example.com A 192.0.2.21"},
				},
				{
					name: "a host goes",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.Update(kubernetes.IstioGatewayGVR, "public", func(u *unstructured.Unstructured) {
							setField(t, u, []any{map[string]any{"hosts": []any{"shop.example.com"}}}, "spec", "servers")
						})
					},
					endpoints: []string{"shop.example.com 0 IN A  192.0.2.21 gateway/{ns}/public"},
					zone:      []string{"shop.example.com A 192.0.2.21"},
				},
				{
					name: "deleted",
					do:   func(t *testing.T, o *kubedrive.Objects) { o.Delete(kubernetes.IstioGatewayGVR, "public") },
				},
			},
		},
		{
			name: "contour httpproxy",
			crds: []string{"contour-httpproxies"},
			source: func(ctx context.Context, _ k8sclient.Interface, o *kubedrive.Objects) (syncer, error) {
				return kubernetes.NewHTTPProxySource(ctx, o.Client, kubernetes.HTTPProxyConfig{Options: kubernetes.Options{Namespace: o.Namespace}})
			},
			steps: []kubeStep{
				{
					name: "created with its status",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.Create(kubernetes.HTTPProxyGVR, `
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: app}
spec:
  virtualhost: {fqdn: app.example.com}
  routes: [{services: [{name: app, port: 80}]}]
status:
  currentStatus: valid
  loadBalancer: {ingress: [{hostname: lb.example.net}]}
`)
					},
					endpoints: []string{"app.example.com 0 IN CNAME  lb.example.net HTTPProxy/{ns}/app"},
					zone:      []string{"app.example.com CNAME lb.example.net"},
				},
				{
					name: "fqdn changes",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.Update(kubernetes.HTTPProxyGVR, "app", func(u *unstructured.Unstructured) {
							setField(t, u, "shop.example.com", "spec", "virtualhost", "fqdn")
						})
					},
					endpoints: []string{"shop.example.com 0 IN CNAME  lb.example.net HTTPProxy/{ns}/app"},
					zone:      []string{"shop.example.com CNAME lb.example.net"},
				},
				{
					name: "deleted",
					do:   func(t *testing.T, o *kubedrive.Objects) { o.Delete(kubernetes.HTTPProxyGVR, "app") },
				},
			},
		},
		{
			name: "unstructured",
			crds: []string{"widgets"},
			source: func(ctx context.Context, _ k8sclient.Interface, o *kubedrive.Objects) (syncer, error) {
				return kubernetes.NewUnstructuredSource(ctx, o.Client, kubernetes.UnstructuredConfig{
					Options: kubernetes.Options{Namespace: o.Namespace}, GVR: widgetsGVR,
					HostnameJSONPath: "{.spec.hosts}", TargetJSONPath: "{.status.addresses[*].ip}",
				})
			},
			steps: []kubeStep{
				{
					name: "created with its status",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.Create(widgetsGVR, `
apiVersion: kubeapi.zonesync.dev/v1
kind: Widget
metadata: {name: w}
spec: {hosts: [w.example.com]}
status: {addresses: [{ip: 192.0.2.30}, {ip: "2001:db8::30"}]}
`)
					},
					endpoints: []string{
						"w.example.com 0 IN A  192.0.2.30 widget/{ns}/w",
						"w.example.com 0 IN AAAA  2001:db8::30 widget/{ns}/w",
					},
					zone: []string{"w.example.com A 192.0.2.30", "w.example.com AAAA 2001:db8::30"},
				},
				{
					name: "status changes",
					do: func(t *testing.T, o *kubedrive.Objects) {
						o.UpdateStatus(widgetsGVR, "w", func(u *unstructured.Unstructured) {
							setField(t, u, []any{map[string]any{"ip": "192.0.2.31"}}, "status", "addresses")
						})
					},
					endpoints: []string{"w.example.com 0 IN A  192.0.2.31 widget/{ns}/w"},
					zone:      []string{"w.example.com A 192.0.2.31"},
				},
				{
					name: "deleted",
					do:   func(t *testing.T, o *kubedrive.Objects) { o.Delete(widgetsGVR, "w") },
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := kubedrive.New(t, &kube)
			for _, name := range tt.crds {
				o.Env.InstallCRDs(t, crd(t, name))
			}
			logger, _ := kubedrive.Logger(t)
			ctx := logr.NewContext(o.Ctx, logger)
			clientset, err := k8sclient.NewForConfig(o.Env.Config())
			require.NoError(t, err)
			src, err := tt.source(ctx, clientset, o)
			require.NoError(t, err)
			require.NoError(t, src.WaitForSync(ctx))
			zone := kubedrive.Reconcile(t, ctx, src, logger)
			for _, step := range tt.steps {
				step.do(t, o)
				kubedrive.Eventually(t, step.name+": endpoints", o.ExpandAll(step.endpoints), func() []string {
					eps, err := src.Endpoints(ctx)
					if err != nil {
						return []string{"error: " + err.Error()}
					}
					return kubedrive.Render(eps)
				})
				kubedrive.Eventually(t, step.name+": zone", o.ExpandAll(step.zone), func() []string { return kubedrive.Records(t, zone) })
				if step.check != nil {
					step.check(t, o)
				}
			}
		})
	}
}

// observedGeneration checks that the DNSEndpoint "records" gets
// status.observedGeneration gen through the status subresource, which
// leaves the rest of the object as it is: the annotation the source's
// informer drops from its cache is still there.
func observedGeneration(gen int64) func(t *testing.T, o *kubedrive.Objects) {
	return func(t *testing.T, o *kubedrive.Objects) {
		t.Helper()
		var u *unstructured.Unstructured
		kubedrive.Eventually(t, "status.observedGeneration", []string{"generation", "observed"}, func() []string {
			u = o.Get(kubernetes.DNSEndpointGVR, "records")
			got, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
			out := []string{}
			if u.GetGeneration() == gen {
				out = append(out, "generation")
			}
			if got == gen {
				out = append(out, "observed")
			}
			return out
		})
		assert.Equal(t, map[string]string{"team.example.com/owner": "dns"}, u.GetAnnotations())
	}
}

func setField(t *testing.T, u *unstructured.Unstructured, value any, fields ...string) {
	t.Helper()
	require.NoError(t, unstructured.SetNestedField(u.Object, value, fields...))
}
