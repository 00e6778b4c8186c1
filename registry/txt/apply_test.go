package txt_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/clock/clocktest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/cache"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/txt"
)

func TestLegacyUpgradeThroughForceUpdate(t *testing.T) {
	ctx := context.Background()
	legacy := `"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"`
	zone := newZone(a("app.example.com", "192.0.2.1"), txtRecord("app-own.example.com", legacy))
	rp := providertest.NewRecordingProvider(zone)
	reg := newRegistry(t, rp, txt.Config{Suffix: "-own"})
	desired := []*endpoint.Endpoint{a("app.example.com", "192.0.2.1").WithLabel("resource", "service/default/app")}

	changes, err := cycle(ctx, reg, desired)
	require.NoError(t, err)
	require.Len(t, changes.UpdateNew, 1, "the force update must produce an update pair")
	got := lastApply(t, rp)
	// The typed TXT did not exist: it is created, not updated, and no
	// delete of a missing TXT is attempted.
	assert.Equal(t, []string{"app.example.com/A/192.0.2.1"}, keysOf(got.UpdateOld))
	assert.Equal(t, []string{"app.example.com/A/192.0.2.1"}, keysOf(got.UpdateNew))
	assert.Equal(t, []string{"a-app-own.example.com/TXT/" + legacy}, keysOf(got.Create))
	assert.Empty(t, got.Delete)
	assert.Equal(t, []string{
		"a-app-own.example.com TXT " + legacy,
		"app-own.example.com TXT " + legacy, // legacy TXT stays, as with external-dns
		"app.example.com A 192.0.2.1",
	}, zoneDump(t, zone))

	// Converged: the next cycle has nothing to do.
	changes, err = cycle(ctx, reg, desired)
	require.NoError(t, err)
	assert.False(t, changes.HasChanges())
}

func TestOwnerMigration(t *testing.T) {
	ctx := context.Background()
	oldValue := `"heritage=external-dns,external-dns/owner=old,external-dns/resource=service/default/app"`
	zone := newZone(a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", oldValue),
		a("foreign.example.com", "192.0.2.9"), txtRecord("a-foreign.example.com", `"heritage=external-dns,external-dns/owner=third"`))
	rp := providertest.NewRecordingProvider(zone)
	reg := newRegistry(t, rp, txt.Config{OwnerID: "new", OldOwnerID: "old"})
	desired := []*endpoint.Endpoint{
		a("app.example.com", "192.0.2.1").WithLabel("resource", "service/default/app"),
		a("foreign.example.com", "192.0.2.10"),
	}
	_, err := cycle(ctx, reg, desired)
	require.NoError(t, err)
	got := lastApply(t, rp)
	require.Len(t, got.UpdateOld, 2)
	assert.Equal(t, oldValue, got.UpdateOld[1].Targets[0], "old TXT value as read")
	assert.Equal(t, `"heritage=external-dns,external-dns/owner=new,external-dns/resource=service/default/app"`, got.UpdateNew[1].Targets[0])
	assert.Equal(t, []string{
		"a-app.example.com TXT " + `"heritage=external-dns,external-dns/owner=new,external-dns/resource=service/default/app"`,
		"a-foreign.example.com TXT " + `"heritage=external-dns,external-dns/owner=third"`,
		"app.example.com A 192.0.2.1",
		"foreign.example.com A 192.0.2.9",
	}, zoneDump(t, zone))

	changes, err := cycle(ctx, reg, desired)
	require.NoError(t, err)
	assert.False(t, changes.HasChanges())
}

