package kubernetes_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	k8sclient "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/internal/kubetest/kubedrive"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/noop"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// notSynced checks that src has not synced and that waiting for it, for
// a little while, fails with an error holding every one of want.
func notSynced(t *testing.T, ctx context.Context, src syncer, want ...string) {
	t.Helper()
	assert.False(t, src.HasSynced())
	// Give the informers time to try (and fail) at least once: the error
	// names what they could not read.
	wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	err := src.WaitForSync(wctx)
	require.Error(t, err)
	t.Logf("WaitForSync: %v", err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	for _, w := range want {
		assert.ErrorContains(t, err, w)
	}
	assert.False(t, src.HasSynced())

	rec := &zonesync.Reconciler{Source: src, Registry: noop.New(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}))}
	_, err = rec.RunOnce(ctx)
	require.ErrorIs(t, err, zonesync.ErrSourceNotReady)
	assert.True(t, errors.Is(err, provider.SoftError), "%v", err)
}

// gadgetCRD is a CRD of the test's own, in a group named after its
// namespace, so that it is not installed yet however often the test runs.
const gadgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.{ns}.zonesync.dev}
spec:
  group: "{ns}.zonesync.dev"
  names: {kind: Gadget, listKind: GadgetList, plural: gadgets, singular: gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// TestReadinessBeforeCachesSync: a source over a resource the server does
// not serve yet, or over a server it cannot reach, reports that it has not
// synced, says why when waited for, and a Reconciler refuses to plan
// (ErrSourceNotReady) instead of deleting records for want of objects.
func TestReadinessBeforeCachesSync(t *testing.T) {
	t.Run("CRD installed later", func(t *testing.T) {
		o := kubedrive.New(t, &kube)
		logger, log := kubedrive.Logger(t)
		ctx := logr.NewContext(o.Ctx, logger)
		gadgets := schema.GroupVersionResource{Group: o.Namespace + ".zonesync.dev", Version: "v1", Resource: "gadgets"}
		src, err := kubernetes.NewUnstructuredSource(ctx, o.Client, kubernetes.UnstructuredConfig{
			Options: kubernetes.Options{Namespace: o.Namespace}, GVR: gadgets, HostnameJSONPath: "{.spec.host}", TargetJSONPath: "{.spec.ip}",
		})
		require.NoError(t, err)
		resource := gadgets.GroupResource().String()
		notSynced(t, ctx, src, "not synced: "+resource+": ", "the server could not find the requested resource")
		assert.True(t, log.Contains("listing or watching failed", `"resource"="`+resource+`"`, "the server could not find the requested resource"), log.String())

		o.Env.InstallCRDs(t, []byte(o.Expand(gadgetCRD)))
		wctx, cancel := context.WithTimeout(ctx, kubedrive.Timeout)
		defer cancel()
		require.NoError(t, src.WaitForSync(wctx), "the informer lists again and syncs once the resource is served")
		o.Create(gadgets, `{apiVersion: "{ns}.zonesync.dev/v1", kind: Gadget, metadata: {name: g}, spec: {host: g.example.com, ip: 192.0.2.40}}`)
		kubedrive.Eventually(t, "endpoints", []string{o.Expand("g.example.com 0 IN A  192.0.2.40 gadget/{ns}/g")}, func() []string {
			eps, _ := src.Endpoints(ctx)
			return kubedrive.Render(eps)
		})
	})
	t.Run("server unreachable", func(t *testing.T) {
		// client-go's streaming list retries a refused connection inside
		// its reflector and tells nobody: the error can only say what has
		// not synced.
		client, err := k8sclient.NewForConfig(&rest.Config{Host: "https://127.0.0.1:1"})
		require.NoError(t, err)
		src, err := kubernetes.NewIngressSource(t.Context(), client, kubernetes.IngressConfig{})
		require.NoError(t, err)
		notSynced(t, t.Context(), src, "not synced: ingresses.networking.k8s.io: no list or watch error reported")
	})
}

// TestForbiddenResource: a source running as a user RBAC gives no rights
// on its resources says which resource, verb and namespace were refused
// (in WaitForSync's error and in its log), and syncs once a Role and a
// ClusterRole grant what its doc lists.
func TestForbiddenResource(t *testing.T) {
	o := kubedrive.New(t, &kube)
	logger, log := kubedrive.Logger(t)
	ctx := logr.NewContext(o.Ctx, logger)
	user := "zonesync-" + o.Namespace
	client, err := k8sclient.NewForConfig(o.Env.ConfigAs(user))
	require.NoError(t, err)
	src, err := kubernetes.NewServiceSource(ctx, client, kubernetes.ServiceConfig{Options: kubernetes.Options{Namespace: o.Namespace}})
	require.NoError(t, err)
	forbidden := func(resource, group, scope string) string {
		return `"` + resource + `" in API group "` + group + `" ` + scope
	}
	inNS := `in the namespace "` + o.Namespace + `"`
	notSynced(t, ctx, src,
		`User "`+user+`" cannot list resource`,
		forbidden("services", "", inNS),
		forbidden("endpointslices", "discovery.k8s.io", inNS),
		forbidden("pods", "", inNS),
		forbidden("nodes", "", "at the cluster scope"),
		"(the client's user needs the list and watch verbs on nodes)",
	)
	assert.True(t, log.Contains("listing or watching failed", `"resource"="services"`, "forbidden", o.Namespace), log.String())

	// The admin grants the rights the Service source's doc lists.
	rbac := func(resource string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: resource}
	}
	o.Create(rbac("roles"), `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: zonesync}
rules:
- {apiGroups: [""], resources: [services, pods], verbs: [list, watch]}
- {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch]}
`)
	o.Create(rbac("rolebindings"), `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: zonesync}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: zonesync}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "zonesync-{ns}"}]
`)
	o.CreateCluster(rbac("clusterroles"), `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "zonesync-{ns}"}
rules: [{apiGroups: [""], resources: [nodes], verbs: [list, watch]}]
`)
	o.CreateCluster(rbac("clusterrolebindings"), `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "zonesync-{ns}"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "zonesync-{ns}"}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "zonesync-{ns}"}]
`)
	wctx, cancel := context.WithTimeout(ctx, kubedrive.Timeout)
	defer cancel()
	require.NoError(t, src.WaitForSync(wctx))
	zone := kubedrive.Reconcile(t, ctx, src, logger)
	o.Create(kubedrive.Services, `
metadata: {name: web, annotations: {external-dns.kubernetes.io/hostname: web.example.com}}
spec: {type: LoadBalancer, allocateLoadBalancerNodePorts: false, ports: [{port: 80}]}
status: {loadBalancer: {ingress: [{ip: 192.0.2.50}]}}
`)
	kubedrive.Eventually(t, "zone", []string{"web.example.com A 192.0.2.50"}, func() []string { return kubedrive.Records(t, zone) })
}

