package conditions_test

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
	"github.com/zonesync/zonesync/source/kubernetes/conditions"
	"github.com/zonesync/zonesync/verify/result"
)

var gvr = kubernetes.DNSEndpointGVR

// generations is a GenerationReader over a map.
type generations map[string]int64

func (g generations) Generations() map[string]int64 { return maps.Clone(g) }

// fakeAPI is a fake dynamic client holding DNSEndpoints.
type fakeAPI struct {
	t      *testing.T
	client *dynamicfake.FakeDynamicClient
}

func newFakeAPI(t *testing.T) *fakeAPI {
	return &fakeAPI{t: t, client: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(kruntime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "DNSEndpointList"})}
}

// add stores a DNSEndpoint ns/name at generation gen, with the given
// status conditions.
func (f *fakeAPI) add(ns, name string, gen int64, conds ...any) {
	f.t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "externaldns.k8s.io/v1alpha1",
		"kind":       "DNSEndpoint",
		"metadata":   map[string]any{"namespace": ns, "name": name, "generation": gen},
		"spec":       map[string]any{},
	}}
	if conds != nil {
		u.Object["status"] = map[string]any{"conditions": conds, "observedGeneration": gen}
	}
	require.NoError(f.t, f.client.Tracker().Create(gvr, u, ns))
}

// get reads ns/name from the tracker (not through the client: no
// request is recorded).
func (f *fakeAPI) get(ns, name string) *unstructured.Unstructured {
	f.t.Helper()
	obj, err := f.client.Tracker().Get(gvr, ns, name)
	require.NoError(f.t, err)
	return obj.(*unstructured.Unstructured)
}

// conditions renders the conditions of ns/name as "Type Status Reason
// observedGeneration", in their order.
func (f *fakeAPI) conditions(ns, name string) []string {
	f.t.Helper()
	list, _, err := unstructured.NestedSlice(f.get(ns, name).Object, "status", "conditions")
	require.NoError(f.t, err)
	out := []string{}
	for _, item := range list {
		c := item.(map[string]any)
		out = append(out, fmt.Sprint(c["type"], " ", c["status"], " ", c["reason"], " ", c["observedGeneration"]))
	}
	return out
}

// condition returns the condition typ of ns/name.
func (f *fakeAPI) condition(ns, name, typ string) map[string]any {
	f.t.Helper()
	list, _, err := unstructured.NestedSlice(f.get(ns, name).Object, "status", "conditions")
	require.NoError(f.t, err)
	for _, item := range list {
		if c := item.(map[string]any); c["type"] == typ {
			return c
		}
	}
	return nil
}

// requests returns the requests made since the last call, as "verb
// subresource namespace/name", and forgets them.
func (f *fakeAPI) requests() []string {
	out := []string{}
	for _, a := range f.client.Actions() {
		name := ""
		switch a := a.(type) {
		case k8stesting.GetAction:
			name = a.GetName()
		case k8stesting.UpdateAction:
			name = a.GetObject().(*unstructured.Unstructured).GetName()
		}
		out = append(out, a.GetVerb()+" "+a.GetSubresource()+" "+a.GetNamespace()+"/"+name)
	}
	f.client.ClearActions()
	return out
}