func TestCreateReusesExistingTXT(t *testing.T) {
	tests := []struct {
		name       string
		existing   string
		wantCreate []string
		wantUpdate []string
	}{
		{name: "same labels: reused", existing: v1, wantCreate: []string{"app.example.com/A/192.0.2.1"}},
		{name: "same labels unquoted: reused", existing: strings.Trim(v1, `"`), wantCreate: []string{"app.example.com/A/192.0.2.1"}},
		{
			name: "other labels: rewritten", existing: `"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/gone"`,
			wantCreate: []string{"app.example.com/A/192.0.2.1"}, wantUpdate: []string{"a-app.example.com/TXT/" + v1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			zone := newZone(txtRecord("a-app.example.com", tt.existing))
			rp := providertest.NewRecordingProvider(zone)
			reg := newRegistry(t, rp, txt.Config{})
			desired := []*endpoint.Endpoint{a("app.example.com", "192.0.2.1").WithLabel("resource", "service/default/app")}
			_, err := cycle(ctx, reg, desired)
			require.NoError(t, err)
			got := lastApply(t, rp)
			assert.Equal(t, tt.wantCreate, keysOf(got.Create))
			if tt.wantUpdate == nil {
				assert.Empty(t, got.UpdateNew)
			} else {
				assert.Equal(t, tt.wantUpdate, keysOf(got.UpdateNew))
				assert.Equal(t, []string{"a-app.example.com/TXT/" + tt.existing}, keysOf(got.UpdateOld))
			}
			checkOwnershipInvariant(t, zone, txt.Namer{}, "default")
		})
	}
}

// TestApplyRefusesChangesToRecordsNotOwned: an update or delete of a
// record not owned by OwnerID (or OldOwnerID) makes the whole call fail
// before anything reaches the provider, naming every such record.
func TestApplyRefusesChangesToRecordsNotOwned(t *testing.T) {
	const other = `"heritage=external-dns,external-dns/owner=other"`
	const old = `"heritage=external-dns,external-dns/owner=old"`
	zoneRecords := []*endpoint.Endpoint{
		a("mine.example.com", "192.0.2.1"), txtRecord("a-mine.example.com", v1),
		a("theirs.example.com", "192.0.2.2"), txtRecord("a-theirs.example.com", other),
		a("nobody.example.com", "192.0.2.3"),
		a("former.example.com", "192.0.2.4"), txtRecord("a-former.example.com", old),
	}
	// current returns the records as a plan would see them, by name.
	current := func() map[string]*endpoint.Endpoint {
		return map[string]*endpoint.Endpoint{
			"mine":   a("mine.example.com", "192.0.2.1").WithLabel("owner", "default").WithLabel("resource", "service/default/app"),
			"theirs": a("theirs.example.com", "192.0.2.2").WithLabel("owner", "other"),
			"nobody": a("nobody.example.com", "192.0.2.3"),
			"former": a("former.example.com", "192.0.2.4").WithLabel("owner", "old"),
		}
	}
	retarget := func(ep *endpoint.Endpoint) *endpoint.Endpoint {
		n := ep.DeepCopy()
		n.Targets = endpoint.Targets{"192.0.2.99"}
		return n
	}
	tests := []struct {
		name      string
		changes   func(c map[string]*endpoint.Endpoint) *plan.Changes
		wantNamed []string // records named in the error; nil: applied
	}{
		{
			name: "owned update and delete are applied",
			changes: func(c map[string]*endpoint.Endpoint) *plan.Changes {
				return &plan.Changes{UpdateOld: []*endpoint.Endpoint{c["mine"]}, UpdateNew: []*endpoint.Endpoint{retarget(c["mine"])},
					Delete: []*endpoint.Endpoint{c["former"]}}
			},
		},
		{
			name: "update of another owner's record",
			changes: func(c map[string]*endpoint.Endpoint) *plan.Changes {
				return &plan.Changes{UpdateOld: []*endpoint.Endpoint{c["mine"], c["theirs"]},
					UpdateNew: []*endpoint.Endpoint{retarget(c["mine"]), retarget(c["theirs"])}}
			},
			wantNamed: []string{`update theirs.example.com/A (owner "other")`},
		},
		{
			name: "delete of an unowned record next to an owned create",
			changes: func(c map[string]*endpoint.Endpoint) *plan.Changes {
				return &plan.Changes{Create: []*endpoint.Endpoint{a("new.example.com", "192.0.2.5")}, Delete: []*endpoint.Endpoint{c["nobody"]}}
			},
			wantNamed: []string{`delete nobody.example.com/A (owner "")`},
		},
		{
			name: "every offending record is named",
			changes: func(c map[string]*endpoint.Endpoint) *plan.Changes {
				return &plan.Changes{UpdateOld: []*endpoint.Endpoint{c["nobody"]}, UpdateNew: []*endpoint.Endpoint{retarget(c["nobody"])},
					Delete: []*endpoint.Endpoint{c["mine"], c["theirs"]}}
			},
			wantNamed: []string{`update nobody.example.com/A (owner "")`, `delete theirs.example.com/A (owner "other")`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			zone := newZone(zoneRecords...)
			rp := providertest.NewRecordingProvider(zone)
			reg := newRegistry(t, rp, txt.Config{OldOwnerID: "old"})
			_, err := reg.Records(ctx)
			require.NoError(t, err)
			before := zoneDump(t, zone)
			err = reg.ApplyChanges(ctx, tt.changes(current()))
			if tt.wantNamed == nil {
				require.NoError(t, err)
				assert.NotEqual(t, before, zoneDump(t, zone))
				return
			}
			require.ErrorIs(t, err, registry.ErrNotOwned)
			assert.NotErrorIs(t, err, provider.SoftError)
			for _, w := range tt.wantNamed {
				assert.Contains(t, err.Error(), w)
			}
			assert.NotContains(t, err.Error(), "mine.example.com", "owned records are not named")
			assert.Empty(t, rp.CallsTo(providertest.MethodApplyChanges), "nothing reached the provider")
			assert.Equal(t, before, zoneDump(t, zone))
		})
	}
}

