package informers

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
)

// IndexName is the name of the index [IndexerWithOptions] returns.
const IndexName = "zonesync"

// IndexMatch is the index value of a selected object when no label is
// indexed ([IndexOptions.ByLabel] empty).
const IndexMatch = "match"

// IndexOptions selects the objects [IndexerWithOptions] indexes. The zero value
// indexes every object under [IndexMatch].
type IndexOptions struct {
	// AnnotationFilter indexes only objects whose annotations match it, a
	// label selector applied to the annotation map (external-dns's
	// --annotation-filter). Parse it with [labels.Parse]. Nil or empty
	// selects every object.
	AnnotationFilter labels.Selector
	// LabelSelector indexes only objects whose labels match it. Nil or
	// empty selects every object.
	LabelSelector labels.Selector
	// ByLabel, when not empty, indexes a selected object under the value
	// of its label ByLabel instead of [IndexMatch]; objects without the
	// label are not indexed.
	ByLabel string
}

// IndexerWithOptions returns cache.Indexers with one index, [IndexName], for
// informers of T. An object passing every filter of opts is indexed under
// [IndexMatch] (or the value of the label [IndexOptions.ByLabel]); others
// are not indexed, so that indexer.ByIndex(IndexName, IndexMatch) lists
// exactly the selected objects. An object that is not a T is an error
// naming its type.
func IndexerWithOptions[T Object](opts IndexOptions) cache.Indexers {
	o := opts
	return cache.Indexers{IndexName: func(in any) ([]string, error) {
		obj, ok := in.(T)
		if !ok {
			var want T
			return nil, fmt.Errorf("informers: indexer for %T got %T", want, in)
		}
		if o.AnnotationFilter != nil && !o.AnnotationFilter.Empty() && !o.AnnotationFilter.Matches(labels.Set(obj.GetAnnotations())) {
			return nil, nil
		}
		if o.LabelSelector != nil && !o.LabelSelector.Empty() && !o.LabelSelector.Matches(labels.Set(obj.GetLabels())) {
			return nil, nil
		}
		if o.ByLabel != "" {
			v, ok := obj.GetLabels()[o.ByLabel]
			if !ok {
				return nil, nil
			}
			return []string{v}, nil
		}
		return []string{IndexMatch}, nil
	}}
}
