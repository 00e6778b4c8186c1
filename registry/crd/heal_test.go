package crd_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/crd"
	"github.com/zonesync/zonesync/source"
)

// faults injects failures into the fake API server and the provider while
// its flags are set.
type faults struct {
	createFails, statusFails, deleteFails atomic.Bool
	providerFails                         atomic.Bool
	// beforeApply runs once before the provider's next ApplyChanges.
	beforeApply atomic.Pointer[func(context.Context, provider.Provider)]
	// afterApply runs once after the provider's next ApplyChanges (applied
	// or failed).
	afterApply atomic.Pointer[func()]
}

var errDown = apierrors.NewInternalError(errors.New("etcd is unavailable"))

func (f *faults) install(k *kube) {
	k.PrependReactor("*", "dnsrecords", func(a k8stesting.Action) (bool, runtime.Object, error) {
		switch {
		case a.GetVerb() == "create" && f.createFails.Load(),
			a.GetVerb() == "update" && a.GetSubresource() == "status" && f.statusFails.Load(),
			a.GetVerb() == "delete" && f.deleteFails.Load():
			return true, nil, errDown
		}
		return false, nil, nil
	})
}

func (f *faults) provider(p provider.Provider) provider.Provider {
	return providertest.Intercept(p, providertest.Funcs{ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
		if fn := f.beforeApply.Swap(nil); fn != nil {
			(*fn)(ctx, next)
		}
		if fn := f.afterApply.Swap(nil); fn != nil {
			defer (*fn)()
		}
		if f.providerFails.Load() {
			return providertest.ErrInjected
		}
		return next.ApplyChanges(ctx, c)
	}})
}

// statusFailsAfterApply makes the status writes fail from the end of the
// provider's next ApplyChanges on: the cycle is cut after the provider
// applied (or refused) its changes, before their outcome is written.
func (f *faults) statusFailsAfterApply() {
	fn := func() { f.statusFails.Store(true) }
	f.afterApply.Store(&fn)
}

// cycle runs one Reconciler cycle of a registry started afresh (a restart)
// wanting desired, and returns its changes and error.
func cycle(t *testing.T, p provider.Provider, k *kube, desired ...*endpoint.Endpoint) (*plan.Changes, error) {
	t.Helper()
	r := &zonesync.Reconciler{Source: source.NewStatic(desired...), Registry: newRegistry(t, p, k, testOwner)}
	r.Safety.Disabled = true
	c, err := r.RunOnce(t.Context())
	return c.Changes, err
}

func requireNoChanges(t *testing.T, c *plan.Changes) {
	t.Helper()
	require.NotNil(t, c)
	assert.Empty(t, c.Create, "creates")
	assert.Empty(t, c.UpdateNew, "updates")
	assert.Empty(t, c.Delete, "deletes")
}

