package crd_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/crd"
)

// journal records, in order, the writes to DNSRecords and the provider's
// ApplyChanges calls.
type journal struct {
	mu      sync.Mutex
	entries []string
}

func (j *journal) add(s string) {
	j.mu.Lock()
	j.entries = append(j.entries, s)
	j.mu.Unlock()
}

func (j *journal) take() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := j.entries
	j.entries = nil
	return out
}

// record makes j record every write to k's DNSRecords: "create <name>",
// "update <name>", "status <name> <reason>", "delete <name>".
func (j *journal) record(k *kube) {
	k.PrependReactor("*", crd.Resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
		switch a.GetVerb() {
		case "create":
			j.add("create " + a.(k8stesting.CreateAction).GetObject().(*unstructured.Unstructured).GetName())
		case "update":
			u := a.(k8stesting.UpdateAction).GetObject().(*unstructured.Unstructured)
			if a.GetSubresource() == "status" {
				reason, _ := readyReason(u)
				j.add("status " + u.GetName() + " " + reason)
			} else {
				j.add("update " + u.GetName())
			}
		case "delete":
			j.add("delete " + a.(k8stesting.DeleteAction).GetName())
		}
		return false, nil, nil
	})
}

// provider returns p recording its ApplyChanges calls as "provider
// create=<names> update=<names> delete=<names>".
func (j *journal) provider(p provider.Provider, fail func(*plan.Changes) error) provider.Provider {
	return providertest.Intercept(p, providertest.Funcs{ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
		list := func(eps []*endpoint.Endpoint) string {
			var names []string
			for _, e := range eps {
				names = append(names, e.DNSName)
			}
			return strings.Join(names, ",")
		}
		j.add(fmt.Sprintf("provider create=%s update=%s delete=%s", list(c.Create), list(c.UpdateNew), list(c.Delete)))
		if fail != nil {
			if err := fail(c); err != nil {
				return err
			}
		}
		return next.ApplyChanges(ctx, c)
	}})
}

func objName(name string) string { return crd.ObjectName(name+"."+testZone, "A", "") }

// Intent first: the DNSRecord of a create exists, Accepted, before the
// provider is called; it is Programmed after. Deletes go to the provider
// first.
func TestApplyChangesOrder(t *testing.T) {
	ctx := t.Context()
	j := &journal{}
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	k := newKube(t)
	reg := newRegistry(t, j.provider(zone, nil), k, testOwner)
	j.record(k)

	_, err := reg.Records(ctx)
	require.NoError(t, err)
	app := a("app", "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/default/app")
	require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{app}}))
	assert.Equal(t, []string{
		"create " + objName("app"),
		"status " + objName("app") + " Accepted",
		"provider create=app.example.com update= delete=",
		"status " + objName("app") + " Programmed",
	}, j.take())

	u := k.get(t, objName("app"))
	require.NotNil(t, u)
	assert.Equal(t, map[string]string{crd.OwnerLabel: testOwner}, u.GetLabels())
	spec := specOf(t, u)
	assert.Equal(t, "app.example.com", spec.DNSName)
	assert.Equal(t, endpoint.Targets{"192.0.2.1"}, spec.Targets)
	assert.Equal(t, endpoint.TTL(300), spec.RecordTTL)
	assert.Equal(t, map[string]string{endpoint.OwnerLabelKey: testOwner, endpoint.ResourceLabelKey: "service/default/app"},
		labelMap(spec), "the owner label is stamped on the endpoint")
	assert.False(t, app.Labels.Len() != 1, "the caller's endpoint is not modified")

	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	old := recs[0]
	require.Equal(t, testOwner, ownerOf(old))
	moved := old.DeepCopy()
	moved.Targets = endpoint.Targets{"192.0.2.2"}
	require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{old}, UpdateNew: []*endpoint.Endpoint{moved}}))
	assert.Equal(t, []string{
		"update " + objName("app"),
		"status " + objName("app") + " Accepted",
		"provider create= update=app.example.com delete=",
		"status " + objName("app") + " Programmed",
	}, j.take())
	u = k.get(t, objName("app"))
	assert.Equal(t, endpoint.Targets{"192.0.2.2"}, specOf(t, u).Targets)
	assert.JSONEq(t, `{"dnsName":"app.example.com","targets":["192.0.2.1"],"recordType":"A","recordTTL":300,`+
		`"labels":{"owner":"zonesync-test","resource":"service/default/app"}}`,
		u.GetAnnotations()[crd.PreviousEndpointAnnotation], "the data before the update")

	recs, err = reg.Records(ctx)
	require.NoError(t, err)
	require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Delete: recs}))
	assert.Equal(t, []string{
		"provider create= update= delete=app.example.com",
		"delete " + objName("app"),
	}, j.take())
	assert.Empty(t, k.names(t))
	recs, err = reg.Records(ctx)
	require.NoError(t, err)
	assert.Empty(t, recs)
}

// Updates and deletes of records not ours are refused, and nothing is
// written, not even the changes that are ours.
func TestApplyChangesRefusesRecordsNotOwned(t *testing.T) {
	ctx := t.Context()
	j := &journal{}
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}, Records: []*endpoint.Endpoint{a("theirs", "192.0.2.1")}})
	k := newKube(t)
	reg := newRegistry(t, j.provider(zone, nil), k, testOwner)
	j.record(k)
	theirs := a("theirs", "192.0.2.1").WithLabel(endpoint.OwnerLabelKey, "someone-else")
	unowned := a("theirs", "192.0.2.1")
	moved := a("theirs", "192.0.2.2")
	err := reg.ApplyChanges(ctx, &plan.Changes{
		Create:    []*endpoint.Endpoint{a("new", "192.0.2.3")},
		UpdateOld: []*endpoint.Endpoint{theirs}, UpdateNew: []*endpoint.Endpoint{moved},
		Delete: []*endpoint.Endpoint{unowned},
	})
	require.ErrorIs(t, err, registry.ErrNotOwned)
	assert.ErrorContains(t, err, `update theirs.example.com/A (owner "someone-else")`)
	assert.ErrorContains(t, err, `delete theirs.example.com/A (owner "")`)
	assert.Empty(t, j.take(), "nothing written")
}

