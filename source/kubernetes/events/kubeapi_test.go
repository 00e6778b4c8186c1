package events_test

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sclient "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/internal/kubetest"
	"github.com/zonesync/zonesync/internal/kubetest/kubedrive"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source/kubernetes"
	"github.com/zonesync/zonesync/source/kubernetes/events"
)

// TestEventsOnAPIServer and its helpers run the Observer with client-go's
// event broadcaster against a real kube-apiserver (package kubetest).
var kube kubetest.Shared

func TestMain(m *testing.M) { os.Exit(kube.Main(m)) }

// recorder returns a recorder writing Events to the API server (core/v1,
// as record.EventRecorder does) until the test ends.
func recorder(t *testing.T, client k8sclient.Interface) record.EventRecorder {
	t.Helper()
	b := record.NewBroadcaster(record.WithContext(t.Context()))
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	t.Cleanup(b.Shutdown)
	return b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "zonesync"})
}

// zonesyncReason reports whether reason is one the Observer writes. The
// API server writes Events of its own on the same objects (a Service may
// get "Warning ClusterIPNotAllocated ... repairing" from its IP allocation
// repair loop, seen on loaded machines); the tests look at the Observer's
// Events only.
func zonesyncReason(reason string) bool {
	switch reason {
	case events.ReasonRecordReady, events.ReasonRecordDeleted, events.ReasonRecordError:
		return true
	}
	return false
}

// eventLines returns the Observer's Events of the namespace
// ([zonesyncReason]) as "type reason regarding: note" read through
// events.k8s.io/v1 (the Observer writes core/v1 Events; the API server
// serves both), sorted, with each regarding object checked to name a
// Service of the namespace and each Event checked to come from the
// recorder's component.
func eventLines(t *testing.T, o *kubedrive.Objects, client k8sclient.Interface) []string {
	t.Helper()
	list, err := client.EventsV1().Events(o.Namespace).List(o.Ctx, metav1.ListOptions{})
	require.NoError(t, err)
	var out []string
	for _, e := range list.Items {
		if !zonesyncReason(e.Reason) {
			continue
		}
		out = append(out, line(e))
		assert.Equal(t, o.Namespace, e.Regarding.Namespace, "%s", line(e))
		assert.Equal(t, "v1", e.Regarding.APIVersion, "%s", line(e))
		assert.Equal(t, "zonesync", e.DeprecatedSource.Component, "%s", line(e))
	}
	slices.Sort(out)
	return out
}

func line(e eventsv1.Event) string {
	return e.Type + " " + e.Reason + " " + e.Regarding.Kind + "/" + e.Regarding.Name + ": " + e.Note
}

// TestEventsOnAPIServer runs cycles over the Service source with the
// Observer recording on a real API server and reads the Events back: a
// record created, one the provider rejects, one deleted.
func TestEventsOnAPIServer(t *testing.T) {
	o := kubedrive.New(t, &kube)
	client, err := k8sclient.NewForConfig(o.Env.Config())
	require.NoError(t, err)
	for _, svc := range []struct{ name, ip string }{{"web", "192.0.2.1"}, {"bad", "192.0.2.3"}} {
		o.Create(kubedrive.Services, `
metadata: {name: `+svc.name+`, annotations: {external-dns.kubernetes.io/hostname: `+svc.name+`.example.com}}
spec: {type: LoadBalancer, allocateLoadBalancerNodePorts: false, ports: [{port: 80}]}
status: {loadBalancer: {ingress: [{ip: `+svc.ip+`}]}}
`)
	}
	src, err := kubernetes.NewServiceSource(o.Ctx, client, kubernetes.ServiceConfig{Options: kubernetes.Options{Namespace: o.Namespace}})
	require.NoError(t, err)
	require.NoError(t, src.WaitForSync(o.Ctx))

	reg, err := txt.New(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), txt.Config{OwnerID: "events"})
	require.NoError(t, err)
	obs, err := events.New(recorder(t, client), events.Options{})
	require.NoError(t, err)
	rec := &zonesync.Reconciler{
		Source:   src,
		Registry: rejecting{reg, "bad.example.com"},
		Observer: obs,
	}
	_, err = rec.RunOnce(o.Ctx)
	require.ErrorContains(t, err, "quota exceeded")
	kubedrive.Eventually(t, "Events after the first cycle", []string{
		"Normal RecordReady Service/web: Created record:web.example.com,type:A,ttl:0,targets:192.0.2.1",
		"Warning RecordError Service/bad: Created record:bad.example.com,type:A,ttl:0,targets:192.0.2.3: quota exceeded",
	}, func() []string { return eventLines(t, o, client) })

	o.Delete(kubedrive.Services, "web")
	kubedrive.Eventually(t, "endpoints", []string{"bad.example.com 0 IN A  192.0.2.3 service/" + o.Namespace + "/bad"}, func() []string {
		eps, _ := src.Endpoints(o.Ctx)
		return kubedrive.Render(eps)
	})
	_, err = rec.RunOnce(o.Ctx)
	require.ErrorContains(t, err, "quota exceeded")
	kubedrive.Eventually(t, "Events after the Service was deleted", []string{
		"Normal RecordDeleted Service/web: Deleted record:web.example.com,type:A,ttl:0,targets:192.0.2.1",
		"Normal RecordReady Service/web: Created record:web.example.com,type:A,ttl:0,targets:192.0.2.1",
		"Warning RecordError Service/bad: Created record:bad.example.com,type:A,ttl:0,targets:192.0.2.3: quota exceeded",
	}, func() []string { return eventLines(t, o, client) })
}