func ep(name, resource string) *endpoint.Endpoint {
	return endpoint.NewEndpoint(name, endpoint.RecordTypeA, "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, resource)
}

func partial(key string, err error) error {
	var pe *source.PartialError
	return pe.Add(key, err).OrNil()
}

// stateCycles returns a cycle in which the object "crd/ns/a" (record
// a.example.com) ends in each state, by name.
func stateCycles() map[string]zonesync.Cycle {
	e := ep("a.example.com", "crd/ns/a")
	created := func() *plan.Plan {
		return &plan.Plan{Desired: []*endpoint.Endpoint{e}, Changes: &plan.Changes{Create: []*endpoint.Endpoint{e}}}
	}
	skipped := func(r plan.SkipReason) zonesync.Cycle {
		return zonesync.Cycle{Plan: &plan.Plan{Desired: []*endpoint.Endpoint{e}, Changes: &plan.Changes{},
			Skipped: []plan.Skip{{Action: plan.ActionCreate, Endpoint: e, Reason: r, Detail: "detail of " + string(r)}}}}
	}
	out := map[string]zonesync.Cycle{
		"applied":   {Plan: created(), Applied: true},
		"unchanged": {Plan: &plan.Plan{Desired: []*endpoint.Endpoint{e}, Changes: &plan.Changes{}}},
		"source error": {Plan: &plan.Plan{Changes: &plan.Changes{}},
			Err: partial("crd/ns/a", errors.New("spec.endpoints[0] (\"a..example.com\"): empty label"))},
		"invalid endpoint": {Plan: &plan.Plan{Desired: []*endpoint.Endpoint{e}, Changes: &plan.Changes{},
			Skipped: []plan.Skip{{Action: plan.ActionCreate, Endpoint: e, Reason: plan.SkipInvalid, Detail: "bad target"}}},
			Err: partial("crd/ns/a", errors.New("a.example.com/A: bad target"))},
		"unsafe plan": {Plan: created(), Err: fmt.Errorf("%w: too many deletes", zonesync.ErrUnsafePlan)},
		"zone failed": {Plan: created(), Err: &provider.ZoneError{Zone: "example.com", Err: errors.New("timeout")}},
		"failed":      {Plan: created(), Err: errors.New("provider down")},
		"rejected": {Plan: created(), Applied: true,
			Rejected: []provider.Rejection{{Action: string(plan.ActionCreate), Endpoint: e, Reason: errors.New("quota")}}},
		"pending": {Plan: created(), DryRun: true},
		"not verified": {Plan: created(), Applied: true,
			Verified: []result.Result{{Endpoint: e, Status: result.NotSync, Seen: []string{"192.0.2.9"}}}},
		"deleted":              {Plan: &plan.Plan{Changes: &plan.Changes{Delete: []*endpoint.Endpoint{e}}}, Applied: true},
		"not in the cycle":     {Plan: &plan.Plan{Changes: &plan.Changes{}}},
		"failed before a plan": {Err: errors.New("registry: listing records: timeout")},
	}
	for _, r := range []plan.SkipReason{plan.SkipForeignOwner, plan.SkipUnowned, plan.SkipFilteredOut, plan.SkipUnmanagedType,
		plan.SkipLostConflict, plan.SkipCNAMEConflict, plan.SkipPolicy, plan.SkipSourceError, plan.SkipUnownable, plan.SkipUnsupported} {
		out["skipped "+string(r)] = skipped(r)
	}
	return out
}

// TestStates maps each state of an object to its two conditions, as the
// table of the package documentation says, with and without a
// GenerationReader.
func TestStates(t *testing.T) {
	tests := []struct {
		state string
		// accepted and programmed are "Status Reason"; "" means absent.
		accepted, programmed string
		// message is a part of Programmed's message.
		message string
		// withoutReader, when set, is what a writer without a
		// GenerationReader writes instead: "" for nothing.
		withoutReader *[2]string
	}{
		{state: "applied", accepted: "True Accepted", programmed: "True Programmed"},
		{state: "unchanged", accepted: "True Accepted", programmed: "True Programmed"},
		{state: "source error", accepted: "False SourceError", programmed: "False SourceError", message: `spec.endpoints[0] ("a..example.com"): empty label`},
		{state: "invalid endpoint", accepted: "False Invalid", programmed: "False Invalid", message: "a.example.com/A: bad target"},
		{state: "skipped foreign-owner", accepted: "True Accepted", programmed: "False ForeignOwner", message: "a.example.com/A: skipped (foreign-owner): detail of foreign-owner"},
		{state: "skipped unowned", accepted: "True Accepted", programmed: "False Unowned"},
		{state: "skipped filtered-out", accepted: "True Accepted", programmed: "False FilteredOut"},
		{state: "skipped unmanaged-type", accepted: "True Accepted", programmed: "False UnmanagedType"},
		{state: "skipped lost-conflict", accepted: "True Accepted", programmed: "False LostConflict"},
		{state: "skipped cname-conflict", accepted: "True Accepted", programmed: "False CnameConflict"},
		{state: "skipped policy", accepted: "True Accepted", programmed: "False Policy"},
		{state: "skipped source-error", accepted: "True Accepted", programmed: "False SourceError"},
		{state: "skipped unownable", accepted: "True Accepted", programmed: "False Unownable"},
		{state: "skipped unsupported", accepted: "True Accepted", programmed: "False Unsupported"},
		{state: "unsafe plan", accepted: "True Accepted", programmed: "False UnsafePlan", message: "too many deletes"},
		{state: "zone failed", accepted: "True Accepted", programmed: "False ZoneFailed", message: "timeout"},
		{state: "failed", accepted: "True Accepted", programmed: "False Failed", message: "provider down"},
		{state: "rejected", accepted: "True Accepted", programmed: "False Rejected", message: "quota"},
		{state: "pending", accepted: "True Accepted", programmed: "False Pending", message: "a.example.com/A: pending"},
		{state: "not verified", accepted: "True Accepted", programmed: "False NotVerified", message: "a.example.com/A: applied: verification: notsync"},
		{state: "deleted", accepted: "True Accepted", programmed: "True NoRecords", withoutReader: &[2]string{}},
		{state: "not in the cycle", accepted: "True Accepted", programmed: "True NoRecords", withoutReader: &[2]string{}},
		{state: "failed before a plan", programmed: "False CycleFailed", message: "registry: listing records: timeout", withoutReader: &[2]string{}},
	}
	cycles := stateCycles()
	require.Len(t, tests, len(cycles), "one case per state")
	seen := map[string]bool{} // the reasons of the cases, "Status Reason"
	for _, tc := range tests {
		for _, c := range []string{tc.accepted, tc.programmed} {
			if c != "" {
				seen[c] = true
			}
		}
		for _, reader := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/reader=%v", tc.state, reader), func(t *testing.T) {
				c, ok := cycles[tc.state]
				require.True(t, ok)
				api := newFakeAPI(t)
				api.add("ns", "a", 7)
				opts := conditions.Options{GVR: gvr, Kind: "crd"}
				if reader {
					opts.Generations = generations{"crd/ns/a": 5} // the generation the source read
				}
				w, err := conditions.New(api.client, opts)
				require.NoError(t, err)
				require.NoError(t, w.Write(t.Context(), c))

				accepted, programmed, gen := tc.accepted, tc.programmed, "5"
				if !reader {
					gen = "7" // the object's generation at write time
					if tc.withoutReader != nil {
						accepted, programmed = tc.withoutReader[0], tc.withoutReader[1]
					}
				}
				want := []string{}
				for typ, cond := range map[string]string{"Accepted": accepted, "Programmed": programmed} {
					if cond != "" {
						want = append(want, typ+" "+cond+" "+gen)
					}
				}
				slices.Sort(want)
				assert.Equal(t, want, api.conditions("ns", "a"))
				if tc.message != "" && programmed != "" {
					assert.Contains(t, api.condition("ns", "a", "Programmed")["message"], tc.message)
				}
				if strings.HasPrefix(programmed, "True") {
					assert.Empty(t, api.condition("ns", "a", "Accepted")["message"])
				}
			})
		}
	}
	assert.Equal(t, documented(t), seen, "the table of doc.go and the cases")
}

