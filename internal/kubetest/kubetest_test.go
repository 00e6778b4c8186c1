package kubetest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

var kube Shared

func TestMain(m *testing.M) { os.Exit(kube.Main(m)) }

const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.kubetest.zonesync.dev
spec:
  group: kubetest.zonesync.dev
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
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
              size: {type: integer, minimum: 1}
          status:
            type: object
            properties:
              ready: {type: boolean}
---
`

var widgets = schema.GroupVersionResource{Group: "kubetest.zonesync.dev", Version: "v1", Resource: "widgets"}

func widget(ns, name string, size int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kubetest.zonesync.dev/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec":       map[string]any{"size": size},
	}}
}

// The server is a real one: CRD validation, the status subresource, watches
// with resource versions and RBAC all behave as in a cluster.
func TestEnv(t *testing.T) {
	env := kube.Env(t)
	env.InstallCRDs(t, []byte(widgetCRD))
	env.InstallCRDs(t, []byte(widgetCRD)) // again: an update, not an error
	ns := env.Namespace(t)
	c := env.Dynamic(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := c.Resource(widgets).Namespace(ns)

	w, err := r.Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	defer w.Stop()

	created, err := r.Create(ctx, widget(ns, "a", 3), metav1.CreateOptions{})
	require.NoError(t, err)
	ev := <-w.ResultChan()
	assert.Equal(t, watch.Added, ev.Type, "%#v", ev.Object)

	_, err = r.Create(ctx, widget(ns, "bad", 0), metav1.CreateOptions{})
	require.Error(t, err, "the schema's minimum is enforced")
	assert.True(t, apierrors.IsInvalid(err), "%v", err)

	// The main resource ignores status; the subresource writes only status.
	created.Object["status"] = map[string]any{"ready": true}
	updated, err := r.Update(ctx, created, metav1.UpdateOptions{})
	require.NoError(t, err)
	_, found, _ := unstructured.NestedBool(updated.Object, "status", "ready")
	assert.False(t, found, "status is dropped by an update of the main resource")
	updated.Object["status"] = map[string]any{"ready": true}
	st, err := r.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	require.NoError(t, err)
	ready, _, _ := unstructured.NestedBool(st.Object, "status", "ready")
	assert.True(t, ready)

	// A stale resource version conflicts.
	_, err = r.Update(ctx, created, metav1.UpdateOptions{})
	assert.True(t, apierrors.IsConflict(err), "%v", err)

	// A user without rights is forbidden.
	nobody, err := dynamic.NewForConfig(env.ConfigAs("kubetest-nobody"))
	require.NoError(t, err)
	_, err = nobody.Resource(widgets).Namespace(ns).List(ctx, metav1.ListOptions{})
	assert.True(t, apierrors.IsForbidden(err), "%v", err)
}

func TestNamespaceNames(t *testing.T) {
	env := kube.Env(t)
	t.Run("a very long subtest name that goes on and on well beyond the sixty-three characters a namespace may have", func(t *testing.T) {
		ns := env.Namespace(t)
		assert.LessOrEqual(t, len(ns), 63)
		assert.Regexp(t, `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, ns)
	})
}

func TestDecodeCRDs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		doc     string
		want    int
		wantErr string
	}{
		{name: "two documents and empty ones", doc: "---\n" + widgetCRD + "---\n" + widgetCRD, want: 2},
		{name: "json", doc: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"x.y"}}`, want: 1},
		{name: "not a CRD", doc: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", wantErr: `ConfigMap "c" is not an apiextensions.k8s.io CustomResourceDefinition`},
		{name: "not YAML", doc: "a: [", wantErr: "CRD document 0, object 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeCRDs([][]byte{[]byte(tc.doc)})
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Len(t, got, tc.want)
		})
	}
}

func TestFindBinaryMissing(t *testing.T) {
	t.Setenv(EtcdEnv, t.TempDir()+"/no-such-etcd")
	_, err := findBinary(EtcdEnv, "etcd")
	require.ErrorIs(t, err, ErrMissing)
	assert.ErrorContains(t, err, "make kubetest-binaries")
	assert.ErrorContains(t, err, EtcdEnv)
}
