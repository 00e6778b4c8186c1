package zonesync_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/connector"
)

// serveConnector serves the endpoints *list holds on a loopback port with
// connector.Serve and returns its address.
func serveConnector(t *testing.T, list *atomic.Pointer[[]*endpoint.Endpoint]) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = connector.Serve(ctx, l, func(context.Context) ([]*endpoint.Endpoint, error) { return *list.Load(), nil }, connector.ServeOptions{})
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
	return l.Addr().String()
}

// skipLines renders the skips of a plan as "action key reason".
func skipLines(p *plan.Plan) []string {
	var out []string
	for _, s := range p.Skipped {
		out = append(out, string(s.Action)+" "+s.Endpoint.Key().String()+" "+string(s.Reason))
	}
	return out
}

// TestConnectorInvalidEndpointKeepsItsRecord (issue 21, finding 5): an
// invalid connector endpoint without a resource label is reported under a
// key no record carries; the record it stands for must not be deleted. No
// record is deleted in that cycle; updates and creates go ahead.
func TestConnectorInvalidEndpointKeepsItsRecord(t *testing.T) {
	ctx := context.Background()
	var list atomic.Pointer[[]*endpoint.Endpoint]
	first := []*endpoint.Endpoint{a("x.example.com", "192.0.2.1"), a("y.example.com", "192.0.2.2"), a("z.example.com", "192.0.2.3")}
	list.Store(&first)
	addr := serveConnector(t, &list)
	zone, reg := newZone(t)
	conn, err := connector.New(addr, connector.Options{})
	require.NoError(t, err)
	rec := &zonesync.Reconciler{Source: conn, Registry: reg, Logger: testr.New(t)}
	_, err = rec.RunOnce(ctx)
	require.NoError(t, err)

	// x now comes with a bad target, y changes, z is gone, w is new.
	second := []*endpoint.Endpoint{a("x.example.com", "not-an-address"), a("y.example.com", "192.0.2.20"), a("w.example.com", "192.0.2.4")}
	list.Store(&second)
	for range 2 {
		cyc, err := rec.RunOnce(ctx)
		changes := cyc.Changes
		var pe *source.PartialError
		require.ErrorAs(t, err, &pe)
		assert.Contains(t, err.Error(), "x.example.com")
		assert.Empty(t, changes.Delete, "no record is deleted while a failed endpoint cannot be tied to a record")
		lines := zoneLines(t, zone)
		assert.Contains(t, lines, "x.example.com A 192.0.2.1", "the record of the invalid endpoint stays")
		assert.Contains(t, lines, "z.example.com A 192.0.2.3", "held back this cycle")
		assert.Contains(t, lines, "y.example.com A 192.0.2.20", "updates go ahead")
		assert.Contains(t, lines, "w.example.com A 192.0.2.4", "creates go ahead")
	}
	pv, err := rec.Preview(ctx)
	require.NoError(t, err)
	assert.Contains(t, skipLines(pv.Plan), "delete x.example.com/A source-error")
	assert.Contains(t, skipLines(pv.Plan), "delete z.example.com/A source-error")

	// Once the connector sends valid data, the deletes are made.
	third := []*endpoint.Endpoint{a("y.example.com", "192.0.2.20"), a("w.example.com", "192.0.2.4")}
	list.Store(&third)
	cyc, err := rec.RunOnce(ctx)
	changes := cyc.Changes
	require.NoError(t, err)
	assert.Equal(t, []string{"delete x.example.com/A 192.0.2.1", "delete z.example.com/A 192.0.2.3"}, changeLines(changes))
}

// staticSource returns fixed endpoints (deep copies) with an optional error.
type staticSource struct {
	eps []*endpoint.Endpoint
	err error
}

func (s staticSource) Endpoints(context.Context) ([]*endpoint.Endpoint, error) {
	out := make([]*endpoint.Endpoint, len(s.eps))
	for i, e := range s.eps {
		out[i] = e.DeepCopy()
	}
	return out, s.err
}

func (staticSource) AddEventHandler(context.Context, func()) {}

// adjustSpy is a registry whose AdjustEndpoints records the invalid
// endpoints it is given and can break an endpoint.
type adjustSpy struct {
	registry.Registry
	mu          sync.Mutex
	seenInvalid []string
	breakName   string // name whose targets AdjustEndpoints replaces by garbage
}