// documented returns the "Status Reason" pairs the table of the package
// documentation names, the skip reasons of its text included.
func documented(t *testing.T) map[string]bool {
	t.Helper()
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	out := map[string]bool{}
	text := string(doc)
	for line := range strings.SplitSeq(text, "\n") {
		cols := strings.Split(strings.TrimPrefix(line, "//\t"), "|")
		if len(cols) != 3 || !strings.HasPrefix(line, "//\t") {
			continue
		}
		for _, col := range cols[1:] {
			f := strings.Fields(col)
			if len(f) >= 2 && (f[0] == "True" || f[0] == "False") && f[1] != "the" {
				out[f[0]+" "+f[1]] = true
			}
		}
	}
	i := strings.Index(text, "The skip reasons become")
	j := strings.Index(text, ": each")
	require.True(t, i >= 0 && j > i, "the skip reasons are listed")
	list := strings.NewReplacer("//", " ", "\n", " ", " and ", ", ").Replace(text[i+len("The skip reasons become") : j])
	for r := range strings.SplitSeq(list, ",") {
		out["False "+strings.TrimSpace(r)] = true
	}
	return out
}

// TestLifecycle follows one object through cycles: nothing is sent while
// nothing changes, a new generation is written, lastTransitionTime moves
// only with the status, and the conditions are removed once the object is
// no longer the source's, leaving the conditions of others.
func TestLifecycle(t *testing.T) {
	api := newFakeAPI(t)
	other := map[string]any{"type": "Ready", "status": "True", "reason": "Deployed", "message": "", "lastTransitionTime": "2024-01-02T03:04:05Z"}
	api.add("ns", "a", 1, other)
	gens := generations{"crd/ns/a": 1}
	w, err := conditions.New(api.client, conditions.Options{GVR: gvr, Kind: "crd", Generations: gens})
	require.NoError(t, err)
	e := ep("a.example.com", "crd/ns/a")
	ready := zonesync.Cycle{Plan: &plan.Plan{Desired: []*endpoint.Endpoint{e}, Changes: &plan.Changes{}}}
	foreign := zonesync.Cycle{Plan: &plan.Plan{Desired: []*endpoint.Endpoint{e}, Changes: &plan.Changes{},
		Skipped: []plan.Skip{{Action: plan.ActionCreate, Endpoint: e, Reason: plan.SkipForeignOwner, Detail: "owned by b"}}}}
	ltt := func() any { return api.condition("ns", "a", "Programmed")["lastTransitionTime"] }

	steps := []struct {
		name     string
		gen      int64 // the generation the source read; 0: not selected
		cycle    zonesync.Cycle
		requests []string
		want     []string
	}{
		{"first cycle", 1, ready, []string{"get status ns/a", "update status ns/a"},
			[]string{"Ready True Deployed <nil>", "Accepted True Accepted 1", "Programmed True Programmed 1"}},
		{"steady state", 1, ready, []string{},
			[]string{"Ready True Deployed <nil>", "Accepted True Accepted 1", "Programmed True Programmed 1"}},
		{"new generation, same outcome", 2, ready, []string{"get status ns/a", "update status ns/a"},
			[]string{"Ready True Deployed <nil>", "Accepted True Accepted 2", "Programmed True Programmed 2"}},
		{"outcome changes", 2, foreign, []string{"get status ns/a", "update status ns/a"},
			[]string{"Ready True Deployed <nil>", "Accepted True Accepted 2", "Programmed False ForeignOwner 2"}},
		{"steady again", 2, foreign, []string{}, nil},
		{"no longer selected", 0, foreign, []string{"get status ns/a", "update status ns/a"},
			[]string{"Ready True Deployed <nil>"}},
		{"removed once", 0, ready, []string{}, []string{"Ready True Deployed <nil>"}},
	}
	var firstLTT any
	for _, s := range steps {
		delete(gens, "crd/ns/a")
		if s.gen != 0 {
			gens["crd/ns/a"] = s.gen
		}
		require.NoError(t, w.Write(t.Context(), s.cycle), s.name)
		assert.Equal(t, s.requests, api.requests(), s.name)
		if s.want != nil {
			assert.Equal(t, s.want, api.conditions("ns", "a"), s.name)
		}
		switch s.name {
		case "first cycle":
			firstLTT = ltt()
			require.NotNil(t, firstLTT)
		case "new generation, same outcome":
			assert.Equal(t, firstLTT, ltt(), "the status did not change")
		}
	}
	assert.Equal(t, other, api.condition("ns", "a", "Ready"), "another writer's condition is untouched")
}