// TestEventsFoundByObject: kubectl describe finds an object's Events by
// its UID as well as its kind, namespace and name. The resource keys of
// records carry no UID, so the Events of the DefaultResolver are not found
// that way; a Resolver that looks the object up (here with a Get; an
// operator would use its informer cache) makes them found.
func TestEventsFoundByObject(t *testing.T) {
	for _, tt := range []struct {
		name     string
		resolver func(client k8sclient.Interface) events.Resolver
		// found is whether a search by the Service (with its UID, as
		// kubectl describe searches) finds the Event.
		found bool
	}{
		{name: "default resolver", resolver: func(k8sclient.Interface) events.Resolver { return events.DefaultResolver }},
		{name: "resolver with UIDs", found: true, resolver: func(client k8sclient.Interface) events.Resolver {
			return func(resource string) (*corev1.ObjectReference, bool) {
				ref, ok := events.DefaultResolver(resource)
				if !ok || ref.Kind != "Service" {
					return ref, ok
				}
				got, err := client.CoreV1().Services(ref.Namespace).Get(context.Background(), ref.Name, metav1.GetOptions{})
				if err == nil {
					ref.UID = got.UID
				}
				return ref, true
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := kubedrive.New(t, &kube)
			client, err := k8sclient.NewForConfig(o.Env.Config())
			require.NoError(t, err)
			o.Create(kubedrive.Services, `
metadata: {name: web, annotations: {external-dns.kubernetes.io/hostname: web.example.com}}
spec: {type: LoadBalancer, allocateLoadBalancerNodePorts: false, ports: [{port: 80}]}
status: {loadBalancer: {ingress: [{ip: 192.0.2.1}]}}
`)
			// An Event the API server's IP allocation repair loop writes on
			// a Service under load, which made this test flaky: it names
			// the Service with its UID, so the search below finds it.
			svc, err := client.CoreV1().Services(o.Namespace).Get(o.Ctx, "web", metav1.GetOptions{})
			require.NoError(t, err)
			_, err = client.CoreV1().Events(o.Namespace).Create(o.Ctx, &corev1.Event{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "web."},
				InvolvedObject: corev1.ObjectReference{Kind: "Service", APIVersion: "v1", Namespace: o.Namespace, Name: "web",
					UID: svc.UID, ResourceVersion: svc.ResourceVersion},
				Type: corev1.EventTypeWarning, Reason: "ClusterIPNotAllocated",
				Message:        "Cluster IP [IPv4]: 10.0.0.1 is not allocated; repairing",
				Source:         corev1.EventSource{Component: "ipallocator-repair-controller"},
				FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(), Count: 1,
			}, metav1.CreateOptions{})
			require.NoError(t, err)

			src, err := kubernetes.NewServiceSource(o.Ctx, client, kubernetes.ServiceConfig{Options: kubernetes.Options{Namespace: o.Namespace}})
			require.NoError(t, err)
			require.NoError(t, src.WaitForSync(o.Ctx))
			reg, err := txt.New(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), txt.Config{OwnerID: "events"})
			require.NoError(t, err)
			obs, err := events.New(recorder(t, client), events.Options{Resolver: tt.resolver(client)})
			require.NoError(t, err)
			rec := &zonesync.Reconciler{Source: src, Registry: reg, Observer: obs}
			_, err = rec.RunOnce(o.Ctx)
			require.NoError(t, err)
			kubedrive.Eventually(t, "Events", []string{
				"Normal RecordReady Service/web: Created record:web.example.com,type:A,ttl:0,targets:192.0.2.1",
			}, func() []string { return eventLines(t, o, client) })

			found, err := client.CoreV1().Events(o.Namespace).Search(scheme.Scheme, svc)
			require.NoError(t, err)
			// The API server's own Events on the Service, which carry its
			// UID, are found either way: only the Observer's count.
			require.True(t, slices.ContainsFunc(found.Items, func(e corev1.Event) bool { return e.Reason == "ClusterIPNotAllocated" }),
				"the API server's kind of Event is found by the search")
			ours := slices.DeleteFunc(found.Items, func(e corev1.Event) bool { return !zonesyncReason(e.Reason) })
			if !tt.found {
				assert.Empty(t, ours)
				return
			}
			require.Len(t, ours, 1)
			assert.Equal(t, svc.UID, ours[0].InvolvedObject.UID)
			assert.Equal(t, events.ReasonRecordReady, ours[0].Reason)
			assert.Equal(t, "zonesync", ours[0].Source.Component)
		})
	}
}
