package gatewayapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sclient "k8s.io/client-go/kubernetes"

	"github.com/zonesync/zonesync/internal/kubetest"
	"github.com/zonesync/zonesync/internal/kubetest/kubedrive"
	"github.com/zonesync/zonesync/source/gatewayapi"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// The tests in kubeapi_test.go run the route sources against a real
// kube-apiserver (package kubetest) with the Gateway API's own CRDs: one
// server for the test binary, a namespace per test.
var kube kubetest.Shared

func TestMain(m *testing.M) { os.Exit(kube.Main(m)) }

// gatewayAPIModule is the Gateway API release whose CRDs the tests
// install: the one external-dns v0.23 is built with.
const gatewayAPIModule = "sigs.k8s.io/gateway-api@v1.6.2"

// gatewayAPICRDs returns the CRDs of the Gateway, ListenerSet and route
// kinds from the experimental channel of gatewayAPIModule, which serves
// TCPRoute and UDPRoute at v1alpha2, the version external-dns reads them
// at (the standard channel of v1.6 serves them at v1 only). The module is
// not a dependency of zonesync; `go mod download` finds it in the module
// cache or fetches it from the module proxy.
func gatewayAPICRDs(t *testing.T) [][]byte {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, "mod", "download", "-json", gatewayAPIModule)
	cmd.Dir = t.TempDir() // outside any module: nothing's go.mod or go.sum changes
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go mod download %s: %s%s", gatewayAPIModule, out, stderr.String())
	var mod struct{ Dir, Error string }
	require.NoError(t, json.Unmarshal(out, &mod))
	require.Empty(t, mod.Error)
	var crds [][]byte
	for _, kind := range []string{"gateways", "listenersets", "httproutes", "grpcroutes", "tlsroutes", "tcproutes", "udproutes"} {
		b, err := os.ReadFile(filepath.Join(mod.Dir, "config", "crd", "experimental", "gateway.networking.k8s.io_"+kind+".yaml"))
		require.NoError(t, err)
		crds = append(crds, b)
	}
	return crds
}

// gatewayManifest is a Gateway with a listener for each route kind, the
// HTTP, HTTPS and TLS ones for the names below example.com; its status
// gives it an address.
const gatewayManifest = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: test
  listeners:
  - {name: http, protocol: HTTP, port: 80, hostname: "*.example.com"}
  - {name: https, protocol: HTTPS, port: 443, hostname: "*.example.com", tls: {mode: Terminate, certificateRefs: [{name: cert}]}}
  - {name: tls, protocol: TLS, port: 8443, hostname: "*.example.com", tls: {mode: Passthrough}}
  - {name: tcp, protocol: TCP, port: 5432}
  - {name: udp, protocol: UDP, port: 53}
status:
  addresses: [{type: IPAddress, value: 192.0.2.1}]
`

// routeManifest returns a route of kind attached to the listener section
// of the Gateway gw, accepted by it; spec holds the route's other spec
// fields, meta its metadata fields besides the name.
func routeManifest(kind gatewayapi.RouteKind, section, meta, spec string) string {
	return `
apiVersion: ` + kind.GVR.GroupVersion().String() + `
kind: ` + kind.Kind + `
metadata: {name: r` + meta + `}
spec:
  parentRefs: [{name: gw, sectionName: ` + section + `}]
` + spec + `
status:
  parents:
  - parentRef: {name: gw, sectionName: ` + section + `}
    controllerName: example.com/gateway-controller
    conditions:
    - {type: Accepted, status: "True", reason: Accepted, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}
