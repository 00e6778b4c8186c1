// Package kubedrive drives zonesync's Kubernetes components against the API
// server of package kubetest in tests: the objects of a test written from
// YAML manifests into its own namespace (status included, through the
// status subresource), a Reconciler running over the in-memory provider,
// a logger that keeps what the components log, and waiting for the state a
// test expects.
//
// It holds no assertions library: tests use testify themselves; the helpers
// here fail the test through testing.TB.
package kubedrive

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/kubetest"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// Timeout bounds every wait of the package: generous, since the API server
// and the test share two CPUs with other test binaries. Waits end as soon
// as the state is reached; nothing here measures speed.
const Timeout = 60 * time.Second

// NS is the placeholder that [Objects.Expand] replaces with the test's
// namespace in manifests and expected values.
const NS = "{ns}"

// Common resources of the tests.
var (
	Services   = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	Ingresses  = schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}
	Namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
)

// Objects writes the objects of one test as the admin, in the test's own
// namespace. Every method fails the test on an error.
type Objects struct {
	t testing.TB
	// Ctx ends with the test.
	Ctx context.Context
	// Env is the running API server.
	Env *kubetest.Env
	// Client is an admin dynamic client.
	Client dynamic.Interface
	// Namespace is the test's namespace.
	Namespace string
}

// New returns the Objects of test t over the shared servers of its test
// binary, with a fresh namespace.
func New(t testing.TB, shared *kubetest.Shared) *Objects {
	t.Helper()
	env := shared.Env(t)
	return &Objects{t: t, Ctx: t.Context(), Env: env, Client: env.Dynamic(t), Namespace: env.Namespace(t)}
}

// Expand replaces every [NS] in s with the test's namespace.
func (o *Objects) Expand(s string) string { return strings.ReplaceAll(s, NS, o.Namespace) }

// ExpandAll is [Objects.Expand] of each string.
func (o *Objects) ExpandAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = o.Expand(s)
	}
	return out
}

// Decode returns the object of a YAML (or JSON) manifest, with [NS]
// expanded; a namespaced object without a namespace gets the test's.
func (o *Objects) Decode(manifest string) *unstructured.Unstructured {
	o.t.Helper()
	var obj map[string]any
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(o.Expand(manifest))), 4096)
	if err := dec.Decode(&obj); err != nil && err != io.EOF {
		o.t.Fatalf("kubedrive: manifest: %v\n%s", err, manifest)
	}
	return &unstructured.Unstructured{Object: obj}
}

func (o *Objects) resource(gvr schema.GroupVersionResource, cluster bool) dynamic.ResourceInterface {
	if cluster {
		return o.Client.Resource(gvr)
	}
	return o.Client.Resource(gvr).Namespace(o.Namespace)
}

// Create creates the object of manifest as a resource of gvr in the
// test's namespace. A status in the manifest is written afterwards
// through the status subresource (a create drops it), so that a manifest
// shows the object as its controller would leave it; a manifest with a
// status needs a resource with that subresource.
func (o *Objects) Create(gvr schema.GroupVersionResource, manifest string) *unstructured.Unstructured {
	o.t.Helper()
	obj := o.Decode(manifest)
	obj.SetNamespace(o.Namespace)
	status, hasStatus := obj.Object["status"]
	created, err := o.resource(gvr, false).Create(o.Ctx, obj, metav1.CreateOptions{})
	if err != nil {
		o.t.Fatalf("kubedrive: creating %s %s/%s: %v", gvr.Resource, o.Namespace, obj.GetName(), err)
	}
	if !hasStatus {
		return created
	}
	return o.UpdateStatus(gvr, created.GetName(), func(u *unstructured.Unstructured) { u.Object["status"] = status })
}

// CreateCluster creates a cluster-scoped object (a ClusterRole, say).
func (o *Objects) CreateCluster(gvr schema.GroupVersionResource, manifest string) *unstructured.Unstructured {
	o.t.Helper()
	obj := o.Decode(manifest)
	created, err := o.resource(gvr, true).Create(o.Ctx, obj, metav1.CreateOptions{})
	if err != nil {
		o.t.Fatalf("kubedrive: creating %s %s: %v", gvr.Resource, obj.GetName(), err)
	}
	return created
}

// Get returns the object name of gvr in the test's namespace.
func (o *Objects) Get(gvr schema.GroupVersionResource, name string) *unstructured.Unstructured {
	o.t.Helper()
	u, err := o.resource(gvr, false).Get(o.Ctx, name, metav1.GetOptions{})
	if err != nil {
		o.t.Fatalf("kubedrive: reading %s %s/%s: %v", gvr.Resource, o.Namespace, name, err)
	}
	return u
}

// Update changes the object name of gvr with fn and writes it, reading it
// again when the write conflicts with another.
func (o *Objects) Update(gvr schema.GroupVersionResource, name string, fn func(*unstructured.Unstructured)) *unstructured.Unstructured {
	o.t.Helper()
	return o.update(gvr, name, fn, false)
}

