package txt_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/go-logr/logr"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/txt"
)

var errCut = errors.New("connection cut")

// step is one change of a change set, applied on its own.
type step struct {
	action string // create, update, delete
	ep     *endpoint.Endpoint
	old    *endpoint.Endpoint // update only
}

func (s step) changes() *plan.Changes {
	switch s.action {
	case "create":
		return &plan.Changes{Create: []*endpoint.Endpoint{s.ep}}
	case "update":
		return &plan.Changes{UpdateOld: []*endpoint.Endpoint{s.old}, UpdateNew: []*endpoint.Endpoint{s.ep}}
	default:
		return &plan.Changes{Delete: []*endpoint.Endpoint{s.ep}}
	}
}

// steps lists the changes of c one by one, the lists taken in order (each
// of "create", "update", "delete") and each list in its own order: how a
// provider without transactions sends them.
func steps(c *plan.Changes, order []string) []step {
	var out []step
	for _, list := range order {
		switch list {
		case "create":
			for _, ep := range c.Create {
				out = append(out, step{action: "create", ep: ep})
			}
		case "update":
			for i, ep := range c.UpdateNew {
				out = append(out, step{action: "update", ep: ep, old: c.UpdateOld[i]})
			}
		case "delete":
			for _, ep := range c.Delete {
				out = append(out, step{action: "delete", ep: ep})
			}
		}
	}
	return out
}

// cutter is a provider that applies a change set change by change and,
// while armed, stops after cutAfter changes with errCut, the rest of the
// call unapplied (cutAfter equal to the number of changes: all applied,
// the answer lost). It counts the changes of the last call it cut.
type cutter struct {
	order    []string
	armed    bool
	cutAfter int
	total    int // changes in the last armed call
	onCut    func()
}

func (c *cutter) provider(zone *inmemory.Provider) provider.Provider {
	return providertest.Intercept(zone, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, changes *plan.Changes) error {
			all := steps(changes, c.order)
			if !c.armed {
				for _, s := range all {
					if err := next.ApplyChanges(ctx, s.changes()); err != nil {
						return err
					}
				}
				return nil
			}
			c.armed = false
			c.total = len(all)
			for i, s := range all {
				if i == c.cutAfter {
					break
				}
				if err := next.ApplyChanges(ctx, s.changes()); err != nil {
					return err
				}
			}
			if c.onCut != nil {
				c.onCut()
			}
			return provider.NewSoftError(errCut)
		},
	})
}

// repairCycle is one cycle of a Reconciler: read, plan, and apply when the
// plan has changes or the registry has repairs to make.
func repairCycle(ctx context.Context, reg *txt.Registry, desired []*endpoint.Endpoint) (*plan.Changes, error) {
	current, err := reg.Records(ctx)
	if err != nil {
		return nil, err
	}
	p := (&plan.Plan{Current: current, Desired: desired, OwnerID: reg.OwnerID()}).Calculate()
	if !p.Changes.HasChanges() && pendingRepairs(reg) == 0 {
		return p.Changes, nil
	}
	return p.Changes, reg.ApplyChanges(ctx, p.Changes)
}

// pendingRepairs is the registry's PendingRepairs, 0 when it has none.
func pendingRepairs(reg *txt.Registry) int {
	if rp, ok := any(reg).(registry.Repairer); ok {
		return rp.PendingRepairs()
	}
	return 0
}

func service(i int, target string) *endpoint.Endpoint {
	name := fmt.Sprintf("svc-%d.example.com", i)
	return a(name, target).WithLabel("resource", "service/default/"+name[:len(name)-12])
}

// wantZone is the zone holding exactly foreign and desired, each desired
// record with its ownership TXT of owner "default".
func wantZone(desired, foreign []*endpoint.Endpoint) []string {
	var out []string
	for _, ep := range foreign {
		out = append(out, ep.DNSName+" "+ep.RecordType+" "+strings.Join(ep.Targets, ";"))
	}
	for _, ep := range desired {
		out = append(out, ep.DNSName+" "+ep.RecordType+" "+strings.Join(ep.Targets, ";"))
		labels := endpoint.LabelsFromMap(map[string]string{endpoint.OwnerLabelKey: "default"})
		for k, v := range ep.Labels.All() {
			labels.Set(k, v)
		}
		out = append(out, "a-"+ep.DNSName+" TXT "+labels.Serialize(true))
	}
	slices.Sort(out)
	return out
}

