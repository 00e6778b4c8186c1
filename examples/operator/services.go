package main

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	k8sinformers "k8s.io/client-go/informers"
	k8sclient "k8s.io/client-go/kubernetes"

	"github.com/zonesync/zonesync/informers"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// newServiceSource returns zonesync's Service source over client and the
// informer factory it reads from. Nothing runs yet: start the factory
// (startInformers) once every informer user has registered.
//
// The order is the one of package informers: the transform first (the
// source sets none on a factory it is given, since an operator's factory
// is usually shared), then the source adds its index, then handlers are
// registered (registerEvents), then the factory starts.
func newServiceSource(client k8sclient.Interface, resync time.Duration) (*kubernetes.ServiceSource, k8sinformers.SharedInformerFactory, error) {
	factory := k8sinformers.NewSharedInformerFactory(client, resync)
	informers.MustSetTransform(factory.Core().V1().Services().Informer(),
		informers.TransformerWithOptions[*corev1.Service](informers.TransformOptions{
			RemoveManagedFields: true,
			RemoveLastApplied:   true,
			DropAnnotations:     true, KeepAnnotationPrefixes: annotations.DefaultPrefixes(),
		}))
	src, err := kubernetes.NewServiceSource(context.Background(), client, kubernetes.ServiceConfig{Factory: factory})
	if err != nil {
		return nil, nil, fmt.Errorf("creating the Service source: %w", err)
	}
	return src, factory, nil
}

// startInformers starts factory and stops it when ctx is done; it is run
// by the manager.
func startInformers(factory k8sinformers.SharedInformerFactory) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		factory.Start(ctx.Done())
		<-ctx.Done()
		factory.Shutdown()
		return nil
	}
}