// UpdateStatus changes the object name of gvr with fn and writes it through
// the status subresource (only the status is written), reading it again
// when the write conflicts with another.
func (o *Objects) UpdateStatus(gvr schema.GroupVersionResource, name string, fn func(*unstructured.Unstructured)) *unstructured.Unstructured {
	o.t.Helper()
	return o.update(gvr, name, fn, true)
}

func (o *Objects) update(gvr schema.GroupVersionResource, name string, fn func(*unstructured.Unstructured), status bool) *unstructured.Unstructured {
	o.t.Helper()
	r := o.resource(gvr, false)
	var out *unstructured.Unstructured
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := r.Get(o.Ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		fn(u)
		if status {
			out, err = r.UpdateStatus(o.Ctx, u, metav1.UpdateOptions{})
		} else {
			out, err = r.Update(o.Ctx, u, metav1.UpdateOptions{})
		}
		return err
	})
	if err != nil {
		what := "updating"
		if status {
			what = "updating the status of"
		}
		o.t.Fatalf("kubedrive: %s %s %s/%s: %v", what, gvr.Resource, o.Namespace, name, err)
	}
	return out
}

// Delete deletes the object name of gvr in the test's namespace.
func (o *Objects) Delete(gvr schema.GroupVersionResource, name string) {
	o.t.Helper()
	if err := o.resource(gvr, false).Delete(o.Ctx, name, metav1.DeleteOptions{}); err != nil {
		o.t.Fatalf("kubedrive: deleting %s %s/%s: %v", gvr.Resource, o.Namespace, name, err)
	}
}

// Eventually waits until get returns want, and fails the test with the
// last value got when it does not within [Timeout].
func Eventually(t testing.TB, what string, want []string, get func() []string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	deadline := time.Now().Add(Timeout)
	var got []string
	for {
		got = get()
		if got == nil {
			got = []string{}
		}
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("kubedrive: %s did not become\n\t%s\nlast:\n\t%s", what, strings.Join(want, "\n\t"), strings.Join(got, "\n\t"))
}

// Reconcile runs a Reconciler over src until the test ends: the TXT
// registry (owner "kubedrive") over an in-memory provider holding the zone
// example.com, which it returns. Interval is an hour, so that after the
// first cycle only the source's events start cycles, each at least
// MinEventSyncInterval (10ms) after the previous one. The source should
// have synced; a cycle before that fails and is retried after a backoff.
func Reconcile(t testing.TB, ctx context.Context, src source.Source, logger logr.Logger) *inmemory.Provider {
	t.Helper()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "kubedrive"})
	if err != nil {
		t.Fatalf("kubedrive: %v", err)
	}
	rec := &zonesync.Reconciler{
		Source:               src,
		Registry:             reg,
		Interval:             time.Hour,
		MinEventSyncInterval: 10 * time.Millisecond,
		BackoffInitial:       100 * time.Millisecond,
		BackoffMax:           time.Second,
		Logger:               logger,
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rec.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("kubedrive: Reconciler.Run: %v", err)
		}
	})
	return zone
}

// Records returns the records of the zone other than TXT records, as
// "name type targets", sorted.
func Records(t testing.TB, zone *inmemory.Provider) []string {
	t.Helper()
	recs, err := zone.Records(context.Background())
	if err != nil {
		t.Fatalf("kubedrive: reading the zone: %v", err)
	}
	out := []string{}
	for _, r := range recs {
		if r.RecordType != endpoint.RecordTypeTXT {
			out = append(out, r.DNSName+" "+r.RecordType+" "+r.Targets.String())
		}
	}
	slices.Sort(out)
	return out
}

// Render returns endpoints as sorted "name ttl IN type set targets
// resource" strings ([endpoint.Endpoint.String] and the resource label).
func Render(eps []*endpoint.Endpoint) []string {
	out := make([]string, 0, len(eps))
	for _, ep := range eps {
		resource, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
		out = append(out, ep.String()+" "+resource)
	}
	slices.Sort(out)
	return out
}

// Log keeps the lines a logger wrote. The components under test may log
// from their goroutines after the test has ended, when testing.T must no
// longer be used; Log is safe then.
type Log struct {
	mu    sync.Mutex
	lines []string
}

// Logger returns a logger writing into a new Log (up to V(1): zonesync's
// detail, not client-go's request dumps), and the Log. The lines are printed when the test fails.
func Logger(t testing.TB) (logr.Logger, *Log) {
	l := &Log{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("logged:\n%s", strings.Join(l.Lines(), "\n"))
		}
	})
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.lines = append(l.lines, strings.TrimSpace(prefix+" "+args))
	}, funcr.Options{Verbosity: 1}), l
}

// Lines returns the lines logged so far.
func (l *Log) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// Contains reports whether a line holds every one of parts.
func (l *Log) Contains(parts ...string) bool {
	for _, line := range l.Lines() {
		if containsAll(line, parts) {
			return true
		}
	}
	return false
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// String returns the lines, one per line.
func (l *Log) String() string { return strings.Join(l.Lines(), "\n") }
