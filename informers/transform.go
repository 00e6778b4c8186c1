package informers

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
)

// LastAppliedAnnotation is the annotation kubectl apply writes with the
// JSON of the object as last applied.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// Object is what the helpers of this package work on: a Kubernetes API
// object with object metadata, such as *corev1.Service or
// *unstructured.Unstructured.
type Object interface {
	runtime.Object
	metav1.Object
}

// TransformOptions selects what [TransformerWithOptions] removes. The zero value
// removes nothing; the transform then only restores the TypeMeta.
type TransformOptions struct {
	// RemoveManagedFields drops metadata.managedFields.
	RemoveManagedFields bool
	// RemoveLastApplied drops the [LastAppliedAnnotation] annotation.
	RemoveLastApplied bool
	// RemoveStatusConditions drops status.conditions: the Conditions
	// field of a typed object's Status struct, or the status.conditions
	// field of an unstructured object.
	RemoveStatusConditions bool
	// DropAnnotations drops every annotation except those whose key
	// starts with one of KeepAnnotationPrefixes or equals one of
	// KeepAnnotations (with both empty, every annotation is dropped). A
	// source must keep every annotation it reads, including the keys its
	// annotation filter names.
	DropAnnotations bool
	// KeepAnnotationPrefixes are the prefixes of the annotations
	// DropAnnotations keeps. Without DropAnnotations they change nothing.
	KeepAnnotationPrefixes []string
	// KeepAnnotations are the exact keys of the annotations
	// DropAnnotations keeps. Without DropAnnotations they change nothing.
	KeepAnnotations []string
	// RemoveBulkyFields drops the large parts of Nodes and Pods that DNS
	// sources do not read. From a *corev1.Node: status.images,
	// status.volumesInUse and status.volumesAttached. From a *corev1.Pod:
	// spec.volumes and the container statuses (status.containerStatuses,
	// status.initContainerStatuses, status.ephemeralContainerStatuses).
	// Objects of other types are left alone. Use it only when nothing that
	// reads the informer (an FQDN template included) needs those fields.
	RemoveBulkyFields bool
}

// TransformerWithOptions returns a transform for informers of T (for example
// *corev1.Service) that removes what opts select and restores the
// object's TypeMeta, which client-go leaves empty on typed objects it
// decodes: the full group, version and kind for types registered in the
// client-go scheme, the Kind from the Go type name for others. An
// unstructured object keeps the TypeMeta it has.
//
// The transform changes the object it is given (informers hand it a fresh
// decode). Tombstones ([cache.DeletedFinalStateUnknown]) are passed on
// with their object transformed. Any other value that is not a T is an
// error naming its type.
func TransformerWithOptions[T Object](opts TransformOptions) cache.TransformFunc {
	o := transformOptions{
		managedFields: opts.RemoveManagedFields,
		lastApplied:   opts.RemoveLastApplied,
		conditions:    opts.RemoveStatusConditions,
		bulky:         opts.RemoveBulkyFields,
		keepKeys:      slices.Clone(opts.KeepAnnotations),
	}
	if opts.DropAnnotations {
		o.keepPrefixes = append([]string{}, opts.KeepAnnotationPrefixes...)
	}
	return func(in any) (any, error) {
		if tomb, ok := in.(cache.DeletedFinalStateUnknown); ok {
			if obj, ok := tomb.Obj.(T); ok {
				o.apply(obj)
			}
			return tomb, nil
		}
		obj, ok := in.(T)
		if !ok {
			var want T
			return nil, fmt.Errorf("informers: transform for %T got %T", want, in)
		}
		o.apply(obj)
		return obj, nil
	}
}

// transformOptions is TransformOptions as the transform applies it.
type transformOptions struct {
	managedFields bool
	lastApplied   bool
	conditions    bool
	bulky         bool
	keepPrefixes  []string // nil: keep all annotations
	keepKeys      []string
}

func (o *transformOptions) apply(obj Object) {
	if o.managedFields {
		obj.SetManagedFields(nil)
	}
	if ann := obj.GetAnnotations(); len(ann) > 0 {
		if o.lastApplied {
			delete(ann, LastAppliedAnnotation)
		}
		if o.keepPrefixes != nil {
			for k := range ann {
				if !o.keep(k) {
					delete(ann, k)
				}
			}
		}
		if len(ann) == 0 {
			ann = nil
		}
		obj.SetAnnotations(ann)
	}
	if o.conditions {
		removeConditions(obj)
	}
	if o.bulky {
		removeBulkyFields(obj)
	}
	restoreTypeMeta(obj)
}

func (o *transformOptions) keep(key string) bool {
	for _, k := range o.keepKeys {
		if key == k {
			return true
		}
	}
	for _, p := range o.keepPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// removeConditions clears status.conditions.
func removeConditions(obj Object) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		unstructured.RemoveNestedField(u.Object, "status", "conditions")
		return
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	v = v.Elem()
	if v.Kind() != reflect.Struct {
		return
	}
	status := v.FieldByName("Status")
	if !status.IsValid() || status.Kind() != reflect.Struct {
		return
	}
	cond := status.FieldByName("Conditions")
	if cond.IsValid() && cond.Kind() == reflect.Slice && cond.CanSet() {
		cond.Set(reflect.Zero(cond.Type()))
	}
}

// removeBulkyFields clears what [TransformOptions.RemoveBulkyFields] names.
func removeBulkyFields(obj Object) {
	switch o := obj.(type) {
	case *corev1.Node:
		o.Status.Images = nil
		o.Status.VolumesInUse = nil
		o.Status.VolumesAttached = nil
	case *corev1.Pod:
		o.Spec.Volumes = nil
		o.Status.ContainerStatuses = nil
		o.Status.InitContainerStatuses = nil
		o.Status.EphemeralContainerStatuses = nil
	}
}

// restoreTypeMeta sets the object's kind when it has none.
func restoreTypeMeta(obj Object) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind != "" {
		return
	}
	if kinds, _, err := scheme.Scheme.ObjectKinds(obj); err == nil && len(kinds) > 0 {
		obj.GetObjectKind().SetGroupVersionKind(kinds[0])
		return
	}
	if _, ok := obj.(*unstructured.Unstructured); ok {
		return
	}
	t := reflect.TypeOf(obj)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	gvk.Kind = t.Name()
	obj.GetObjectKind().SetGroupVersionKind(gvk)
}
