package informers_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/zonesync/zonesync/informers"
)

func TestTransformer(t *testing.T) {
	svc := func() *corev1.Service {
		return &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{
				Name: "web", Namespace: "default",
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
				Annotations: map[string]string{
					informers.LastAppliedAnnotation:       `{"big":"json"}`,
					"external-dns.kubernetes.io/hostname": "web.example.com",
					"kubernetes.io/ingress.class":         "nginx",
					"other.example.com/unrelated":         "x",
				},
			},
			Status: corev1.ServiceStatus{Conditions: []metav1.Condition{{Type: "Ready"}}},
		}
	}
	tests := []struct {
		name       string
		opts       informers.TransformOptions
		wantAnn    []string
		wantMF     bool
		wantStatus bool
	}{
		{"nothing removed", informers.TransformOptions{}, []string{informers.LastAppliedAnnotation, "external-dns.kubernetes.io/hostname", "kubernetes.io/ingress.class", "other.example.com/unrelated"}, true, true},
		{"managed fields", informers.TransformOptions{RemoveManagedFields: true}, []string{informers.LastAppliedAnnotation, "external-dns.kubernetes.io/hostname", "kubernetes.io/ingress.class", "other.example.com/unrelated"}, false, true},
		{"last applied", informers.TransformOptions{RemoveLastApplied: true}, []string{"external-dns.kubernetes.io/hostname", "kubernetes.io/ingress.class", "other.example.com/unrelated"}, true, true},
		{"conditions", informers.TransformOptions{RemoveStatusConditions: true}, []string{informers.LastAppliedAnnotation, "external-dns.kubernetes.io/hostname", "kubernetes.io/ingress.class", "other.example.com/unrelated"}, true, false},
		{"prefixes and keys", informers.TransformOptions{DropAnnotations: true, KeepAnnotationPrefixes: []string{"external-dns.kubernetes.io/"}, KeepAnnotations: []string{"kubernetes.io/ingress.class"}}, []string{"external-dns.kubernetes.io/hostname", "kubernetes.io/ingress.class"}, true, true},
		{"no prefix keeps none", informers.TransformOptions{DropAnnotations: true}, nil, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := informers.TransformerWithOptions[*corev1.Service](tt.opts)(svc())
			require.NoError(t, err)
			got := out.(*corev1.Service)
			var keys []string
			for k := range got.Annotations {
				keys = append(keys, k)
			}
			assert.ElementsMatch(t, tt.wantAnn, keys)
			assert.Equal(t, tt.wantMF, got.ManagedFields != nil)
			assert.Equal(t, tt.wantStatus, got.Status.Conditions != nil)
			assert.Equal(t, "v1", got.APIVersion)
			assert.Equal(t, "Service", got.Kind)
		})
	}
}

func TestTransformerTypeMeta(t *testing.T) {
	out, err := informers.TransformerWithOptions[*networkingv1.Ingress](informers.TransformOptions{})(&networkingv1.Ingress{})
	require.NoError(t, err)
	assert.Equal(t, "networking.k8s.io/v1", out.(*networkingv1.Ingress).APIVersion)
	assert.Equal(t, "Ingress", out.(*networkingv1.Ingress).Kind)

	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "projectcontour.io/v1", "kind": "HTTPProxy",
		"metadata": map[string]any{"name": "p", "managedFields": []any{map[string]any{"manager": "x"}}},
		"status":   map[string]any{"conditions": []any{"c"}, "loadBalancer": map[string]any{}},
	}}
	out, err = informers.TransformerWithOptions[*unstructured.Unstructured](informers.TransformOptions{RemoveManagedFields: true, RemoveStatusConditions: true})(u)
	require.NoError(t, err)
	got := out.(*unstructured.Unstructured)
	assert.Equal(t, "HTTPProxy", got.GetKind())
	assert.Empty(t, got.GetManagedFields())
	_, found, _ := unstructured.NestedFieldNoCopy(got.Object, "status", "conditions")
	assert.False(t, found)
	_, found, _ = unstructured.NestedFieldNoCopy(got.Object, "status", "loadBalancer")
	assert.True(t, found)
}

func TestTransformerMismatchAndTombstone(t *testing.T) {
	fn := informers.TransformerWithOptions[*corev1.Service](informers.TransformOptions{RemoveManagedFields: true})
	_, err := fn(&corev1.Pod{})
	require.ErrorContains(t, err, "*v1.Pod")
	require.ErrorContains(t, err, "*v1.Service")

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{{}}}}
	out, err := fn(cache.DeletedFinalStateUnknown{Key: "a/b", Obj: svc})
	require.NoError(t, err)
	assert.Nil(t, out.(cache.DeletedFinalStateUnknown).Obj.(*corev1.Service).ManagedFields)
}

