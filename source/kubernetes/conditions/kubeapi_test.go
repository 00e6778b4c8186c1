package conditions_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/kubetest"
	"github.com/zonesync/zonesync/internal/kubetest/kubedrive"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
	"github.com/zonesync/zonesync/source/kubernetes/conditions"
)

// The tests in this file run the writer against a real kube-apiserver
// (package kubetest): one for the test binary, a namespace per test.
var kube kubetest.Shared

func TestMain(m *testing.M) { os.Exit(kube.Main(m)) }

// shippedCRD is the DNSEndpoint CRD with status.conditions that the
// package documentation tells users to apply.
const shippedCRD = "../../../config/crd/dnsendpoints.externaldns.k8s.io.yaml"

// unmodifiedCRD is external-dns's DNSEndpoint CRD as the other tests of
// source/kubernetes use it: status.observedGeneration only.
const unmodifiedCRD = "../testdata/crds/dnsendpoints.yaml"

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(path))
	require.NoError(t, err)
	return string(b)
}

func rbacGVR(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: resource}
}

// documentedRole returns the ClusterRole of the package documentation,
// named name.
func documentedRole(t *testing.T, name string) string {
	t.Helper()
	doc := readFile(t, "doc.go")
	i := strings.Index(doc, "//\tapiVersion: rbac.authorization.k8s.io/v1")
	require.GreaterOrEqual(t, i, 0, "doc.go shows a ClusterRole")
	var lines []string
	for line := range strings.SplitSeq(doc[i:], "\n") {
		if !strings.HasPrefix(line, "//\t") {
			break
		}
		lines = append(lines, strings.TrimPrefix(line, "//\t"))
	}
	role := strings.Join(lines, "\n")
	require.Contains(t, role, "name: zonesync-dnsendpoints\n")
	return strings.Replace(role, "name: zonesync-dnsendpoints\n", "name: "+name+"\n", 1)
}

// statusRequests records the requests to status subresources made through
// a client configuration, as "METHOD name".
type statusRequests struct {
	mu   sync.Mutex
	list []string
}

func (s *statusRequests) wrap(cfg *rest.Config) *rest.Config {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if p := r.URL.Path; strings.HasSuffix(p, "/status") {
				parts := strings.Split(p, "/")
				s.mu.Lock()
				s.list = append(s.list, r.Method+" "+parts[len(parts)-2])
				s.mu.Unlock()
			}
			return rt.RoundTrip(r)
		})
	})
	return cfg
}

// take returns the requests recorded since the last call.
func (s *statusRequests) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.list
	s.list = nil
	if out == nil {
		out = []string{}
	}
	return out
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// renderConditions returns the conditions of obj as "Type Status Reason
// observedGeneration", in their order.
func renderConditions(obj *unstructured.Unstructured) []string {
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	out := []string{}
	for _, item := range list {
		c := item.(map[string]any)
		out = append(out, fmt.Sprint(c["type"], " ", c["status"], " ", c["reason"], " ", c["observedGeneration"]))
	}
	return out
}

func conditionOf(obj *unstructured.Unstructured, typ string) map[string]any {
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, item := range list {
		if c := item.(map[string]any); c["type"] == typ {
			return c
		}
	}
	return nil
}

// catchUp calls the source's Endpoints until it read the objects of want
// ("key generation", sorted): the informer has caught up with the test's
// writes.
func catchUp(t *testing.T, ctx context.Context, src *kubernetes.DNSEndpointSource, o *kubedrive.Objects, want ...string) {
	t.Helper()
	kubedrive.Eventually(t, "generations read", o.ExpandAll(want), func() []string {
		_, _ = src.Endpoints(ctx)
		var got []string
		for key, gen := range src.Generations() {
			got = append(got, fmt.Sprintf("%s %d", key, gen))
		}
		slices.Sort(got)
		return got
	})
}