func TestApplyRejectsUnpairedUpdates(t *testing.T) {
	reg := newRegistry(t, newZone(), txt.Config{})
	err := reg.ApplyChanges(context.Background(), &plan.Changes{UpdateOld: []*endpoint.Endpoint{a("x.example.com", "192.0.2.1")}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pairs")
	require.NoError(t, reg.ApplyChanges(context.Background(), nil))
	require.NoError(t, reg.ApplyChanges(context.Background(), &plan.Changes{}))
}

func TestApplySkipsRecordsWithoutUsableTXTName(t *testing.T) {
	long := strings.Repeat("x", 62)
	tests := []struct {
		name    string
		cfg     txt.Config
		record  *endpoint.Endpoint
		wantMsg string
	}{
		{name: "label over 63 octets", record: a(long+".example.com", "192.0.2.1"), wantMsg: "a-" + long},
		{name: "prefix pushes label over 63 octets", cfg: txt.Config{Prefix: "owner-"}, record: a(strings.Repeat("y", 58)+".example.com", "192.0.2.1"), wantMsg: "63"},
		{name: "apex TXT outside the zone", record: a("example.com", "192.0.2.1"), wantMsg: `"a-example.com" is outside the provider's domain filter`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			zone := newZone()
			reg := newRegistry(t, zone, tt.cfg)
			_, err := reg.Records(ctx)
			require.NoError(t, err)
			err = reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{tt.record, a("ok.example.com", "192.0.2.2")}})
			require.Error(t, err)
			assert.ErrorIs(t, err, txt.ErrTXTName)
			assert.ErrorIs(t, err, provider.SoftError, "the rest was applied: a soft error")
			assert.Contains(t, err.Error(), tt.record.DNSName)
			assert.Contains(t, err.Error(), tt.wantMsg)
			dump := zoneDump(t, zone)
			assert.Len(t, dump, 2, "only ok.example.com and its TXT: %v", dump)
			checkOwnershipInvariant(t, zone, reg.Namer(), "default")
		})
	}
}

func TestApplyProviderErrorIsReturned(t *testing.T) {
	hard := errors.New("zone locked")
	p := providertest.Intercept(newZone(), providertest.Funcs{
		ApplyChanges: func(context.Context, provider.Provider, *plan.Changes) error { return hard },
	})
	reg := newRegistry(t, p, txt.Config{})
	err := reg.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{
		a("ok.example.com", "192.0.2.2"), a(strings.Repeat("x", 62)+".example.com", "192.0.2.1"),
	}})
	require.ErrorIs(t, err, hard)
	require.ErrorIs(t, err, txt.ErrTXTName)
	assert.NotErrorIs(t, err, provider.SoftError, "a hard provider error stays hard")
}

