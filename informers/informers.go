package informers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// MustSetTransform sets fn as the transform of informer. It panics when
// the informer has already started (see the order in the package doc).
func MustSetTransform(informer cache.SharedIndexInformer, fn cache.TransformFunc) {
	if err := informer.SetTransform(fn); err != nil {
		panic(fmt.Sprintf("informers: setting the transform: %v (set it before the informer starts)", err))
	}
}

// MustAddIndexers adds indexers to informer. It panics when an index of the
// same name exists (the informer would not know which to use) or the
// informer refuses new indexers; client-go releases before 1.27 refuse
// them once the informer has started.
func MustAddIndexers(informer cache.SharedIndexInformer, indexers cache.Indexers) {
	if err := informer.AddIndexers(indexers); err != nil {
		panic(fmt.Sprintf("informers: adding indexers: %v", err))
	}
}

// AddEventHandlerUntilDone registers handler on informer until ctx is
// done, when it removes it again; handler is not called once ctx is done,
// even for notifications already queued. A ctx that is already done
// registers nothing and returns nil. A failure is logged through the
// logger of ctx and nil is returned, because a missed event is repaired by
// the next periodic run.
func AddEventHandlerUntilDone(ctx context.Context, informer cache.SharedIndexInformer, handler cache.ResourceEventHandler) cache.ResourceEventHandlerRegistration {
	if ctx.Err() != nil {
		return nil
	}
	reg, err := informer.AddEventHandler(untilDone{ctx: ctx, inner: handler})
	if err != nil {
		logr.FromContextOrDiscard(ctx).Error(err, "informers: adding an event handler failed")
		return nil
	}
	go func() {
		<-ctx.Done()
		_ = informer.RemoveEventHandler(reg)
	}()
	return reg
}

// untilDone passes notifications to inner while ctx is not done.
type untilDone struct {
	ctx   context.Context
	inner cache.ResourceEventHandler
}

func (h untilDone) OnAdd(obj any, isInInitialList bool) {
	if h.ctx.Err() == nil {
		h.inner.OnAdd(obj, isInInitialList)
	}
}

func (h untilDone) OnUpdate(oldObj, newObj any) {
	if h.ctx.Err() == nil {
		h.inner.OnUpdate(oldObj, newObj)
	}
}

func (h untilDone) OnDelete(obj any) {
	if h.ctx.Err() == nil {
		h.inner.OnDelete(obj)
	}
}

// DefaultEventHandler returns an event handler that calls fn on every
// add, update and delete, except updates that leave the resource version
// unchanged (periodic resyncs). fn must not block.
func DefaultEventHandler(fn func()) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { fn() },
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(metav1.Object)
			n, ok2 := newObj.(metav1.Object)
			if ok1 && ok2 && o.GetResourceVersion() != "" && o.GetResourceVersion() == n.GetResourceVersion() {
				return
			}
			fn()
		},
		DeleteFunc: func(any) { fn() },
	}
}

// WaitForCacheSync waits until every synced function reports true or ctx
// is done; then it returns an error wrapping ctx.Err().
func WaitForCacheSync(ctx context.Context, synced ...cache.InformerSynced) error {
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return fmt.Errorf("informers: waiting for caches to sync: %w", context.Cause(ctx))
	}
	return nil
}

// ByIndex returns the objects indexer holds under value of index, as T,
// sorted by namespace and name. A stored object that is not a T is an
// error naming its type.
func ByIndex[T Object](indexer cache.Indexer, index, value string) ([]T, error) {
	items, err := indexer.ByIndex(index, value)
	if err != nil {
		return nil, fmt.Errorf("informers: listing index %s=%q: %w", index, value, err)
	}
	return typed[T](items)
}

// List returns every object of store as T, sorted by namespace and name.
func List[T Object](store cache.Store) ([]T, error) {
	return typed[T](store.List())
}

// Get returns the object namespace/name of store as T; found is false when
// there is none. namespace is empty for cluster-scoped objects.
func Get[T Object](store cache.Store, namespace, name string) (obj T, found bool, err error) {
	key := name
	if namespace != "" {
		key = namespace + "/" + name
	}
	item, ok, err := store.GetByKey(key)
	if err != nil || !ok {
		return obj, false, err
	}
	obj, ok = item.(T)
	if !ok {
		return obj, false, fmt.Errorf("informers: %s holds %T, not %T", key, item, obj)
	}
	return obj, true, nil
}

func typed[T Object](items []any) ([]T, error) {
	out := make([]T, 0, len(items))
	for _, item := range items {
		obj, ok := item.(T)
		if !ok {
			var want T
			return nil, fmt.Errorf("informers: cache holds %T, not %T", item, want)
		}
		out = append(out, obj)
	}
	slices.SortFunc(out, func(a, b T) int {
		if c := strings.Compare(a.GetNamespace(), b.GetNamespace()); c != 0 {
			return c
		}
		return strings.Compare(a.GetName(), b.GetName())
	})
	return out, nil
}
