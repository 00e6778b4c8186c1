package kubernetes

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/informers"
	"github.com/zonesync/zonesync/source"
)

// dynamicResource is one informer over unstructured objects of a resource,
// with the index of a source's filters.
type dynamicResource struct {
	gvr      schema.GroupVersionResource
	sel      selection
	informer cache.SharedIndexInformer
}

// newDynamicResource sets up the informer of gvr: from factory when given
// (no transform, not started), else from a factory of its own that is
// started with ctx after the transform and index are set, and whose
// informer reports its errors through ctx's logger (see track). keep lists
// annotation keys to keep besides the source's prefixes. start, when not
// nil, must be called once all informers of the source are set up. The
// transform drops status.conditions (see newDynamicResourceKeeping).
func newDynamicResource(ctx context.Context, client dynamic.Interface, factory dynamicinformer.DynamicSharedInformerFactory, o Options, kind string, gvr schema.GroupVersionResource, keep ...string) (*dynamicResource, func(ctx context.Context), error) {
	return newDynamicResourceKeeping(ctx, client, factory, o, kind, gvr, false, keep...)
}

// newDynamicResourceKeeping is newDynamicResource, whose transform keeps
// status.conditions when keepConditions is set: a source that writes its
// objects' status from the cached copy must not send it without them, or
// the update would erase the conditions other controllers wrote.
func newDynamicResourceKeeping(ctx context.Context, client dynamic.Interface, factory dynamicinformer.DynamicSharedInformerFactory, o Options, kind string, gvr schema.GroupVersionResource, keepConditions bool, keep ...string) (*dynamicResource, func(ctx context.Context), error) {
	sel, err := selectionOf(o, kind, informers.IndexerWithOptions[*unstructured.Unstructured])
	if err != nil {
		return nil, nil, err
	}
	own := factory == nil
	if own {
		factory = dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, o.ResyncPeriod, o.Namespace, nil)
	}
	r := &dynamicResource{gvr: gvr, sel: sel, informer: factory.ForResource(gvr).Informer()}
	if own {
		if r.informer, err = track(ctx, kind, r.informer, gvr.GroupResource().String()); err != nil {
			return nil, nil, err
		}
		opts := annotationKeys(o, keep...)
		opts.RemoveStatusConditions = !keepConditions
		if err := r.informer.SetTransform(informers.TransformerWithOptions[*unstructured.Unstructured](opts)); err != nil {
			return nil, nil, fmt.Errorf("%s source: %w", kind, err)
		}
	}
	if err := sel.addTo(r.informer); err != nil {
		return nil, nil, fmt.Errorf("%s source: %w", kind, err)
	}
	if !own {
		return r, nil, nil
	}
	return r, func(ctx context.Context) { factory.Start(ctx.Done()) }, nil
}

// list returns the selected objects, sorted by namespace and name.
func (r *dynamicResource) list() ([]*unstructured.Unstructured, error) {
	return informers.ByIndex[*unstructured.Unstructured](r.informer.GetIndexer(), r.sel.indexName, informers.IndexMatch)
}

// objectRef names u, with kind when u carries none.
func objectRef(u *unstructured.Unstructured, kind string) source.ObjectRef {
	if k := u.GetKind(); k != "" {
		kind = k
	}
	return source.ObjectRef{Kind: kind, Namespace: u.GetNamespace(), Name: u.GetName()}
}

// loadBalancerTargets returns the ip and hostname fields of the entries of
// the list at fields (status.loadBalancer.ingress).
func unstructuredLBTargets(obj map[string]any, fields ...string) []string {
	items, _, _ := unstructured.NestedSlice(obj, fields...)
	var targets []string
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		if ip, ok := m["ip"].(string); ok && ip != "" {
			targets = append(targets, ip)
		}
		if h, ok := m["hostname"].(string); ok && h != "" {
			targets = append(targets, h)
		}
	}
	return targets
}

// openResource sets up the one custom resource a source named name reads
// (gvr, or def when gvr is empty): it binds the templates' isSource to
// name in *o, and starts the informer when the source builds its own
// factory (factory nil).
func openResource(ctx context.Context, client dynamic.Interface, factory dynamicinformer.DynamicSharedInformerFactory, o *Options, name string, gvr, def schema.GroupVersionResource) (*dynamicResource, error) {
	bound, err := o.WithSource(name)
	if err != nil {
		return nil, err
	}
	*o = bound
	if gvr.Empty() {
		gvr = def
	}
	res, start, err := newDynamicResource(ctx, client, factory, bound, name, gvr)
	if err != nil {
		return nil, err
	}
	if start != nil {
		start(ctx)
	}
	return res, nil
}

// endpoints returns the endpoints build makes of the selected objects (see
// endpointsOf) for the source named name; ref names an object.
func (r *dynamicResource) endpoints(ctx context.Context, name string, ref func(*unstructured.Unstructured) source.ObjectRef, build func(source.ObjectRef, *unstructured.Unstructured) ([]*endpoint.Endpoint, error)) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	objs, err := r.list()
	if err != nil {
		return nil, fmt.Errorf("%s source: %w", name, err)
	}
	return endpointsOf(objs, func(u *unstructured.Unstructured) (source.ObjectRef, bool) { return ref(u), true }, build)
}

// kindRef returns the function naming an object of a resource by its
// kind (when the object carries none).
func kindRef(kind string) func(*unstructured.Unstructured) source.ObjectRef {
	return func(u *unstructured.Unstructured) source.ObjectRef { return objectRef(u, kind) }
}
