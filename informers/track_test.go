package informers_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/zonesync/zonesync/informers"
)

// lines is a logger's output.
type lines struct {
	mu  sync.Mutex
	all []string
}

func (l *lines) add(prefix, args string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, strings.TrimSpace(prefix+" "+args))
}

func (l *lines) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.all...)
}

func TestTrack(t *testing.T) {
	services := schema.GroupResource{Resource: "services"}
	tests := []struct {
		name    string
		listErr error // nil: the list succeeds
		// wantErr is what SyncErrors says, wantLog a part of the error line
		// logged ("" for no line).
		wantErr, wantLog string
	}{
		{
			name:    "forbidden",
			listErr: apierrors.NewForbidden(services, "", errors.New(`User "u" cannot list resource "services" in API group "" in the namespace "ns"`)),
			wantErr: `services: failed to list *v1.Service: services is forbidden: User "u" cannot list resource "services" in API group "" in the namespace "ns"` +
				` (the client's user needs the list and watch verbs on services)`,
			wantLog: `"msg"="listing or watching failed, retrying with backoff; the informer's cache is incomplete until it succeeds" "error"="failed to list *v1.Service: services is forbidden`,
		},
		{
			name:    "not found",
			listErr: apierrors.NewNotFound(services, ""),
			wantErr: `services: failed to list *v1.Service: services "" not found`,
			wantLog: `"resource"="services"`,
		},
		{name: "listed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			client := fake.NewClientset()
			if tt.listErr != nil {
				client.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, tt.listErr })
			}
			factory := k8sinformers.NewSharedInformerFactory(client, 0)
			var log lines
			tracked, err := informers.Track(factory.Core().V1().Services().Informer(), "services", funcr.New(log.add, funcr.Options{}))
			require.NoError(t, err)
			assert.Equal(t, "services", tracked.Resource())
			assert.NoError(t, tracked.LastError())
			require.EqualError(t, informers.SyncErrors(tracked), "services: no list or watch error reported", "before it starts")
			factory.Start(ctx.Done())

			if tt.listErr == nil {
				require.NoError(t, informers.WaitForInformers(ctx, tracked))
				assert.NoError(t, informers.SyncErrors(tracked))
				assert.NoError(t, tracked.LastError())
				assert.Empty(t, log.get())
				return
			}
			require.Eventually(t, func() bool { return tracked.LastError() != nil }, 10*time.Second, 5*time.Millisecond)
			assert.False(t, tracked.HasSynced())
			assert.EqualError(t, informers.SyncErrors(tracked), tt.wantErr)
			assert.Contains(t, strings.Join(log.get(), "\n"), tt.wantLog)

			// A cancelled wait says what failed and wraps the causes.
			done, stop := context.WithCancel(ctx)
			stop()
			err = informers.WaitForInformers(done, tracked)
			assert.EqualError(t, err, "informers: waiting for caches to sync: context canceled; not synced: "+tt.wantErr)
			assert.ErrorIs(t, err, context.Canceled)
			assert.ErrorIs(t, err, tt.listErr)
		})
	}
}

func TestTrackStartedOrUntracked(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory := k8sinformers.NewSharedInformerFactory(fake.NewClientset(), 0)
	inf := factory.Core().V1().Services().Informer()
	factory.Start(ctx.Done())
	require.NoError(t, informers.WaitForInformers(ctx, inf))
	_, err := informers.Track(inf, "services", funcr.New(func(string, string) {}, funcr.Options{}))
	require.ErrorContains(t, err, "informers: tracking the errors of services")

	// Informers not tracked are waited for, but not named.
	stopped := k8sinformers.NewSharedInformerFactory(fake.NewClientset(), 0).Core().V1().Pods().Informer()
	done, stop := context.WithCancel(ctx)
	stop()
	assert.NoError(t, informers.SyncErrors(stopped))
	assert.EqualError(t, informers.WaitForInformers(done, inf, stopped), "informers: waiting for caches to sync: context canceled")
}

// Track an informer the program owns, so that a failing list is logged
// through the program's logger and named when waiting for the cache
// fails. Here the list is refused, as RBAC refuses a user without rights.
func ExampleTrack() {
	client := fake.NewClientset()
	client.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, "", errors.New("no rights"))
	})
	factory := k8sinformers.NewSharedInformerFactory(client, 0)
	logger := funcr.New(func(_, args string) {}, funcr.Options{}) // the program's logger
	services, err := informers.Track(factory.Core().V1().Services().Informer(), "services", logger)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	factory.Start(ctx.Done())
	fmt.Println(informers.WaitForInformers(ctx, services))
	// Output:
	// informers: waiting for caches to sync: context deadline exceeded; not synced: services: failed to list *v1.Service: services is forbidden: no rights (the client's user needs the list and watch verbs on services)
}
