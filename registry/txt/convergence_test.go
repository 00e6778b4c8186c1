package txt_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
)

var errFault = errors.New("fault")

// TestConvergenceUnderFaults runs many plan+apply cycles over a provider
// whose ApplyChanges fails a share of the time, either before applying
// anything or after applying everything (a lost response). After every
// cycle no record is without its ownership TXT and no TXT points at
// nothing; foreign and unowned records are never touched; once the faults
// stop, one cycle converges to the desired state.
func TestConvergenceUnderFaults(t *testing.T) {
	for _, mode := range []string{"fail-before", "fail-after", "mixed"} {
		for _, cache := range []time.Duration{0, time.Hour} {
			t.Run(fmt.Sprintf("%s/cache=%v", mode, cache), func(t *testing.T) {
				ctx := context.Background()
				rng := rand.New(rand.NewPCG(7, uint64(len(mode))))
				foreign := []*endpoint.Endpoint{
					a("theirs.example.com", "198.51.100.1"),
					txtRecord("a-theirs.example.com", `"heritage=external-dns,external-dns/owner=other"`),
					a("manual.example.com", "198.51.100.2"),
				}
				zone := newZone(foreign...)
				faults := true
				failures := 0
				p := providertest.Intercept(zone, providertest.Funcs{
					ApplyChanges: func(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
						if !faults || rng.Float64() >= 0.4 {
							return next.ApplyChanges(ctx, changes)
						}
						failures++
						after := mode == "fail-after" || mode == "mixed" && rng.IntN(2) == 0
						if after {
							if err := next.ApplyChanges(ctx, changes); err != nil {
								return err
							}
						}
						return provider.NewSoftError(errFault)
					},
				})
				reg := newRegistry(t, withCache(p, cache), txt.Config{})

				desired := map[string]string{} // name -> target
				for i := range 20 {
					desired[fmt.Sprintf("svc-%d.example.com", i)] = fmt.Sprintf("192.0.2.%d", i)
				}
				// The desired names include the foreign and manual ones:
				// the plan must never take them over.
				desired["theirs.example.com"] = "192.0.2.200"
				desired["manual.example.com"] = "192.0.2.201"
				build := func() []*endpoint.Endpoint {
					var eps []*endpoint.Endpoint
					for _, name := range slices.Sorted(maps.Keys(desired)) {
						eps = append(eps, a(name, desired[name]).WithLabel("resource", "service/default/"+name[:len(name)-12]))
					}
					return eps
				}
				for range 60 {
					// Churn: add, remove and retarget a few names.
					for range 3 {
						name := fmt.Sprintf("svc-%d.example.com", rng.IntN(30))
						switch rng.IntN(3) {
						case 0:
							delete(desired, name)
						default:
							desired[name] = fmt.Sprintf("192.0.2.%d", rng.IntN(250))
						}
					}
					_, err := cycle(ctx, reg, build())
					if err != nil {
						require.ErrorIs(t, err, errFault)
					}
					checkOwnershipInvariant(t, zone, txt.Namer{}, "default", "theirs.example.com", "manual.example.com")
					checkForeignIntact(t, zone, foreign)
				}
				assert.Positive(t, failures)

				faults = false
				_, err := cycle(ctx, reg, build())
				require.NoError(t, err)
				changes, err := cycle(ctx, reg, build())
				require.NoError(t, err)
				assert.False(t, changes.HasChanges(), "converged after one clean cycle")
				checkOwnershipInvariant(t, zone, txt.Namer{}, "default", "theirs.example.com", "manual.example.com")
				checkForeignIntact(t, zone, foreign)

				got := zoneDump(t, zone)
				var want []string
				for name, target := range desired {
					if name == "theirs.example.com" || name == "manual.example.com" {
						continue
					}
					want = append(want, name+" A "+target)
				}
				for _, line := range got {
					if slices.Contains([]string{"a-", "th", "ma"}, line[:2]) {
						continue
					}
					assert.Contains(t, want, line)
				}
				assert.Len(t, got, 2*len(want)+3)
			})
		}
	}
}

func checkForeignIntact(t *testing.T, p provider.Provider, foreign []*endpoint.Endpoint) {
	t.Helper()
	dump := zoneDump(t, p)
	for _, f := range foreign {
		assert.Contains(t, dump, f.DNSName+" "+f.RecordType+" "+f.Targets[0])
	}
}