func TestSharedWildcardTXT(t *testing.T) {
	ctx := context.Background()
	cfg := txt.Config{WildcardReplacement: "any"}
	zone := newZone()
	rp := providertest.NewRecordingProvider(zone)
	reg := newRegistry(t, rp, cfg)
	both := []*endpoint.Endpoint{a("*.example.com", "192.0.2.1"), a("any.example.com", "192.0.2.2")}

	_, err := cycle(ctx, reg, both)
	require.NoError(t, err)
	got := lastApply(t, rp)
	assert.Len(t, got.Create, 3, "one TXT for both records")
	checkOwnershipInvariant(t, zone, reg.Namer(), "default")

	// Deleting one of them keeps the shared TXT.
	_, err = cycle(ctx, reg, both[1:])
	require.NoError(t, err)
	got = lastApply(t, rp)
	assert.Equal(t, []string{"*.example.com/A/192.0.2.1"}, keysOf(got.Delete))
	assert.Equal(t, []string{"a-any.example.com TXT " + `"heritage=external-dns,external-dns/owner=default"`, "any.example.com A 192.0.2.2"}, zoneDump(t, zone))

	// Deleting the last one removes it.
	_, err = cycle(ctx, reg, nil)
	require.NoError(t, err)
	assert.Empty(t, zoneDump(t, zone))
}

func TestDeleteOfLegacyOwnedRecordLeavesLegacyTXT(t *testing.T) {
	ctx := context.Background()
	legacy := `"heritage=external-dns,external-dns/owner=default"`
	zone := newZone(endpoint.NewEndpoint("app.example.com", "MX", "10 mail.example.com"), txtRecord("app.example.com", legacy))
	rp := providertest.NewRecordingProvider(zone)
	reg := newRegistry(t, rp, txt.Config{})
	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Delete: recs}))
	got := lastApply(t, rp)
	assert.Equal(t, []string{"app.example.com/MX/10 mail.example.com"}, keysOf(got.Delete), "no delete of a typed TXT that does not exist")
	assert.Equal(t, []string{"app.example.com TXT " + legacy}, zoneDump(t, zone))
}

func TestApplyWithoutPrecedingRead(t *testing.T) {
	ctx := context.Background()
	zone := newZone(a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", v1))
	rp := providertest.NewRecordingProvider(zone)
	reg := newRegistry(t, rp, txt.Config{})
	// The caller built the changes itself: the TXT is rebuilt from labels.
	old := a("app.example.com", "192.0.2.1").WithLabel("owner", "default").WithLabel("resource", "service/default/app")
	require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{old}}))
	got := lastApply(t, rp)
	assert.Equal(t, []string{"app.example.com/A/192.0.2.1", "a-app.example.com/TXT/" + v1}, keysOf(got.Delete))
	assert.Empty(t, zoneDump(t, zone))
}

func TestApplyDoesNotModifyChanges(t *testing.T) {
	ctx := context.Background()
	zone := newZone(a("upd.example.com", "192.0.2.1"), txtRecord("a-upd.example.com", v1),
		a("del.example.com", "192.0.2.1"), txtRecord("a-del.example.com", v1))
	reg := newRegistry(t, zone, txt.Config{})
	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	newUpd := recs[1].DeepCopy()
	newUpd.Targets = endpoint.Targets{"192.0.2.2"}
	newUpd.Labels = endpoint.Labels{}
	changes := &plan.Changes{
		Create:    []*endpoint.Endpoint{a("new.example.com", "192.0.2.3")},
		UpdateOld: []*endpoint.Endpoint{recs[1]},
		UpdateNew: []*endpoint.Endpoint{newUpd},
		Delete:    []*endpoint.Endpoint{recs[0]},
	}
	want := &plan.Changes{
		Create:    []*endpoint.Endpoint{changes.Create[0].DeepCopy()},
		UpdateOld: []*endpoint.Endpoint{recs[1].DeepCopy()},
		UpdateNew: []*endpoint.Endpoint{newUpd.DeepCopy()},
		Delete:    []*endpoint.Endpoint{recs[0].DeepCopy()},
	}
	require.NoError(t, reg.ApplyChanges(ctx, changes))
	assert.Equal(t, want, changes)
	checkOwnershipInvariant(t, zone, txt.Namer{}, "default")
}

