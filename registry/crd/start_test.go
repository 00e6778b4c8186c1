package crd_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/zonesync/zonesync/clock/clocktest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/crd"
)

func TestNewConfigErrors(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	k := newKube(t)
	tests := []struct {
		name string
		cfg  crd.Config
		want string
	}{
		{"no owner id", crd.Config{}, "OwnerID is empty: set it to the owner id this instance writes"},
		{"owner id not a label value", crd.Config{OwnerID: "team a/dns"}, `OwnerID "team a/dns" is not a valid Kubernetes label value (the externaldns.k8s.io/owner label of every DNSRecord holds it)`},
		{"owner id too long", crd.Config{OwnerID: string(make([]byte, 64))}, "is not a valid Kubernetes label value"},
		{"namespace", crd.Config{OwnerID: "o", Namespace: "Not_A_Namespace"}, `Namespace "Not_A_Namespace" is not a valid namespace name`},
		{"negative timeout", crd.Config{OwnerID: "o", CacheTimeout: -time.Second}, "CacheTimeout -1s is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := crd.New(zone, k, tt.cfg)
			require.ErrorIs(t, err, crd.ErrInvalidConfig)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, err := crd.New(nil, k, crd.Config{OwnerID: "o"})
	assert.ErrorContains(t, err, "provider is nil")
	_, err = crd.New(zone, nil, crd.Config{OwnerID: "o"})
	assert.ErrorContains(t, err, "dynamic client is nil")

	reg, err := crd.New(zone, k, crd.Config{OwnerID: "o"})
	require.NoError(t, err)
	assert.Equal(t, crd.DefaultNamespace, reg.Namespace())
	assert.Equal(t, "o", reg.OwnerID())
	assert.Equal(t, "o", reg.Ownership().OwnerID)
}

// Before Start, and once its context has ended, reads and writes fail at
// once with a clear error.
func TestNotStartedAndStopped(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	k := newKube(t)
	reg, err := crd.New(zone, k, crd.Config{OwnerID: testOwner, Namespace: testNS})
	require.NoError(t, err)
	_, err = reg.Records(t.Context())
	require.ErrorIs(t, err, crd.ErrNotStarted)
	assert.EqualError(t, err, "crd registry: not started: call Start first")
	require.ErrorIs(t, reg.ApplyChanges(t.Context(), &plan.Changes{}), crd.ErrNotStarted)
	assert.Zero(t, reg.PendingRepairs())

	ctx, cancel := context.WithCancel(t.Context())
	require.NoError(t, reg.Start(ctx))
	assert.ErrorContains(t, reg.Start(ctx), "already started")
	_, err = reg.Records(ctx)
	require.NoError(t, err)
	cancel()
	require.Eventually(t, func() bool {
		_, err := reg.Records(t.Context())
		return errors.Is(err, crd.ErrStopped)
	}, 30*time.Second, 10*time.Millisecond)
	require.ErrorIs(t, reg.ApplyChanges(t.Context(), nil), crd.ErrStopped)
}

// A list the API server forbids ends Start at once with an error naming
// the resource, the namespace and the access the ServiceAccount needs; a
// resource it does not serve says to install the CRD.
func TestStartAccessErrors(t *testing.T) {
	gr := gvr.GroupResource()
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"forbidden", apierrors.NewForbidden(gr, "", errors.New(`User "system:serviceaccount:dns:zonesync" cannot list resource "dnsrecords"`)), []string{
			`crd registry: the API server forbids listing and watching dnsrecords.externaldns.k8s.io in namespace "dns": ` +
				"the registry needs a Role in that namespace granting get, list, watch, create, update and delete on dnsrecords " +
				"and update on dnsrecords/status (apiGroups: [externaldns.k8s.io])",
			"cannot list resource",
		}},
		{"not served", apierrors.NewNotFound(gr, ""), []string{
			"crd registry: the API server does not serve dnsrecords.externaldns.k8s.io/v1alpha1: install the CustomResourceDefinition (crd.CustomResourceDefinitionYAML())",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newKube(t)
			k.PrependReactor("list", crd.Resource, func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, tt.err })
			reg, err := crd.New(inmemory.New(), k, crd.Config{OwnerID: testOwner, Namespace: testNS})
			require.NoError(t, err)
			err = reg.Start(t.Context())
			require.Error(t, err)
			for _, w := range tt.want {
				assert.ErrorContains(t, err, w)
			}
			assert.True(t, errors.Is(err, tt.err), "the API server's error is wrapped: %v", err)
			_, err = reg.Records(t.Context())
			assert.ErrorIs(t, err, crd.ErrNotStarted, "a failed Start starts nothing")
		})
	}
}

// Any other list failure is retried until Config.CacheTimeout, after which
// Start fails with the last error; a later Start can succeed.
func TestStartTimeout(t *testing.T) {
	k := newKube(t)
	var failing, failures atomic.Int32
	failing.Store(1)
	k.PrependReactor("list", crd.Resource, func(k8stesting.Action) (bool, runtime.Object, error) {
		if failing.Load() == 1 {
			failures.Add(1)
			return true, nil, apierrors.NewServiceUnavailable("the API server is starting")
		}
		return false, nil, nil
	})
	clk := clocktest.New(time.Time{})
	reg, err := crd.New(inmemory.New(), k, crd.Config{OwnerID: testOwner, Namespace: testNS, CacheTimeout: time.Minute, Clock: clk})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- reg.Start(t.Context()) }()
	require.Equal(t, time.Minute, <-clk.Timers(), "Start waits Config.CacheTimeout")
	// The informer records a list error after the list returned it: a
	// second list (after the reflector's backoff) shows the first one was
	// recorded.
	require.Eventually(t, func() bool { return failures.Load() > 1 }, 30*time.Second, time.Millisecond)
	clk.Advance(time.Minute)
	err = <-done
	require.Error(t, err)
	assert.ErrorContains(t, err, `crd registry: the first list of dnsrecords in namespace "dns" did not complete within 1m0s (Config.CacheTimeout); last error: `)
	assert.ErrorContains(t, err, "the API server is starting")

	failing.Store(0)
	require.NoError(t, reg.Start(t.Context()))
}

// A write the API server forbids fails the change and says what access is
// missing; the provider is not asked to create the record.
func TestApplyChangesForbidden(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	k := newKube(t)
	reg := newRegistry(t, zone, k, testOwner)
	k.PrependReactor("create", crd.Resource, func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(gvr.GroupResource(), "", errors.New("RBAC: access denied"))
	})
	err := reg.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{a("app", "192.0.2.1")}})
	require.Error(t, err)
	assert.ErrorContains(t, err, "create app.example.com/A not applied: DNSRecord "+testNS+"/"+objName("app")+
		`: crd registry: the API server forbids creating dnsrecords.externaldns.k8s.io in namespace "dns": the registry needs a Role`)
	assert.True(t, apierrors.IsForbidden(err))
	recs, err := zone.Records(t.Context())
	require.NoError(t, err)
	assert.Empty(t, recs, "no record without its DNSRecord")
}
