package crd_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/kubetest"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/crd"
	"github.com/zonesync/zonesync/registry/registrytest"
	"github.com/zonesync/zonesync/source"
)

// The tests below run against a real kube-apiserver (internal/kubetest):
// the CRD installed from CustomResourceDefinitionYAML, its validation, the
// status subresource, resource versions, watches and RBAC are real.

var apiServer kubetest.Shared

func TestMain(m *testing.M) { os.Exit(apiServer.Main(m)) }

// apiEnv returns the running server with the CRD installed.
func apiEnv(t *testing.T) *kubetest.Env {
	t.Helper()
	env := apiServer.Env(t)
	env.InstallCRDs(t, crd.CustomResourceDefinitionYAML())
	return env
}

// startOn builds a registry of owner over p in ns through client and starts
// it until the test ends.
func startOn(t *testing.T, p provider.Provider, client dynamic.Interface, ns, owner string) *crd.Registry {
	t.Helper()
	reg, err := crd.New(p, client, crd.Config{OwnerID: owner, Namespace: ns})
	require.NoError(t, err)
	require.NoError(t, reg.Start(t.Context()))
	return reg
}

// The registry contract against the real server, one namespace per rule.
func TestAPIServerRegistryContract(t *testing.T) {
	env := apiEnv(t)
	client := env.Dynamic(t)
	var mu sync.Mutex
	namespaces := map[provider.Provider]string{}
	registrytest.TestRegistry(t, func(p provider.Provider, ownerID string) (registry.Registry, error) {
		mu.Lock()
		ns, ok := namespaces[p]
		if !ok {
			ns = env.Namespace(t)
			namespaces[p] = ns
		}
		mu.Unlock()
		return startOn(t, p, client, ns, ownerID), nil
	}, registrytest.Options{OwnershipOutsideProvider: true, PerZone: true})
}

// grant gives user the Role the package documentation lists, in ns.
func grant(t *testing.T, env *kubetest.Env, ns, user string) {
	bindRole(t, env, ns, user, "zonesync-dnsrecords",
		map[string]any{"apiGroups": []any{crd.Group}, "resources": []any{crd.Resource},
			"verbs": []any{"get", "list", "watch", "create", "update", "delete"}},
		map[string]any{"apiGroups": []any{crd.Group}, "resources": []any{crd.Resource + "/status"},
			"verbs": []any{"update"}},
	)
}

// bindRole creates the Role name with rules in ns and binds it to user.
func bindRole(t *testing.T, env *kubetest.Env, ns, user, name string, rules ...any) {
	t.Helper()
	ctx := t.Context()
	c := env.Dynamic(t)
	role := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"rules":    rules,
	}}
	binding := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}},
	}}
	rbac := func(resource string) dynamic.ResourceInterface {
		return c.Resource(schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: resource}).Namespace(ns)
	}
	_, err := rbac("roles").Create(ctx, role, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = rbac("rolebindings").Create(ctx, binding, metav1.CreateOptions{})
	require.NoError(t, err)
}

func TestAPIServerAccessAndCycles(t *testing.T) {
	env := apiEnv(t)
	ns := env.Namespace(t)
	const user = "system:serviceaccount:dns:zonesync"
	nobody, err := dynamic.NewForConfig(env.ConfigAs(user))
	require.NoError(t, err)
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})

	reg, err := crd.New(zone, nobody, crd.Config{OwnerID: testOwner, Namespace: ns})
	require.NoError(t, err)
	err = reg.Start(t.Context())
	require.Error(t, err)
	assert.True(t, apierrors.IsForbidden(err), "%v", err)
	assert.ErrorContains(t, err, `the API server forbids listing and watching dnsrecords.externaldns.k8s.io in namespace "`+ns+`"`)
	assert.ErrorContains(t, err, "get, list, watch, create, update and delete on dnsrecords and update on dnsrecords/status")

	grant(t, env, ns, user)
	run := func(desired ...*endpoint.Endpoint) *plan.Changes {
		t.Helper()
		r := &zonesync.Reconciler{Source: source.NewStatic(desired...), Registry: startOn(t, zone, nobody, ns, testOwner)}
		r.Safety.Disabled = true
		cyc, err := r.RunOnce(t.Context())
		c := cyc.Changes
		require.NoError(t, err)
		return c
	}
	web := a("web", "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/default/web")
	c := run(web)
	require.Len(t, c.Create, 1)
	requireNoChanges(t, run(web))

	admin := env.Dynamic(t).Resource(gvr).Namespace(ns)
	u, err := admin.Get(t.Context(), objName("web"), metav1.GetOptions{})
	require.NoError(t, err)
	reason, status := readyReason(u)
	assert.Equal(t, [2]string{crd.ReasonProgrammed, "True"}, [2]string{reason, status})
	assert.Equal(t, int64(1), u.GetGeneration(), "status writes do not change the generation")
	assert.Equal(t, map[string]string{endpoint.OwnerLabelKey: testOwner, endpoint.ResourceLabelKey: "service/default/web"},
		labelMap(specOf(t, u)))

	moved := a("web", "192.0.2.2").WithLabel(endpoint.ResourceLabelKey, "service/default/web")
	c = run(moved)
	require.Len(t, c.UpdateNew, 1)
	requireNoChanges(t, run(moved))
	u, err = admin.Get(t.Context(), objName("web"), metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, endpoint.Targets{"192.0.2.2"}, specOf(t, u).Targets)
	assert.Equal(t, int64(2), u.GetGeneration())

	c = run()
	require.Len(t, c.Delete, 1)
	list, err := admin.List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, list.Items)
	recs, err := zone.Records(t.Context())
	require.NoError(t, err)
	assert.Empty(t, recs)
}