func (r *adjustSpy) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*endpoint.Endpoint, len(eps))
	for i, e := range eps {
		if e.Validate() != nil {
			r.seenInvalid = append(r.seenInvalid, e.Key().String())
		}
		out[i] = e
		if e.DNSName == r.breakName {
			out[i] = e.DeepCopy()
			out[i].Targets = endpoint.Targets{"garbage"}
		}
	}
	return r.Registry.AdjustEndpoints(ctx, out)
}

// TestInvalidEndpointsAreObjectFailures: every desired endpoint is
// validated after the source and after AdjustEndpoints; invalid ones are
// not planned and are reported per object, under their resource label (the
// object's records are protected) or under a key of their own (no record is
// deleted). The rest is planned and applied.
func TestInvalidEndpointsAreObjectFailures(t *testing.T) {
	ctx := context.Background()
	svc := func(name, ip, res string) *endpoint.Endpoint {
		return a(name, ip).WithLabel(endpoint.ResourceLabelKey, res)
	}
	initial := staticSource{eps: []*endpoint.Endpoint{
		svc("a1.example.com", "192.0.2.1", "service/ns/a"), svc("a2.example.com", "192.0.2.2", "service/ns/a"),
		svc("b1.example.com", "192.0.2.3", "service/ns/b"), svc("old.example.com", "192.0.2.9", "service/ns/old"),
	}}

	tests := []struct {
		name        string
		eps         []*endpoint.Endpoint
		adjustBreak string
		wantKeys    []string
		wantDeletes []string
		wantLines   []string // records that must be in the zone
		// wantMsg is the start of the cycle's error, which names the
		// layer that refused the endpoint.
		wantMsg string
	}{
		{
			name: "labelled invalid endpoint protects its object",
			eps: []*endpoint.Endpoint{
				svc("a1.example.com", "192.0.2.10", "service/ns/a"), svc("a2.example.com", "not-an-ip", "service/ns/a"),
				svc("b1.example.com", "192.0.2.30", "service/ns/b"),
			},
			wantKeys:    []string{"service/ns/a"},
			wantDeletes: []string{"delete old.example.com/A 192.0.2.9"},
			wantLines:   []string{"a1.example.com A 192.0.2.1", "a2.example.com A 192.0.2.2", "b1.example.com A 192.0.2.30"},
			wantMsg:     "zonesync: planned without the objects the source could not read: source: endpoints of 1 object(s) could not be built: service/ns/a: invalid endpoint a2.example.com/A",
		},
		{
			name: "invalid endpoint without a label holds every delete",
			eps: []*endpoint.Endpoint{
				svc("a1.example.com", "192.0.2.1", "service/ns/a"), svc("a2.example.com", "192.0.2.2", "service/ns/a"),
				svc("b1.example.com", "192.0.2.31", "service/ns/b"), a("b1.example.com", "256.0.0.1"),
			},
			wantLines: []string{"a1.example.com A 192.0.2.1", "b1.example.com A 192.0.2.3", "old.example.com A 192.0.2.9"},
		},
		{
			name: "endpoint broken by AdjustEndpoints",
			eps: []*endpoint.Endpoint{
				svc("a1.example.com", "192.0.2.1", "service/ns/a"), svc("a2.example.com", "192.0.2.2", "service/ns/a"),
				svc("b1.example.com", "192.0.2.3", "service/ns/b"),
			},
			adjustBreak: "b1.example.com",
			wantKeys:    []string{"service/ns/b"},
			wantDeletes: []string{"delete old.example.com/A 192.0.2.9"},
			wantLines:   []string{"b1.example.com A 192.0.2.3"},
			// Not the source's fault: the message says who refused it.
			wantMsg: "zonesync: planned without 1 object(s) whose endpoints the registry's AdjustEndpoints (its provider) made invalid, not the source: " +
				"service/ns/b: refused after AdjustEndpoints (the registry's provider changed the endpoint; the source built a valid one): invalid endpoint b1.example.com/A: targets[0]: A target \"garbage\"",
		},
		{
			name: "invalid from the source and from AdjustEndpoints, each named",
			eps: []*endpoint.Endpoint{
				svc("a1.example.com", "192.0.2.1", "service/ns/a"), svc("a2.example.com", "not-an-ip", "service/ns/a"),
				svc("b1.example.com", "192.0.2.3", "service/ns/b"),
			},
			adjustBreak: "b1.example.com",
			wantKeys:    []string{"service/ns/a", "service/ns/b"},
			wantDeletes: []string{"delete old.example.com/A 192.0.2.9"},
			wantLines:   []string{"a2.example.com A 192.0.2.2", "b1.example.com A 192.0.2.3"},
			wantMsg: "zonesync: planned without the objects the source could not read (source: endpoints of 1 object(s) could not be built: service/ns/a: invalid endpoint a2.example.com/A: " +
				"targets[0]: A target \"not-an-ip\" is not an IPv4 address) and 1 object(s) whose endpoints the registry's AdjustEndpoints (its provider) made invalid, not the source: service/ns/b: refused after AdjustEndpoints",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z, base := newZone(t)
			reg := &adjustSpy{Registry: base}
			r := &zonesync.Reconciler{Registry: reg, Source: initial, Logger: testr.New(t)}
			_, err := r.RunOnce(ctx)
			require.NoError(t, err)
			reg.breakName = tt.adjustBreak

			r.Source = staticSource{eps: tt.eps}
			cyc, err := r.RunOnce(ctx)
			changes := cyc.Changes
			var pe *source.PartialError
			require.ErrorAs(t, err, &pe, "invalid endpoints are reported as per-object failures")
			if tt.wantMsg != "" {
				assert.True(t, strings.HasPrefix(err.Error(), tt.wantMsg), "message:\n%s\nwant prefix:\n%s", err, tt.wantMsg)
			}
			if tt.wantKeys != nil {
				assert.Equal(t, tt.wantKeys, sortedKeys(pe.Failed))
			} else {
				require.Len(t, pe.Failed, 1)
				for k := range pe.Failed {
					assert.True(t, strings.HasPrefix(k, "zonesync/invalid-endpoint/"), k)
					assert.Contains(t, k, "b1.example.com/A")
				}
			}
			if tt.wantDeletes == nil {
				assert.Empty(t, changes.Delete)
			} else {
				assert.Equal(t, tt.wantDeletes, changeLines(&plan.Changes{Delete: changes.Delete}))
			}
			lines := zoneLines(t, z)
			for _, l := range tt.wantLines {
				assert.Contains(t, lines, l)
			}
			for _, l := range lines {
				assert.NotContains(t, l, "garbage")
				assert.NotContains(t, l, "not-an-ip")
				assert.NotContains(t, l, "256.0.0.1")
			}
			assert.Empty(t, reg.seenInvalid, "AdjustEndpoints never sees an invalid endpoint")
		})
	}
}

