package crd_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/crd"
	"github.com/zonesync/zonesync/source"
)

// victim is somebody else's record that the tests below try to make ours.
func victim() *endpoint.Endpoint { return a("victim", "192.0.2.66") }

// forged returns the DNSRecords somebody who may only create DNSRecords in
// the registry's namespace would write to claim the victim: named after
// it, with our owner label, and the victim's data in the spec or in the
// PreviousEndpointAnnotation. The status they carry (Programmed) is what
// the attacker asks for; the API server keeps none of it on a create.
func forged(t *testing.T) map[string]*unstructured.Unstructured {
	t.Helper()
	labelled := func(ep *endpoint.Endpoint) *endpoint.Endpoint {
		return ep.WithLabel(endpoint.OwnerLabelKey, testOwner)
	}
	return map[string]*unstructured.Unstructured{
		"spec holding the victim's data": dnsRecord(testOwner, labelled(victim()), crd.ReasonProgrammed),
		"previous annotation holding the victim's data": withPrevious(t,
			dnsRecord(testOwner, labelled(a("victim", "192.0.2.1")), crd.ReasonProgrammed), labelled(victim())),
		"spec and previous annotation holding the victim's data": withPrevious(t,
			dnsRecord(testOwner, labelled(victim()), crd.ReasonAccepted), labelled(victim())),
	}
}

// expectVictimUntouched checks that the zone holds the victim as it was.
func expectVictimUntouched(t *testing.T, zone provider.Provider) {
	t.Helper()
	recs, err := zone.Records(context.Background())
	require.NoError(t, err)
	got := find(recs, victim())
	require.NotNil(t, got, "the victim is deleted")
	assert.Equal(t, victim().Targets, got.Targets, "the victim is updated")
}

// Finding 3: a DNSRecord that somebody merely created (create rights on
// dnsrecords, none on dnsrecords/status) claims no record, whether its spec
// or its PreviousEndpointAnnotation holds the record's data: the record is
// reported as nobody's, and cycles that want the name for other data, or
// no longer want it, leave it alone.
func TestForgedDNSRecordClaimsNothing(t *testing.T) {
	for name, obj := range forged(t) {
		t.Run(name, func(t *testing.T) {
			zone := inmemory.New(inmemory.Options{Zones: []string{testZone}, Records: []*endpoint.Endpoint{victim()}})
			k := newKube(t)
			_, err := k.Resource(gvr).Namespace(testNS).Create(t.Context(), obj, metav1.CreateOptions{})
			require.NoError(t, err)
			stored := k.get(t, obj.GetName())
			require.NotNil(t, stored)
			reason, _ := readyReason(stored)
			require.Empty(t, reason, "the API server keeps no status on a create")

			reg := newRegistry(t, zone, k, testOwner)
			recs, err := reg.Records(t.Context())
			require.NoError(t, err)
			got := find(recs, victim())
			require.NotNil(t, got)
			assert.Empty(t, ownerOf(got), "the forged DNSRecord lends its owner label")
			assert.Equal(t, endpoint.OwnedByNobody, got.Ownership())

			_, _ = cycle(t, zone, k, a("victim", "192.0.2.1"))
			expectVictimUntouched(t, zone)
			_, _ = cycle(t, zone, k)
			expectVictimUntouched(t, zone)
		})
	}
}

// Finding 6f: a DNSRecord whose create the provider refused never claims a
// record that appears at its name later, even one holding exactly the data
// it asked for: the record stays nobody's and is not deleted when the name
// is no longer wanted. When the Failed status could not be written either
// (the DNSRecord stays Accepted), the registry that saw the create fail
// remembers it.
func TestFailedCreateNeverClaims(t *testing.T) {
	app := a("app", "192.0.2.1")
	tests := []struct {
		name string
		// cut sets the faults of the cycle whose create fails.
		cut func(*faults)
		// reason is the Ready reason the DNSRecord is left with.
		reason string
	}{
		{name: "the DNSRecord is Failed", cut: func(f *faults) { f.providerFails.Store(true) }, reason: crd.ReasonFailed},
		{name: "the Failed status write fails too: the DNSRecord stays Accepted",
			cut: func(f *faults) { f.providerFails.Store(true); f.statusFailsAfterApply() }, reason: crd.ReasonAccepted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
			k := newKube(t)
			f := &faults{}
			f.install(k)
			p := f.provider(zone)
			reg := newRegistry(t, p, k, testOwner)
			run := func(desired ...*endpoint.Endpoint) error {
				r := &zonesync.Reconciler{Source: source.NewStatic(desired...), Registry: reg}
				r.Safety.Disabled = true
				_, err := r.RunOnce(ctx)
				return err
			}

			tt.cut(f)
			require.Error(t, run(app))
			f.providerFails.Store(false)
			f.statusFails.Store(false)
			u := k.get(t, objName("app"))
			require.NotNil(t, u)
			reason, _ := readyReason(u)
			require.Equal(t, tt.reason, reason)

			// Somebody else creates the record, with our data.
			require.NoError(t, zone.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("app", "192.0.2.1")}}))
			recs, err := reg.Records(ctx)
			require.NoError(t, err)
			got := find(recs, app)
			require.NotNil(t, got)
			assert.Empty(t, ownerOf(got), "the DNSRecord of a failed create claims the record that appeared")
			assert.Equal(t, endpoint.OwnedByNobody, got.Ownership())

			// The name is no longer wanted: the record is not ours to delete.
			_ = run()
			_ = run()
			recs, err = zone.Records(ctx)
			require.NoError(t, err)
			require.NotNil(t, find(recs, app), "the record somebody else created is deleted")
			assert.Nil(t, k.get(t, objName("app")), "the DNSRecord that claims nothing is deleted")
		})
	}
}

