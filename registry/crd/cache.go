package crd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/zonesync/zonesync/informers"
)

// ErrNotStarted is matched by the error of Records and ApplyChanges on a
// [Registry] whose Start has not returned successfully.
var ErrNotStarted = errors.New("crd registry: not started: call Start first")

// ErrStopped is matched by the error of Records and ApplyChanges once the
// context given to Start has ended.
var ErrStopped = errors.New("crd registry: stopped: the context given to Start has ended")

// requiredAccess says what the registry's ServiceAccount needs, for errors.
const requiredAccess = "the registry needs a Role in that namespace granting get, list, watch, create, update and delete on " +
	Resource + " and update on " + Resource + "/status (apiGroups: [" + Group + "])"

// accessError explains err, a Forbidden or NotFound answer of the API
// server to verb on the DNSRecord resource in ns, or returns nil for other
// errors.
func accessError(err error, verb, ns string) error {
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("crd registry: the API server forbids %s %s.%s in namespace %q: %s: %w",
			verb, Resource, Group, ns, requiredAccess, err)
	case apierrors.IsNotFound(err) && verb == "listing and watching":
		return fmt.Errorf("crd registry: the API server does not serve %s.%s/%s: install the CustomResourceDefinition (crd.CustomResourceDefinitionYAML()): %w",
			Resource, Group, Version, err)
	}
	return nil
}

// recordCache is the informer over the registry's DNSRecord objects (its
// namespace, its owner label), holding *object values.
type recordCache struct {
	informer cache.SharedIndexInformer
	ns       string
	done     <-chan struct{} // closed when the informer stops
	stop     context.CancelFunc

	mu      sync.Mutex
	changed chan struct{} // closed, and replaced, on every event
}

// newRecordCache builds the informer; it does not start it.
func newRecordCache(client dynamic.Interface, ns, owner string) (*recordCache, error) {
	selector := labels.Set{OwnerLabel: owner}.AsSelector().String()
	inf := dynamicinformer.NewFilteredDynamicInformer(client, GroupVersionResource(), ns, 0, cache.Indexers{},
		func(o *metav1.ListOptions) { o.LabelSelector = selector }).Informer()
	if err := inf.SetTransform(toObject); err != nil {
		return nil, err
	}
	c := &recordCache{informer: inf, ns: ns, changed: make(chan struct{})}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.signal() },
		UpdateFunc: func(any, any) { c.signal() },
		DeleteFunc: func(any) { c.signal() },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *recordCache) signal() {
	c.mu.Lock()
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// changes returns a channel closed at the next event.
func (c *recordCache) changes() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// stopped reports whether the informer has stopped.
func (c *recordCache) stopped() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// get returns the cached object called name, or nil.
func (c *recordCache) get(name string) *object {
	v, ok, err := c.informer.GetStore().GetByKey(c.ns + "/" + name)
	if err != nil || !ok {
		return nil
	}
	o, _ := v.(*object)
	return o
}

// objects returns the cached objects of owner, by name.
func (c *recordCache) objects(owner string) map[string]*object {
	items := c.informer.GetStore().List()
	out := make(map[string]*object, len(items))
	for _, v := range items {
		// The server selects by the owner label; a client that does not (a
		// fake) is filtered here: another owner's object grants nothing.
		if o, ok := v.(*object); ok && o.owner == owner {
			out[o.Name] = o
		}
	}
	return out
}

// errCacheTimeout ends the wait of start after Config.CacheTimeout.
var errCacheTimeout = errors.New("timed out")

// start runs the informer until ctx ends and waits, at most
// Config.CacheTimeout, for its first list. A list or watch the API server
// forbids, or a resource it does not serve, ends the wait at once with an
// error saying what to do. The informer's list and watch errors are
// tracked and logged by informers.Track.
func (c *recordCache) start(ctx context.Context, cfg Config) error {
	tracked, err := informers.Track(c.informer, Resource+"."+Group, logr.FromContextOrDiscard(ctx))
	if err != nil {
		return fmt.Errorf("crd registry: %w", err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	c.stop = cancel
	done := make(chan struct{})
	c.done = done
	go func() {
		defer close(done)
		c.informer.RunWithContext(runCtx)
	}()

	waitCtx, stopWait := context.WithCancelCause(runCtx)
	defer stopWait(nil)
	timer := cfg.Clock.NewTimer(cfg.CacheTimeout)
	defer timer.Stop()
	go func() {
		select {
		case <-timer.C():
			stopWait(errCacheTimeout)
		case <-waitCtx.Done():
		}
	}()
	var fatal struct {
		sync.Mutex
		err error
	}
	ready := func() bool {
		if c.informer.HasSynced() {
			return true
		}
		if e := accessError(tracked.LastError(), "listing and watching", c.ns); e != nil {
			fatal.Lock()
			fatal.err = e
			fatal.Unlock()
			return true
		}
		return false
	}
	err = informers.WaitForCacheSync(waitCtx, ready)
	fatal.Lock()
	if fatal.err != nil {
		err = fatal.err
	}
	fatal.Unlock()
	switch {
	case err == nil:
		return nil
	case errors.Is(context.Cause(waitCtx), errCacheTimeout):
		err = fmt.Errorf("crd registry: the first list of %s in namespace %q did not complete within %v (Config.CacheTimeout); last error: %v",
			Resource, c.ns, cfg.CacheTimeout, tracked.LastError())
	case ctx.Err() != nil:
		err = fmt.Errorf("crd registry: waiting for the first list of %s in namespace %q: %w", Resource, c.ns, ctx.Err())
	}
	cancel()
	<-done
	return err
}

// pendingWrite is what ApplyChanges wrote to one object, for Records to
// wait until the cache shows it.
type pendingWrite struct {
	// older are the resource versions the object had before, and between,
	// the writes: the cache still holding one of them lags.
	older []string
	// last is the resource version the last write gave ("" after a
	// delete, or from a client that keeps none).
	last string
	// gone: the last write deleted the object.
	gone bool
}

// shows reports whether o, the cached object (nil: none), reflects w.
func (w *pendingWrite) shows(o *object) bool {
	if o == nil {
		return w.gone
	}
	return !slices.Contains(w.older, o.ResourceVersion)
}

// waitFor waits until the cache shows every write of pending, ctx ends or
// the timer fires. It returns the names whose writes it did not see, sorted.
func (c *recordCache) waitFor(ctx context.Context, pending map[string]*pendingWrite, timeout <-chan time.Time) []string {
	for {
		ch := c.changes()
		var lagging []string
		for name, w := range pending {
			if !w.shows(c.get(name)) {
				lagging = append(lagging, name)
			}
		}
		if len(lagging) == 0 {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			slices.Sort(lagging)
			return lagging
		case <-timeout:
			slices.Sort(lagging)
			return lagging
		case <-c.done:
			slices.Sort(lagging)
			return lagging
		}
	}
}

// names joins up to a few names for a log line.
func names(list []string) string {
	const shown = 5
	if len(list) <= shown {
		return strings.Join(list, ", ")
	}
	return strings.Join(list[:shown], ", ") + fmt.Sprintf(" and %d more", len(list)-shown)
}