func sortedKeys(m map[string]error) []string {
	return slices.Sorted(maps.Keys(m))
}

// TestUnownableApexIsSkipped (issue 21, finding 8): with a TXT prefix that is
// not templated, the apex record's ownership TXT cannot be named. The apex
// is skipped with its own reason, the other records are applied, the cycle
// does not fail, and the statuses say so.
func TestUnownableApexIsSkipped(t *testing.T) {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "me", Prefix: "own-"})
	require.NoError(t, err)
	obs := &lastCycle{}
	desired := []*endpoint.Endpoint{
		a("example.com", "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "ingress/web/apex"),
		a("www.example.com", "192.0.2.2").WithLabel(endpoint.ResourceLabelKey, "ingress/web/apex"),
		a("api.example.com", "192.0.2.3").WithLabel(endpoint.ResourceLabelKey, "service/web/api"),
	}
	rec := &zonesync.Reconciler{Source: source.NewStatic(desired...), Registry: reg, Observer: obs, Logger: testr.New(t)}

	pv, err := rec.Preview(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"create api.example.com/A 192.0.2.3", "create www.example.com/A 192.0.2.2"}, changeLines(pv.Plan.Changes))
	assert.Equal(t, []string{"create example.com/A unownable"}, skipLines(pv.Plan))
	assert.Contains(t, pv.Plan.Skipped[0].Detail, `"own-a-example.com" is outside`, "the registry's reason")
	assert.Contains(t, pv.String(), "unownable")

	for i := range 3 {
		cyc, err := rec.RunOnce(ctx)
		changes := cyc.Changes
		require.NoError(t, err, "cycle %d: an unownable record does not fail the cycle", i)
		for _, e := range changes.Create {
			assert.NotEqual(t, "example.com", e.DNSName, "the apex is never sent")
		}
		if i == 0 {
			assert.True(t, obs.c.Applied)
		}
		assert.Equal(t, 1, obs.c.Unownable)
		assert.Equal(t, []statusLine{
			{"ingress/web/apex", "example.com/A", zonesync.RecordSkipped, zonesync.Reason(plan.SkipUnownable), false},
			{"ingress/web/apex", "www.example.com/A", map[bool]zonesync.RecordState{true: zonesync.RecordApplied, false: zonesync.RecordUnchanged}[i == 0], "", true},
			{"service/web/api", "api.example.com/A", map[bool]zonesync.RecordState{true: zonesync.RecordApplied, false: zonesync.RecordUnchanged}[i == 0], "", true},
		}, lines(obs.c.RecordStatuses()), "cycle %d", i)
	}
	assert.Equal(t, []string{
		"api.example.com A 192.0.2.3",
		`own-a-api.example.com TXT "heritage=external-dns,external-dns/owner=me,external-dns/resource=service/web/api"`,
		`own-a-www.example.com TXT "heritage=external-dns,external-dns/owner=me,external-dns/resource=ingress/web/apex"`,
		"www.example.com A 192.0.2.2",
	}, zoneLines(t, zone))
}

