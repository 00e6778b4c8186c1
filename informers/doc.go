// Package informers holds small helpers for client-go shared informers: a
// transformer that slims the objects an informer caches, indexers that
// select objects by annotation filter, label selector or a label's value,
// and typed list and get helpers over the resulting caches.
//
// # Order
//
// A shared informer accepts a transform and indexers only before it runs,
// so set things up in this order:
//
//  1. transform: [MustSetTransform] with [TransformerWithOptions];
//  2. indexers: [MustAddIndexers] with [IndexerWithOptions];
//  3. event handlers: [AddEventHandlerUntilDone] with [DefaultEventHandler];
//  4. start the informer (or its factory), then wait with [WaitForCacheSync].
//
// To learn why an informer has not synced (a list refused by RBAC, a
// resource the server does not serve), [Track] it before it starts: its
// list and watch errors go to a logr logger instead of klog, and
// [WaitForInformers] names them when it gives up.
//
// MustSetTransform panics when called after start, and MustAddIndexers when
// an index name is taken: programming errors which a test run finds at
// once. (Indexers added after start work, but they make the informer index
// its whole cache again while it runs.) Event handlers may
// be added at any time; AddEventHandlerUntilDone logs a failure (through
// the logger of its context) and removes the handler when its context is
// done.
//
// # Memory
//
// Objects in an informer cache stay in memory for the life of the process.
// managedFields and the kubectl last-applied-configuration annotation often
// make up most of an object's size and are never read by a DNS controller;
// [TransformOptions.RemoveManagedFields] and
// [TransformOptions.RemoveLastApplied] drop them before the object is
// stored. Every constructor takes one options struct whose zero value
// changes nothing. The benchmark BenchmarkServiceCacheMemory measures the saving
// (docs/benchmarks.md, "Informer cache memory").
package informers
