package informers

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
)

// IndexName is the name of the index [IndexerWithOptions] returns.
const IndexName = "zonesync"

// IndexMatch is the index value of a selected object when no label is
// indexed ([IndexByLabel] not given).
const IndexMatch = "match"

// IndexOption selects the objects [IndexerWithOptions] indexes.
type IndexOption func(*indexOptions)

type indexOptions struct {
	annotations labels.Selector
	labels      labels.Selector
	byLabel     string
}

// WithAnnotationFilter indexes only objects whose annotations match sel, a
// label selector applied to the annotation map (external-dns's
// --annotation-filter). Parse it with [labels.Parse].
func WithAnnotationFilter(sel labels.Selector) IndexOption {
	return func(o *indexOptions) { o.annotations = sel }
}

// WithLabelSelector indexes only objects whose labels match sel.
func WithLabelSelector(sel labels.Selector) IndexOption {
	return func(o *indexOptions) { o.labels = sel }
}

// IndexByLabel indexes a selected object under the value of its label key
// instead of [IndexMatch]; objects without the label are not indexed.
func IndexByLabel(key string) IndexOption {
	return func(o *indexOptions) { o.byLabel = key }
}

// IndexerWithOptions returns cache.Indexers with one index, [IndexName],
// for informers of T. An object passing every filter of opts is indexed
// under [IndexMatch] (or the value of the label given by [IndexByLabel]);
// others are not indexed, so that indexer.ByIndex(IndexName, IndexMatch)
// lists exactly the selected objects. An object that is not a T is an
// error naming its type.
func IndexerWithOptions[T Object](opts ...IndexOption) cache.Indexers {
	var o indexOptions
	for _, opt := range opts {
		opt(&o)
	}
	return cache.Indexers{IndexName: func(in any) ([]string, error) {
		obj, ok := in.(T)
		if !ok {
			var want T
			return nil, fmt.Errorf("informers: indexer for %T got %T", want, in)
		}
		if o.annotations != nil && !o.annotations.Empty() && !o.annotations.Matches(labels.Set(obj.GetAnnotations())) {
			return nil, nil
		}
		if o.labels != nil && !o.labels.Empty() && !o.labels.Matches(labels.Set(obj.GetLabels())) {
			return nil, nil
		}
		if o.byLabel != "" {
			v, ok := obj.GetLabels()[o.byLabel]
			if !ok {
				return nil, nil
			}
			return []string{v}, nil
		}
		return []string{IndexMatch}, nil
	}}
}