// TestProviderCacheUnderRegistry checks that the records cache of
// provider/cache, wrapped around the provider, gives the registry what a
// cache of its own would: one read per TTL, copies the caller may modify,
// and a fresh read after every ApplyChanges.
func TestProviderCacheUnderRegistry(t *testing.T) {
	ctx := context.Background()
	clk := clocktest.New(time.Time{})
	zone := newZone(a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", v1))
	rp := providertest.NewRecordingProvider(zone)
	reg := newRegistry(t, mustCache(cache.New(rp, cache.Options{TTL: time.Minute, Clock: clk})), txt.Config{})
	reads := func() int { return len(rp.CallsTo(providertest.MethodRecords)) }

	first, err := reg.Records(ctx)
	require.NoError(t, err)
	first[0].Labels.Set("owner", "mutated")
	first[0].Targets[0] = "203.0.113.1"
	second, err := reg.Records(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, reads(), "second call served from the cache")
	owner, _ := second[0].Labels.Get("owner")
	assert.Equal(t, "default", owner, "callers get copies")
	assert.Equal(t, "192.0.2.1", second[0].Targets[0])

	// The cached read still drives ApplyChanges (TXT reuse / exact values),
	// and ApplyChanges through the cache drops it.
	_, err = cycle(ctx, reg, []*endpoint.Endpoint{a("app.example.com", "192.0.2.1").WithLabel("resource", "service/default/app"),
		a("b.example.com", "192.0.2.2")})
	require.NoError(t, err)
	assert.Equal(t, 1, reads())
	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, reads(), "ApplyChanges invalidated the cache")
	assert.Len(t, recs, 2)

	clk.Advance(30 * time.Second)
	_, err = reg.Records(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, reads())
	clk.Advance(time.Minute)
	_, err = reg.Records(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, reads(), "expired")

	// A failed ApplyChanges, which may have applied part of its changes,
	// drops the cache too.
	failing := providertest.NewRecordingProvider(providertest.Intercept(zone, providertest.Funcs{
		ApplyChanges: func(context.Context, provider.Provider, *plan.Changes) error { return errors.New("boom") },
	}))
	reg2 := newRegistry(t, mustCache(cache.New(failing, cache.Options{TTL: time.Hour, Clock: clk})), txt.Config{})
	for range 2 {
		_, err = reg2.Records(ctx)
		require.NoError(t, err)
	}
	require.Len(t, failing.CallsTo(providertest.MethodRecords), 1)
	require.Error(t, reg2.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("c.example.com", "192.0.2.4")}}))
	_, err = reg2.Records(ctx)
	require.NoError(t, err)
	assert.Len(t, failing.CallsTo(providertest.MethodRecords), 2, "the failed ApplyChanges invalidated the cache")
}

func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	zone := newZone()
	reg := newRegistry(t, mustCache(cache.New(zone, cache.Options{TTL: time.Millisecond})), txt.Config{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 50 {
			_, err := reg.Records(ctx)
			assert.NoError(t, err)
		}
	}()
	for i := range 20 {
		desired := []*endpoint.Endpoint{a("x.example.com", "192.0.2."+string(rune('1'+i%9)))}
		_, err := cycle(ctx, reg, desired)
		// A read racing with an apply may make the next apply fall back;
		// errors are then duplicate creates, fixed by the next cycle.
		_ = err
	}
	<-done
	_, err := cycle(ctx, reg, []*endpoint.Endpoint{a("x.example.com", "192.0.2.9")})
	require.NoError(t, err)
	checkOwnershipInvariant(t, zone, txt.Namer{}, "default")
}

// TestNoForceUpdateWithoutUsableName: a record owned through a legacy TXT
// whose typed TXT cannot be written is not forced into an update that
// would fail at every cycle.
func TestNoForceUpdateWithoutUsableName(t *testing.T) {
	legacy := `"heritage=external-dns,external-dns/owner=default"`
	long := strings.Repeat("x", 62) + ".example.com"
	zone := newZone(a("example.com", "192.0.2.1"), txtRecord("example.com", legacy),
		a(long, "192.0.2.2"), txtRecord(long, legacy),
		a("ok.example.com", "192.0.2.3"), txtRecord("ok.example.com", legacy))
	reg := newRegistry(t, zone, txt.Config{})
	recs, err := reg.Records(context.Background())
	require.NoError(t, err)
	forced := map[string]bool{}
	for _, r := range recs {
		require.True(t, r.IsOwnedBy("default"), r.DNSName)
		_, forced[r.DNSName] = r.GetProviderSpecificProperty(endpoint.ProviderSpecificForceUpdate)
	}
	assert.Equal(t, map[string]bool{"example.com": false, long: false, "ok.example.com": true}, forced)
}

