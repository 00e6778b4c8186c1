package zonesync_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/batch"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/ratelimit"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// TestScalePoisonedRecord: a Reconciler over a Route 53-like API (1,000
// values and 32,000 bytes per call, every 5th call throttled, one poisoned
// record), under the batch and rate-limit wrappers, converges on 20,000
// records: 19,999 applied with their TXT, the
// poisoned one refused and reported by name, no orphan TXT.
func TestScalePoisonedRecord(t *testing.T) {
	const n = 20_000
	const poisoned = "svc-12345.example.com"
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	api := providertest.NewLimitedProvider(zone, providertest.APILimits{
		MaxRecords: 1000, MaxValueBytes: 32000, ThrottleEvery: 5, Poisoned: []string{poisoned},
	})
	// Throttled calls are retried at once: the test does not wait.
	limited, err := ratelimit.New(api, ratelimit.Options{BackoffInitial: time.Nanosecond, BackoffMax: time.Nanosecond})
	require.NoError(t, err)
	batched, err := batch.New(limited, batch.Options{})
	require.NoError(t, err)
	reg, err := txt.New(batched, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	desired := make([]*endpoint.Endpoint, n)
	for i := range n {
		desired[i] = a(fmt.Sprintf("svc-%d.example.com", i), fmt.Sprintf("10.0.%d.%d", i>>8, i&255))
	}
	obs := newCycleObserver()
	rec := &zonesync.Reconciler{Source: source.NewStatic(desired...), Registry: reg, Observer: obs}

	var last zonesync.Cycle
	for cycle := 0; ; cycle++ {
		require.Less(t, cycle, 5, "no convergence")
		cyc, err := rec.RunOnce(ctx)
		changes := cyc.Changes
		last = <-obs.finished
		require.Error(t, err, "the poisoned record fails every cycle")
		require.ErrorIs(t, err, provider.SoftError, "cycle %d: throttling and refusals are soft", cycle)
		if len(changes.Create) == 1 && !errors.Is(err, providertest.ErrThrottled) {
			assert.Equal(t, poisoned, changes.Create[0].DNSName)
			break
		}
	}
	require.NotEmpty(t, last.Rejected)
	var rejected []string
	for _, r := range last.Rejected {
		rejected = append(rejected, r.Action+" "+r.Endpoint.Key().String())
		assert.ErrorIs(t, r.Reason, providertest.ErrPoisoned)
	}
	assert.Equal(t, []string{"create a-" + poisoned + "/TXT", "create " + poisoned + "/A"}, rejected, "the TXT goes before its record")
	assert.Contains(t, last.Err.Error(), poisoned)

	recs, err := zone.Records(ctx)
	require.NoError(t, err)
	as, txts := map[string]bool{}, map[string]bool{}
	for _, r := range recs {
		if r.RecordType == endpoint.RecordTypeTXT {
			txts[r.DNSName] = true
		} else {
			as[r.DNSName] = true
		}
	}
	assert.Len(t, as, n-1)
	assert.Len(t, txts, n-1)
	assert.False(t, as[poisoned])
	for name := range txts {
		assert.True(t, as[strings.TrimPrefix(name, "a-")], "orphan TXT %s", name)
	}
	st := api.Stats()
	assert.Positive(t, st.Throttled, "throttling was exercised")
	assert.Zero(t, st.TooLarge, "batches fit the limits")
}

// TestScaleFailingZone: one zone of three fails half of its calls; the
// other two are in the desired state after every cycle, and the failing
// one converges once it recovers. No cycle leaves a record without its
// TXT or a TXT without its record.
func TestScaleFailingZone(t *testing.T) {
	ctx := context.Background()
	zones := []string{"a.example", "b.example", "c.example"}
	raw := inmemory.New(inmemory.Options{Zones: []string{zones[0], zones[1], zones[2]}})
	rng := rand.New(rand.NewPCG(3, 15))
	faults := true
	flaky := providertest.Intercept(raw, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			for _, list := range [][]*endpoint.Endpoint{c.Create, c.UpdateNew, c.Delete} {
				for _, ep := range list {
					if faults && strings.HasSuffix(ep.DNSName, ".b.example") && rng.IntN(2) == 0 {
						return provider.NewSoftError(errors.New("b.example is down"))
					}
				}
			}
			return next.ApplyChanges(ctx, c)
		},
	})
	batched, err := batch.New(flaky, batch.Options{MaxRecords: 6})
	require.NoError(t, err)
	reg, err := txt.New(batched, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	src := source.NewStatic()
	rec := &zonesync.Reconciler{Source: src, Registry: reg, Safety: plan.SafetyThreshold{Disabled: true}}

	want := func(desired []*endpoint.Endpoint, zone string) []string {
		var out []string
		for _, ep := range desired {
			if strings.HasSuffix(ep.DNSName, "."+zone) {
				out = append(out, ep.DNSName+" A "+ep.Targets.String(),
					"a-"+ep.DNSName+` TXT "heritage=external-dns,external-dns/owner=me"`)
			}
		}
		slices.Sort(out)
		return out
	}
	got := func(zone string) []string {
		var out []string
		for _, l := range zoneLines(t, raw) {
			if strings.HasSuffix(strings.Fields(l)[0], "."+zone) {
				out = append(out, l)
			}
		}
		slices.Sort(out)
		return out
	}
	failures := 0
	var desired []*endpoint.Endpoint
	for cycle := range 40 {
		desired = desired[:0:0]
		for _, z := range zones {
			for i := range 8 {
				if rng.IntN(4) > 0 {
					desired = append(desired, a(fmt.Sprintf("svc-%d.%s", i, z), fmt.Sprintf("192.0.2.%d", rng.IntN(3))))
				}
			}
		}
		src.Set(desired...)
		_, err := rec.RunOnce(ctx)
		if err != nil {
			failures++
			var ze *provider.ZoneError
			require.ErrorAs(t, err, &ze, "cycle %d", cycle)
			assert.Equal(t, "b.example", ze.Zone, "cycle %d: only b fails", cycle)
			assert.Equal(t, []string{"b.example"}, provider.FailedZones(err), "cycle %d", cycle)
			assert.NotContains(t, err.Error(), "zone a.example")
		}
		assert.Equal(t, want(desired, "a.example"), got("a.example"), "cycle %d", cycle)
		assert.Equal(t, want(desired, "c.example"), got("c.example"), "cycle %d", cycle)
		for _, l := range got("b.example") {
			name := strings.Fields(l)[0]
			if strings.HasPrefix(name, "a-") {
				assert.True(t, slices.ContainsFunc(got("b.example"), func(x string) bool { return strings.HasPrefix(x, strings.TrimPrefix(name, "a-")+" A ") }),
					"cycle %d: orphan TXT %s", cycle, name)
			} else {
				assert.True(t, slices.ContainsFunc(got("b.example"), func(x string) bool { return strings.HasPrefix(x, "a-"+name+" TXT") }),
					"cycle %d: %s without TXT", cycle, name)
			}
		}
	}
	assert.Greater(t, failures, 5, "b.example failed")
	faults = false
	_, err = rec.RunOnce(ctx)
	require.NoError(t, err)
	assert.Equal(t, want(desired, "b.example"), got("b.example"))
}