// warningRegistry is a registry with settings warnings and pending repairs.
type warningRegistry struct {
	*fakeRegistry
	warnings []string
	repairs  atomic.Int64
}

func (r *warningRegistry) SettingsWarnings() []string { return r.warnings }
func (r *warningRegistry) PendingRepairs() int        { return int(r.repairs.Load()) }

func TestPreviewShowsSettingsWarnings(t *testing.T) {
	reg := &warningRegistry{fakeRegistry: &fakeRegistry{}, warnings: []string{
		`3 record(s) carry owner "old" only in TXT records named with the prefix "x-": with the prefix "y-" they are no longer owned`,
	}}
	reg.repairs.Store(2)
	rec := &zonesync.Reconciler{Source: source.NewStatic(), Registry: reg}
	pv, err := rec.Preview(context.Background())
	require.NoError(t, err)
	assert.Equal(t, reg.warnings, pv.Warnings)
	assert.Equal(t, 2, pv.Repairs)
	assert.Contains(t, pv.String(), "\nwarning: "+reg.warnings[0])
	assert.Contains(t, pv.String(), "\nrepairs: 2")
	assert.Zero(t, reg.appliedCount(), "Preview writes nothing")
}

// TestRunOnceReportsSettingsWarnings: a cycle whose TXT registry finds the
// zone's records owned by one other owner and none by its own (an owner id
// changed) logs the registry's warning, which says what to change and what
// happens to those records, and gives it to the Observer; the cycle does
// not fail and leaves the records alone.
func TestRunOnceReportsSettingsWarnings(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: []*endpoint.Endpoint{
		endpoint.NewEndpoint("shop.example.com", endpoint.RecordTypeA, "198.51.100.7"),
		endpoint.NewEndpoint("a-shop.example.com", endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=team-b"`),
	}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "team-a"})
	require.NoError(t, err)
	var lines []string
	obs := newCycleObserver()
	rec := &zonesync.Reconciler{
		Source:   source.NewStatic(endpoint.NewEndpoint("shop.example.com", endpoint.RecordTypeA, "192.0.2.1")),
		Registry: reg, Observer: obs,
		Logger: funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{}),
	}
	cyc, err := rec.RunOnce(t.Context())
	changes := cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "the other owner's record is left alone")

	c := <-obs.finished
	require.Len(t, c.Warnings, 1)
	for _, part := range []string{`owned by "team-b" and none by "team-a"`, "left as they are", `set OldOwnerID to "team-b"`} {
		assert.Contains(t, c.Warnings[0], part)
	}
	assert.True(t, slices.ContainsFunc(lines, func(l string) bool {
		return strings.Contains(l, "the registry's settings leave records without their owner") && strings.Contains(l, "set OldOwnerID to")
	}), "the warning is logged at V(0): %q", lines)
	records, err := zone.Records(t.Context())
	require.NoError(t, err)
	assert.Len(t, records, 2, "nothing written")
}

