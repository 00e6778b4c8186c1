package interop

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xplan "sigs.k8s.io/external-dns/plan"
	xregistry "sigs.k8s.io/external-dns/registry"
	xcrd "sigs.k8s.io/external-dns/registry/crd"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/kubetest"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/crd"
	"github.com/zonesync/zonesync/source"
)

// apiServer is the real kube-apiserver of the CRD registry tests
// (internal/kubetest), stopped by TestMain.
var apiServer kubetest.Shared

// externalDNSDir returns the directory of the external-dns module the
// interop module builds against.
func externalDNSDir(t *testing.T) string {
	t.Helper()
	// The go command of the toolchain that built the test: the module asks
	// for a newer Go than the one on PATH may be.
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goBin, "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/external-dns").Output()
	require.NoError(t, err, "go list -m sigs.k8s.io/external-dns")
	dir := strings.TrimSpace(string(out))
	require.NotEmpty(t, dir)
	return dir
}

// decodeYAML reads the one object of a YAML document.
func decodeYAML(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var obj map[string]any
	require.NoError(t, utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(doc), 4096).Decode(&obj))
	return obj
}

// withoutDescriptions returns v without any "description" key, at any
// depth.
func withoutDescriptions(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k != "description" {
				out[k] = withoutDescriptions(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutDescriptions(e)
		}
		return out
	}
	return v
}

// zonesync's DNSRecord CRD is external-dns's, descriptions aside: name,
// group, names, scope, versions with their schema (every property, type,
// format and validation), status subresource and printer columns, and the
// approval annotation the API server asks of a *.k8s.io group.
func TestCRDRegistryDefinitionMatchesExternalDNS(t *testing.T) {
	theirs, err := os.ReadFile(filepath.Join(externalDNSDir(t), "config", "crd", "standard", "dnsrecords.externaldns.k8s.io.yaml"))
	require.NoError(t, err)
	x, z := decodeYAML(t, theirs), decodeYAML(t, crd.CustomResourceDefinitionYAML())
	assert.Equal(t, x["apiVersion"], z["apiVersion"])
	assert.Equal(t, x["kind"], z["kind"])
	xm, zm := x["metadata"].(map[string]any), z["metadata"].(map[string]any)
	assert.Equal(t, xm["name"], zm["name"])
	const approval = "api-approved.kubernetes.io"
	assert.Equal(t, xm["annotations"].(map[string]any)[approval], zm["annotations"].(map[string]any)[approval])
	assert.Equal(t, withoutDescriptions(x["spec"]), withoutDescriptions(z["spec"]))

	// And the constants of the package name the same things.
	spec := z["spec"].(map[string]any)
	assert.Equal(t, crd.Group, spec["group"])
	names := spec["names"].(map[string]any)
	assert.Equal(t, crd.Kind, names["kind"])
	assert.Equal(t, crd.Resource, names["plural"])
	assert.Equal(t, crd.Version, spec["versions"].([]any)[0].(map[string]any)["name"])
}

// kubeconfig writes a kubeconfig file for env's admin, for external-dns,
// which builds its client from one.
func kubeconfig(t *testing.T, env *kubetest.Env) string {
	t.Helper()
	cfg := env.Config()
	text := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kubetest
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: %q}
contexts:
- name: kubetest
  context: {cluster: kubetest, user: admin}