// TestDNSEndpoints runs a Reconciler over the DNSEndpoint source with the
// writer as its Observer, as a user that has only the rights the package
// documentation lists, against the CRD the package ships, and checks the
// conditions of DNSEndpoints in each state, the generation they were set
// for, that an unchanged cycle sends nothing, and that conditions other
// writers set stay.
func TestDNSEndpoints(t *testing.T) {
	o := kubedrive.New(t, &kube)
	o.Env.InstallCRDs(t, []byte(readFile(t, shippedCRD)))
	logger, log := kubedrive.Logger(t)
	ctx := logr.NewContext(o.Ctx, logger)

	// Only the documented rights, in the test's namespace.
	user := "zonesync-" + o.Namespace
	o.CreateCluster(rbacGVR("clusterroles"), documentedRole(t, user))
	o.Create(rbacGVR("rolebindings"), `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: zonesync}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "zonesync-{ns}"}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "zonesync-{ns}"}]
`)
	var reqs statusRequests
	client, err := dynamic.NewForConfig(reqs.wrap(o.Env.ConfigAs(user)))
	require.NoError(t, err)

	// The zone holds a record of another owner.
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com", "example.org"}})
	otherReg, err := txt.New(zone, txt.Config{OwnerID: "other"})
	require.NoError(t, err)
	_, err = (&zonesync.Reconciler{Source: source.NewStatic(endpoint.NewEndpoint("taken.example.com", endpoint.RecordTypeA, "192.0.2.99")), Registry: otherReg}).RunOnce(ctx)
	require.NoError(t, err)

	dnsEndpoint := func(name, endpoints string) string {
		return `
apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata: {name: ` + name + `, labels: {dns: zonesync}}
spec: {endpoints: ` + endpoints + `}
`
	}
	o.Create(kubernetes.DNSEndpointGVR, dnsEndpoint("valid", `[{dnsName: valid.example.com, recordType: A, targets: [192.0.2.1]}]`)+`
status:
  conditions:
  - {type: Ready, status: "True", reason: Deployed, message: by another controller, lastTransitionTime: "2024-01-02T03:04:05Z"}
`)
	o.Create(kubernetes.DNSEndpointGVR, dnsEndpoint("invalid", `[{dnsName: "bad..example.com", recordType: A, targets: [192.0.2.2]}]`))
	o.Create(kubernetes.DNSEndpointGVR, dnsEndpoint("foreign", `[{dnsName: taken.example.com, recordType: A, targets: [192.0.2.3]}]`))
	o.Create(kubernetes.DNSEndpointGVR, dnsEndpoint("filtered", `[{dnsName: www.example.org, recordType: A, targets: [192.0.2.4]}]`))
	o.Create(kubernetes.DNSEndpointGVR, dnsEndpoint("empty", `[]`))
	o.Create(kubernetes.DNSEndpointGVR, dnsEndpoint("gone", `[{dnsName: gone.example.com, recordType: A, targets: [192.0.2.5]}]`))

	src, err := kubernetes.NewDNSEndpointSource(ctx, client, kubernetes.DNSEndpointConfig{
		Options: kubernetes.Options{Namespace: o.Namespace, LabelSelector: "dns=zonesync"},
	})
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, kubedrive.Timeout)
	defer cancel()
	require.NoError(t, src.WaitForSync(wctx))
	w, err := conditions.NewForDNSEndpoints(client, src)
	require.NoError(t, err)
	reg, err := txt.New(zone, txt.Config{OwnerID: "zonesync"})
	require.NoError(t, err)
	rec := &zonesync.Reconciler{
		Source:       src,
		Registry:     reg,
		DomainFilter: endpoint.NewDomainFilter([]string{"example.com"}),
		Observer:     w,
		Logger:       logger,
	}
	run := func(step string) {
		t.Helper()
		c, err := rec.RunOnce(ctx)
		require.True(t, c.Succeeded(), "%s: %v", step, err)
		assert.False(t, log.Contains("writing status conditions"), "%s: %s", step, log.String())
	}
	conds := func(name string) []string { return renderConditions(o.Get(kubernetes.DNSEndpointGVR, name)) }

	catchUp(t, ctx, src, o, "crd/{ns}/empty 1", "crd/{ns}/filtered 1", "crd/{ns}/foreign 1", "crd/{ns}/gone 1", "crd/{ns}/invalid 1", "crd/{ns}/valid 1")
	reqs.take() // the source's own observedGeneration writes
	run("first cycle")
	assert.ElementsMatch(t, []string{
		"GET empty", "PUT empty", "GET filtered", "PUT filtered", "GET foreign", "PUT foreign",
		"GET gone", "PUT gone", "GET invalid", "PUT invalid", "GET valid", "PUT valid",
	}, reqs.take())
	want := map[string][]string{
		"valid":    {"Ready True Deployed <nil>", "Accepted True Accepted 1", "Programmed True Programmed 1"},
		"invalid":  {"Accepted False SourceError 1", "Programmed False SourceError 1"},
		"foreign":  {"Accepted True Accepted 1", "Programmed False ForeignOwner 1"},
		"filtered": {"Accepted True Accepted 1", "Programmed False FilteredOut 1"},
		"empty":    {"Accepted True Accepted 1", "Programmed True NoRecords 1"},
		"gone":     {"Accepted True Accepted 1", "Programmed True Programmed 1"},
	}
	for name, conds := range want {
		assert.Equal(t, conds, renderConditions(o.Get(kubernetes.DNSEndpointGVR, name)), name)
	}
	invalid := o.Get(kubernetes.DNSEndpointGVR, "invalid")
	assert.Contains(t, conditionOf(invalid, conditions.Accepted)["message"], `spec.endpoints[0] ("bad..example.com")`)
	assert.Contains(t, conditionOf(o.Get(kubernetes.DNSEndpointGVR, "foreign"), conditions.Programmed)["message"], "taken.example.com/A: skipped (foreign-owner)")
	assert.Equal(t, []string{"gone.example.com A 192.0.2.5", "taken.example.com A 192.0.2.99", "valid.example.com A 192.0.2.1"}, kubedrive.Records(t, zone))
	valid := o.Get(kubernetes.DNSEndpointGVR, "valid")
	firstTransition := conditionOf(valid, conditions.Programmed)["lastTransitionTime"]
	require.NotNil(t, firstTransition)

	// Nothing changed: nothing is sent, however often.
	for range 3 {
		run("unchanged cycle")
		assert.Equal(t, []string{}, reqs.take(), "an unchanged cycle sends no status request")
	}

	// A change of the spec: both conditions name the new generation, the
	// status did not change its lastTransitionTime, and the conditions of
	// the other controller stayed through the source's observedGeneration
	// write and the writer's.
	o.Update(kubernetes.DNSEndpointGVR, "valid", func(u *unstructured.Unstructured) {
		require.NoError(t, unstructured.SetNestedSlice(u.Object, []any{map[string]any{
			"dnsName": "valid.example.com", "recordType": "A", "targets": []any{"192.0.2.10"},
		}}, "spec", "endpoints"))
	})
	catchUp(t, ctx, src, o, "crd/{ns}/empty 1", "crd/{ns}/filtered 1", "crd/{ns}/foreign 1", "crd/{ns}/gone 1", "crd/{ns}/invalid 1", "crd/{ns}/valid 2")
	run("spec changed")
	valid = o.Get(kubernetes.DNSEndpointGVR, "valid")
	assert.Equal(t, []string{"Ready True Deployed <nil>", "Accepted True Accepted 2", "Programmed True Programmed 2"}, renderConditions(valid))
	assert.Equal(t, firstTransition, conditionOf(valid, conditions.Programmed)["lastTransitionTime"])
	observed, _, _ := unstructured.NestedInt64(valid.Object, "status", "observedGeneration")
	assert.Equal(t, int64(2), observed, "the source's own status field")
	assert.Contains(t, kubedrive.Records(t, zone), "valid.example.com A 192.0.2.10")
	reqs.take()

	// A DNSEndpoint deleted: its records go (now that the invalid one is
	// fixed: while the source cannot read an object, no record is
	// deleted), and nothing is left to write. One no longer selected: its
	// conditions are removed.
	o.Delete(kubernetes.DNSEndpointGVR, "gone")
	o.Update(kubernetes.DNSEndpointGVR, "foreign", func(u *unstructured.Unstructured) { u.SetLabels(nil) })
	o.Update(kubernetes.DNSEndpointGVR, "invalid", func(u *unstructured.Unstructured) {
		require.NoError(t, unstructured.SetNestedSlice(u.Object, []any{map[string]any{
			"dnsName": "fixed.example.com", "recordType": "A", "targets": []any{"192.0.2.2"},
		}}, "spec", "endpoints"))
	})
	catchUp(t, ctx, src, o, "crd/{ns}/empty 1", "crd/{ns}/filtered 1", "crd/{ns}/invalid 2", "crd/{ns}/valid 2")
	reqs.take()
	run("deleted, deselected and fixed")
	assert.Equal(t, []string{"GET foreign", "PUT foreign", "GET gone", "GET invalid", "PUT invalid"}, reqs.take())
	assert.Equal(t, []string{}, conds("foreign"))
	assert.Equal(t, []string{"Accepted True Accepted 2", "Programmed True Programmed 2"}, conds("invalid"))
	assert.Equal(t, []string{"fixed.example.com A 192.0.2.2", "taken.example.com A 192.0.2.99", "valid.example.com A 192.0.2.10"}, kubedrive.Records(t, zone))

	run("steady again")
	assert.Equal(t, []string{}, reqs.take())
}