// TestRepairsApplyEmptyPlan: a registry with repairs to make is handed the
// plan even when it has no changes, except in dry run.
func TestRepairsApplyEmptyPlan(t *testing.T) {
	tests := []struct {
		name      string
		repairs   int64
		dryRun    bool
		wantApply int
	}{
		{name: "repairs pending", repairs: 3, wantApply: 1},
		{name: "nothing to repair", repairs: 0, wantApply: 0},
		{name: "dry run", repairs: 3, dryRun: true, wantApply: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := &warningRegistry{fakeRegistry: &fakeRegistry{}}
			reg.repairs.Store(tt.repairs)
			obs := &lastCycle{}
			rec := &zonesync.Reconciler{Source: source.NewStatic(), Registry: reg, DryRun: tt.dryRun, Observer: obs}
			cyc, err := rec.RunOnce(context.Background())
			changes := cyc.Changes
			require.NoError(t, err)
			assert.False(t, changes.HasChanges())
			require.Equal(t, tt.wantApply, reg.appliedCount())
			if tt.wantApply > 0 {
				assert.False(t, reg.applied[0].HasChanges(), "the empty plan")
				assert.True(t, obs.c.Applied)
			}
		})
	}
}

// zonedRegistry is a fake registry that lists zones.
type zonedRegistry struct {
	*fakeRegistry
	zones []string
}

func (r *zonedRegistry) ListZones(context.Context) ([]string, error) { return r.zones, nil }

// TestSafetyThresholdPerZone (issue 21, finding 9): emptying a small zone is
// refused even when the total stays under the limit.
func TestSafetyThresholdPerZone(t *testing.T) {
	records := func(zone string, n int) []*endpoint.Endpoint {
		out := make([]*endpoint.Endpoint, n)
		for i := range out {
			out[i] = a(fmt.Sprintf("r%d.%s", i, zone), "192.0.2.1").WithLabel(endpoint.OwnerLabelKey, "me")
		}
		return out
	}
	big, small := records("big.example", 100), records("small.example", 20)
	tests := []struct {
		name       string
		zones      []string
		desired    []*endpoint.Endpoint
		wantZones  []plan.ZoneChanges
		wantUnsafe bool
	}{
		{
			name: "small zone emptied", zones: []string{"big.example", "small.example"}, desired: big,
			wantUnsafe: true, wantZones: []plan.ZoneChanges{{Zone: "small.example", Owned: 20, Deletes: 20}},
		},
		{
			name: "small zone changed within the limit", zones: []string{"big.example", "small.example"},
			desired: append(slices.Clone(big), small[:14]...),
		},
		{
			name: "no zones listed: the total decides", desired: big,
		},
		{
			name: "zone under MinOwned", zones: []string{"big.example", "small.example", "r0.small.example"},
			desired: append(slices.Clone(big), small[1:]...),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := &fakeRegistry{owner: "me", records: append(slices.Clone(big), small...)}
			var reg registry.Registry = base
			if tt.zones != nil {
				reg = &zonedRegistry{fakeRegistry: base, zones: tt.zones}
			}
			desired := make([]*endpoint.Endpoint, len(tt.desired))
			for i, e := range tt.desired {
				desired[i] = a(e.DNSName, e.Targets...)
			}
			rec := &zonesync.Reconciler{Source: source.NewStatic(desired...), Registry: reg}
			pv, err := rec.Preview(context.Background())
			require.NoError(t, err)
			_, err = rec.RunOnce(context.Background())
			if !tt.wantUnsafe {
				require.NoError(t, err)
				assert.Nil(t, pv.Unsafe)
				return
			}
			var unsafe *plan.UnsafePlanError
			require.ErrorAs(t, err, &unsafe)
			assert.Equal(t, 120, unsafe.Owned)
			assert.Equal(t, 20, unsafe.Deletes)
			assert.Equal(t, tt.wantZones, unsafe.Zones)
			assert.Contains(t, err.Error(), "in zone small.example it would delete 20 and update 0 of 20 owned records")
			assert.Zero(t, base.appliedCount())
			require.NotNil(t, pv.Unsafe)
			assert.Equal(t, tt.wantZones, pv.Unsafe.Zones)
		})
	}
}