// TestPartialApplyHeals: a provider that applies a change set change by
// change is cut after every possible number of changes, in two orders of
// the lists; two clean cycles later the zone holds exactly the desired
// records, each with its ownership TXT, and the foreign records untouched.
func TestPartialApplyHeals(t *testing.T) {
	foreign := []*endpoint.Endpoint{
		a("manual.example.com", "198.51.100.2"),
		a("theirs.example.com", "198.51.100.1"),
		txtRecord("a-theirs.example.com", `"heritage=external-dns,external-dns/owner=other"`),
	}
	before := []*endpoint.Endpoint{
		service(0, "192.0.2.10"), service(1, "192.0.2.11"), service(2, "192.0.2.12"), service(3, "192.0.2.13"),
	}
	after := []*endpoint.Endpoint{
		service(2, "192.0.2.22"), service(3, "192.0.2.13"), service(6, "192.0.2.16"), service(7, "192.0.2.17"),
	}
	for _, order := range [][]string{{"create", "update", "delete"}, {"delete", "create", "update"}, {"update", "delete", "create"}} {
		for k := 0; ; k++ {
			c := &cutter{order: order}
			zone := newZone(foreign...)
			reg := newRegistry(t, c.provider(zone), txt.Config{})
			ctx := context.Background()
			_, err := repairCycle(ctx, reg, before)
			require.NoError(t, err)
			require.Equal(t, wantZone(before, foreign), zoneDump(t, zone))

			c.armed, c.cutAfter = true, k
			_, err = repairCycle(ctx, reg, after)
			require.ErrorIs(t, err, errCut)
			name := fmt.Sprintf("%s/cut after %d of %d", strings.Join(order, ","), k, c.total)
			for i := range 2 {
				_, err := repairCycle(ctx, reg, after)
				require.NoError(t, err, "%s: clean cycle %d", name, i+1)
			}
			assert.Equal(t, wantZone(after, foreign), zoneDump(t, zone), name)
			changes, err := repairCycle(ctx, reg, after)
			require.NoError(t, err)
			assert.False(t, changes.HasChanges(), "%s: converged", name)
			assert.Zero(t, pendingRepairs(reg), "%s: nothing left to repair", name)
			if k >= c.total {
				break
			}
		}
	}
}

const ours = `"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/x"`

// handCreate adds a record to the zone behind the registry's back.
func handCreate(t testing.TB, zone *inmemory.Provider, ep *endpoint.Endpoint) {
	t.Helper()
	require.NoError(t, zone.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{ep}}))
}