func TestUpdateRenamesTXT(t *testing.T) {
	ctx := context.Background()
	zone := newZone(a("app.example.com", "192.0.2.1").WithProviderSpecific("alias", "true"), txtRecord("cname-app.example.com", v1))
	rp := providertest.NewRecordingProvider(zone)
	reg := newRegistry(t, rp, txt.Config{AliasTXTType: txt.AliasTXTTypeCNAME})
	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	newRec := recs[0].DeepCopy()
	newRec.DeleteProviderSpecificProperty("alias")
	require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{UpdateOld: recs, UpdateNew: []*endpoint.Endpoint{newRec}}))
	got := lastApply(t, rp)
	assert.Equal(t, []string{"a-app.example.com/TXT/" + v1}, keysOf(got.Create))
	assert.Equal(t, []string{"cname-app.example.com/TXT/" + v1}, keysOf(got.Delete))
	assert.Equal(t, []string{"a-app.example.com TXT " + v1, "app.example.com A 192.0.2.1"}, zoneDump(t, zone))

	// An update whose new TXT name is unusable updates the record, deletes
	// the old TXT (it would point at nothing), and reports the record.
	recs, err = reg.Records(ctx)
	require.NoError(t, err)
	renamed := recs[0].DeepCopy()
	renamed.DNSName = strings.Repeat("x", 62) + ".example.com"
	err = reg.ApplyChanges(ctx, &plan.Changes{UpdateOld: recs, UpdateNew: []*endpoint.Endpoint{renamed}})
	require.ErrorIs(t, err, txt.ErrTXTName)
	require.ErrorIs(t, err, provider.SoftError)
	got = lastApply(t, rp)
	assert.Len(t, got.UpdateNew, 1)
	assert.Empty(t, got.Create)
	assert.Equal(t, []string{"a-app.example.com/TXT/" + v1}, keysOf(got.Delete))
}

func TestLookupsWithSetIdentifierAndCase(t *testing.T) {
	legacy := `"heritage=external-dns,external-dns/owner=default"`
	p := staticRecords(
		a("App.Example.com", "192.0.2.1"), txtRecord("A-APP.example.com", v1),
		a("eu.example.com", "192.0.2.2").WithSetIdentifier("eu"), txtRecord("eu.example.com", legacy).WithSetIdentifier("eu"),
	)
	reg := newRegistry(t, p, txt.Config{})
	recs, err := reg.Records(context.Background())
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Equal(t, "service/default/app", labelValue(recs[0].Labels, "resource"), "names compare case-insensitively")
	_, forced := recs[0].GetProviderSpecificProperty(endpoint.ProviderSpecificForceUpdate)
	assert.False(t, forced)
	assert.Equal(t, "default", labelValue(recs[1].Labels, "owner"))
	_, forced = recs[1].GetProviderSpecificProperty(endpoint.ProviderSpecificForceUpdate)
	assert.True(t, forced, "typed TXT of set eu missing")
}