// TestCycleFailed: a cycle that failed before planning sets Programmed
// False on the objects the writer knows and leaves Accepted as it is;
// the next good cycle restores them. Nothing is removed meanwhile.
func TestCycleFailed(t *testing.T) {
	api := newFakeAPI(t)
	api.add("ns", "a", 1)
	api.add("ns", "b", 1)
	api.add("ns", "c", 1)
	gens := generations{"crd/ns/a": 1, "crd/ns/b": 1}
	w, err := conditions.New(api.client, conditions.Options{GVR: gvr, Kind: "crd", Generations: gens})
	require.NoError(t, err)
	a := ep("a.example.com", "crd/ns/a")
	good := zonesync.Cycle{Plan: &plan.Plan{Desired: []*endpoint.Endpoint{a}, Changes: &plan.Changes{}},
		Err: partial("crd/ns/b", errors.New("no spec"))}
	require.Error(t, good.Err)
	require.NoError(t, w.Write(t.Context(), good))
	assert.Equal(t, []string{"Accepted True Accepted 1", "Programmed True Programmed 1"}, api.conditions("ns", "a"))
	assert.Equal(t, []string{"Accepted False SourceError 1", "Programmed False SourceError 1"}, api.conditions("ns", "b"))

	// c is new; the source has not listed it when the cycle fails.
	gens["crd/ns/c"] = 1
	failed := zonesync.Cycle{Err: errors.New("registry: timeout")}
	require.NoError(t, w.Write(t.Context(), failed))
	assert.Equal(t, []string{"Accepted True Accepted 1", "Programmed False CycleFailed 1"}, api.conditions("ns", "a"))
	assert.Equal(t, []string{"Accepted False SourceError 1", "Programmed False CycleFailed 1"}, api.conditions("ns", "b"))
	assert.Equal(t, []string{"Programmed False CycleFailed 1"}, api.conditions("ns", "c"))
	assert.Equal(t, "registry: timeout", api.condition("ns", "a", "Programmed")["message"])
	api.requests()

	// The same failure again changes nothing; an object neither reported
	// nor in the failed cycle keeps its conditions.
	delete(gens, "crd/ns/b")
	require.NoError(t, w.Write(t.Context(), failed))
	assert.Empty(t, api.requests())
	assert.Equal(t, []string{"Accepted False SourceError 1", "Programmed False CycleFailed 1"}, api.conditions("ns", "b"))

	require.NoError(t, w.Write(t.Context(), good))
	assert.Equal(t, []string{"Accepted True Accepted 1", "Programmed True Programmed 1"}, api.conditions("ns", "a"))
	assert.Empty(t, api.conditions("ns", "b"), "b is no longer selected")
	assert.Equal(t, []string{"Programmed True NoRecords 1", "Accepted True Accepted 1"}, api.conditions("ns", "c"))
}