// TestOrphanTXTNeverLendsOwnership: an ownership TXT of ours whose record
// is missing does not make a record that appears later at its name ours:
// that record is never updated or deleted, and the TXT is removed.
func TestOrphanTXTNeverLendsOwnership(t *testing.T) {
	hand := a("x.example.com", "198.51.100.7")
	want := []string{"x.example.com A 198.51.100.7"}
	tests := []struct {
		name    string
		zone    []*endpoint.Endpoint
		desired []*endpoint.Endpoint
		// fault runs the first cycle, during which the hand-made record
		// appears.
		fault func(t *testing.T, reg *txt.Registry, zone *inmemory.Provider, c *cutter)
		want  []string
	}{
		{
			name:    "orphan read in dry run, record added by hand, not desired",
			zone:    []*endpoint.Endpoint{txtRecord("a-x.example.com", ours)},
			desired: nil,
			fault: func(t *testing.T, reg *txt.Registry, zone *inmemory.Provider, _ *cutter) {
				_, err := reg.Records(t.Context())
				require.NoError(t, err)
				handCreate(t, zone, hand)
			},
			want: want,
		},
		{
			name:    "orphan read in dry run, record added by hand, desired with other targets",
			zone:    []*endpoint.Endpoint{txtRecord("a-x.example.com", ours)},
			desired: []*endpoint.Endpoint{a("x.example.com", "192.0.2.1").WithLabel("resource", "service/default/x")},
			fault: func(t *testing.T, reg *txt.Registry, zone *inmemory.Provider, _ *cutter) {
				_, err := reg.Records(t.Context())
				require.NoError(t, err)
				handCreate(t, zone, hand)
			},
			want: want,
		},
		{
			name:    "orphan reused for a create that fails: the record was added by hand meanwhile",
			zone:    []*endpoint.Endpoint{txtRecord("a-x.example.com", ours)},
			desired: []*endpoint.Endpoint{a("x.example.com", "192.0.2.1").WithLabel("resource", "service/default/x")},
			fault: func(t *testing.T, reg *txt.Registry, zone *inmemory.Provider, c *cutter) {
				c.armed, c.cutAfter = true, 0
				c.onCut = func() { handCreate(t, zone, hand) }
				_, err := repairCycle(t.Context(), reg, []*endpoint.Endpoint{a("x.example.com", "192.0.2.1").WithLabel("resource", "service/default/x")})
				require.ErrorIs(t, err, errCut)
			},
			want: want,
		},
		{
			name:    "TXT created, cut before its record, record added by hand",
			desired: []*endpoint.Endpoint{a("x.example.com", "192.0.2.1").WithLabel("resource", "service/default/x")},
			fault: func(t *testing.T, reg *txt.Registry, zone *inmemory.Provider, c *cutter) {
				c.armed, c.cutAfter = true, 1
				c.onCut = func() {
					recs, err := zone.Records(t.Context())
					require.NoError(t, err)
					for _, r := range recs {
						if r.DNSName == "x.example.com" {
							require.NoError(t, zone.ApplyChanges(t.Context(), &plan.Changes{Delete: []*endpoint.Endpoint{r}}))
						}
					}
					handCreate(t, zone, hand)
				}
				_, err := repairCycle(t.Context(), reg, []*endpoint.Endpoint{a("x.example.com", "192.0.2.1").WithLabel("resource", "service/default/x")})
				require.ErrorIs(t, err, errCut)
			},
			want: want,
		},
		{
			name: "ambiguous failure that succeeded: the record is ours",
			zone: []*endpoint.Endpoint{txtRecord("a-x.example.com", ours)},
			desired: []*endpoint.Endpoint{
				a("x.example.com", "192.0.2.1").WithLabel("resource", "service/default/x"),
			},
			fault: func(t *testing.T, reg *txt.Registry, zone *inmemory.Provider, c *cutter) {
				c.armed, c.cutAfter = true, 1 // everything applied, the answer lost
				_, err := repairCycle(t.Context(), reg, []*endpoint.Endpoint{a("x.example.com", "192.0.2.1").WithLabel("resource", "service/default/x")})
				require.ErrorIs(t, err, errCut)
			},
			want: []string{"a-x.example.com TXT " + ours, "x.example.com A 192.0.2.1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &cutter{order: []string{"create", "update", "delete"}}
			zone := newZone(tt.zone...)
			reg := newRegistry(t, c.provider(zone), txt.Config{})
			tt.fault(t, reg, zone, c)
			for i := range 3 {
				_, err := repairCycle(t.Context(), reg, tt.desired)
				require.NoError(t, err, "clean cycle %d", i+1)
				if i == 1 {
					assert.Equal(t, tt.want, zoneDump(t, zone), "after two clean cycles")
				}
			}
			assert.Equal(t, tt.want, zoneDump(t, zone))
			assert.Zero(t, pendingRepairs(reg))
		})
	}
}

