package externaldns_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
	xplan "sigs.k8s.io/external-dns/plan"
	xtxt "sigs.k8s.io/external-dns/registry/txt"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/provider/rfc2136"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// The round trip between zonesync's own rfc2136 provider and external-dns's,
// against one real named: a team that moves a zone from external-dns to
// zonesync, or back, must keep ownership of every record and see no change
// planned. "external-dns" below is external-dns's whole pipeline (its
// rfc2136 provider, its TXT registry and its planner), not the adapter.

const roundTripOwner = "team"

var roundTripTypes = []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT}

// roundTripDesired is what both sides want: several types, several targets,
// a TTL, and a TXT value that external-dns's parser and zonesync's writer
// store alike.
func roundTripDesired() []*endpoint.Endpoint {
	res := func(ep *endpoint.Endpoint, r string) *endpoint.Endpoint {
		return ep.WithLabel(endpoint.ResourceLabelKey, r)
	}
	return []*endpoint.Endpoint{
		res(endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.1", "192.0.2.2"), "service/default/www"),
		res(endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeAAAA, 300, "2001:db8::1"), "service/default/www"),
		res(endpoint.NewEndpointWithTTL("api.example.org", endpoint.RecordTypeCNAME, 600, "www.example.org"), "ingress/default/api"),
		res(endpoint.NewEndpointWithTTL("token.example.org", endpoint.RecordTypeTXT, 300, "verification-123"), "service/default/token"),
	}
}

func zonesyncRFC2136(t *testing.T, srv *bindtest.Server) *rfc2136.Provider {
	t.Helper()
	k := srv.Key()
	p, err := rfc2136.New(rfc2136.Config{
		Server: srv.Addr(),
		Zones:  srv.Zones(),
		TSIG:   &rfc2136.TSIG{KeyName: k.Name, Algorithm: k.Algorithm, Secret: k.Secret},
	})
	require.NoError(t, err)
	return p
}

// zonesyncReconciler runs zonesync's TXT registry over p.
func zonesyncReconciler(t *testing.T, p provider.Provider, desired []*endpoint.Endpoint) *zonesync.Reconciler {
	t.Helper()
	reg, err := txt.New(p, txt.Config{OwnerID: roundTripOwner, ManagedRecordTypes: roundTripTypes})
	require.NoError(t, err)
	return &zonesync.Reconciler{Source: source.NewStatic(desired...), Registry: reg, ManagedRecordTypes: roundTripTypes}
}

// externalDNSCycle runs one cycle of external-dns's own pipeline over its
// rfc2136 provider (unwrapped from p): read through its TXT registry, plan
// with its planner, apply when there is something to apply.
func externalDNSCycle(ctx context.Context, t *testing.T, p *externaldns.Provider, desired []*endpoint.Endpoint, apply bool) *xplan.Changes {
	t.Helper()
	cfg := xconfig.NewConfig()
	cfg.TXTOwnerID = roundTripOwner
	cfg.ManagedDNSRecordTypes = roundTripTypes
	reg, err := xtxt.New(cfg, p.ExternalDNS())
	require.NoError(t, err)
	current, err := reg.Records(ctx)
	require.NoError(t, err)
	want, err := reg.AdjustEndpoints(externaldns.ToExternalDNS(desired))
	require.NoError(t, err)
	plan := (&xplan.Plan{
		Current:        current,
		Desired:        want,
		ManagedRecords: roundTripTypes,
		OwnerID:        roundTripOwner,
		DomainFilter:   xendpoint.MatchAllDomainFilters{xendpoint.NewDomainFilter([]string{"example.org"})},
		Policies:       []xplan.Policy{&xplan.SyncPolicy{}},
	}).Calculate()
	if apply && plan.Changes.HasChanges() {
		require.NoError(t, reg.ApplyChanges(ctx, plan.Changes))
	}
	return plan.Changes
}

func describe(c *xplan.Changes) string {
	return fmt.Sprintf("create %v, update old %v new %v, delete %v", c.Create, c.UpdateOld, c.UpdateNew, c.Delete)
}