// TestRegression_OrphanCNAMETXTAfterAliasDelete (differential testing
// against external-dns v0.23.0): with Suffix ".%{record_type}-own", the
// TXT app.cname-own.example.com confers ownership on two records — the
// CNAME app.example.com (its typed TXT) and the A ALIAS app.example.com
// (through the legacy "cname-" fallback, its "a-" TXT being absent).
// Deleting both must delete it, in either order and in one or two calls;
// deleting one of them must keep it for the other. zonesync used to keep it
// for ever: deleting the A decremented the users of the absent "a-" name.
func TestRegression_OrphanCNAMETXTAfterAliasDelete(t *testing.T) {
	const mine = `"heritage=external-dns,external-dns/owner=me"`
	const theirs = `"heritage=external-dns,external-dns/owner=other"`
	alias := func() *endpoint.Endpoint {
		return a("app.example.com", "192.0.2.1").WithProviderSpecific("alias", "true")
	}
	cname := func() *endpoint.Endpoint { return endpoint.NewEndpoint("app.example.com", "CNAME", "lb.example.net") }
	scenario := []*endpoint.Endpoint{alias(), txtRecord("app.cname-own.example.com", mine), cname()}
	tests := []struct {
		name  string
		zone  []*endpoint.Endpoint
		calls [][]string // record types deleted, one ApplyChanges call each; nil: a planner cycle with nothing desired
		want  []string   // zone afterwards
		// wantOwned: record types still owned by "me" on the next read.
		wantOwned []string
	}{
		{name: "planner deletes everything", zone: scenario, want: []string{}},
		{name: "A then CNAME, one call", zone: scenario, calls: [][]string{{"A", "CNAME"}}, want: []string{}},
		{name: "CNAME then A, one call", zone: scenario, calls: [][]string{{"CNAME", "A"}}, want: []string{}},
		{name: "A then CNAME, two calls", zone: scenario, calls: [][]string{{"A"}, {"CNAME"}}, want: []string{}},
		{name: "CNAME then A, two calls", zone: scenario, calls: [][]string{{"CNAME"}, {"A"}}, want: []string{}},
		{
			name: "only the A: the CNAME keeps its TXT", zone: scenario, calls: [][]string{{"A"}},
			want:      []string{"app.cname-own.example.com TXT " + mine, "app.example.com CNAME lb.example.net"},
			wantOwned: []string{"CNAME"},
		},
		{
			name: "only the CNAME: the A ALIAS keeps its fallback TXT", zone: scenario, calls: [][]string{{"CNAME"}},
			want:      []string{"app.cname-own.example.com TXT " + mine, "app.example.com A 192.0.2.1"},
			wantOwned: []string{"A"},
		},
		{
			name:  "A ALIAS with both namings: the obsolete cname- TXT goes with it",
			zone:  []*endpoint.Endpoint{alias(), txtRecord("app.a-own.example.com", mine), txtRecord("app.cname-own.example.com", mine)},
			calls: [][]string{{"A"}}, want: []string{},
		},
		{
			name:  "another owner's cname- TXT is left alone",
			zone:  []*endpoint.Endpoint{alias(), txtRecord("app.a-own.example.com", mine), txtRecord("app.cname-own.example.com", theirs)},
			calls: [][]string{{"A"}}, want: []string{"app.cname-own.example.com TXT " + theirs},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			zone := newZone(tt.zone...)
			reg := newRegistry(t, zone, txt.Config{OwnerID: "me", Suffix: ".%{record_type}-own"})
			recs, err := reg.Records(ctx)
			require.NoError(t, err)
			for _, r := range recs {
				require.True(t, r.IsOwnedBy("me"), r.Key().String())
			}
			if tt.calls == nil {
				_, err := cycle(ctx, reg, nil)
				require.NoError(t, err)
			}
			for _, types := range tt.calls {
				var del []*endpoint.Endpoint
				for _, typ := range types {
					for _, r := range recs {
						if r.RecordType == typ {
							del = append(del, r)
						}
					}
				}
				require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Delete: del}))
			}
			assert.Equal(t, tt.want, append([]string{}, zoneDump(t, zone)...))

			recs, err = newRegistry(t, zone, txt.Config{OwnerID: "me", Suffix: ".%{record_type}-own"}).Records(ctx)
			require.NoError(t, err)
			var owned []string
			for _, r := range recs {
				if r.IsOwnedBy("me") {
					owned = append(owned, r.RecordType)
				}
			}
			assert.Equal(t, tt.wantOwned, owned)
		})
	}
}