// TestUnmodifiedCRD: with external-dns's CRD, whose status has no
// conditions, the API server drops them; the writer says so, and what to
// do, instead of failing silently. The CRD is a copy in a group of the
// test's own (the shipped one is installed under external-dns's group by
// the other tests of the binary), its schema untouched.
func TestUnmodifiedCRD(t *testing.T) {
	o := kubedrive.New(t, &kube)
	const group = "unmodified.zonesync.dev"
	crd := strings.ReplaceAll(readFile(t, unmodifiedCRD), "externaldns.k8s.io", group)
	require.NotContains(t, crd, "conditions")
	o.Env.InstallCRDs(t, []byte(crd))
	gvr := schema.GroupVersionResource{Group: group, Version: "v1alpha1", Resource: "dnsendpoints"}
	o.Create(gvr, `
apiVersion: `+group+`/v1alpha1
kind: DNSEndpoint
metadata: {name: web}
spec: {endpoints: [{dnsName: web.example.com, recordType: A, targets: [192.0.2.1]}]}
`)
	var reqs statusRequests
	client, err := dynamic.NewForConfig(reqs.wrap(o.Env.Config()))
	require.NoError(t, err)
	src, err := kubernetes.NewDNSEndpointSource(o.Ctx, client, kubernetes.DNSEndpointConfig{GVR: gvr, Options: kubernetes.Options{Namespace: o.Namespace}})
	require.NoError(t, err)
	catchUp(t, o.Ctx, src, o, "crd/{ns}/web 1")
	w, err := conditions.NewForDNSEndpoints(client, src)
	require.NoError(t, err)
	reg, err := txt.New(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), txt.Config{OwnerID: "zonesync"})
	require.NoError(t, err)
	c, err := (&zonesync.Reconciler{Source: src, Registry: reg}).RunOnce(o.Ctx)
	require.NoError(t, err)

	before := o.Get(gvr, "web").GetResourceVersion()
	reqs.take()
	for range 2 { // not remembered as written: tried again each cycle
		err = w.Write(o.Ctx, c)
		require.ErrorIs(t, err, conditions.ErrPruned)
		assert.ErrorContains(t, err, "conditions: dnsendpoints."+group+" "+o.Namespace+"/web: the API server dropped status.conditions")
		assert.ErrorContains(t, err, "config/crd/dnsendpoints.externaldns.k8s.io.yaml")
		assert.Equal(t, []string{"GET web", "PUT web"}, reqs.take())
	}
	t.Logf("Write: %v", err)
	after := o.Get(gvr, "web")
	assert.Empty(t, renderConditions(after))
	assert.Equal(t, before, after.GetResourceVersion(), "a write that changes nothing stored is no watch event, so it starts no cycle")
}

