package zonesync_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// upsertProvider behaves like external-dns's pdns provider does: it
// ignores set identifiers and writes a create of an existing record set as
// a replacement. It declares no guarantees (the safe defaults apply), and
// it does not unwrap to the in-memory provider it stores in, whose
// guarantees are not its own. afterRead, when set, runs after each Records
// call, with its number (1 for the first).
type upsertProvider struct {
	next      *inmemory.Provider
	mu        sync.Mutex
	reads     int
	afterRead func(n int)
}

func (p *upsertProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	recs, err := p.next.Records(ctx)
	p.mu.Lock()
	p.reads++
	n, hook := p.reads, p.afterRead
	p.mu.Unlock()
	if hook != nil {
		hook(n)
	}
	return recs, err
}

func (p *upsertProvider) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	strip := func(list []*endpoint.Endpoint) []*endpoint.Endpoint {
		out := make([]*endpoint.Endpoint, 0, len(list))
		for _, ep := range list {
			cp := ep.DeepCopy()
			cp.SetIdentifier = ""
			out = append(out, cp)
		}
		return out
	}
	current, err := p.next.Records(ctx)
	if err != nil {
		return err
	}
	existing := map[endpoint.Key]*endpoint.Endpoint{}
	for _, r := range current {
		existing[r.Key()] = r
	}
	out := &plan.Changes{UpdateOld: strip(c.UpdateOld), UpdateNew: strip(c.UpdateNew), Delete: strip(c.Delete)}
	for _, ep := range strip(c.Create) {
		if old, ok := existing[ep.Key()]; ok {
			out.UpdateOld = append(out.UpdateOld, old) // REPLACE
			out.UpdateNew = append(out.UpdateNew, ep)
			continue
		}
		out.Create = append(out.Create, ep)
	}
	return p.next.ApplyChanges(ctx, out)
}

func (p *upsertProvider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return eps, nil
}

func (p *upsertProvider) GetDomainFilter() endpoint.DomainFilterInterface {
	return p.next.GetDomainFilter()
}

func (p *upsertProvider) ListZones(ctx context.Context) ([]string, error) {
	return p.next.ListZones(ctx)
}

func newUpsertZone(t *testing.T, seed ...*endpoint.Endpoint) (*inmemory.Provider, *upsertProvider) {
	t.Helper()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: seed})
	return zone, &upsertProvider{next: zone}
}

// TestSetIdentifierNeverReachesProviderThatDropsIt (issue 33, finding 1):
// an endpoint with a set identifier, at a name that holds somebody else's
// record, must not reach a provider that drops set identifiers and creates
// by replacing: it would overwrite the foreign record and its ownership
// TXT. It is skipped as unsupported, Preview shows it, and nothing in the
// zone changes.
func TestSetIdentifierNeverReachesProviderThatDropsIt(t *testing.T) {
	ctx := context.Background()
	seed := []*endpoint.Endpoint{
		a("shop.example.com", "198.51.100.1"), ownershipTXT("a-shop.example.com", "other"),
		a("hand.example.com", "198.51.100.2"),
	}
	zone, p := newUpsertZone(t, seed...)
	before := zoneLines(t, zone)
	reg, err := txt.New(p, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	desired := []*endpoint.Endpoint{
		a("shop.example.com", "192.0.2.1").WithSetIdentifier("x").WithLabel(endpoint.ResourceLabelKey, "ingress/shop/shop"),
		a("hand.example.com", "192.0.2.2").WithSetIdentifier("y").WithLabel(endpoint.ResourceLabelKey, "ingress/shop/hand"),
		a("new.example.com", "192.0.2.3").WithLabel(endpoint.ResourceLabelKey, "ingress/shop/new"),
	}
	r := &zonesync.Reconciler{Source: source.NewStatic(desired...), Registry: reg, Logger: testr.New(t)}

	pv, err := r.Preview(ctx)
	require.NoError(t, err)
	assert.Contains(t, skipLines(pv.Plan), "create shop.example.com/A/x unsupported")
	assert.Contains(t, skipLines(pv.Plan), "create hand.example.com/A/y unsupported")
	assert.Contains(t, pv.String(), "does not keep set identifiers")

	for range 3 {
		cyc, err := r.RunOnce(ctx)
		changes := cyc.Changes
		require.NoError(t, err)
		for _, ep := range changes.Create {
			assert.Empty(t, ep.SetIdentifier, "no endpoint with a set identifier is sent")
		}
	}
	after := zoneLines(t, zone)
	for _, line := range before {
		assert.Contains(t, after, line, "the records of others are untouched")
	}
	assert.Contains(t, after, "new.example.com A 192.0.2.3", "the other endpoints are applied")
	assert.NotContains(t, after, "shop.example.com A 192.0.2.1")

	// On a provider that keeps set identifiers the same endpoints are
	// planned (and skipped only for the foreign owner).
	kept := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: seed})
	reg2, err := txt.New(kept, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	r2 := &zonesync.Reconciler{Source: source.NewStatic(desired...), Registry: reg2}
	pv2, err := r2.Preview(ctx)
	require.NoError(t, err)
	assert.NotContains(t, pv2.String(), "unsupported")
}