// Every half-applied change heals: a cycle is cut between two of its steps
// (a failure injected there, then the registry restarted), and the next
// cycles bring the provider and the DNSRecords to the desired state, the
// record ours, its DNSRecord Programmed, and then plan nothing. A change
// whose Accepted status cannot be written is not sent to the provider.
func TestHealAfterCrash(t *testing.T) {
	app := a("app", "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/default/app")
	moved := a("app", "192.0.2.2").WithLabel(endpoint.ResourceLabelKey, "service/default/app")
	tests := []struct {
		name string
		// before is the desired state of a first cycle that succeeds
		// (none: no such cycle).
		before []*endpoint.Endpoint
		// cut sets the faults of the cycle that fails, wanting want.
		cut  func(*faults)
		want []*endpoint.Endpoint
		// errs: the failing cycle returns an error.
		errs bool
	}{
		{name: "cut between the DNSRecord and the provider's create",
			cut: func(f *faults) { f.providerFails.Store(true) }, want: []*endpoint.Endpoint{app}, errs: true},
		{name: "cut between the provider's create and the status writes",
			cut: func(f *faults) { f.statusFailsAfterApply() }, want: []*endpoint.Endpoint{app}},
		{name: "the Accepted status of a create cannot be written: nothing is created",
			cut: func(f *faults) { f.statusFails.Store(true) }, want: []*endpoint.Endpoint{app}, errs: true},
		{name: "the DNSRecord cannot be created: nothing is created",
			cut: func(f *faults) { f.createFails.Store(true) }, want: []*endpoint.Endpoint{app}, errs: true},
		{name: "cut between the provider's update and the status writes", before: []*endpoint.Endpoint{app},
			cut: func(f *faults) { f.statusFailsAfterApply() }, want: []*endpoint.Endpoint{moved}},
		{name: "the Accepted status of an update cannot be written: nothing is updated", before: []*endpoint.Endpoint{app},
			cut: func(f *faults) { f.statusFails.Store(true) }, want: []*endpoint.Endpoint{moved}, errs: true},
		{name: "the provider refuses the update", before: []*endpoint.Endpoint{app},
			cut: func(f *faults) { f.providerFails.Store(true) }, want: []*endpoint.Endpoint{moved}, errs: true},
		{name: "the provider refuses the update and its Failed status write fails too", before: []*endpoint.Endpoint{app},
			cut: func(f *faults) { f.providerFails.Store(true); f.statusFailsAfterApply() }, want: []*endpoint.Endpoint{moved}, errs: true},
		{name: "cut between the provider's delete and the DNSRecord's", before: []*endpoint.Endpoint{app},
			cut: func(f *faults) { f.deleteFails.Store(true) }, want: nil, errs: true},
		{name: "the provider refuses the delete", before: []*endpoint.Endpoint{app},
			cut: func(f *faults) { f.providerFails.Store(true) }, want: nil, errs: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
			k := newKube(t)
			f := &faults{}
			f.install(k)
			p := f.provider(zone)
			if tt.before != nil {
				_, err := cycle(t, p, k, tt.before...)
				require.NoError(t, err)
			}

			tt.cut(f)
			_, err := cycle(t, p, k, tt.want...)
			if tt.errs {
				require.Error(t, err)
			} else {
				require.NoError(t, err, "status writes that fail fail nothing")
			}
			*f = faults{}

			for i := 0; i < 2; i++ { // the change again, then the repairs
				_, err = cycle(t, p, k, tt.want...)
				require.NoError(t, err, "healing cycle %d", i+1)
			}
			c, err := cycle(t, p, k, tt.want...)
			require.NoError(t, err)
			requireNoChanges(t, c)
			expectState(t, zone, k, tt.want...)
		})
	}
}

// expectState checks that the provider holds exactly want, that each
// record is ours with a Programmed DNSRecord recording its data, and that
// no other DNSRecord is left.
func expectState(t *testing.T, zone *inmemory.Provider, k *kube, want ...*endpoint.Endpoint) {
	t.Helper()
	recs, err := zone.Records(context.Background())
	require.NoError(t, err)
	require.Len(t, recs, len(want))
	var names []string
	for i, w := range want {
		assert.True(t, recs[i].Targets.Same(w.Targets), "%s holds %v, want %v", w.DNSName, recs[i].Targets, w.Targets)
		name := objName(w.DNSName[:len(w.DNSName)-len("."+testZone)])
		names = append(names, name)
		u := k.get(t, name)
		require.NotNil(t, u, "the DNSRecord of %s", w.DNSName)
		reason, status := readyReason(u)
		assert.Equal(t, [2]string{crd.ReasonProgrammed, "True"}, [2]string{reason, status}, "status of %s", name)
		assert.True(t, specOf(t, u).Targets.Same(w.Targets), "spec of %s", name)
	}
	assert.ElementsMatch(t, names, k.names(t), "DNSRecords left")
}

// A record somebody else creates between our read and our apply makes our
// create fail: the record never becomes ours, and our Failed DNSRecord
// goes.
func TestHealForeignRecordRace(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	k := newKube(t)
	f := &faults{}
	p := f.provider(zone)
	intrude := func(ctx context.Context, next provider.Provider) {
		require.NoError(t, next.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("app", "192.0.2.99")}}))
	}
	f.beforeApply.Store(&intrude)
	_, err := cycle(t, p, k, a("app", "192.0.2.1"))
	require.Error(t, err, "the in-memory provider refuses to create an existing record")
	reason, _ := readyReason(k.get(t, objName("app")))
	require.Equal(t, "Failed", reason)

	for i := 0; i < 2; i++ {
		c, err := cycle(t, p, k, a("app", "192.0.2.1"))
		require.NoError(t, err)
		requireNoChanges(t, c)
	}
	recs, err := zone.Records(t.Context())
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, endpoint.Targets{"192.0.2.99"}, recs[0].Targets, "the foreign record is untouched")
	assert.Empty(t, k.names(t), "our Failed DNSRecord is deleted")
}