// TestErrors: the error of one object names it and does not stop the
// others; a conflict is retried; a deleted object is forgotten; pruned
// conditions stop the write with ErrPruned.
func TestErrors(t *testing.T) {
	cycle := zonesync.Cycle{Plan: &plan.Plan{Changes: &plan.Changes{}, Desired: []*endpoint.Endpoint{
		ep("a.example.com", "crd/ns/a"), ep("b.example.com", "crd/ns/b"), ep("c.example.com", "crd/ns/c"),
	}}}
	updateOf := func(name string) func(a k8stesting.Action) bool {
		return func(a k8stesting.Action) bool {
			u, ok := a.(k8stesting.UpdateAction)
			return ok && u.GetObject().(*unstructured.Unstructured).GetName() == name
		}
	}
	tests := []struct {
		name    string
		react   func(f *fakeAPI)
		objects []string
		// err has every one of these, or is nil when empty.
		err      []string
		errIs    error
		requests []string
		written  []string
	}{
		{
			name:    "one object fails",
			objects: []string{"a", "b", "c"},
			react: func(f *fakeAPI) {
				f.client.PrependReactor("update", "dnsendpoints", func(a k8stesting.Action) (bool, kruntime.Object, error) {
					return updateOf("b")(a), nil, errors.New("etcd is sad")
				})
			},
			err:      []string{"conditions: dnsendpoints.externaldns.k8s.io ns/b: etcd is sad"},
			requests: []string{"get status ns/a", "update status ns/a", "get status ns/b", "update status ns/b", "get status ns/c", "update status ns/c"},
			written:  []string{"a", "c"},
		},
		{
			name:    "forbidden",
			objects: []string{"a", "b", "c"},
			react: func(f *fakeAPI) {
				f.client.PrependReactor("get", "dnsendpoints", func(a k8stesting.Action) (bool, kruntime.Object, error) {
					return true, nil, apierrors.NewForbidden(gvr.GroupResource(), a.(k8stesting.GetAction).GetName(), errors.New("RBAC"))
				})
			},
			err: []string{"ns/a: dnsendpoints.externaldns.k8s.io \"a\" is forbidden: RBAC (the client's user needs get and update on dnsendpoints/status)",
				"ns/b: ", "ns/c: "},
			requests: []string{"get status ns/a", "get status ns/b", "get status ns/c"},
		},
		{
			name:    "conflict retried",
			objects: []string{"a", "b", "c"},
			react: func(f *fakeAPI) {
				once := true
				f.client.PrependReactor("update", "dnsendpoints", func(a k8stesting.Action) (bool, kruntime.Object, error) {
					if updateOf("a")(a) && once {
						once = false
						return true, nil, apierrors.NewConflict(gvr.GroupResource(), "a", errors.New("changed"))
					}
					return false, nil, nil
				})
			},
			requests: []string{"get status ns/a", "update status ns/a", "get status ns/a", "update status ns/a", "get status ns/b", "update status ns/b", "get status ns/c", "update status ns/c"},
			written:  []string{"a", "b", "c"},
		},
		{
			name:     "deleted objects are not an error",
			objects:  []string{"b"},
			requests: []string{"get status ns/a", "get status ns/b", "update status ns/b", "get status ns/c"},
			written:  []string{"b"},
		},
		{
			name:    "resource not served",
			objects: []string{"a", "b", "c"},
			react: func(f *fakeAPI) {
				f.client.PrependReactor("get", "dnsendpoints", func(k8stesting.Action) (bool, kruntime.Object, error) {
					return true, nil, apierrors.NewNotFound(schema.GroupResource{}, "")
				})
			},
			err:      []string{"ns/a: ", "(is the resource served, with a status subresource?)", "ns/b: ", "ns/c: "},
			requests: []string{"get status ns/a", "get status ns/b", "get status ns/c"},
		},
		{
			name:    "pruned",
			objects: []string{"a", "b", "c"},
			react: func(f *fakeAPI) {
				f.client.PrependReactor("update", "dnsendpoints", func(a k8stesting.Action) (bool, kruntime.Object, error) {
					u := a.(k8stesting.UpdateAction).GetObject().(*unstructured.Unstructured).DeepCopy()
					unstructured.RemoveNestedField(u.Object, "status", "conditions")
					return true, u, nil
				})
			},
			err: []string{"conditions: dnsendpoints.externaldns.k8s.io ns/a: the API server dropped status.conditions",
				"config/crd/dnsendpoints.externaldns.k8s.io.yaml"},
			errIs:    conditions.ErrPruned,
			requests: []string{"get status ns/a", "update status ns/a"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI(t)
			for _, name := range tc.objects {
				api.add("ns", name, 1)
			}
			if tc.react != nil {
				tc.react(api)
			}
			w, err := conditions.New(api.client, conditions.Options{GVR: gvr, Kind: "crd"})
			require.NoError(t, err)
			err = w.Write(t.Context(), cycle)
			if len(tc.err) == 0 {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				for _, want := range tc.err {
					assert.ErrorContains(t, err, want)
				}
			}
			if tc.errIs != nil {
				assert.ErrorIs(t, err, tc.errIs)
			}
			assert.Equal(t, tc.requests, api.requests())
			if tc.react != nil {
				return
			}
			for _, name := range tc.written {
				assert.Len(t, api.conditions("ns", name), 2, name)
			}
			// What was written is not written again; a deleted object
			// is not looked for again.
			require.NoError(t, w.Write(t.Context(), cycle))
			assert.Empty(t, api.requests())
		})
	}
}