// A DNSRecord of another owner at the name refuses the create: the record
// is not created, the other changes are.
func TestApplyChangesObjectOfAnotherOwner(t *testing.T) {
	ctx := t.Context()
	j := &journal{}
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	k := newKube(t, dnsRecord("someone-else", a("taken", "192.0.2.1"), crd.ReasonAccepted))
	reg := newRegistry(t, j.provider(zone, nil), k, testOwner)
	j.record(k)
	err := reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("free", "192.0.2.2"), a("taken", "192.0.2.3")}})
	require.Error(t, err)
	assert.ErrorContains(t, err, "create taken.example.com/A not applied: the DNSRecord is not ours: DNSRecord "+
		testNS+"/"+objName("taken")+` belongs to owner "someone-else"`)
	assert.Equal(t, []string{
		"create " + objName("free"),
		"create " + objName("taken"),
		"status " + objName("free") + " Accepted",
		"provider create=free.example.com update= delete=",
		"status " + objName("free") + " Programmed",
	}, j.take())
	u := k.get(t, objName("taken"))
	assert.Equal(t, "someone-else", u.GetLabels()[crd.OwnerLabel])
	assert.Equal(t, endpoint.Targets{"192.0.2.1"}, specOf(t, u).Targets, "the other owner's object is not touched")
}

// A provider error marks the DNSRecords of the call Failed with the
// provider's message; per zone, the other zones are Programmed.
func TestApplyChangesProviderFailure(t *testing.T) {
	ctx := t.Context()
	const other = "example.org"
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone, other}})
	p := (&journal{}).provider(zone, func(c *plan.Changes) error {
		for _, e := range c.Create {
			if strings.HasSuffix(e.DNSName, "."+other) {
				return errors.New("zone example.org is read-only")
			}
		}
		return nil
	})
	k := newKube(t)
	reg := newRegistry(t, p, k, testOwner)
	bad := endpoint.NewEndpointWithTTL("bad."+other, "A", 300, "192.0.2.2")
	err := reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("good", "192.0.2.1"), bad}})
	require.Error(t, err)
	assert.Equal(t, []string{other}, provider.FailedZones(err))

	reason, status := readyReason(k.get(t, objName("good")))
	assert.Equal(t, [2]string{crd.ReasonProgrammed, "True"}, [2]string{reason, status})
	badObj := k.get(t, crd.ObjectName(bad.DNSName, "A", ""))
	reason, status = readyReason(badObj)
	assert.Equal(t, [2]string{crd.ReasonFailed, "False"}, [2]string{reason, status})
	conds, _, _ := unstructured.NestedSlice(badObj.Object, "status", "conditions")
	require.Len(t, conds, 1)
	assert.Equal(t, map[string]any{
		"type": crd.ReadyCondition, "status": "False", "reason": crd.ReasonFailed,
		"message":            "the DNS provider refused the change: zone example.org: zone example.org is read-only",
		"lastTransitionTime": conds[0].(map[string]any)["lastTransitionTime"],
		"observedGeneration": int64(1),
	}, conds[0])

	// The record never came: the Failed DNSRecord claims nothing and goes.
	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, 1, reg.PendingRepairs())
	require.NoError(t, reg.ApplyChanges(ctx, nil))
	assert.Equal(t, []string{objName("good")}, k.names(t))
}

// A change the provider rejects while applying the rest (the batch
// wrapper's RejectedError) fails its own DNSRecord with its own reason;
// the others, which the error says were applied, are Programmed.
func TestApplyChangesRejection(t *testing.T) {
	ctx := t.Context()
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	p := providertest.Intercept(zone, providertest.Funcs{ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
		var keep []*endpoint.Endpoint
		var rej []provider.Rejection
		for _, e := range c.Create {
			if strings.HasPrefix(e.DNSName, "rejected.") {
				rej = append(rej, provider.Rejection{Action: "create", Endpoint: e, Reason: errors.New("quota exceeded")})
				continue
			}
			keep = append(keep, e)
		}
		if err := next.ApplyChanges(ctx, &plan.Changes{Create: keep}); err != nil {
			return err
		}
		return &provider.RejectedError{Rejected: rej}
	}})
	k := newKube(t)
	reg := newRegistry(t, p, k, testOwner)
	err := reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("fine", "192.0.2.1"), a("rejected", "192.0.2.2")}})
	require.ErrorIs(t, err, provider.SoftError)
	conds, _, _ := unstructured.NestedSlice(k.get(t, objName("rejected")).Object, "status", "conditions")
	require.Len(t, conds, 1)
	assert.Equal(t, "the DNS provider refused the change: quota exceeded", conds[0].(map[string]any)["message"])

	reason, status := readyReason(k.get(t, objName("fine")))
	assert.Equal(t, [2]string{crd.ReasonProgrammed, "True"}, [2]string{reason, status})

	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, testOwner, ownerOf(recs[0]))
	assert.Equal(t, 1, reg.PendingRepairs(), "rejected to delete")
	require.NoError(t, reg.ApplyChanges(ctx, nil))
	assert.Equal(t, []string{objName("fine")}, k.names(t))
}
