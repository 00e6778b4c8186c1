package crd_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry/crd"
)

const (
	testNS    = "dns"
	testOwner = "zonesync-test"
	testZone  = "example.com"
)

var gvr = crd.GroupVersionResource()

// kube is a fake API server for DNSRecords: client-go's fake dynamic
// client, which keeps no resource versions, UIDs, generations or status
// subresource of its own, given all four as the API server serving the
// CRD has them (every write gets a new resource version; a create starts
// at generation 1 without status; an update of the main resource keeps
// the stored status and bumps the generation when the spec changes; an
// update of the status subresource changes the status alone), and a
// signal for every watch it opens. Objects given to newKube are stored as
// given (with a resource version and a UID), status and generation
// included: they stand for what earlier writers left.
type kube struct {
	*dynamicfake.FakeDynamicClient
	rv      atomic.Int64
	mu      sync.Mutex
	watches map[string]int // watches opened, by namespace
	opened  chan struct{}  // closed and replaced when a watch opens
}

func newKube(t *testing.T, objs ...*unstructured.Unstructured) *kube {
	t.Helper()
	k := &kube{watches: map[string]int{}, opened: make(chan struct{})}
	in := make([]runtime.Object, 0, len(objs))
	for _, o := range objs {
		o = o.DeepCopy()
		k.stamp(o)
		in = append(in, o)
	}
	k.FakeDynamicClient = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "DNSRecordList"}, in...)
	tracker := k.Tracker()
	k.PrependReactor("create", crd.Resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
		u := a.(k8stesting.CreateAction).GetObject().(*unstructured.Unstructured)
		delete(u.Object, "status")
		u.SetGeneration(1)
		k.stamp(u)
		return false, nil, nil
	})
	k.PrependReactor("update", crd.Resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
		u := a.(k8stesting.UpdateAction).GetObject().(*unstructured.Unstructured)
		if stored, err := tracker.Get(gvr, a.GetNamespace(), u.GetName()); err == nil {
			k.subresource(u, stored.(*unstructured.Unstructured), a.GetSubresource() == "status")
		}
		k.stamp(u)
		return false, nil, nil
	})
	k.PrependWatchReactor(crd.Resource, func(a k8stesting.Action) (bool, watch.Interface, error) {
		w, err := tracker.Watch(gvr, a.GetNamespace())
		k.mu.Lock()
		k.watches[a.GetNamespace()]++
		close(k.opened)
		k.opened = make(chan struct{})
		k.mu.Unlock()
		return true, w, err
	})
	return k
}

func (k *kube) stamp(u *unstructured.Unstructured) {
	n := k.rv.Add(1)
	u.SetResourceVersion(strconv.FormatInt(n, 10))
	if u.GetUID() == "" {
		u.SetUID(types.UID("uid-" + strconv.FormatInt(n, 10)))
	}
}

// subresource makes u, an update of stored, what the API server would
// store: for a status update, stored with the status of u; otherwise u
// with the status of stored, its generation bumped when the spec changes.
func (k *kube) subresource(u, stored *unstructured.Unstructured, status bool) {
	if status {
		next := stored.DeepCopy()
		delete(next.Object, "status")
		if st, ok := u.Object["status"]; ok {
			next.Object["status"] = st
		}
		next.SetResourceVersion(u.GetResourceVersion())
		u.Object = next.Object
		return
	}
	delete(u.Object, "status")
	if st, ok := stored.Object["status"]; ok {
		u.Object["status"] = runtime.DeepCopyJSONValue(st)
	}
	gen := stored.GetGeneration()
	if !equality.Semantic.DeepEqual(u.Object["spec"], stored.Object["spec"]) {
		gen++
	}
	u.SetGeneration(gen)
}

// waitWatches waits until n watches of ns have opened: the fake delivers
// no event to an informer whose watch is not open yet.
func (k *kube) waitWatches(t *testing.T, ns string, n int) {
	t.Helper()
	guard := time.NewTimer(30 * time.Second)
	defer guard.Stop()
	for {
		k.mu.Lock()
		got, ch := k.watches[ns], k.opened
		k.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-ch:
		case <-guard.C:
			t.Fatalf("no watch of %s opened", ns)
		}
	}
}

// get returns the DNSRecord name of testNS, or nil.
func (k *kube) get(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	u, err := k.Resource(gvr).Namespace(testNS).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return u
}

// names lists the DNSRecords of testNS.
func (k *kube) names(t *testing.T) []string {
	t.Helper()
	list, err := k.Resource(gvr).Namespace(testNS).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	var out []string
	for _, u := range list.Items {
		out = append(out, u.GetName())
	}
	return out
}