// TestHostileKeys: resource keys that are not "crd/namespace/name" with a
// valid namespace and name, of the writer's kind (and namespace), cause no
// request at all.
func TestHostileKeys(t *testing.T) {
	tests := []struct {
		key   string
		valid bool
	}{
		{"crd/ns/a", true},
		{"crd/ns/a.b-c", true},
		{"crd/ns/" + strings.Repeat("a", 253), true},
		{"crd/ns/" + strings.Repeat("a", 254), false},
		{"crd/" + strings.Repeat("n", 64) + "/a", false},
		{"crd/other/a", false}, // another namespace than the writer's
		{"service/ns/a", false},
		{"CRD/ns/a", false},
		{"crd/a", false},
		{"crd/ns/a/status", false},
		{"crd/ns/a/../../b", false},
		{"crd/ns/..", false},
		{"crd/../a", false},
		{"crd//a", false},
		{"crd/ns/", false},
		{"/ns/a", false},
		{"", false},
		{"crd/NS/a", false},
		{"crd/ns/A", false},
		{"crd/ns/a_b", false},
		{"crd/ns/a b", false},
		{"crd/ns/a%2Fb", false},
		{"crd/ns/a\x00", false},
		{"crd/ns/a\n", false},
		{"crd/ns/a.", false},
		{"crd/-ns/a", false},
		{"crd/ns/é", false},
		{"crd/ns/a?watch=true", false},
		{"crd/ns/a#x", false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q", tc.key), func(t *testing.T) {
			api := newFakeAPI(t)
			w, err := conditions.New(api.client, conditions.Options{GVR: gvr, Kind: "crd", Namespace: "ns"})
			require.NoError(t, err)
			e := endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, tc.key)
			// The key as a desired record's, as a deleted record's (from
			// a TXT record), and as an object the source failed on.
			for _, c := range []zonesync.Cycle{
				{Plan: &plan.Plan{Desired: []*endpoint.Endpoint{e}, Changes: &plan.Changes{}}},
				{Plan: &plan.Plan{Changes: &plan.Changes{Delete: []*endpoint.Endpoint{e}}}, Applied: true,
					Err: nil},
				{Plan: &plan.Plan{Changes: &plan.Changes{}}, Err: partial(tc.key, errors.New("bad"))},
			} {
				require.NoError(t, w.Write(t.Context(), c))
			}
			reqs := api.requests()
			if !tc.valid {
				assert.Empty(t, reqs)
				return
			}
			// Looked for (it does not exist) for each change of what
			// it should carry: desired, none (removed), invalid.
			get := "get status ns/" + tc.key[strings.LastIndex(tc.key, "/")+1:]
			assert.Equal(t, []string{get, get, get}, reqs)
		})
	}
}