`
}

// TestRoutesAgainstAPIServer drives each route source through the life
// of a route on a real API server with the Gateway API's CRDs (their
// schemas and CEL rules validate every object written): created with its
// parent's acceptance in its status, its names changed, its Gateway's
// address changed, deleted. After each step the source's endpoints follow
// its informers' watches, and a Reconciler whose Interval is an hour
// applies them through the cycles the source's events trigger.
func TestRoutesAgainstAPIServer(t *testing.T) {
	kube.Env(t).InstallCRDs(t, gatewayAPICRDs(t)...)
	backends := "  rules: [{backendRefs: [{name: backend, port: 8080}]}]\n"
	tests := []struct {
		kind    gatewayapi.RouteKind
		newSrc  func(context.Context, k8sclient.Interface, *kubedrive.Objects) (syncer, error)
		section string
		// created and renamed are the route's metadata (besides the
		// name) and spec before and after its names change; the names
		// are first.example.com, then second.example.com.
		created, renamed [2]string
	}{
		{
			kind: gatewayapi.HTTPRouteKind(), section: "http",
			newSrc: func(ctx context.Context, kube k8sclient.Interface, o *kubedrive.Objects) (syncer, error) {
				return gatewayapi.NewHTTPRouteSource(ctx, kube, o.Client, gatewayapi.Config{Options: namespaced(o)})
			},
			created: [2]string{"", "  hostnames: [first.example.com]\n"},
			renamed: [2]string{"", "  hostnames: [second.example.com]\n"},
		},
		{
			kind: gatewayapi.GRPCRouteKind(), section: "https",
			newSrc: func(ctx context.Context, kube k8sclient.Interface, o *kubedrive.Objects) (syncer, error) {
				return gatewayapi.NewGRPCRouteSource(ctx, kube, o.Client, gatewayapi.Config{Options: namespaced(o)})
			},
			created: [2]string{"", "  hostnames: [first.example.com]\n"},
			renamed: [2]string{"", "  hostnames: [second.example.com]\n"},
		},
		{
			kind: gatewayapi.TLSRouteKind(), section: "tls",
			newSrc: func(ctx context.Context, kube k8sclient.Interface, o *kubedrive.Objects) (syncer, error) {
				return gatewayapi.NewTLSRouteSource(ctx, kube, o.Client, gatewayapi.Config{Options: namespaced(o)})
			},
			created: [2]string{"", "  hostnames: [first.example.com]\n" + backends},
			renamed: [2]string{"", "  hostnames: [second.example.com]\n" + backends},
		},
		{
			// TCP and UDP routes have no hostnames: the annotation names them.
			kind: gatewayapi.TCPRouteKind(), section: "tcp",
			newSrc: func(ctx context.Context, kube k8sclient.Interface, o *kubedrive.Objects) (syncer, error) {
				return gatewayapi.NewTCPRouteSource(ctx, kube, o.Client, gatewayapi.Config{Options: namespaced(o)})
			},
			created: [2]string{", annotations: {external-dns.kubernetes.io/hostname: first.example.com}", backends},
			renamed: [2]string{", annotations: {external-dns.kubernetes.io/hostname: second.example.com}", backends},
		},
		{
			kind: gatewayapi.UDPRouteKind(), section: "udp",
			newSrc: func(ctx context.Context, kube k8sclient.Interface, o *kubedrive.Objects) (syncer, error) {
				return gatewayapi.NewUDPRouteSource(ctx, kube, o.Client, gatewayapi.Config{Options: namespaced(o)})
			},
			created: [2]string{", annotations: {external-dns.kubernetes.io/hostname: first.example.com}", backends},
			renamed: [2]string{", annotations: {external-dns.kubernetes.io/hostname: second.example.com}", backends},
		},
	}
	for _, tt := range tests {
		t.Run(tt.kind.Kind, func(t *testing.T) {
			o := kubedrive.New(t, &kube)
			logger, _ := kubedrive.Logger(t)
			ctx := logr.NewContext(o.Ctx, logger)
			clientset, err := k8sclient.NewForConfig(o.Env.Config())
			require.NoError(t, err)
			src, err := tt.newSrc(ctx, clientset, o)
			require.NoError(t, err)
			require.NoError(t, src.WaitForSync(ctx))
			zone := kubedrive.Reconcile(t, ctx, src, logger)
			resource := strings.ToLower(tt.kind.Kind) + "/{ns}/r"
			gvr := tt.kind.GVR

			steps := []struct {
				name      string
				do        func()
				endpoints []string
				zone      []string
			}{
				{
					name: "created",
					do: func() {
						o.Create(gatewayapi.GatewayGVR(), gatewayManifest)
						o.Create(gvr, routeManifest(tt.kind, tt.section, tt.created[0], tt.created[1]))
					},
					endpoints: []string{"first.example.com 0 IN A  192.0.2.1 " + resource},
					zone:      []string{"first.example.com A 192.0.2.1"},
				},
				{
					name: "renamed",
					do: func() {
						// The status is the route's own: a spec update leaves it.
						want := o.Decode(routeManifest(tt.kind, tt.section, tt.renamed[0], tt.renamed[1]))
						o.Update(gvr, "r", func(u *unstructured.Unstructured) {
							u.Object["spec"] = want.Object["spec"]
							u.SetAnnotations(want.GetAnnotations())
						})
					},
					endpoints: []string{"second.example.com 0 IN A  192.0.2.1 " + resource},
					zone:      []string{"second.example.com A 192.0.2.1"},
				},
				{
					name: "the Gateway's address changes",
					do: func() {
						o.UpdateStatus(gatewayapi.GatewayGVR(), "gw", func(u *unstructured.Unstructured) {
							require.NoError(t, unstructured.SetNestedSlice(u.Object, []any{
								map[string]any{"type": "IPAddress", "value": "192.0.2.2"},
								map[string]any{"type": "IPAddress", "value": "2001:db8::2"},
							}, "status", "addresses"))
						})
					},
					endpoints: []string{
						"second.example.com 0 IN A  192.0.2.2 " + resource,
						"second.example.com 0 IN AAAA  2001:db8::2 " + resource,
					},
					zone: []string{"second.example.com A 192.0.2.2", "second.example.com AAAA 2001:db8::2"},
				},
				{
					name: "deleted",
					do:   func() { o.Delete(gvr, "r") },
				},
			}
			for _, step := range steps {
				step.do()
				kubedrive.Eventually(t, step.name+": endpoints", o.ExpandAll(step.endpoints), func() []string {
					eps, err := src.Endpoints(ctx)
					if err != nil {
						return []string{"error: " + err.Error()}
					}
					return kubedrive.Render(eps)
				})
				kubedrive.Eventually(t, step.name+": zone", step.zone, func() []string { return kubedrive.Records(t, zone) })
			}
		})
	}
}

// namespaced returns the options that limit a source to the test's
// namespace (routes; Gateways are read in every namespace).
func namespaced(o *kubedrive.Objects) kubeopts.Options {
	return kubeopts.Options{Namespace: o.Namespace}
}