// websiteCRD is a custom resource of an operator's own, with the standard
// conditions in its status, in a group named after the test's namespace.
const websiteCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: websites.{ns}.zonesync.dev}
spec:
  group: "{ns}.zonesync.dev"
  names: {kind: Website, listKind: WebsiteList, plural: websites, singular: website}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              host: {type: string}
              ip: {type: string}
          status:
            type: object
            properties:
              conditions:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [type]
                items:
                  type: object
                  required: [type, status, lastTransitionTime, reason, message]
                  properties:
                    type: {type: string}
                    status: {type: string, enum: ["True", "False", "Unknown"]}
                    observedGeneration: {type: integer, format: int64, minimum: 0}
                    lastTransitionTime: {type: string, format: date-time}
                    reason: {type: string, minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'}
                    message: {type: string, maxLength: 32768}
`

// TestCustomResource: the same writer over a CRD of the test's own, read by
// the unstructured source, without a GenerationReader: observedGeneration
// is the object's generation when the conditions change.
func TestCustomResource(t *testing.T) {
	o := kubedrive.New(t, &kube)
	o.Env.InstallCRDs(t, []byte(o.Expand(websiteCRD)))
	websites := schema.GroupVersionResource{Group: o.Namespace + ".zonesync.dev", Version: "v1", Resource: "websites"}
	website := func(name, host string) string {
		return `{apiVersion: "{ns}.zonesync.dev/v1", kind: Website, metadata: {name: ` + name + `}, spec: {host: "` + host + `", ip: 192.0.2.30}}`
	}
	o.Create(websites, website("shop", "shop.example.com"))
	o.Create(websites, website("blog", "blog..example.com"))
	logger, _ := kubedrive.Logger(t)
	ctx := logr.NewContext(o.Ctx, logger)

	src, err := kubernetes.NewUnstructuredSource(ctx, o.Client, kubernetes.UnstructuredConfig{
		Options: kubernetes.Options{Namespace: o.Namespace}, GVR: websites, HostnameJSONPath: "{.spec.host}", TargetJSONPath: "{.spec.ip}",
	})
	require.NoError(t, err)
	w, err := conditions.New(o.Client, conditions.Options{GVR: websites, Kind: "website", Namespace: o.Namespace})
	require.NoError(t, err)
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "zonesync"})
	require.NoError(t, err)
	rec := &zonesync.Reconciler{Source: src, Registry: reg}
	cycle := func(wantEndpoints ...string) {
		t.Helper()
		kubedrive.Eventually(t, "endpoints", o.ExpandAll(wantEndpoints), func() []string {
			eps, _ := src.Endpoints(ctx)
			return kubedrive.Render(eps)
		})
		c, _ := rec.RunOnce(ctx)
		require.True(t, c.Succeeded(), "%v", c.Err)
		require.NoError(t, w.Write(ctx, c))
	}
	conds := func(name string) []string { return renderConditions(o.Get(websites, name)) }

	cycle("shop.example.com 0 IN A  192.0.2.30 website/{ns}/shop")
	assert.Equal(t, []string{"Accepted True Accepted 1", "Programmed True Programmed 1"}, conds("shop"))
	assert.Equal(t, []string{"Accepted False SourceError 1", "Programmed False SourceError 1"}, conds("blog"))

	// Fixed in its second generation: written with that generation.
	o.Update(websites, "blog", func(u *unstructured.Unstructured) {
		require.NoError(t, unstructured.SetNestedField(u.Object, "blog.example.com", "spec", "host"))
	})
	cycle("blog.example.com 0 IN A  192.0.2.30 website/{ns}/blog", "shop.example.com 0 IN A  192.0.2.30 website/{ns}/shop")
	assert.Equal(t, []string{"Accepted True Accepted 2", "Programmed True Programmed 2"}, conds("blog"))

	// The weaker guarantee: a new generation with the same outcome is not
	// written without a GenerationReader.
	o.Update(websites, "shop", func(u *unstructured.Unstructured) {
		require.NoError(t, unstructured.SetNestedField(u.Object, "192.0.2.31", "spec", "ip"))
	})
	cycle("blog.example.com 0 IN A  192.0.2.30 website/{ns}/blog", "shop.example.com 0 IN A  192.0.2.31 website/{ns}/shop")
	assert.Equal(t, []string{"Accepted True Accepted 1", "Programmed True Programmed 1"}, conds("shop"))

	// Deleted: its records go; nothing is left to write, and no error.
	o.Delete(websites, "shop")
	cycle("blog.example.com 0 IN A  192.0.2.30 website/{ns}/blog")
	assert.Equal(t, []string{"blog.example.com A 192.0.2.30"}, kubedrive.Records(t, zone))
	_, err = o.Client.Resource(websites).Namespace(o.Namespace).Get(ctx, "shop", metav1.GetOptions{})
	assert.Error(t, err)
}