// TestSafetyThresholdPerZoneTXT: the same with the TXT registry over the
// in-memory provider, which lists its zones through the registry.
func TestSafetyThresholdPerZoneTXT(t *testing.T) {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"big.example", "small.example"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	var all []*endpoint.Endpoint
	for i := range 100 {
		all = append(all, a(fmt.Sprintf("r%d.big.example", i), "192.0.2.1"))
	}
	for i := range 20 {
		all = append(all, a(fmt.Sprintf("r%d.small.example", i), "192.0.2.1"))
	}
	src := source.NewStatic(all...)
	rec := &zonesync.Reconciler{Source: src, Registry: reg}
	_, err = rec.RunOnce(ctx)
	require.NoError(t, err)
	src.Set(all[:100]...)
	_, err = rec.RunOnce(ctx)
	var unsafe *plan.UnsafePlanError
	require.ErrorAs(t, err, &unsafe)
	assert.Equal(t, []plan.ZoneChanges{{Zone: "small.example", Owned: 20, Deletes: 20}}, unsafe.Zones)
}

// TestRecordStatusesUnicodeZone (issue 21, finding 12): a record in a failed
// IDN zone is reported failed whether the zone error names the zone in
// Unicode or in A-labels.
func TestRecordStatusesUnicodeZone(t *testing.T) {
	www := a("www.xn--bcher-kva.example", "192.0.2.1")
	other := a("www.example.com", "192.0.2.2")
	for _, zoneName := range []string{"bücher.example", "xn--bcher-kva.example", "BÜCHER.example."} {
		t.Run(zoneName, func(t *testing.T) {
			p := (&plan.Plan{Desired: []*endpoint.Endpoint{www, other}}).Calculate()
			c := zonesync.Cycle{Plan: p, Err: errors.Join(&provider.ZoneError{Zone: zoneName, Err: errors.New("SERVFAIL")})}
			assert.Equal(t, []statusLine{
				{"", "www.example.com/A", zonesync.RecordApplied, "", true},
				{"", "www.xn--bcher-kva.example/A", zonesync.RecordFailed, zonesync.ReasonZoneFailed, false},
			}, lines(c.RecordStatuses()))
		})
	}
}

// TestRecordStatusesUnicodeZoneEndToEnd: the same through a cycle with the
// TXT registry applying per zone over an in-memory provider with an IDN zone.
func TestRecordStatusesUnicodeZoneEndToEnd(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{"bücher.example", "example.com"}})
	p := providertest.Intercept(zone, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			for _, e := range c.Create {
				if strings.HasSuffix(e.DNSName, "xn--bcher-kva.example") {
					return errors.New("SERVFAIL")
				}
			}
			return next.ApplyChanges(ctx, c)
		},
	})
	reg, err := txt.New(p, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	obs := &lastCycle{}
	rec := &zonesync.Reconciler{Source: source.NewStatic(a("www.bücher.example", "192.0.2.1"), a("www.example.com", "192.0.2.2")), Registry: reg, Observer: obs}
	_, err = rec.RunOnce(context.Background())
	require.Error(t, err)
	assert.Equal(t, []statusLine{
		{"", "www.example.com/A", zonesync.RecordApplied, "", true},
		{"", "www.xn--bcher-kva.example/A", zonesync.RecordFailed, zonesync.ReasonZoneFailed, false},
	}, lines(obs.c.RecordStatuses()))
}

// TestInvalidEndpointErrorsStayFlat (issue 21, finding 6, root side): many
// invalid endpoints of one object give one flat, bounded error.
func TestInvalidEndpointErrorsStayFlat(t *testing.T) {
	eps := make([]*endpoint.Endpoint, 2000)
	for i := range eps {
		eps[i] = a(fmt.Sprintf("h%d.example.com", i), "bad").WithLabel(endpoint.ResourceLabelKey, "crd/ns/many")
	}
	eps = append(eps, a("ok.example.com", "192.0.2.1"))
	rec := &zonesync.Reconciler{Source: staticSource{eps: eps}, Registry: &fakeRegistry{}}
	cyc, err := rec.RunOnce(context.Background())
	changes := cyc.Changes
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, []string{"create ok.example.com/A 192.0.2.1"}, changeLines(changes))
	require.Len(t, pe.Failed, 1)
	cause := pe.Failed["crd/ns/many"]
	require.Error(t, cause)
	assert.Less(t, len(err.Error()), 2000, "the message is bounded")
	assert.Contains(t, cause.Error(), fmt.Sprintf("and %d more", 2000-source.MaxCausesPerKey))
	parts := provider.ErrorParts(cause)
	assert.Len(t, parts, source.MaxCausesPerKey)
	for _, p := range parts {
		_, nested := p.(interface{ Unwrap() []error })
		if nested {
			assert.LessOrEqual(t, len(provider.ErrorParts(p)), source.MaxCausesPerKey)
		}
	}
}