// TestCutDuringDeletesHeals: records of ours and their TXT records are
// deleted by a call cut after every possible number of changes; two clean
// cycles later none is left. A record added by hand, with other targets,
// at the name of a record the cut call deleted is never touched and gets
// no TXT.
func TestCutDuringDeletesHeals(t *testing.T) {
	foreign := []*endpoint.Endpoint{a("manual.example.com", "198.51.100.2")}
	before := []*endpoint.Endpoint{service(0, "192.0.2.10"), service(1, "192.0.2.11")}
	for _, order := range [][]string{{"create", "update", "delete"}, {"delete", "create", "update"}} {
		for _, byHand := range []bool{false, true} {
			for k := 0; ; k++ {
				name := fmt.Sprintf("%s/cut after %d/hand-made record %v", strings.Join(order, ","), k, byHand)
				c := &cutter{order: order}
				zone := newZone(foreign...)
				reg := newRegistry(t, c.provider(zone), txt.Config{})
				ctx := context.Background()
				_, err := repairCycle(ctx, reg, before)
				require.NoError(t, err)

				c.armed, c.cutAfter = true, k
				want := slices.Clone(foreign)
				c.onCut = func() {
					if !byHand {
						return
					}
					recs, err := zone.Records(ctx)
					require.NoError(t, err)
					for _, r := range recs {
						if r.DNSName == "svc-0.example.com" {
							return // not deleted yet
						}
					}
					hand := a("svc-0.example.com", "198.51.100.9")
					handCreate(t, zone, hand)
					want = append(want, hand)
				}
				_, err = repairCycle(ctx, reg, nil)
				require.ErrorIs(t, err, errCut)
				for range 2 {
					_, err := repairCycle(ctx, reg, nil)
					require.NoError(t, err, name)
				}
				assert.Equal(t, wantZone(nil, want), zoneDump(t, zone), name)
				if k >= c.total {
					break
				}
			}
		}
	}
}

// TestOrphanRepairs: Records counts the ownership TXT records of ours whose
// record is missing; ApplyChanges, even without changes, deletes those whose
// record it does not create, logs them, and reuses the others.
func TestOrphanRepairs(t *testing.T) {
	other := `"heritage=external-dns,external-dns/owner=other"`
	zone := newZone(
		txtRecord("a-gone.example.com", ours),
		txtRecord("aaaa-gone.example.com", ours),
		txtRecord("a-back.example.com", ours),
		txtRecord("a-theirs.example.com", other),                                    // not ours
		txtRecord("mx-mail.example.com", ours),                                      // type not managed
		a("legacy.example.com", "192.0.2.5"), txtRecord("legacy.example.com", ours), // legacy untyped TXT
		a("cname-shop.example.com", "192.0.2.6"), txtRecord("cname-shop.example.com", ours), // reads as the CNAME of shop: kept
		a("kept.example.com", "192.0.2.3"), txtRecord("a-kept.example.com", ours),
	)
	rp := providertest.NewRecordingProvider(zone)
	reg := newRegistry(t, rp, txt.Config{})
	ctx := context.Background()
	_, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Implements(t, (*registry.Repairer)(nil), reg)
	assert.Equal(t, 3, pendingRepairs(reg))

	sink := &logSink{}
	back := a("back.example.com", "192.0.2.4").WithLabel("resource", "service/default/x")
	require.NoError(t, reg.ApplyChanges(logr.NewContext(ctx, sink.logger()), &plan.Changes{Create: []*endpoint.Endpoint{back}}))
	got := lastApply(t, rp)
	assert.Equal(t, []string{"back.example.com/A/192.0.2.4"}, keysOf(got.Create), "the TXT of back is reused")
	assert.ElementsMatch(t, []string{"a-gone.example.com/TXT/" + ours, "aaaa-gone.example.com/TXT/" + ours}, keysOf(got.Delete))
	assert.Contains(t, sink.text(), "a-gone.example.com")
	assert.Contains(t, sink.text(), "aaaa-gone.example.com")
	assert.Zero(t, pendingRepairs(reg))

	desired := []*endpoint.Endpoint{
		back, a("kept.example.com", "192.0.2.3").WithLabel("resource", "service/default/x"),
		a("legacy.example.com", "192.0.2.5").WithLabel("resource", "service/default/x"),
		a("cname-shop.example.com", "192.0.2.6").WithLabel("resource", "service/default/x"),
	}
	_, err = repairCycle(ctx, reg, desired) // writes the typed TXT of legacy.example.com
	require.NoError(t, err)
	n := len(rp.CallsTo(providertest.MethodApplyChanges))
	changes, err := repairCycle(ctx, reg, desired)
	require.NoError(t, err)
	assert.False(t, changes.HasChanges())
	assert.Len(t, rp.CallsTo(providertest.MethodApplyChanges), n, "nothing left to repair")
	assert.Contains(t, zoneDump(t, zone), "a-theirs.example.com TXT "+other)
	assert.Contains(t, zoneDump(t, zone), "mx-mail.example.com TXT "+ours)
	assert.Contains(t, zoneDump(t, zone), "cname-shop.example.com TXT "+ours)
}