// TestSharedTXTKeptWhileUsed: a TXT shared by *.x and any.x (wildcard
// replacement) stays as long as one of them exists, counting records
// created after the read, in the same call or a later one.
func TestSharedTXTKeptWhileUsed(t *testing.T) {
	const mine = `"heritage=external-dns,external-dns/owner=default"`
	star := func() *endpoint.Endpoint { return a("*.example.com", "192.0.2.1") }
	anyRec := func() *endpoint.Endpoint { return a("any.example.com", "192.0.2.2") }
	owned := func(ep *endpoint.Endpoint) *endpoint.Endpoint { return ep.WithLabel("owner", "default") }
	tests := []struct {
		name  string
		calls []*plan.Changes
		want  []string
	}{
		{
			name:  "create *.x and delete any.x in one call",
			calls: []*plan.Changes{{Create: []*endpoint.Endpoint{star()}, Delete: []*endpoint.Endpoint{owned(anyRec())}}},
			want:  []string{"*.example.com A 192.0.2.1", "a-any.example.com TXT " + mine},
		},
		{
			name: "create *.x, then delete any.x",
			calls: []*plan.Changes{
				{Create: []*endpoint.Endpoint{star()}},
				{Delete: []*endpoint.Endpoint{owned(anyRec())}},
			},
			want: []string{"*.example.com A 192.0.2.1", "a-any.example.com TXT " + mine},
		},
		{
			name: "create *.x, then delete both",
			calls: []*plan.Changes{
				{Create: []*endpoint.Endpoint{star()}},
				{Delete: []*endpoint.Endpoint{owned(anyRec()), owned(star())}},
			},
			want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			zone := newZone(anyRec(), txtRecord("a-any.example.com", mine))
			reg := newRegistry(t, zone, txt.Config{WildcardReplacement: "any"})
			_, err := reg.Records(ctx)
			require.NoError(t, err)
			for _, c := range tt.calls {
				require.NoError(t, reg.ApplyChanges(ctx, c))
			}
			assert.Equal(t, tt.want, append([]string{}, zoneDump(t, zone)...))
		})
	}
}

// TestRegression_TrailingDotCreateUsesCanonicalNames: a create handed to
// the registry directly with a trailing dot and upper case gets the record
// and the TXT name external-dns writes.
func TestRegression_TrailingDotCreateUsesCanonicalNames(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("A-B.example.com.", endpoint.RecordTypeAAAA, "2001:db8::1"),
	}}))
	recs, err := zone.Records(ctx)
	require.NoError(t, err)
	var names []string
	for _, r := range recs {
		names = append(names, r.DNSName+" "+r.RecordType)
	}
	assert.Equal(t, []string{"a-b.example.com AAAA", "aaaa-a-b.example.com TXT"}, names)
	owned, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, owned, 1)
	assert.True(t, owned[0].IsOwnedBy("me"))
}

// TestApplyUnpairedUpdates: an update without its old side (or an old side
// without its new one) is refused whole, before anything reaches the
// provider. external-dns's TXT registry applies an UpdateNew-only change
// set; zonesync refuses it (docs/compatibility.md, Ownership): the old
// side names the record whose ownership is checked and whose TXT, as read,
// is replaced.
func TestApplyUnpairedUpdates(t *testing.T) {
	owned := a("app.example.com", "192.0.2.1").WithLabel(endpoint.OwnerLabelKey, "default")
	next := a("app.example.com", "192.0.2.2").WithLabel(endpoint.OwnerLabelKey, "default")
	tests := []struct {
		name    string
		changes *plan.Changes
		wantMsg string
	}{
		{"new side only", &plan.Changes{UpdateNew: []*endpoint.Endpoint{next}}, "0 UpdateOld and 1 UpdateNew records: updates must come in pairs"},
		{"old side only", &plan.Changes{UpdateOld: []*endpoint.Endpoint{owned}}, "1 UpdateOld and 0 UpdateNew records: updates must come in pairs"},
		{"one pair and a new side", &plan.Changes{
			UpdateOld: []*endpoint.Endpoint{owned},
			UpdateNew: []*endpoint.Endpoint{next, a("other.example.com", "192.0.2.3")},
			Create:    []*endpoint.Endpoint{a("new.example.com", "192.0.2.4")},
		}, "1 UpdateOld and 2 UpdateNew records: updates must come in pairs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			zone := newZone(a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", `"heritage=external-dns,external-dns/owner=default"`))
			rp := providertest.NewRecordingProvider(zone)
			reg := newRegistry(t, rp, txt.Config{})
			_, err := reg.Records(ctx)
			require.NoError(t, err)
			before := zoneDump(t, zone)

			err = reg.ApplyChanges(ctx, tt.changes)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.Empty(t, rp.CallsTo(providertest.MethodApplyChanges), "nothing reaches the provider")
			assert.Equal(t, before, zoneDump(t, zone))
		})
	}
}