// Record sets whose object names collide, found by a birthday search over
// the 4 bytes of hash in crd.ObjectName: two names that read the same
// once dashed, and one name with two set identifiers.
const (
	collidingDashedA = "a-b.c.d.e-f.g-h-i.j-k.l.m.n-o.p.q.r-s." + testZone
	collidingDashedB = "a-b-c-d.e.f-g-h-i.j-k.l-m.n.o.p-q.r-s." + testZone
	collidingName    = "collide." + testZone
	collidingSetA    = "set-17071"
	collidingSetB    = "set-36426"
)

// collidingPairs returns the record sets of each colliding pair.
func collidingPairs() map[string][2]*endpoint.Endpoint {
	return map[string][2]*endpoint.Endpoint{
		"two names that read the same once dashed": {
			endpoint.NewEndpointWithTTL(collidingDashedA, "A", 300, "192.0.2.1"),
			endpoint.NewEndpointWithTTL(collidingDashedB, "A", 300, "192.0.2.2"),
		},
		"one name with two set identifiers": {
			endpoint.NewEndpointWithTTL(collidingName, "A", 300, "192.0.2.1").WithSetIdentifier(collidingSetA),
			endpoint.NewEndpointWithTTL(collidingName, "A", 300, "192.0.2.2").WithSetIdentifier(collidingSetB),
		},
	}
}

// Finding 6e: two record sets whose object names collide both get a
// DNSRecord, both are ours at every read, by this registry and by a
// restarted one, and both can be updated and deleted, whichever came
// first.
func TestObjectNameCollision(t *testing.T) {
	for pairName, pair := range collidingPairs() {
		require.Equal(t, crd.ObjectName(pair[0].DNSName, "A", pair[0].SetIdentifier),
			crd.ObjectName(pair[1].DNSName, "A", pair[1].SetIdentifier), "the object names of %s collide", pairName)
		for _, order := range [][2]*endpoint.Endpoint{pair, {pair[1], pair[0]}} {
			t.Run(pairName+"/"+order[0].Key().String()+" first", func(t *testing.T) {
				zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
				k := newKube(t)
				run := func(desired ...*endpoint.Endpoint) *plan.Changes {
					t.Helper()
					c, err := cycle(t, zone, k, desired...)
					require.NoError(t, err)
					return c
				}
				require.Len(t, run(order[0]).Create, 1)
				require.Len(t, run(order[0], order[1]).Create, 1)
				requireNoChanges(t, run(order[0], order[1]))
				assert.Len(t, k.names(t), 2, "one DNSRecord per record set")

				reg := newRegistry(t, zone, k, testOwner)
				recs, err := reg.Records(t.Context())
				require.NoError(t, err)
				require.Len(t, recs, 2)
				for _, r := range recs {
					assert.Equal(t, testOwner, ownerOf(r), r.Key().String())
					assert.Equal(t, endpoint.OwnedByUs, r.Ownership(), r.Key().String())
				}
				assert.Zero(t, reg.PendingRepairs())

				moved := order[1].DeepCopy()
				moved.Targets = endpoint.Targets{"192.0.2.3"}
				require.Len(t, run(order[0], moved).UpdateNew, 1)
				requireNoChanges(t, run(order[0], moved))

				require.Len(t, run(order[0]).Delete, 1)
				assert.Len(t, k.names(t), 1)
				requireNoChanges(t, run(order[0]))
				require.Len(t, run().Delete, 1)
				assert.Empty(t, k.names(t))
				recs, err = zone.Records(t.Context())
				require.NoError(t, err)
				assert.Empty(t, recs)
			})
		}
	}
}

// The same at the registry itself: the create of the second record set of
// a colliding pair is applied, beside the first.
func TestObjectNameCollisionApply(t *testing.T) {
	for pairName, pair := range collidingPairs() {
		t.Run(pairName, func(t *testing.T) {
			ctx := t.Context()
			zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
			k := newKube(t)
			reg := newRegistry(t, zone, k, testOwner)
			for _, ep := range pair {
				_, err := reg.Records(ctx)
				require.NoError(t, err)
				require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{ep}}), ep.Key().String())
			}
			recs, err := reg.Records(ctx)
			require.NoError(t, err)
			require.Len(t, recs, 2)
			for _, r := range recs {
				assert.Equal(t, endpoint.OwnedByUs, r.Ownership(), r.Key().String())
			}
			assert.Len(t, k.names(t), 2)
		})
	}
}