// TestSettingsWarnings: a changed prefix, suffix or owner id that leaves
// the records owned today without owner is reported.
func TestSettingsWarnings(t *testing.T) {
	mine := `"heritage=external-dns,external-dns/owner=default"`
	old := `"heritage=external-dns,external-dns/owner=old-id"`
	tests := []struct {
		name string
		cfg  txt.Config
		zone []*endpoint.Endpoint
		want [][]string // words of each warning
	}{
		{
			name: "nothing to say",
			zone: []*endpoint.Endpoint{a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", mine)},
		},
		{
			name: "prefix changed",
			cfg:  txt.Config{Prefix: "own-"},
			zone: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", mine),
				a("web.example.com", "192.0.2.2"), txtRecord("a-web.example.com", mine),
			},
			want: [][]string{{"2 ", "a-app.example.com", `"own-"`, "will not be updated or deleted", "set Prefix, Suffix and WildcardReplacement back", "rename those TXT records"}},
		},
		{
			name: "suffix changed, TXT of the old owner",
			cfg:  txt.Config{Suffix: "-own", OldOwnerID: "old-id"},
			zone: []*endpoint.Endpoint{a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", old)},
			want: [][]string{{"1 ", "a-app.example.com", `"-own"`, "Suffix", `"old-id"`}},
		},
		{
			name: "owner id changed",
			zone: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", old),
				a("web.example.com", "192.0.2.2"), txtRecord("a-web.example.com", old),
			},
			want: [][]string{{"2 ", "app.example.com", `"old-id"`, "set OwnerID back", `set OldOwnerID to "old-id"`,
				"left as they are", "never updated or deleted", `rewritten with owner "default"`}},
		},
		{
			name: "owner id changed, old owner configured: no warning",
			cfg:  txt.Config{OldOwnerID: "old-id"},
			zone: []*endpoint.Endpoint{a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", old)},
		},
		{
			name: "another owner next to ours: no warning",
			zone: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", old),
				a("web.example.com", "192.0.2.2"), txtRecord("a-web.example.com", mine),
			},
		},
		{
			name: "two other owners, none ours: no guess",
			zone: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", old),
				a("web.example.com", "192.0.2.2"), txtRecord("a-web.example.com", `"heritage=external-dns,external-dns/owner=third"`),
			},
		},
		{
			name: "both",
			cfg:  txt.Config{Prefix: "own-"},
			zone: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1"), txtRecord("own-a-app.example.com", old),
				a("web.example.com", "192.0.2.2"), txtRecord("a-web.example.com", mine),
			},
			want: [][]string{{"1 ", "a-web.example.com"}, {"1 ", "app.example.com", `"old-id"`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newRegistry(t, newZone(tt.zone...), tt.cfg)
			require.Implements(t, (*registry.SettingsWarner)(nil), reg)
			w := any(reg).(registry.SettingsWarner)
			assert.Nil(t, w.SettingsWarnings(), "before any read")
			_, err := reg.Records(t.Context())
			require.NoError(t, err)
			got := w.SettingsWarnings()
			if tt.want == nil {
				assert.Nil(t, got)
				return
			}
			require.Len(t, got, len(tt.want), "%q", got)
			for i, words := range tt.want {
				for _, word := range words {
					assert.Contains(t, got[i], word)
				}
			}
			assert.Equal(t, got, w.SettingsWarnings(), "stable")
		})
	}
}
