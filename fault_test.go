package zonesync_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/batch"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// randomDesired picks a random subset of 20 names, with random targets and
// types.
func randomDesired(rng *rand.Rand) []*endpoint.Endpoint {
	var eps []*endpoint.Endpoint
	for i := range 20 {
		if rng.IntN(3) == 0 {
			continue
		}
		name := fmt.Sprintf("svc-%d.example.com", i)
		switch rng.IntN(3) {
		case 0:
			eps = append(eps, endpoint.NewEndpoint(name, endpoint.RecordTypeA, fmt.Sprintf("192.0.2.%d", rng.IntN(4))))
		case 1:
			eps = append(eps, endpoint.NewEndpoint(name, endpoint.RecordTypeA, "192.0.2.1", fmt.Sprintf("192.0.2.%d", 10+rng.IntN(4))))
		default:
			eps = append(eps, endpoint.NewEndpoint(name, endpoint.RecordTypeAAAA, fmt.Sprintf("2001:db8::%d", rng.IntN(4))))
		}
	}
	// Wishes for names that belong to others must never be granted.
	if rng.IntN(2) == 0 {
		eps = append(eps, endpoint.NewEndpoint("other.example.com", endpoint.RecordTypeA, "192.0.2.250"))
	}
	return eps
}

// checkOwnershipInvariant verifies on the raw zone that every record of
// ours has its ownership TXT and that the foreign records are untouched;
// with strict, also that no ownership TXT of ours points at nothing.
func checkOwnershipInvariant(t *testing.T, cycle int, raw []*endpoint.Endpoint, foreign []string, strict bool) {
	t.Helper()
	lines := map[string]bool{}
	txtOwner := map[string]string{} // TXT name -> owner
	for _, r := range raw {
		lines[r.DNSName+" "+r.RecordType+" "+r.Targets.String()] = true
		if r.RecordType == endpoint.RecordTypeTXT {
			labels, err := endpoint.ParseLabels(r.Targets[0])
			if err == nil {
				txtOwner[r.DNSName] = labelValue(labels, endpoint.OwnerLabelKey)
			}
		}
	}
	for _, f := range foreign {
		assert.True(t, lines[f], "cycle %d: foreign record %q was changed", cycle, f)
	}
	withRecord := map[string]bool{}
	for _, r := range raw {
		if r.RecordType == endpoint.RecordTypeTXT || !strings.HasPrefix(r.DNSName, "svc-") {
			continue
		}
		txtName := strings.ToLower(r.RecordType) + "-" + r.DNSName
		withRecord[txtName] = true
		assert.Equal(t, "me", txtOwner[txtName], "cycle %d: %s/%s has no ownership TXT", cycle, r.DNSName, r.RecordType)
	}
	if strict {
		for name, owner := range txtOwner {
			if owner == "me" {
				assert.True(t, withRecord[name], "cycle %d: ownership TXT %s points at nothing", cycle, name)
			}
		}
	}
}

func TestFaultInjectionConverges(t *testing.T) {
	tests := []struct {
		name string
		wrap func(p provider.Provider, rng *rand.Rand, err error) provider.Provider
		// fewerSuccesses: a cycle makes several calls, each of which may
		// fail, so fewer cycles succeed.
		fewerSuccesses bool
	}{
		{name: "30% of calls fail", wrap: func(p provider.Provider, rng *rand.Rand, err error) provider.Provider {
			return providertest.FailRandomly(p, 0.3, rng, err)
		}},
		{name: "30% of calls fail, 30% of applies lose their response", wrap: func(p provider.Provider, rng *rand.Rand, err error) provider.Provider {
			return providertest.FailRandomly(providertest.FailAfterApplyRandomly(p, 0.3, rng, err), 0.3, rng, err)
		}},
		// With batching, each batch of at most six record values is a
		// call of its own that may fail: a cycle stops part-way through.
		{name: "batches of 6 values, 30% of calls fail", wrap: func(p provider.Provider, rng *rand.Rand, err error) provider.Provider {
			b, berr := batch.New(providertest.FailRandomly(p, 0.3, rng, err), batch.Options{MaxRecords: 6})
			if berr != nil {
				panic(berr)
			}
			return b
		}, fewerSuccesses: true},
		{name: "batches of 6 values, 30% fail, 30% lose their response", wrap: func(p provider.Provider, rng *rand.Rand, err error) provider.Provider {
			b, berr := batch.New(providertest.FailRandomly(providertest.FailAfterApplyRandomly(p, 0.3, rng, err), 0.3, rng, err), batch.Options{MaxRecords: 6})
			if berr != nil {
				panic(berr)
			}
			return b
		}, fewerSuccesses: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const cycles = 200
			rng := rand.New(rand.NewPCG(42, 7))
			raw := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: foreignSeed()})
			foreign := zoneLines(t, raw)
			injected := provider.NewSoftError(errors.New("injected outage"))
			reg, err := txt.New(tt.wrap(raw, rng, injected), txt.Config{OwnerID: "me"})
			require.NoError(t, err)
			src := source.NewStatic()
			rec := &zonesync.Reconciler{
				Source: src, Registry: reg,
				// Random desired states change far more than 30% at once.
				Safety: plan.SafetyThreshold{Disabled: true},
			}
			var failures, successes int
			var desired []*endpoint.Endpoint
			for i := range cycles {
				if i < cycles-50 && i%5 == 0 {
					desired = randomDesired(rng)
					src.Set(desired...)
				}
				_, err := rec.RunOnce(context.Background())
				if err != nil {
					require.ErrorIs(t, err, provider.SoftError, "cycle %d: only injected faults may fail a cycle", i)
					failures++
				} else {
					successes++
				}
				recs, rerr := raw.Records(context.Background())
				require.NoError(t, rerr)
				checkOwnershipInvariant(t, i, recs, foreign, err == nil)
			}
			assert.Greater(t, failures, cycles/5, "faults were injected")
			if tt.fewerSuccesses {
				assert.Greater(t, successes, cycles/10)
			} else {
				assert.Greater(t, successes, cycles/5)
			}

			// Converged: the zone holds exactly the desired records of
			// ours (but never other.example.com) plus the foreign ones.
			want := slices.Clone(foreign)
			for _, ep := range desired {
				if ep.DNSName == "other.example.com" {
					continue
				}
				want = append(want,
					ep.DNSName+" "+ep.RecordType+" "+ep.Targets.String(),
					strings.ToLower(ep.RecordType)+"-"+ep.DNSName+` TXT "heritage=external-dns,external-dns/owner=me"`)
			}
			slices.Sort(want)
			got := zoneLines(t, raw)
			slices.Sort(got)
			assert.Equal(t, want, got)
		})
	}
}

// labelValue returns the value of key in l, "" when it is not set.
func labelValue(l endpoint.Labels, key string) string {
	v, _ := l.Get(key)
	return v
}
