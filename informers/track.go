package informers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
)

// Tracked is an informer that remembers the last error its reflector met
// listing or watching its resource, so that a program waiting for it can
// say why it has not synced (see [WaitForInformers]). It is the informer
// it wraps in every other respect.
type Tracked struct {
	cache.SharedIndexInformer
	resource string

	mu   sync.Mutex
	last error
}

// Track sets a watch error handler on informer and returns it as a
// [*Tracked]. client-go's reflector retries every failed list or watch
// with a backoff and, by default, only logs the failure to klog; the
// handler keeps the error for [Tracked.LastError] and logs it through
// logger instead, with the key "resource" set to resource (the name the
// error should use, such as "services" or "gateways.networking.istio.io").
// A list or watch that is refused or fails is logged as an error; a watch
// that ends because its resource version expired or its connection
// closed (which the reflector repairs by listing again) at V(1).
//
// Set the handler before the informer starts: Track fails on an informer
// that has started. It replaces any handler set before, so use it only on
// informers the caller owns (not on those of a factory shared with the
// rest of a program, which may have set its own).
func Track(informer cache.SharedIndexInformer, resource string, logger logr.Logger) (*Tracked, error) {
	t := &Tracked{SharedIndexInformer: informer, resource: resource}
	err := informer.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		switch {
		case errors.Is(err, io.EOF):
			// The watch ended normally; the reflector watches again.
			return
		case apierrors.IsResourceExpired(err), apierrors.IsGone(err), errors.Is(err, io.ErrUnexpectedEOF):
			logger.V(1).Info("watch ended, listing again", "resource", resource, "reason", err.Error())
		default:
			logger.Error(err, "listing or watching failed, retrying with backoff; the informer's cache is incomplete until it succeeds", "resource", resource)
		}
		t.mu.Lock()
		t.last = err
		t.mu.Unlock()
	})
	if err != nil {
		return nil, fmt.Errorf("informers: tracking the errors of %s: %w", resource, err)
	}
	return t, nil
}

// Resource returns the name of the informer's resource given to [Track].
func (t *Tracked) Resource() string { return t.resource }

// LastError returns the last error the informer's reflector met listing
// or watching, nil when there was none. An error stays until the next one:
// whether the informer has synced since is HasSynced's to say.
func (t *Tracked) LastError() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

// SyncErrors says why the informers of infs that were tracked ([Track])
// have not synced: for each, in the order of infs, its last error prefixed
// with its resource, or that it reported none. A refused list (HTTP 403)
// gets a hint on what to grant. It returns nil when every tracked informer
// has synced.
//
// Not every failure reaches the handler: client-go's streaming lists
// (WatchListClient, on by default) retry a server that cannot be reached
// inside the reflector, so such an informer reports no error, only that
// it has not synced.
func SyncErrors(infs ...cache.SharedIndexInformer) error {
	var errs []error
	for _, inf := range infs {
		t, ok := inf.(*Tracked)
		if !ok || t.HasSynced() {
			continue
		}
		err := t.LastError()
		switch {
		case err == nil:
			err = fmt.Errorf("%s: no list or watch error reported", t.resource)
		case apierrors.IsForbidden(err):
			err = fmt.Errorf("%s: %w (the client's user needs the list and watch verbs on %s)", t.resource, err, t.resource)
		default:
			err = fmt.Errorf("%s: %w", t.resource, err)
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil
	}
	return joined(errs)
}

// joined is errors.Join on one line: the errors separated by "; ".
type joined []error

func (j joined) Error() string {
	parts := make([]string, len(j))
	for i, err := range j {
		parts[i] = err.Error()
	}
	return strings.Join(parts, "; ")
}

func (j joined) Unwrap() []error { return j }

// WaitForInformers waits until every informer of infs has synced or ctx is
// done. Then the error wraps ctx's cause and, when some of the informers
// that have not synced were tracked ([Track]), [SyncErrors]: which
// resources are missing and what was refused or not found.
func WaitForInformers(ctx context.Context, infs ...cache.SharedIndexInformer) error {
	synced := make([]cache.InformerSynced, len(infs))
	for i, inf := range infs {
		synced[i] = inf.HasSynced
	}
	err := WaitForCacheSync(ctx, synced...)
	if err == nil {
		return nil
	}
	if why := SyncErrors(infs...); why != nil {
		return fmt.Errorf("%w; not synced: %w", err, why)
	}
	return err
}