func TestIndexer(t *testing.T) {
	annSel, err := labels.Parse("team in (dns)")
	require.NoError(t, err)
	labelSel, err := labels.Parse("env=prod")
	require.NoError(t, err)
	mk := func(name string, lbl, ann map[string]string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: lbl, Annotations: ann}}
	}
	objs := []*corev1.Service{
		mk("both", map[string]string{"env": "prod", "zone": "a"}, map[string]string{"team": "dns"}),
		mk("label-only", map[string]string{"env": "prod", "zone": "b"}, nil),
		mk("ann-only", map[string]string{"env": "dev"}, map[string]string{"team": "dns"}),
		mk("prod-no-zone", map[string]string{"env": "prod"}, map[string]string{"team": "dns"}),
	}
	tests := []struct {
		name  string
		opts  informers.IndexOptions
		value string
		want  []string
	}{
		{"all", informers.IndexOptions{}, informers.IndexMatch, []string{"ann-only", "both", "label-only", "prod-no-zone"}},
		{"annotation filter", informers.IndexOptions{AnnotationFilter: annSel}, informers.IndexMatch, []string{"ann-only", "both", "prod-no-zone"}},
		{"label selector", informers.IndexOptions{LabelSelector: labelSel}, informers.IndexMatch, []string{"both", "label-only", "prod-no-zone"}},
		{"both filters", informers.IndexOptions{AnnotationFilter: annSel, LabelSelector: labelSel}, informers.IndexMatch, []string{"both", "prod-no-zone"}},
		{"by label", informers.IndexOptions{LabelSelector: labelSel, ByLabel: "zone"}, "b", []string{"label-only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, informers.IndexerWithOptions[*corev1.Service](tt.opts))
			for _, o := range objs {
				require.NoError(t, idx.Add(o))
			}
			got, err := informers.ByIndex[*corev1.Service](idx, informers.IndexName, tt.value)
			require.NoError(t, err)
			var names []string
			for _, s := range got {
				names = append(names, s.Name)
			}
			assert.Equal(t, tt.want, names)
		})
	}
	_, err = informers.IndexerWithOptions[*corev1.Service](informers.IndexOptions{})[informers.IndexName](&corev1.Pod{})
	require.ErrorContains(t, err, "*v1.Pod")
}

func TestGetAndList(t *testing.T) {
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	require.NoError(t, store.Add(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "x"}}))
	require.NoError(t, store.Add(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "y"}}))
	got, found, err := informers.Get[*corev1.Service](store, "a", "y")
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, "y", got.Name)
	_, found, err = informers.Get[*corev1.Service](store, "a", "missing")
	require.NoError(t, err)
	assert.False(t, found)
	_, _, err = informers.Get[*corev1.Pod](store, "a", "y")
	require.ErrorContains(t, err, "*v1.Service")

	all, err := informers.List[*corev1.Service](store)
	require.NoError(t, err)
	require.Len(t, all, 2)
	assert.Equal(t, "a", all[0].Namespace)
}

func TestInformerLifecycle(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "1",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}})
	factory := k8sinformers.NewSharedInformerFactory(client, 0)
	inf := factory.Core().V1().Services().Informer()

	informers.MustSetTransform(inf, informers.TransformerWithOptions[*corev1.Service](informers.TransformOptions{RemoveManagedFields: true}))
	informers.MustAddIndexers(inf, informers.IndexerWithOptions[*corev1.Service](informers.IndexOptions{}))
	var calls atomic.Int32
	require.NotNil(t, informers.AddEventHandlerUntilDone(ctx, inf, informers.DefaultEventHandler(func() { calls.Add(1) })))
	factory.Start(ctx.Done())
	require.NoError(t, informers.WaitForCacheSync(ctx, inf.HasSynced))

	got, err := informers.ByIndex[*corev1.Service](inf.GetIndexer(), informers.IndexName, informers.IndexMatch)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Nil(t, got[0].ManagedFields, "the transform ran before the object was stored")
	require.Eventually(t, func() bool { return calls.Load() == 1 }, 5*time.Second, 5*time.Millisecond)

	assert.Panics(t, func() { informers.MustSetTransform(inf, nil) })
	assert.Panics(t, func() {
		informers.MustAddIndexers(inf, informers.IndexerWithOptions[*corev1.Service](informers.IndexOptions{}))
	})
}

func TestAddEventHandlerUntilDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset()
	factory := k8sinformers.NewSharedInformerFactory(client, 0)
	inf := factory.Core().V1().Services().Informer()
	factory.Start(ctx.Done())
	require.NoError(t, informers.WaitForCacheSync(ctx, inf.HasSynced))

	done, cancelDone := context.WithCancel(ctx)
	cancelDone()
	var early, live, ended atomic.Int32
	assert.Nil(t, informers.AddEventHandlerUntilDone(done, inf, informers.DefaultEventHandler(func() { early.Add(1) })), "a done context registers nothing")
	liveCtx, cancelLive := context.WithCancel(ctx)
	defer cancelLive()
	require.NotNil(t, informers.AddEventHandlerUntilDone(liveCtx, inf, informers.DefaultEventHandler(func() { live.Add(1) })))
	endedCtx, cancelEnded := context.WithCancel(ctx)
	require.NotNil(t, informers.AddEventHandlerUntilDone(endedCtx, inf, informers.DefaultEventHandler(func() { ended.Add(1) })))
	cancelEnded()

	_, err := client.CoreV1().Services("ns").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return live.Load() == 1 }, 5*time.Second, 5*time.Millisecond)
	assert.Zero(t, early.Load())
	assert.Zero(t, ended.Load(), "not called once its context is done")
}

func TestDefaultEventHandlerSkipsResync(t *testing.T) {
	var calls int
	h := informers.DefaultEventHandler(func() { calls++ })
	a := &corev1.Service{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "1"}}
	b := &corev1.Service{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "2"}}
	h.OnAdd(a, false)
	h.OnUpdate(a, a)
	h.OnUpdate(a, b)
	h.OnDelete(b)
	assert.Equal(t, 3, calls)
}

func TestWaitForCacheSyncCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := informers.WaitForCacheSync(ctx, func() bool { return false })
	require.ErrorIs(t, err, context.Canceled)
}
