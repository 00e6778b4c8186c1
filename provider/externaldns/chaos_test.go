package externaldns_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/chaos"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/externaldns/internal/pdnstest"
	"github.com/zonesync/zonesync/provider/providertest"
)

// pdnsChaosCycles is the number of faulty cycles of TestChaosPowerDNS:
// some 15 to 30 s with -race on a busy 2-core machine (every cycle makes a
// few HTTP calls to PowerDNS, and the checks read the zone after each).
const pdnsChaosCycles = 400

// pdnsWindowCycles is the number of faulty cycles of
// TestChaosPowerDNSCreateWindow.
const pdnsWindowCycles = 200

// errPDNSCut is the error of a call the fault injectors broke off.
var errPDNSCut = provider.NewSoftError(errors.New("connection to PowerDNS lost"))

// pdnsChaos is what the two PowerDNS chaos tests set differently.
type pdnsChaos struct {
	cycles int
	cfg    chaos.Config // Direct is filled in
}

// runPDNSChaos runs the chaos harness (internal/chaos) with the Reconciler
// and the TXT registry over external-dns's pdns provider, through the
// adapter, against a real PowerDNS. external-dns's pdns provider writes a
// create as a PATCH of changetype REPLACE, so a create of an existing
// record set replaces it, and ignores set identifiers: the adapter
// declares neither CreateFailsIfExists nor KeepsSetIdentifiers for it
// (the zero Guarantees, also what an undeclared provider gets), so the
// core never sends set identifiers and the TXT registry re-reads the zone
// before applying creates.
//
// The desired records move between types at one name (an A replaced by a
// CNAME, which the adapter applies deletes first, since PowerDNS refuses a
// CNAME beside other data), and the second writer puts TXT records at names
// zonesync desires (the planner creates no CNAME beside them) and at the
// names of the ownership TXT records it would write (the TXT registry
// reports such creates unownable): this run found all three blocking the
// zone for good.
//
// Faults sit between the registry and the adapter, from seeded streams:
// a call that fails before reaching PowerDNS (Records and ApplyChanges), a
// call that PowerDNS applied but whose answer was lost, and a call cut
// between the provider's PATCH requests (it sends the creates, then the
// updates, then the deletes, one request each): the creates, or the
// creates and updates, applied and then a failure.
func runPDNSChaos(t *testing.T, pc pdnsChaos) *chaos.Harness {
	quietLogrus(t)
	seed := chaos.Seed(t)
	srv := pdnstest.Start(t, pdnstest.Config{})
	srv.CreateZone(chaos.Zone)

	direct := newPDNS(t, srv, chaos.Zone)
	underTest := newPDNS(t, srv, chaos.Zone)
	g := provider.GuaranteesOf(underTest)
	require.False(t, g.CreateFailsIfExists, "external-dns's pdns creates by REPLACE: the adapter must not declare CreateFailsIfExists")
	require.False(t, g.KeepsSetIdentifiers, "external-dns's pdns ignores set identifiers: the adapter must not declare KeepsSetIdentifiers")

	cfg := pc.cfg
	cfg.Direct = direct
	h := chaos.New(t, seed, cfg)
	h.Fillers(4)

	// Each layer counts the calls it broke off; the outer layers see
	// those of the inner ones too.
	var counts struct{ failed, afterApply, partial, records atomic.Int64 }
	partial := providertest.Intercept(underTest, providertest.Funcs{
		ApplyChanges: cutBetweenPatches(rand.New(rand.NewPCG(seed, 16)), 0.06, h, &counts.partial),
	})
	lost := providertest.Intercept(providertest.FailAfterApplyRandomly(partial, 0.06, rand.New(rand.NewPCG(seed, 17)), errPDNSCut),
		providertest.Funcs{ApplyChanges: countCuts(&counts.afterApply)})
	faulty := providertest.Intercept(providertest.FailRandomly(lost, 0.06, rand.New(rand.NewPCG(seed, 18)), errPDNSCut),
		providertest.Funcs{
			Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
				recs, err := next.Records(ctx)
				if errors.Is(err, errPDNSCut) {
					counts.records.Add(1)
					h.Logf("faults: Records failed")
				}
				return recs, err
			},
			ApplyChanges: countCuts(&counts.failed),
		})

	var on atomic.Bool
	h.Reconciler(h.Switchable(underTest, faulty, &on))
	stats := func() string {
		partial, afterApply := counts.partial.Load(), counts.afterApply.Load()
		return fmt.Sprintf("injected: %d Records failed, %d ApplyChanges failed before reaching PowerDNS, %d answers lost after applying, %d cut between PATCHes",
			counts.records.Load(), counts.failed.Load()-afterApply, afterApply-partial, partial)
	}
	h.Run(pc.cycles, on.Store, stats)
	return h
}

