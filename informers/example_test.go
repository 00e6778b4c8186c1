package informers_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/zonesync/zonesync/informers"
)

// Slim Services before they are cached and index those a DNS controller
// wants. With a real informer, pass the same values to MustSetTransform
// and MustAddIndexers before starting it.
func ExampleTransformerWithOptions() {
	transform := informers.TransformerWithOptions[*corev1.Service](informers.TransformOptions{
		RemoveManagedFields: true,
		RemoveLastApplied:   true,
		DropAnnotations:     true, KeepAnnotationPrefixes: []string{"external-dns.kubernetes.io/"},
	})
	selector := labels.SelectorFromSet(labels.Set{"app": "web"})
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc,
		informers.IndexerWithOptions[*corev1.Service](informers.IndexOptions{LabelSelector: selector}))

	for _, name := range []string{"web", "db"} {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: name, Labels: map[string]string{"app": name},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
			Annotations: map[string]string{
				informers.LastAppliedAnnotation:       "{...}",
				"external-dns.kubernetes.io/hostname": name + ".example.com",
			},
		}}
		obj, err := transform(svc)
		if err != nil {
			fmt.Println(err)
			return
		}
		_ = store.Add(obj)
	}
	selected, err := informers.ByIndex[*corev1.Service](store, informers.IndexName, informers.IndexMatch)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, svc := range selected {
		fmt.Println(svc.Kind, svc.Name, svc.Annotations, len(svc.ManagedFields))
	}
	// Output:
	// Service web map[external-dns.kubernetes.io/hostname:web.example.com] 0
}
