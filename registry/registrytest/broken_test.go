package registrytest_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/registrytest"
	"github.com/zonesync/zonesync/registry/txt"
)

// broken is a TXT registry with one flaw, given by the fields set.
type broken struct {
	registry.Registry
	p provider.Provider

	mu    sync.Mutex
	calls int
	ours  map[endpoint.Key]bool
	last  []*endpoint.Endpoint

	unstableOwnerID bool // OwnerID changes at every call
	labelsAll       bool // Records labels every record as ours
	lendsOrphans    bool // a key once ours stays ours
	bypassOwnership bool // changes of records not ours go to the provider directly
	keepsTXT        bool // a delete removes the record alone
	cachesRecords   bool // Records returns the same slice until a write
	adjustsInPlace  bool // AdjustEndpoints sets the TTL of its input
	reversesRecords bool // every other Records call is in reverse order
	dropsVerdicts   bool // Records returns records without a verdict
	verdictAllOurs  bool // Records gives every record the verdict ours, labels as they are
}

func (b *broken) OwnerID() string {
	if !b.unstableOwnerID {
		return b.Registry.OwnerID()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls++
	if b.calls%2 == 0 {
		return "someone-else"
	}
	return b.Registry.OwnerID()
}

func (b *broken) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cachesRecords && b.last != nil {
		return b.last, nil
	}
	recs, err := b.Registry.Records(ctx)
	if err != nil {
		return nil, err
	}
	if b.ours == nil {
		b.ours = map[endpoint.Key]bool{}
	}
	for _, r := range recs {
		if r.IsOwnedBy(b.Registry.OwnerID()) {
			b.ours[r.Key()] = true
		}
		if b.labelsAll || (b.lendsOrphans && b.ours[r.Key()]) {
			r.Labels.Set(endpoint.OwnerLabelKey, b.Registry.OwnerID())
		}
		switch {
		case b.dropsVerdicts:
			r.SetOwnership(endpoint.OwnershipUndecided)
		case b.verdictAllOurs:
			r.SetOwnership(endpoint.OwnedByUs)
		}
	}
	b.calls++
	if b.reversesRecords && b.calls%2 == 0 {
		slices.Reverse(recs)
	}
	if b.cachesRecords {
		b.last = recs
	}
	return recs, nil
}

func (b *broken) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	b.mu.Lock()
	b.last = nil
	if b.lendsOrphans {
		if b.ours == nil {
			b.ours = map[endpoint.Key]bool{}
		}
		for _, e := range c.Create {
			b.ours[e.Key()] = true
		}
	}
	b.mu.Unlock()
	if b.keepsTXT && len(c.Delete) > 0 {
		return b.p.ApplyChanges(ctx, &plan.Changes{Delete: c.Delete})
	}
	err := b.Registry.ApplyChanges(ctx, c)
	if b.bypassOwnership && errors.Is(err, registry.ErrNotOwned) {
		return b.p.ApplyChanges(ctx, c)
	}
	return err
}

func (b *broken) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	if b.adjustsInPlace {
		for _, e := range eps {
			e.RecordTTL = 42
		}
	}
	return b.Registry.AdjustEndpoints(ctx, eps)
}

// withoutZones hides the zones of the provider it wraps.
type withoutZones struct{ provider.Provider }

func TestCheckRegistryCatchesBrokenRegistries(t *testing.T) {
	for _, tc := range []struct {
		rule      string
		breakIt   func(*broken)
		hideZones bool
	}{
		{rule: registrytest.RuleOwnerIDStable, breakIt: func(b *broken) { b.unstableOwnerID = true }},
		{rule: registrytest.RuleForeignRecordsNotOwned, breakIt: func(b *broken) { b.labelsAll = true }},
		{rule: registrytest.RuleOrphanOwnershipNotLent, breakIt: func(b *broken) { b.lendsOrphans = true }},
		{rule: registrytest.RuleForeignChangesRefused, breakIt: func(b *broken) { b.bypassOwnership = true }},
		{rule: registrytest.RuleOwnershipTravelsWithRecord, breakIt: func(b *broken) { b.keepsTXT = true }},
		{rule: registrytest.RulePerZoneErrors, breakIt: func(*broken) {}, hideZones: true},
		{rule: registrytest.RuleSliceOwnership, breakIt: func(b *broken) { b.cachesRecords = true }},
		{rule: registrytest.RuleAdjustEndpoints, breakIt: func(b *broken) { b.adjustsInPlace = true }},
		{rule: registrytest.RuleSortedRecords, breakIt: func(b *broken) { b.reversesRecords = true }},
		{rule: registrytest.RuleOwnershipVerdict, breakIt: func(b *broken) { b.dropsVerdicts = true }},
		{rule: registrytest.RuleOwnershipVerdict, breakIt: func(b *broken) { b.verdictAllOurs = true }},
		{rule: registrytest.RuleForeignRecordsNotOwned, breakIt: func(b *broken) { b.verdictAllOurs = true }},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			err := registrytest.CheckRegistry(context.Background(), func(p provider.Provider, ownerID string) (registry.Registry, error) {
				inner := p
				if tc.hideZones {
					inner = withoutZones{p}
				}
				reg, err := txt.New(inner, txt.Config{OwnerID: ownerID})
				if err != nil {
					return nil, err
				}
				b := &broken{Registry: reg, p: p}
				tc.breakIt(b)
				return b, nil
			}, registrytest.Options{PerZone: true})
			require.Error(t, err)
			rules := map[string]bool{}
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var v *registrytest.Violation
				require.ErrorAs(t, e, &v)
				rules[v.Rule] = true
			}
			require.True(t, rules[tc.rule], "no %s violation among: %v", tc.rule, err)
		})
	}
}

func TestCheckRegistryPassesTheUnbrokenWrapper(t *testing.T) {
	err := registrytest.CheckRegistry(context.Background(), func(p provider.Provider, ownerID string) (registry.Registry, error) {
		reg, err := txt.New(p, txt.Config{OwnerID: ownerID})
		if err != nil {
			return nil, err
		}
		return &broken{Registry: reg, p: p}, nil
	}, registrytest.Options{PerZone: true})
	require.NoError(t, err)
}
