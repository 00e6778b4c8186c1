package kubernetes

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/zonesync/zonesync/informers"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/fqdn"
)

// IngressClassAnnotation is the annotation that named an Ingress's class
// before spec.ingressClassName existed.
const IngressClassAnnotation = "kubernetes.io/ingress.class"

// Options are the settings every source of this package shares.
type Options struct {
	// Namespace limits the source to one namespace; empty means all.
	Namespace string
	// AnnotationFilter selects objects by their annotations with label
	// selector syntax, e.g. "dns in (public)" (external-dns's
	// --annotation-filter). Empty selects all.
	AnnotationFilter string
	// LabelSelector selects objects by their labels (--label-filter).
	// Empty selects all.
	LabelSelector string
	// FQDNTemplate gives host names for objects without a hostname
	// annotation (see [fqdn.CombineHostnames]); the typed object (or the
	// unstructured object's map) is its data. Nil for none.
	FQDNTemplate *fqdn.Template
	// CombineFQDN adds the template's names to the annotated ones
	// (--combine-fqdn-annotation).
	CombineFQDN bool
	// Annotations says which annotation prefixes are read and which
	// controller name marks an object as ours.
	Annotations annotations.Config
	// ResyncPeriod is the informers' resync period; zero disables resyncs.
	// It is used only when the source builds its own informer factory.
	ResyncPeriod time.Duration
}

// selection is the parsed form of the filters of Options.
type selection struct {
	indexName string
	indexers  cache.Indexers
}

// parse checks o and returns the index that selects its objects. The index
// name includes the filters, so that sources with different filters can
// share an informer and sources with the same filters share the index.
func (o Options) parse(kind string, newIndexers func(informers.IndexOptions) cache.Indexers) (selection, error) {
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
func (o Options) annotationKeys(extra ...string) informers.TransformOptions {
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

// WaitForSync blocks until every informer has synced or ctx is done.
func (s informerSet) WaitForSync(ctx context.Context) error {
	synced := make([]cache.InformerSynced, len(s))
	for i, inf := range s {
		synced[i] = inf.HasSynced
	}
	return informers.WaitForCacheSync(ctx, synced...)
}

// AddEventHandler registers handler on every informer until ctx is done.
func (s informerSet) AddEventHandler(ctx context.Context, handler func()) {
	for _, inf := range s {
		informers.AddEventHandlerUntilDone(ctx, inf, informers.DefaultEventHandler(handler))
	}
}

// hostnames returns the host names of an object from its annotations and
// the template, as external-dns does.
func (o Options) hostnames(ann annotations.Values, obj source.ObjectRef, data any) ([]string, error) {
	return fqdn.CombineHostnames(ann.Hostnames, o.FQDNTemplate, o.CombineFQDN, obj, data)
}