// TestOwnershipTextInDesiredTXTIsRefused (issue 33, finding 2): a desired
// TXT whose value is an ownership record's text (plain, or a copy of an
// encrypted value of ours) is refused as invalid input of its object; it
// is never created, and a record made by hand at its name later is not
// taken for ours.
func TestOwnershipTextInDesiredTXTIsRefused(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	tests := []struct {
		name  string
		cfg   txt.Config
		value func(t *testing.T, zone *inmemory.Provider) string
	}{
		{
			name: "plain text",
			cfg:  txt.Config{OwnerID: "me", ManagedRecordTypes: []string{"A", "TXT"}},
			value: func(*testing.T, *inmemory.Provider) string {
				return `"heritage=external-dns,external-dns/owner=me,external-dns/resource=x"`
			},
		},
		{
			name:  "unquoted plain text",
			cfg:   txt.Config{OwnerID: "me", ManagedRecordTypes: []string{"A", "TXT"}},
			value: func(*testing.T, *inmemory.Provider) string { return `heritage=external-dns,external-dns/owner=me` },
		},
		{
			name: "a copy of an encrypted ownership value of ours",
			cfg:  txt.Config{OwnerID: "me", ManagedRecordTypes: []string{"A", "TXT"}, EncryptionKey: key},
			value: func(t *testing.T, zone *inmemory.Provider) string {
				recs, err := zone.Records(context.Background())
				require.NoError(t, err)
				for _, r := range recs {
					if r.DNSName == "a-seed.example.com" {
						return r.Targets[0]
					}
				}
				t.Fatal("no ownership TXT of seed.example.com")
				return ""
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
			reg, err := txt.New(zone, tt.cfg)
			require.NoError(t, err)
			seed := a("seed.example.com", "192.0.2.9").WithLabel(endpoint.ResourceLabelKey, "service/default/seed")
			_, err = (&zonesync.Reconciler{Source: source.NewStatic(seed), Registry: reg}).RunOnce(ctx)
			require.NoError(t, err)

			evil := endpoint.NewEndpoint("free.example.com", endpoint.RecordTypeTXT, tt.value(t, zone)).
				WithLabel(endpoint.ResourceLabelKey, "dnsendpoint/team/evil")
			good := a("good.example.com", "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/default/good")
			r := &zonesync.Reconciler{Source: source.NewStatic(seed, evil, good), Registry: reg, Logger: testr.New(t)}
			_, err = r.RunOnce(ctx)
			var pe *source.PartialError
			require.ErrorAs(t, err, &pe)
			require.Contains(t, pe.Failed, "dnsendpoint/team/evil")
			assert.ErrorIs(t, pe.Failed["dnsendpoint/team/evil"], endpoint.ErrOwnershipText)
			lines := zoneLines(t, zone)
			assert.Contains(t, lines, "good.example.com A 192.0.2.1", "the other objects are applied")
			for _, l := range lines {
				assert.False(t, strings.HasPrefix(l, "free.example.com TXT"), "the ownership text is never written: %s", l)
			}

			// Somebody creates a record at that name by hand: it stays.
			require.NoError(t, zone.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("free.example.com", "198.51.100.7")}}))
			for range 2 {
				_, _ = r.RunOnce(ctx)
			}
			assert.Contains(t, zoneLines(t, zone), "free.example.com A 198.51.100.7")
		})
	}
}