current-context: kubetest
`, cfg.Host, cfg.BearerToken)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// crdEnv returns the API server with the CRD installed from zonesync's
// YAML.
func crdEnv(t *testing.T) *kubetest.Env {
	t.Helper()
	env := apiServer.Env(t)
	env.InstallCRDs(t, crd.CustomResourceDefinitionYAML())
	return env
}

// externalCRDRegistry builds external-dns's CRD registry over p in ns.
func externalCRDRegistry(t *testing.T, env *kubetest.Env, p xproviderLike, ns string) *xcrd.CRDRegistry {
	t.Helper()
	reg, err := xcrd.NewCRDRegistry(p, kubeconfig(t, env), "", ns, testOwner, 30*time.Second)
	require.NoError(t, err)
	return reg
}

// zonesyncCRDRegistry builds zonesync's CRD registry over zone in ns and
// starts it until the test ends.
func zonesyncCRDRegistry(t *testing.T, env *kubetest.Env, zone *inmemory.Provider, ns string) *crd.Registry {
	t.Helper()
	reg, err := crd.New(zone, env.Dynamic(t), crd.Config{OwnerID: testOwner, Namespace: ns})
	require.NoError(t, err)
	require.NoError(t, reg.Start(t.Context()))
	return reg
}

// xproviderLike is external-dns's provider interface.
type xproviderLike = interface {
	Records(ctx context.Context) ([]*xendpoint.Endpoint, error)
	ApplyChanges(ctx context.Context, changes *xplan.Changes) error
	AdjustEndpoints(endpoints []*xendpoint.Endpoint) ([]*xendpoint.Endpoint, error)
	GetDomainFilter() xendpoint.DomainFilterInterface
}

// sharedZone is a zonesync in-memory zone as external-dns's registry sees
// it: the same records, stored without labels, as a DNS server stores them.
type sharedZone struct{ zone *inmemory.Provider }

func (s sharedZone) Records(ctx context.Context) ([]*xendpoint.Endpoint, error) {
	return ReadExternalDNS(ctx, s.zone)
}

func (s sharedZone) ApplyChanges(ctx context.Context, c *xplan.Changes) error {
	zc := ChangesToZonesync(c)
	for _, list := range [][]*endpoint.Endpoint{zc.Create, zc.UpdateOld, zc.UpdateNew, zc.Delete} {
		for _, ep := range list {
			ep.Labels = endpoint.Labels{}
		}
	}
	return s.zone.ApplyChanges(ctx, zc)
}

func (s sharedZone) AdjustEndpoints(eps []*xendpoint.Endpoint) ([]*xendpoint.Endpoint, error) {
	return eps, nil
}

func (s sharedZone) GetDomainFilter() xendpoint.DomainFilterInterface {
	return xendpoint.NewDomainFilter([]string{testZone})
}

// crdSpecs are the desired endpoints of the CRD interop tests: those of the
// TXT tests (every managed type, several targets, set identifiers, a
// wildcard, upper case, Unicode and A-label names), the apex, and a name
// long enough that its object name is cut.
func crdSpecs() []desiredSpec {
	long := strings.Repeat("l", 63) + "." + strings.Repeat("m", 63) + "." + strings.Repeat("n", 63) + "." + strings.Repeat("o", 45) + "." + testZone
	return append(desiredSpecs(registryConfig{}),
		desiredSpec{name: testZone, recordType: "A", targets: []string{"192.0.2.60"}, resource: "service/default/apex"},
		desiredSpec{name: long, recordType: "A", targets: []string{"192.0.2.70"}, resource: "service/default/long"},
	)
}

// zonesyncCycle runs one zonesync cycle with reg over desired: applied, or
// only planned when dryRun.
func zonesyncCycle(t *testing.T, reg *crd.Registry, desired []*endpoint.Endpoint, dryRun bool) *zonesync.Preview {
	t.Helper()
	r := &zonesync.Reconciler{
		Source:             source.NewStatic(desired...),
		Registry:           reg,
		DomainFilter:       endpoint.NewDomainFilter([]string{testZone}),
		ManagedRecordTypes: managedTypes,
	}
	r.Safety.Disabled = true
	if dryRun {
		pv, err := r.Preview(t.Context())
		require.NoError(t, err)
		return pv
	}
	_, err := r.RunOnce(t.Context())
	require.NoError(t, err)
	return nil
}

// dnsRecords lists the DNSRecord objects of ns.
func dnsRecords(t *testing.T, client dynamic.Interface, ns string) []unstructured.Unstructured {
	t.Helper()
	list, err := client.Resource(crd.GroupVersionResource()).Namespace(ns).List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	return list.Items
}

// objectNamesAgree checks every DNSRecord of ns: its name is the one
// crd.ObjectName gives for the record set it holds, it belongs to
// testOwner and it is Programmed. It returns the names.
func objectNamesAgree(t *testing.T, objs []unstructured.Unstructured) []string {
	t.Helper()
	var names []string
	for _, o := range objs {
		name, _, _ := unstructured.NestedString(o.Object, "spec", "endpoint", "dnsName")
		rtype, _, _ := unstructured.NestedString(o.Object, "spec", "endpoint", "recordType")
		setID, _, _ := unstructured.NestedString(o.Object, "spec", "endpoint", "setIdentifier")
		assert.Equal(t, crd.ObjectName(name, rtype, setID), o.GetName(), "object name of %s/%s/%s", name, rtype, setID)
		assert.Equal(t, testOwner, o.GetLabels()[crd.OwnerLabel], o.GetName())
		conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
		require.Len(t, conds, 1, o.GetName())
		c := conds[0].(map[string]any)
		assert.Equal(t, []any{crd.ReadyCondition, "True", crd.ReasonProgrammed}, []any{c["type"], c["status"], c["reason"]}, o.GetName())
		names = append(names, o.GetName())
	}
	slices.Sort(names)
	return names
}

// TestCRDRegistryExternalDNSToZonesync: external-dns's CRD registry writes a zone
// and its DNSRecords; zonesync's, over the same API server namespace and
// the same records, reads the same owners and resources, plans nothing and
// has nothing to repair.
func TestCRDRegistryExternalDNSToZonesync(t *testing.T) {
	env := crdEnv(t)
	ns := env.Namespace(t)
	ctx := t.Context()
	specs := crdSpecs()
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})

	xreg := externalCRDRegistry(t, env, sharedZone{zone}, ns)
	ch, err := externalCycle(ctx, xreg, desiredExternal(specs), testOwner, "")
	require.NoError(t, err)
	require.Len(t, ch.Create, len(specs), "external-dns creates every desired record")
	xrecs, err := ReadZonesync(ctx, xreg)
	require.NoError(t, err)
	want := ownershipOf(xrecs)
	require.Len(t, want, len(specs))

	objs := dnsRecords(t, env.Dynamic(t), ns)
	require.Len(t, objs, len(specs))
	objectNamesAgree(t, objs)

	zreg := zonesyncCRDRegistry(t, env, zone, ns)
	zrecs, err := zreg.Records(ctx)
	require.NoError(t, err)
	for _, s := range specs {
		require.Equal(t, testOwner, want[Key(s.name, s.setID, s.recordType)].Owner, "external-dns owns %s", s.name)
	}
	assert.Equal(t, want, ownershipOf(zrecs), "owners and resources read by zonesync")
	assert.Zero(t, zreg.PendingRepairs())

	pv := zonesyncCycle(t, zreg, desiredZonesync(specs), true)
	require.True(t, emptyChanges(pv.Plan.Changes), "zonesync plans changes over external-dns's zone:\n%s", formatChanges(pv.Plan.Changes))
	require.Empty(t, pv.Plan.Skipped)
}

// TestCRDRegistryZonesyncToExternalDNS: zonesync's CRD registry writes a zone and
// its DNSRecords; external-dns's reads the same owners and resources and
// plans nothing, a second time too.
func TestCRDRegistryZonesyncToExternalDNS(t *testing.T) {
	env := crdEnv(t)
	ns := env.Namespace(t)
	ctx := t.Context()
	specs := crdSpecs()
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})

	zreg := zonesyncCRDRegistry(t, env, zone, ns)
	zonesyncCycle(t, zreg, desiredZonesync(specs), false)
	zrecs, err := zreg.Records(ctx)
	require.NoError(t, err)
	want := ownershipOf(zrecs)
	require.Len(t, want, len(specs))
	for _, s := range specs {
		require.Equal(t, testOwner, want[Key(s.name, s.setID, s.recordType)].Owner, "zonesync owns %s", s.name)
	}
	objectNamesAgree(t, dnsRecords(t, env.Dynamic(t), ns))

	xreg := externalCRDRegistry(t, env, sharedZone{zone}, ns)
	xrecs, err := ReadZonesync(ctx, xreg)
	require.NoError(t, err)
	assert.Equal(t, want, ownershipOf(xrecs), "owners and resources read by external-dns")
	for i := 0; i < 2; i++ {
		xch, err := externalCycle(ctx, xreg, desiredExternal(specs), testOwner, "")
		require.NoError(t, err)
		require.False(t, xch.HasChanges(), "external-dns plans changes over zonesync's zone (cycle %d):\n%s", i+1, formatChanges(ChangesToZonesync(xch)))
	}
}

// A zone moves from external-dns to zonesync and back: each side updates
// and deletes the records the other created, and reads the other's
// DNSRecords as its own.
func TestCRDRegistryHandOverBothWays(t *testing.T) {
	env := crdEnv(t)
	ns := env.Namespace(t)
	ctx := t.Context()
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	specs := crdSpecs()
	xreg := externalCRDRegistry(t, env, sharedZone{zone}, ns)
	_, err := externalCycle(ctx, xreg, desiredExternal(specs), testOwner, "")
	require.NoError(t, err)

	// zonesync takes over: it moves one record and drops another.
	moved := slices.Clone(specs)
	moved[0].targets = []string{"192.0.2.200"}
	dropped := moved[1]
	moved = slices.Delete(moved, 1, 2)
	zreg := zonesyncCRDRegistry(t, env, zone, ns)
	zonesyncCycle(t, zreg, desiredZonesync(moved), false)
	pv := zonesyncCycle(t, zreg, desiredZonesync(moved), true)
	require.True(t, emptyChanges(pv.Plan.Changes), "zonesync's second cycle:\n%s", formatChanges(pv.Plan.Changes))
	names := objectNamesAgree(t, dnsRecords(t, env.Dynamic(t), ns))
	assert.Len(t, names, len(moved))
	assert.NotContains(t, names, crd.ObjectName(dropped.name, dropped.recordType, dropped.setID))

	// And back: external-dns reads zonesync's writes and plans nothing.
	xch, err := externalCycle(ctx, xreg, desiredExternal(moved), testOwner, "")
	require.NoError(t, err)
	require.False(t, xch.HasChanges(), "external-dns after zonesync:\n%s", formatChanges(ChangesToZonesync(xch)))
	// external-dns moves it again; zonesync follows.
	moved[0].targets = []string{"192.0.2.201"}
	_, err = externalCycle(ctx, xreg, desiredExternal(moved), testOwner, "")
	require.NoError(t, err)
	pv = zonesyncCycle(t, zreg, desiredZonesync(moved), true)
	require.True(t, emptyChanges(pv.Plan.Changes), "zonesync after external-dns:\n%s", formatChanges(pv.Plan.Changes))
	require.Empty(t, pv.Plan.Skipped)
}

// sink is an external-dns provider that accepts every change and holds no
// record: external-dns's registry then writes its DNSRecords for any name.
type sink struct{}

func (sink) Records(context.Context) ([]*xendpoint.Endpoint, error)                 { return nil, nil }
func (sink) ApplyChanges(context.Context, *xplan.Changes) error                     { return nil }
func (sink) GetDomainFilter() xendpoint.DomainFilterInterface                       { return &xendpoint.DomainFilter{} }
func (sink) AdjustEndpoints(e []*xendpoint.Endpoint) ([]*xendpoint.Endpoint, error) { return e, nil }

var _ xregistry.Registry = (*xcrd.CRDRegistry)(nil)

// The object names external-dns's registry writes are crd.ObjectName's,
// for names no DNS server would take too: 300 characters, nothing but
// symbols.
func TestCRDRegistryObjectNamesMatchExternalDNS(t *testing.T) {
	env := crdEnv(t)
	ns := env.Namespace(t)
	long := strings.Repeat("a", 60) + "." + strings.Repeat("b", 60) + "." + strings.Repeat("c", 60) + "." +
		strings.Repeat("d", 60) + "." + strings.Repeat("e", 50) + ".example.com"
	eps := []*xendpoint.Endpoint{
		xendpoint.NewEndpoint("www.example.com", "A", "192.0.2.1"),
		xendpoint.NewEndpoint("Mixed.Example.COM.", "A", "192.0.2.1"),
		xendpoint.NewEndpoint("weighted.example.com", "A", "192.0.2.1").WithSetIdentifier("blue"),
		xendpoint.NewEndpoint("weighted.example.com", "A", "192.0.2.1").WithSetIdentifier("Green Zone/1"),
		xendpoint.NewEndpoint("bücher.example.com", "A", "192.0.2.1"),
		xendpoint.NewEndpoint("xn--bcher-kva.example.com", "AAAA", "2001:db8::1"),
		xendpoint.NewEndpoint("*.apps.example.com", "CNAME", "lb.example.org"),
		xendpoint.NewEndpoint("_sip._tcp.example.com", "SRV", "10 5 5060 sip.example.com."),
		xendpoint.NewEndpoint(long, "A", "192.0.2.1"),
		xendpoint.NewEndpoint("*._-.", "TXT", `"x"`),
	}
	xreg := externalCRDRegistry(t, env, sink{}, ns)
	require.NoError(t, xreg.ApplyChanges(t.Context(), &xplan.Changes{Create: eps}))
	var want []string
	for _, ep := range eps {
		want = append(want, crd.ObjectName(ep.DNSName, ep.RecordType, ep.SetIdentifier))
	}
	slices.Sort(want)
	var got []string
	for _, o := range dnsRecords(t, env.Dynamic(t), ns) {
		got = append(got, o.GetName())
	}
	slices.Sort(got)
	assert.Equal(t, want, got)
}