// countCuts returns an ApplyChanges interceptor that counts the calls that
// fail with errPDNSCut.
func countCuts(n *atomic.Int64) func(context.Context, provider.Provider, *plan.Changes) error {
	return func(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
		err := next.ApplyChanges(ctx, changes)
		if errors.Is(err, errPDNSCut) {
			n.Add(1)
		}
		return err
	}
}

// cutBetweenPatches returns an ApplyChanges interceptor that, with
// probability rate, applies only the creates of a call, or its creates and
// updates, and then fails: a connection lost between the PATCH requests of
// external-dns's pdns provider, which sends creates, updates and deletes
// in that order.
func cutBetweenPatches(rng *rand.Rand, rate float64, h *chaos.Harness, n *atomic.Int64) func(context.Context, provider.Provider, *plan.Changes) error {
	return func(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
		if rng.Float64() >= rate {
			return next.ApplyChanges(ctx, changes)
		}
		part := &plan.Changes{Create: changes.Create}
		what := "creates"
		if rng.IntN(2) == 0 {
			part.UpdateOld, part.UpdateNew = changes.UpdateOld, changes.UpdateNew
			what = "creates and updates"
		}
		if err := next.ApplyChanges(ctx, part); err != nil {
			return err
		}
		h.Logf("faults: apply cut after the %s", what)
		n.Add(1)
		return fmt.Errorf("chaos: applied the %s only: %w", what, errPDNSCut)
	}
}

// TestChaosPowerDNS runs the Reconciler with the TXT registry over
// external-dns's pdns provider (an upsert provider, through the adapter)
// against a real PowerDNS for many cycles, under injected faults, while a
// second writer adds, changes and deletes foreign records between cycles
// and races with zonesync between the registry's read of the zone and its
// re-read before applying (after the plan, before the registry's
// ApplyChanges): mostly by creating, with its own data, a record the plan
// is about to create, as another owner's record now and then, or an
// ordinary TXT record at the name of that record's ownership TXT. Desired
// endpoints sometimes carry set identifiers, at names zonesync desires and
// at names the writer uses.
//
// After every cycle: no record zonesync did not create was modified or
// deleted; every ownership TXT of ours names one owner and a record
// zonesync desired, with data it desired; no endpoint with a set
// identifier reached the provider (the plan skipped each as unsupported,
// and no change sent held one); a race that wrote a record set the plan
// was about to create made the cycle's error wrap
// provider.ErrCreateWouldOverwrite. After the faults stop, at most two
// clean cycles leave exactly the desired records, each with its ownership
// TXT, and no ownership TXT without its record.
func TestChaosPowerDNS(t *testing.T) {
	h := runPDNSChaos(t, pdnsChaos{
		cycles: pdnsChaosCycles,
		cfg: chaos.Config{
			PlanRaceRate:   0.15,
			QuoteTXT:       true,
			SetIdentifiers: true,
			OwnershipNames: true,
		},
	})
	s := h.Races()
	require.Positive(t, s.Caught, "no race before the re-read hit a planned create: %s", s)
	require.Zero(t, s.Overwritten, "nothing raced after the re-read, so nothing may be overwritten: %s", s)
	require.Positive(t, s.Skipped, "no plan had a set identifier to skip: %s", s)
}

// TestChaosPowerDNSCreateWindow shows where the window the re-read leaves
// on an upsert provider is. At a low rate the second writer races inside
// the TXT registry's ApplyChanges, at one of two points: at the start of
// the registry's re-read, before it reaches PowerDNS, where every record
// written for a planned create must be caught (the create left out, the
// cycle's error wrapping provider.ErrCreateWouldOverwrite, the foreign
// record untouched); and in the provider's ApplyChanges, after the
// re-read, the documented remaining window, where a record written for a
// key the call creates is replaced by zonesync's create: the harness
// hands such a record over to zonesync and counts it instead of reporting
// it. Every other invariant is checked as in TestChaosPowerDNS.
func TestChaosPowerDNSCreateWindow(t *testing.T) {
	h := runPDNSChaos(t, pdnsChaos{
		cycles: pdnsWindowCycles,
		cfg: chaos.Config{
			RereadRaceRate: 0.1,
			ApplyRaceRate:  0.05,
			QuoteTXT:       true,
			OwnershipNames: true,
		},
	})
	s := h.Races()
	require.Positive(t, s.Caught, "no race at the re-read hit a planned create: %s", s)
}