// TestCreateRaceOnUpsertProvider (issue 33, finding 4): a foreign record
// written between the registry's read and its apply, on a provider whose
// creates replace, is not overwritten: the registry reads again just
// before creating and leaves that create, and its ownership TXT, out. The
// next cycle sees the record and leaves it alone.
func TestCreateRaceOnUpsertProvider(t *testing.T) {
	ctx := context.Background()
	zone, p := newUpsertZone(t)
	foreign := a("race.example.com", "198.51.100.9")
	p.afterRead = func(n int) {
		if n == 1 { // right after the cycle's read, before its apply
			require.NoError(t, zone.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{foreign}}))
		}
	}
	reg, err := txt.New(p, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	desired := []*endpoint.Endpoint{
		a("race.example.com", "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/default/race"),
		a("calm.example.com", "192.0.2.2").WithLabel(endpoint.ResourceLabelKey, "service/default/calm"),
	}
	r := &zonesync.Reconciler{Source: source.NewStatic(desired...), Registry: reg, Logger: testr.New(t)}
	_, err = r.RunOnce(ctx)
	require.Error(t, err)
	assert.ErrorIs(t, err, provider.ErrCreateWouldOverwrite)
	assert.ErrorIs(t, err, provider.SoftError, "a later cycle plans it again")
	lines := zoneLines(t, zone)
	assert.Contains(t, lines, "race.example.com A 198.51.100.9", "the foreign record is not overwritten")
	assert.NotContains(t, lines, `a-race.example.com TXT "heritage=external-dns,external-dns/owner=me,external-dns/resource=service/default/race"`,
		"no ownership TXT of ours next to a record we did not write")
	assert.Contains(t, lines, "calm.example.com A 192.0.2.2", "the other creates are applied")

	for range 2 {
		_, err = r.RunOnce(ctx)
		require.NoError(t, err)
	}
	assert.Contains(t, zoneLines(t, zone), "race.example.com A 198.51.100.9", "the next cycles see it and leave it alone")
	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	for _, rec := range recs {
		if rec.DNSName == "race.example.com" {
			assert.Equal(t, endpoint.OwnedByNobody, rec.Ownership())
		}
	}
}

// TestRepairNeverCollidesWithPlan (issue 33, finding 7a): with TXT managed,
// an orphan ownership TXT of ours at a-b.example.com and a desired TXT
// record at that same name: the repair and the create become one update,
// the record is created in one cycle, and the next cycle has nothing to do.
func TestRepairNeverCollidesWithPlan(t *testing.T) {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: []*endpoint.Endpoint{
		ownershipTXT("a-b.example.com", "me"), // owns b.example.com/A, which is gone
	}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "me", ManagedRecordTypes: []string{"A", "TXT"}})
	require.NoError(t, err)
	desired := endpoint.NewEndpoint("a-b.example.com", endpoint.RecordTypeTXT, `"hello"`).WithLabel(endpoint.ResourceLabelKey, "dnsendpoint/default/hello")
	r := &zonesync.Reconciler{Source: source.NewStatic(desired), Registry: reg, Logger: testr.New(t)}
	_, err = r.RunOnce(ctx)
	require.NoError(t, err)
	lines := zoneLines(t, zone)
	assert.Contains(t, lines, `a-b.example.com TXT "hello"`)
	assert.Contains(t, lines, `txt-a-b.example.com TXT "heritage=external-dns,external-dns/owner=me,external-dns/resource=dnsendpoint/default/hello"`)
	assert.Len(t, lines, 2, "the orphan is gone: %v", lines)

	cyc, err := r.RunOnce(ctx)
	changes := cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges())
	rp, ok := registry.As[registry.Repairer](reg)
	require.True(t, ok)
	assert.Zero(t, rp.PendingRepairs())
}