// overwriting is a provider whose creates replace an existing record set
// (an upsert, as external-dns's pdns provider does) and which declares no
// guarantees.
type overwriting struct{ zone *inmemory.Provider }

func (o overwriting) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return o.zone.Records(ctx)
}

func (o overwriting) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	recs, err := o.zone.Records(ctx)
	if err != nil {
		return err
	}
	out := &plan.Changes{UpdateOld: c.UpdateOld, UpdateNew: c.UpdateNew, Delete: c.Delete}
	for _, ep := range c.Create {
		if cur := find(recs, ep); cur != nil {
			out.UpdateOld = append(out.UpdateOld, cur)
			out.UpdateNew = append(out.UpdateNew, ep)
			continue
		}
		out.Create = append(out.Create, ep)
	}
	return o.zone.ApplyChanges(ctx, out)
}

func (o overwriting) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return o.zone.AdjustEndpoints(ctx, eps)
}

func (o overwriting) GetDomainFilter() endpoint.DomainFilterInterface {
	return o.zone.GetDomainFilter()
}

// On a provider whose creates overwrite, a record somebody writes between
// the registry's read and its apply is not replaced: the create is left
// out (the others are applied), its DNSRecord is Failed and never claims
// the record, and the error, soft, says which record and why.
func TestCreateOnOverwritingProviderRechecked(t *testing.T) {
	ctx := t.Context()
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	k := newKube(t)
	reg := newRegistry(t, overwriting{zone}, k, testOwner)
	_, err := reg.Records(ctx)
	require.NoError(t, err)

	intruder := a("app", "192.0.2.99")
	require.NoError(t, zone.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{intruder}}))
	err = reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("app", "192.0.2.1"), a("other", "192.0.2.2")}})
	require.ErrorIs(t, err, provider.ErrCreateWouldOverwrite)
	require.ErrorIs(t, err, provider.SoftError)
	assert.ErrorContains(t, err, "create app.example.com/A not applied")
	assert.NotContains(t, err.Error(), "other.example.com")

	recs, err := zone.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Equal(t, intruder.Targets, find(recs, intruder).Targets, "the record that appeared is not replaced")

	u := k.get(t, objName("app"))
	require.NotNil(t, u)
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	require.Len(t, conds, 1)
	c := conds[0].(map[string]any)
	assert.Equal(t, []any{"False", crd.ReasonFailed}, []any{c["status"], c["reason"]})
	assert.Contains(t, c["message"], provider.ErrCreateWouldOverwrite.Error())
	reason, _ := readyReason(k.get(t, objName("other")))
	assert.Equal(t, crd.ReasonProgrammed, reason)

	for _, r := range []*crd.Registry{reg, newRegistry(t, overwriting{zone}, k, testOwner)} {
		recs, err = r.Records(ctx)
		require.NoError(t, err)
		got := find(recs, intruder)
		require.NotNil(t, got)
		assert.Empty(t, ownerOf(got), "the record that appeared is ours")
		assert.Equal(t, endpoint.OwnedByNobody, got.Ownership())
		assert.Equal(t, testOwner, ownerOf(find(recs, a("other"))))
	}
}

// A Programmed DNSRecord whose record went missing is reused by the create
// that brings the record back; when that create is not sent (its Accepted
// status cannot be written), the DNSRecord keeps its old Programmed
// condition, and the registry remembers that it claims nothing: a record
// somebody else writes at its name is not ours.
func TestUnsentCreateClaimsNothing(t *testing.T) {
	ctx := t.Context()
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	k := newKube(t, dnsRecord(testOwner, a("app", "192.0.2.1").WithLabel(endpoint.OwnerLabelKey, testOwner), crd.ReasonProgrammed))
	f := &faults{}
	f.install(k)
	reg := newRegistry(t, zone, k, testOwner)
	_, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, reg.PendingRepairs(), "the record is missing")

	f.statusFails.Store(true)
	err = reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("app", "192.0.2.2")}})
	require.Error(t, err)
	assert.ErrorContains(t, err, "create app.example.com/A not applied: marking its DNSRecord")
	f.statusFails.Store(false)
	recs, err := zone.Records(ctx)
	require.NoError(t, err)
	require.Empty(t, recs, "nothing is created without its intent")
	reason, _ := readyReason(k.get(t, objName("app")))
	require.Equal(t, crd.ReasonProgrammed, reason, "the old condition stays")

	require.NoError(t, zone.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("app", "192.0.2.99")}}))
	recs, err = reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Empty(t, ownerOf(recs[0]))
	assert.Equal(t, endpoint.OwnedByNobody, recs[0].Ownership())
}