// TestDNSEndpointStatusForbidden: a DNSEndpoint source that may read
// DNSEndpoints but not write their status still publishes them, and logs
// the refused status write naming the object.
func TestDNSEndpointStatusForbidden(t *testing.T) {
	o := kubedrive.New(t, &kube)
	o.Env.InstallCRDs(t, crd(t, "dnsendpoints"))
	logger, log := kubedrive.Logger(t)
	ctx := logr.NewContext(o.Ctx, logger)
	o.Create(schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: read-dnsendpoints}
rules: [{apiGroups: [externaldns.k8s.io], resources: [dnsendpoints], verbs: [list, watch]}]
`)
	o.Create(schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read-dnsendpoints}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: read-dnsendpoints}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: reader}]
`)
	client, err := dynamic.NewForConfig(o.Env.ConfigAs("reader"))
	require.NoError(t, err)
	src, err := kubernetes.NewDNSEndpointSource(ctx, client, kubernetes.DNSEndpointConfig{Options: kubernetes.Options{Namespace: o.Namespace}})
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, kubedrive.Timeout)
	defer cancel()
	require.NoError(t, src.WaitForSync(wctx))
	o.Create(kubernetes.DNSEndpointGVR, `
apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata: {name: records}
spec: {endpoints: [{dnsName: a.example.com, recordType: A, targets: [192.0.2.60]}]}
`)
	kubedrive.Eventually(t, "endpoints", []string{o.Expand("a.example.com 0 IN A  192.0.2.60 crd/{ns}/records")}, func() []string {
		eps, _ := src.Endpoints(ctx)
		return kubedrive.Render(eps)
	})
	assert.True(t, log.Contains("writing status.observedGeneration", o.Expand("DNSEndpoint {ns}/records"), "cannot update resource", "dnsendpoints/status"), log.String())
}