// TestAmbiguousTXTNameIsNotRepaired (issue 33, finding 7b): with a bare
// "%{record_type}" prefix, the TXT of wild.apps.example.com/AAAA is
// aaaawild.apps.example.com, which external-dns reads as the TXT of
// aaawild.apps.example.com/A. The record created keeps its TXT and stays
// ours; when the A record of that other reading also exists, the TXT owns
// neither, nothing is deleted, and the registry warns.
func TestAmbiguousTXTNameIsNotRepaired(t *testing.T) {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "me", Prefix: "%{record_type}"})
	require.NoError(t, err)
	wild := endpoint.NewEndpoint("wild.apps.example.com", endpoint.RecordTypeAAAA, "2001:db8::1").WithLabel(endpoint.ResourceLabelKey, "service/default/wild")
	r := &zonesync.Reconciler{Source: source.NewStatic(wild), Registry: reg, Logger: testr.New(t)}
	_, err = r.RunOnce(ctx)
	require.NoError(t, err)
	want := []string{
		`aaaawild.apps.example.com TXT "heritage=external-dns,external-dns/owner=me,external-dns/resource=service/default/wild"`,
		"wild.apps.example.com AAAA 2001:db8::1",
	}
	for range 3 {
		cyc, err := r.RunOnce(ctx)
		changes := cyc.Changes
		require.NoError(t, err)
		assert.False(t, changes.HasChanges())
		assert.Equal(t, want, zoneLines(t, zone), "the TXT of a record we created is never repaired away")
	}
	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, endpoint.OwnedByUs, recs[0].Ownership())

	// A record of the other reading appears: the TXT cannot tell which one
	// it was written for, so it owns neither and nothing is touched.
	require.NoError(t, zone.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("aaawild.apps.example.com", "198.51.100.4")}}))
	r.Source = source.NewStatic()
	for range 2 {
		_, err = r.RunOnce(ctx)
		require.NoError(t, err)
	}
	lines := zoneLines(t, zone)
	assert.Contains(t, lines, "aaawild.apps.example.com A 198.51.100.4")
	assert.Contains(t, lines, "wild.apps.example.com AAAA 2001:db8::1")
	assert.Contains(t, lines, want[0])
	warnings := reg.SettingsWarnings()
	require.NotEmpty(t, warnings)
	assert.Contains(t, strings.Join(warnings, "\n"), "owning neither")
}

// TestOwnerMigrationThroughVerdict: the old owner's records are ours under
// the old owner id, relabelled by the planner's update in one cycle (their
// TXT rewritten with the new owner), and counted by the safety threshold.
func TestOwnerMigrationThroughVerdict(t *testing.T) {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: []*endpoint.Endpoint{
		a("app.example.com", "192.0.2.1"), ownershipTXT("a-app.example.com", "old"),
		a("gone.example.com", "192.0.2.2"), ownershipTXT("a-gone.example.com", "old"),
		a("theirs.example.com", "192.0.2.3"), ownershipTXT("a-theirs.example.com", "other"),
	}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "new", OldOwnerID: "old"})
	require.NoError(t, err)
	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	verdicts := map[string]endpoint.Ownership{}
	for _, rec := range recs {
		verdicts[rec.DNSName] = rec.Ownership()
	}
	assert.Equal(t, map[string]endpoint.Ownership{
		"app.example.com": endpoint.OwnedByOldOwner, "gone.example.com": endpoint.OwnedByOldOwner, "theirs.example.com": endpoint.OwnedByOther,
	}, verdicts)

	obs := newCycleObserver()
	r := &zonesync.Reconciler{Source: source.NewStatic(a("app.example.com", "192.0.2.1")), Registry: reg, Observer: obs}
	cyc, err := r.RunOnce(ctx)
	changes := cyc.Changes
	require.NoError(t, err)
	assert.Len(t, changes.UpdateNew, 1, "the record of the old owner is relabelled")
	assert.Len(t, changes.Delete, 1, "the old owner's record no longer desired is ours to delete")
	assert.Equal(t, 2, (<-obs.finished).Owned, "both count as owned")
	lines := zoneLines(t, zone)
	assert.Contains(t, lines, `a-app.example.com TXT "heritage=external-dns,external-dns/owner=new"`)
	assert.Contains(t, lines, "theirs.example.com A 192.0.2.3")
	assert.NotContains(t, lines, "gone.example.com A 192.0.2.2")

	cyc, err = r.RunOnce(ctx)
	changes = cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "one cycle migrates")
}