// TestCustomResource: a writer for a cluster-scoped resource of another
// kind writes the same conditions.
func TestClusterScoped(t *testing.T) {
	clusters := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "clusters"}
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(kruntime.NewScheme(),
		map[schema.GroupVersionResource]string{clusters: "ClusterList"})
	require.NoError(t, client.Tracker().Create(clusters, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Cluster", "metadata": map[string]any{"name": "blue", "generation": int64(2)},
	}}, ""))
	w, err := conditions.New(client, conditions.Options{GVR: clusters, Kind: "cluster", ClusterScoped: true})
	require.NoError(t, err)
	c := zonesync.Cycle{Plan: &plan.Plan{Changes: &plan.Changes{}, Desired: []*endpoint.Endpoint{
		ep("blue.example.com", "cluster/blue"), ep("x.example.com", "cluster/ns/blue"),
	}}}
	require.NoError(t, w.Write(t.Context(), c))
	u, err := client.Resource(clusters).Get(t.Context(), "blue", metav1.GetOptions{})
	require.NoError(t, err)
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	require.Len(t, list, 2)
	assert.Equal(t, "Accepted", list[0].(map[string]any)["type"])
	assert.Equal(t, int64(2), list[1].(map[string]any)["observedGeneration"])
}

// TestNew refuses options that name no objects.
func TestNew(t *testing.T) {
	client := newFakeAPI(t).client
	tests := []struct {
		name string
		opts conditions.Options
		err  string
	}{
		{"no GVR", conditions.Options{Kind: "crd"}, "Options.GVR"},
		{"no version", conditions.Options{GVR: schema.GroupVersionResource{Resource: "x"}, Kind: "crd"}, "Options.GVR"},
		{"no kind", conditions.Options{GVR: gvr}, "Options.Kind"},
		{"kind with a slash", conditions.Options{GVR: gvr, Kind: "crd/ns"}, "Options.Kind"},
		{"namespace of a cluster-scoped resource", conditions.Options{GVR: gvr, Kind: "crd", ClusterScoped: true, Namespace: "ns"}, "Options.Namespace"},
		{"invalid namespace", conditions.Options{GVR: gvr, Kind: "crd", Namespace: "Ns"}, "Options.Namespace"},
		{"valid", conditions.Options{GVR: gvr, Kind: "crd"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := conditions.New(client, tc.opts)
			if tc.err == "" {
				require.NoError(t, err)
				assert.NotNil(t, w)
				return
			}
			assert.ErrorContains(t, err, tc.err)
		})
	}
	_, err := conditions.New(nil, conditions.Options{GVR: gvr, Kind: "crd"})
	assert.Error(t, err)
	_, err = conditions.NewForDNSEndpoints(client, nil)
	assert.Error(t, err)
}