func TestRoundTripZonesyncToExternalDNS(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.org"}})
	ctx := t.Context()
	desired := roundTripDesired()

	// zonesync creates the records and their ownership TXT records.
	zs := zonesyncReconciler(t, zonesyncRFC2136(t, srv), desired)
	cyc, err := zs.RunOnce(ctx)
	changes := cyc.Changes
	require.NoError(t, err)
	require.Len(t, changes.Create, len(desired))
	cyc, err = zs.RunOnce(ctx)
	changes = cyc.Changes
	require.NoError(t, err)
	require.False(t, changes.HasChanges(), "zonesync converged: %v", changes)

	// external-dns takes over: its own pipeline plans nothing, so it owns
	// every record zonesync wrote.
	x := newRFC2136(t, srv)
	xc := externalDNSCycle(ctx, t, x, desired, false)
	assert.False(t, xc.HasChanges(), "external-dns plans nothing over zonesync's records: %s", describe(xc))
	xrecs, err := x.Records(ctx)
	require.NoError(t, err)
	assertOwnershipRecords(t, xrecs, len(desired))

	// zonesync's Reconciler over external-dns's provider (the adapter)
	// plans nothing either.
	cyc, err = zonesyncReconciler(t, x, desired).RunOnce(ctx)
	changes = cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "zonesync over the adapter plans nothing: %v", changes)

	// Going back to external-dns for good: it updates and deletes what
	// zonesync created, which needs the ownership zonesync wrote.
	next := desired[1:]
	next[0] = next[0].DeepCopy()
	next[0].Targets = endpoint.Targets{"2001:db8::2"}
	xc = externalDNSCycle(ctx, t, x, next, true)
	assert.Len(t, xc.Delete, 1, "external-dns deletes www A: %s", describe(xc))
	assert.Len(t, xc.UpdateNew, 1, "external-dns updates www AAAA: %s", describe(xc))
	xc = externalDNSCycle(ctx, t, x, next, false)
	assert.False(t, xc.HasChanges(), "external-dns converged: %s", describe(xc))
}

func TestRoundTripExternalDNSToZonesync(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.org"}})
	ctx := t.Context()
	desired := roundTripDesired()

	// external-dns creates the records and its ownership TXT records.
	x := newRFC2136(t, srv)
	xc := externalDNSCycle(ctx, t, x, desired, true)
	require.Len(t, xc.Create, len(desired), "external-dns creates: %s", describe(xc))
	xc = externalDNSCycle(ctx, t, x, desired, false)
	require.False(t, xc.HasChanges(), "external-dns converged: %s", describe(xc))

	// zonesync with its own rfc2136 provider takes over: it owns every
	// record and plans nothing.
	zp := zonesyncRFC2136(t, srv)
	zs := zonesyncReconciler(t, zp, desired)
	for range 2 {
		cyc, err := zs.RunOnce(ctx)
		changes := cyc.Changes
		require.NoError(t, err)
		assert.False(t, changes.HasChanges(), "zonesync plans nothing over external-dns's records: %v", changes)
	}
	recs, err := zs.Registry.Records(ctx)
	require.NoError(t, err)
	owned := 0
	for _, r := range recs {
		if r.IsOwnedBy(roundTripOwner) {
			owned++
		}
	}
	assert.Equal(t, len(desired), owned, "zonesync owns every record external-dns created: %v", recs)

	// zonesync then changes and deletes them, and external-dns, looking
	// at the result, agrees.
	next := desired[1:]
	next[0] = next[0].DeepCopy()
	next[0].Targets = endpoint.Targets{"2001:db8::2"}
	zs = zonesyncReconciler(t, zp, next)
	cyc, err := zs.RunOnce(ctx)
	changes := cyc.Changes
	require.NoError(t, err)
	assert.Len(t, changes.Delete, 1)
	assert.Len(t, changes.UpdateNew, 1)
	xc = externalDNSCycle(ctx, t, x, next, false)
	assert.False(t, xc.HasChanges(), "external-dns plans nothing after zonesync's changes: %s", describe(xc))
}

// assertOwnershipRecords checks that external-dns's provider reads n
// ownership TXT records whose text external-dns's label parser accepts.
func assertOwnershipRecords(t *testing.T, recs []*endpoint.Endpoint, n int) {
	t.Helper()
	got := 0
	for _, r := range recs {
		if r.RecordType != endpoint.RecordTypeTXT || len(r.Targets) != 1 {
			continue
		}
		l, err := xendpoint.NewLabelsFromStringPlain(r.Targets[0])
		if err == nil && l[xendpoint.OwnerLabelKey] == roundTripOwner {
			got++
		}
	}
	assert.Equal(t, n, got, "ownership TXT records external-dns can read: %v", recs)
}