// TestDesiredRecordAtOwnershipTXTIsRefused: a desired TXT record whose
// record set is an ownership TXT, or a CNAME at its name, cannot be written
// there (the planner never sees ownership TXT records): it is refused as
// invalid input of its object, and the other changes of the zone are
// applied, on a provider that applies a zone's changes at once too.
func TestDesiredRecordAtOwnershipTXTIsRefused(t *testing.T) {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: []*endpoint.Endpoint{
		a("theirs.example.com", "198.51.100.1"), ownershipTXT("a-theirs.example.com", "other"),
	}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "me", ManagedRecordTypes: []string{"A", "CNAME", "TXT"}})
	require.NoError(t, err)
	app := a("app.example.com", "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/default/app")
	r := &zonesync.Reconciler{Source: source.NewStatic(app), Registry: reg, Logger: testr.New(t)}
	_, err = r.RunOnce(ctx)
	require.NoError(t, err)

	squatTXT := endpoint.NewEndpoint("a-app.example.com", endpoint.RecordTypeTXT, `"hello"`).WithLabel(endpoint.ResourceLabelKey, "dnsendpoint/team/squat-txt")
	squatCNAME := endpoint.NewEndpoint("a-theirs.example.com", endpoint.RecordTypeCNAME, "elsewhere.example.net").WithLabel(endpoint.ResourceLabelKey, "dnsendpoint/team/squat-cname")
	other := a("other.example.com", "192.0.2.2").WithLabel(endpoint.ResourceLabelKey, "service/default/other")
	r.Source = source.NewStatic(app, squatTXT, squatCNAME, other)
	for range 2 {
		_, err = r.RunOnce(ctx)
		var pe *source.PartialError
		require.ErrorAs(t, err, &pe)
		assert.ErrorIs(t, pe.Failed["dnsendpoint/team/squat-txt"], txt.ErrOwnershipTXTInTheWay)
		assert.ErrorIs(t, pe.Failed["dnsendpoint/team/squat-cname"], txt.ErrOwnershipTXTInTheWay)
	}
	lines := zoneLines(t, zone)
	assert.Contains(t, lines, "other.example.com A 192.0.2.2", "the rest of the zone is applied")
	assert.Contains(t, lines, `a-app.example.com TXT "heritage=external-dns,external-dns/owner=me,external-dns/resource=service/default/app"`)
	assert.Contains(t, lines, `a-theirs.example.com TXT "heritage=external-dns,external-dns/owner=other"`)
	assert.NotContains(t, lines, "a-theirs.example.com CNAME elsewhere.example.net")
}

// TestRecordAtOwnershipTXTNameMakesCreateUnownable: an ordinary record at
// the name of the ownership TXT a create needs (a TXT record at a-n05, a
// CNAME there) makes that create unownable: it is skipped, shown by
// Preview, and the rest of the zone is applied — on a provider that
// applies a zone's changes at once, and on one whose creates overwrite.
func TestRecordAtOwnershipTXTNameMakesCreateUnownable(t *testing.T) {
	for _, upsert := range []bool{false, true} {
		for _, squatter := range []*endpoint.Endpoint{
			endpoint.NewEndpointWithTTL("a-n05.example.org", endpoint.RecordTypeTXT, 600, "foreign-1"),
			endpoint.NewEndpointWithTTL("a-n05.example.org", endpoint.RecordTypeCNAME, 600, "elsewhere.example.net"),
		} {
			t.Run(squatter.RecordType, func(t *testing.T) {
				ctx := context.Background()
				mem := inmemory.New(inmemory.Options{Zones: []string{"example.org"}, Records: []*endpoint.Endpoint{squatter}})
				var p provider.Provider = mem
				if upsert {
					p = &upsertProvider{next: mem}
				}
				reg, err := txt.New(p, txt.Config{OwnerID: "me"})
				require.NoError(t, err)
				src := source.NewStatic(a("n05.example.org", "192.0.2.5"), a("n06.example.org", "192.0.2.6"))
				r := &zonesync.Reconciler{Source: src, Registry: reg, Logger: testr.New(t)}
				pv, err := r.Preview(ctx)
				require.NoError(t, err)
				assert.Contains(t, skipLines(pv.Plan), "create n05.example.org/A unownable")
				for range 3 {
					_, err = r.RunOnce(ctx)
					require.NoError(t, err)
				}
				lines := zoneLines(t, mem)
				assert.Contains(t, lines, "n06.example.org A 192.0.2.6", "the rest of the zone is applied")
				assert.NotContains(t, lines, "n05.example.org A 192.0.2.5")
				assert.Contains(t, lines, squatter.DNSName+" "+squatter.RecordType+" "+squatter.Targets.String(), "the record in the way is untouched")
			})
		}
	}
}