// The server keeps status apart from spec: an update of the main resource
// does not change the Ready condition, and a status write does not change
// the spec. A registry restarted after each write reads what the server
// holds.
func TestAPIServerStatusSubresource(t *testing.T) {
	env := apiEnv(t)
	ns := env.Namespace(t)
	client := env.Dynamic(t)
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	reg := startOn(t, zone, client, ns, testOwner)
	require.NoError(t, reg.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{a("app", "192.0.2.1")}}))

	r := client.Resource(gvr).Namespace(ns)
	u, err := r.Get(t.Context(), objName("app"), metav1.GetOptions{})
	require.NoError(t, err)
	// Somebody tries to mark it Failed through the main resource: ignored.
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	require.Len(t, conds, 1)
	conds[0].(map[string]any)["reason"] = crd.ReasonFailed
	conds[0].(map[string]any)["status"] = "False"
	require.NoError(t, unstructured.SetNestedSlice(u.Object, conds, "status", "conditions"))
	u, err = r.Update(t.Context(), u, metav1.UpdateOptions{})
	require.NoError(t, err)
	reason, _ := readyReason(u)
	assert.Equal(t, crd.ReasonProgrammed, reason)

	// The schema is enforced: a condition without a reason is refused.
	conds[0].(map[string]any)["reason"] = ""
	require.NoError(t, unstructured.SetNestedSlice(u.Object, conds, "status", "conditions"))
	_, err = r.UpdateStatus(t.Context(), u, metav1.UpdateOptions{})
	assert.True(t, apierrors.IsInvalid(err), "%v", err)

	recs, err := startOn(t, zone, client, ns, testOwner).Records(t.Context())
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, testOwner, ownerOf(recs[0]))
}

// A record created by one cycle is ours at the very next read: Records
// waits until the cache shows what ApplyChanges wrote.
func TestAPIServerReadsItsOwnWrites(t *testing.T) {
	env := apiEnv(t)
	ns := env.Namespace(t)
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	reg := startOn(t, zone, env.Dynamic(t), ns, testOwner)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for i := range 20 {
		ep := a("w"+string(rune('a'+i)), "192.0.2.1")
		require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{ep}}))
		recs, err := reg.Records(ctx)
		require.NoError(t, err)
		got := find(recs, ep)
		require.NotNil(t, got)
		require.Equal(t, testOwner, ownerOf(got), "record %d", i)
		require.Zero(t, reg.PendingRepairs(), "record %d", i)
	}
}

// Finding 3 against the real server: a user who may only create DNSRecords
// in the registry's namespace creates one named after somebody else's
// record, with our owner label, the record's data in its spec or in the
// PreviousEndpointAnnotation, and a Programmed status. The server keeps no
// status on a create and refuses the user's status writes; the registry
// reports the record as nobody's, and cycles leave it alone.
func TestAPIServerForgedDNSRecordClaimsNothing(t *testing.T) {
	env := apiEnv(t)
	admin := env.Dynamic(t)
	const forger = "system:serviceaccount:tenant:forger"
	forgerClient, err := dynamic.NewForConfig(env.ConfigAs(forger))
	require.NoError(t, err)
	for name, obj := range forged(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			ns := env.Namespace(t)
			createOnly(t, env, ns, forger)
			obj := obj.DeepCopy()
			obj.SetNamespace(ns)
			// The server's authorizer sees a new RoleBinding a moment after
			// it is created: retry while it still refuses.
			var created *unstructured.Unstructured
			require.Eventually(t, func() bool {
				created, err = forgerClient.Resource(gvr).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
				return !apierrors.IsForbidden(err)
			}, 10*time.Second, 50*time.Millisecond, "create rights are enough to create a DNSRecord: %v", err)
			require.NoError(t, err, "create rights are enough to create a DNSRecord")
			reason, _ := readyReason(created)
			require.Empty(t, reason, "the server keeps no status on a create")
			created.Object["status"] = obj.Object["status"]
			_, err = forgerClient.Resource(gvr).Namespace(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{})
			require.True(t, apierrors.IsForbidden(err), "the forger may not write the status: %v", err)

			zone := inmemory.New(inmemory.Options{Zones: []string{testZone}, Records: []*endpoint.Endpoint{victim()}})
			recs, err := startOn(t, zone, admin, ns, testOwner).Records(ctx)
			require.NoError(t, err)
			got := find(recs, victim())
			require.NotNil(t, got)
			assert.Empty(t, ownerOf(got), "the forged DNSRecord lends its owner label")
			assert.Equal(t, endpoint.OwnedByNobody, got.Ownership())

			for _, desired := range [][]*endpoint.Endpoint{{a("victim", "192.0.2.1")}, nil} {
				r := &zonesync.Reconciler{Source: source.NewStatic(desired...), Registry: startOn(t, zone, admin, ns, testOwner)}
				r.Safety.Disabled = true
				_, _ = r.RunOnce(ctx)
				expectVictimUntouched(t, zone)
			}
		})
	}
}

// createOnly gives user the right to create DNSRecords in ns, and nothing
// else.
func createOnly(t *testing.T, env *kubetest.Env, ns, user string) {
	bindRole(t, env, ns, user, "dnsrecords-create",
		map[string]any{"apiGroups": []any{crd.Group}, "resources": []any{crd.Resource}, "verbs": []any{"create"}})
}
