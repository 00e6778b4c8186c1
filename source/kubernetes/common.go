package kubernetes

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/zonesync/zonesync/informers"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// IngressClassAnnotation is the annotation that named an Ingress's class
// before spec.ingressClassName existed.
const IngressClassAnnotation = "kubernetes.io/ingress.class"

// Options are the settings every source of this package shares; they are
// defined in package kubeopts so that source/gatewayapi shares them without
// importing this package. The alias keeps kubernetes.Options working.
type Options = kubeopts.Options

// selection is the parsed form of the filters of Options.
type selection struct {
	indexName string
	indexers  cache.Indexers
}

// selectionOf checks o and returns the index that selects its objects. The index
// name includes the filters, so that sources with different filters can
// share an informer and sources with the same filters share the index.
func selectionOf(o Options, kind string, newIndexers func(informers.IndexOptions) cache.Indexers) (selection, error) {
	if err := o.Annotations.Validate(); err != nil {
		return selection{}, fmt.Errorf("%s source: %w", kind, err)
	}
	var opts informers.IndexOptions
	if o.AnnotationFilter != "" {
		sel, err := labels.Parse(o.AnnotationFilter)
		if err != nil {
			return selection{}, fmt.Errorf("%s source: annotation filter %q: %w", kind, o.AnnotationFilter, err)
		}
		opts.AnnotationFilter = sel
	}
	if o.LabelSelector != "" {
		sel, err := labels.Parse(o.LabelSelector)
		if err != nil {
			return selection{}, fmt.Errorf("%s source: label selector %q: %w", kind, o.LabelSelector, err)
		}
		opts.LabelSelector = sel
	}
	name := fmt.Sprintf("%s:%s|%s", informers.IndexName, o.AnnotationFilter, o.LabelSelector)
	return selection{indexName: name, indexers: cache.Indexers{name: newIndexers(opts)[informers.IndexName]}}, nil
}

// addTo adds the selection's index to informer unless it has it already.
func (s selection) addTo(informer cache.SharedIndexInformer) error {
	if _, ok := informer.GetIndexer().GetIndexers()[s.indexName]; ok {
		return nil
	}
	if err := informer.AddIndexers(s.indexers); err != nil {
		return fmt.Errorf("adding index %s: %w", s.indexName, err)
	}
	return nil
}

// annotationKeys returns the transform options that keep the annotations a
// source reads: its prefixes, and the keys its annotation filter names.
func annotationKeys(o Options, extra ...string) informers.TransformOptions {
	prefixes := o.Annotations.Prefixes
	if len(prefixes) == 0 {
		prefixes = annotations.DefaultPrefixes()
	}
	keys := append([]string(nil), extra...)
	if o.AnnotationFilter != "" {
		if reqs, err := labels.ParseToRequirements(o.AnnotationFilter); err == nil {
			for _, r := range reqs {
				keys = append(keys, r.Key())
			}
		}
	}
	return informers.TransformOptions{
		RemoveManagedFields: true,
		RemoveLastApplied:   true,
		DropAnnotations:     true, KeepAnnotationPrefixes: prefixes,
		KeepAnnotations: keys,
	}
}

// informerSet holds the informers of a source for readiness and events.
type informerSet []cache.SharedIndexInformer

// HasSynced reports whether every informer has synced.
func (s informerSet) HasSynced() bool {
	for _, inf := range s {
		if !inf.HasSynced() {
			return false
		}
	}
	return true
}

// WaitForSync blocks until every informer has synced or ctx is done; the
// error then names the list and watch errors of the informers the source
// tracks (see track).
func (s informerSet) WaitForSync(ctx context.Context) error {
	return informers.WaitForInformers(ctx, s...)
}

// tracked names an informer field of a source and its resource, for
// trackEach.
type tracked struct {
	inf      *cache.SharedIndexInformer
	resource string
}

// trackEach tracks each informer (see track), replacing it in its field.
func trackEach(ctx context.Context, kind string, infs ...tracked) error {
	for _, t := range infs {
		inf, err := track(ctx, kind, *t.inf, t.resource)
		if err != nil {
			return err
		}
		*t.inf = inf
	}
	return nil
}

// track makes inf, an informer of a factory the source named kind built
// for itself, report its list and watch errors ([informers.Track]): they
// are logged through the logger of ctx (with the key "source") instead of
// klog, and WaitForSync names them, under resource. A source does not
// track the informers of a factory it is given: their errors are the
// program's to handle.
func track(ctx context.Context, kind string, inf cache.SharedIndexInformer, resource string) (cache.SharedIndexInformer, error) {
	t, err := informers.Track(inf, resource, logr.FromContextOrDiscard(ctx).WithValues("source", kind))
	if err != nil {
		return nil, fmt.Errorf("%s source: %w", kind, err)
	}
	return t, nil
}

// AddEventHandler registers handler on every informer until ctx is done.
func (s informerSet) AddEventHandler(ctx context.Context, handler func()) {
	for _, inf := range s {
		informers.AddEventHandlerUntilDone(ctx, inf, informers.DefaultEventHandler(handler))
	}
}