// newRegistry builds a registry of owner over p and k in testNS and starts
// it until the test ends.
func newRegistry(t *testing.T, p provider.Provider, k *kube, owner string) *crd.Registry {
	t.Helper()
	reg, err := crd.New(p, k, crd.Config{OwnerID: owner, Namespace: testNS, CacheTimeout: 20 * time.Second})
	require.NoError(t, err)
	k.mu.Lock()
	before := k.watches[testNS]
	k.mu.Unlock()
	require.NoError(t, reg.Start(t.Context()))
	k.waitWatches(t, testNS, before+1)
	return reg
}

// dnsRecord returns a DNSRecord of owner for ep, named after it, with the
// Ready condition reason (none when "") and annotations.
func dnsRecord(owner string, ep *endpoint.Endpoint, reason string) *unstructured.Unstructured {
	spec := map[string]any{"dnsName": ep.DNSName, "recordType": ep.RecordType}
	if len(ep.Targets) > 0 {
		targets := make([]any, len(ep.Targets))
		for i, t := range ep.Targets {
			targets[i] = t
		}
		spec["targets"] = targets
	}
	if ep.SetIdentifier != "" {
		spec["setIdentifier"] = ep.SetIdentifier
	}
	if ep.RecordTTL != 0 {
		spec["recordTTL"] = int64(ep.RecordTTL)
	}
	if ep.Labels.Len() > 0 {
		labels := map[string]any{}
		for k, v := range ep.Labels.All() {
			labels[k] = v
		}
		spec["labels"] = labels
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": crd.Group + "/" + crd.Version,
		"kind":       crd.Kind,
		"metadata": map[string]any{
			"name":      crd.ObjectName(ep.DNSName, ep.RecordType, ep.SetIdentifier),
			"namespace": testNS,
			"labels":    map[string]any{crd.OwnerLabel: owner},
		},
		"spec": map[string]any{"endpoint": spec},
	}}
	if reason != "" {
		status := "False"
		if reason == crd.ReasonProgrammed {
			status = "True"
		}
		u.Object["status"] = map[string]any{"conditions": []any{map[string]any{
			"type": crd.ReadyCondition, "status": status, "reason": reason, "message": "",
			"lastTransitionTime": "2026-01-02T03:04:05Z",
		}}}
	}
	return u
}

// readyReason returns the reason of the Ready condition of u and its status.
func readyReason(u *unstructured.Unstructured) (reason, status string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == crd.ReadyCondition {
			r, _ := m["reason"].(string)
			s, _ := m["status"].(string)
			return r, s
		}
	}
	return "", ""
}

// specOf returns spec.endpoint of u as an endpoint (labels included).
func specOf(t *testing.T, u *unstructured.Unstructured) *endpoint.Endpoint {
	t.Helper()
	m, found, err := unstructured.NestedMap(u.Object, "spec", "endpoint")
	require.NoError(t, err)
	require.True(t, found, "spec.endpoint of %s", u.GetName())
	ep := &endpoint.Endpoint{}
	ep.DNSName, _ = m["dnsName"].(string)
	ep.RecordType, _ = m["recordType"].(string)
	ep.SetIdentifier, _ = m["setIdentifier"].(string)
	if ttl, ok := m["recordTTL"].(int64); ok {
		ep.RecordTTL = endpoint.TTL(ttl)
	}
	if ts, ok := m["targets"].([]any); ok {
		for _, x := range ts {
			ep.Targets = append(ep.Targets, fmt.Sprint(x))
		}
	}
	if ls, ok := m["labels"].(map[string]any); ok {
		for k, v := range ls {
			ep.Labels.Set(k, fmt.Sprint(v))
		}
	}
	return ep
}

// a returns an A record of testZone with TTL 300.
func a(name string, targets ...string) *endpoint.Endpoint {
	return endpoint.NewEndpointWithTTL(name+"."+testZone, endpoint.RecordTypeA, 300, targets...)
}

// ownerOf returns the owner label of ep.
func ownerOf(ep *endpoint.Endpoint) string {
	o, _ := ep.Labels.Get(endpoint.OwnerLabelKey)
	return o
}

// find returns the record of recs with the key of want, or nil.
func find(recs []*endpoint.Endpoint, want *endpoint.Endpoint) *endpoint.Endpoint {
	for _, r := range recs {
		if r.Key() == want.Key() {
			return r
		}
	}
	return nil
}
