package zonesync_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/policy"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/noop"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

func a(name string, targets ...string) *endpoint.Endpoint {
	return endpoint.NewEndpoint(name, endpoint.RecordTypeA, targets...)
}

func ownershipTXT(name, owner string) *endpoint.Endpoint {
	return endpoint.NewEndpoint(name, endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=`+owner+`"`)
}

// foreignSeed is what other parties put in the zone: a record owned by
// "other" (with its ownership TXT) and one made by hand (no TXT).
func foreignSeed() []*endpoint.Endpoint {
	return []*endpoint.Endpoint{
		a("other.example.com", "198.51.100.1"),
		ownershipTXT("a-other.example.com", "other"),
		a("manual.example.com", "198.51.100.2"),
	}
}

// newZone returns an in-memory zone example.com with seed records and a TXT
// registry for owner "me" over it.
func newZone(t *testing.T, seed ...*endpoint.Endpoint) (*inmemory.Provider, *txt.Registry) {
	t.Helper()
	p := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: seed})
	reg, err := txt.New(p, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	return p, reg
}

// zoneLines renders the provider's raw records as "name type targets".
func zoneLines(t *testing.T, p *inmemory.Provider) []string {
	t.Helper()
	recs, err := p.Records(context.Background())
	require.NoError(t, err)
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.DNSName + " " + r.RecordType + " " + r.Targets.String()
	}
	return out
}

func changeLines(c *plan.Changes) []string {
	out := []string{}
	for _, e := range c.Create {
		out = append(out, "create "+e.Key().String()+" "+e.Targets.String())
	}
	for i, e := range c.UpdateNew {
		out = append(out, "update "+e.Key().String()+" "+c.UpdateOld[i].Targets.String()+" -> "+e.Targets.String())
	}
	for _, e := range c.Delete {
		out = append(out, "delete "+e.Key().String()+" "+e.Targets.String())
	}
	return out
}

func TestRunOnceConvergesAndFollowsTheSource(t *testing.T) {
	steps := []struct {
		name        string
		desired     []*endpoint.Endpoint // nil: keep the previous step's
		wantChanges []string
		wantZone    []string
	}{
		{
			name:        "first cycle creates records with their ownership TXT",
			desired:     []*endpoint.Endpoint{a("web.example.com", "192.0.2.1"), a("api.example.com", "192.0.2.2", "192.0.2.3")},
			wantChanges: []string{"create api.example.com/A 192.0.2.2;192.0.2.3", "create web.example.com/A 192.0.2.1"},
			wantZone: []string{
				`a-api.example.com TXT "heritage=external-dns,external-dns/owner=me"`,
				`a-web.example.com TXT "heritage=external-dns,external-dns/owner=me"`,
				"api.example.com A 192.0.2.2;192.0.2.3",
				"web.example.com A 192.0.2.1",
			},
		},
		{
			name:        "second cycle changes nothing",
			wantChanges: []string{},
		},
		{
			name:        "a changed target is updated",
			desired:     []*endpoint.Endpoint{a("web.example.com", "192.0.2.9"), a("api.example.com", "192.0.2.2", "192.0.2.3")},
			wantChanges: []string{"update web.example.com/A 192.0.2.1 -> 192.0.2.9"},
		},
		{
			name:        "a desired endpoint that goes away is deleted with its TXT",
			desired:     []*endpoint.Endpoint{a("api.example.com", "192.0.2.2", "192.0.2.3")},
			wantChanges: []string{"delete web.example.com/A 192.0.2.9"},
			wantZone: []string{
				`a-api.example.com TXT "heritage=external-dns,external-dns/owner=me"`,
				"api.example.com A 192.0.2.2;192.0.2.3",
			},
		},
		{
			name:        "converged again",
			wantChanges: []string{},
		},
	}
	p, reg := newZone(t)
	src := source.NewStatic()
	rec := &zonesync.Reconciler{Source: src, Registry: reg, Logger: testr.New(t)}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			if step.desired != nil {
				src.Set(step.desired...)
			}
			cyc, err := rec.RunOnce(context.Background())
			changes := cyc.Changes
			require.NoError(t, err)
			assert.Equal(t, step.wantChanges, changeLines(changes))
			if len(step.wantChanges) == 0 {
				assert.False(t, changes.HasChanges())
			}
			if step.wantZone != nil {
				assert.Equal(t, step.wantZone, zoneLines(t, p))
			}
		})
	}
}

func TestRunOnceNeverTouchesForeignRecords(t *testing.T) {
	tests := []struct {
		name    string
		desired []*endpoint.Endpoint
	}{
		{name: "nothing desired"},
		{name: "same names, other targets", desired: []*endpoint.Endpoint{a("other.example.com", "192.0.2.1"), a("manual.example.com", "192.0.2.2")}},
		{name: "another type at a foreign name", desired: []*endpoint.Endpoint{endpoint.NewEndpoint("other.example.com", endpoint.RecordTypeAAAA, "2001:db8::1")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, reg := newZone(t, foreignSeed()...)
			before := zoneLines(t, p)
			rec := &zonesync.Reconciler{Source: source.NewStatic(tt.desired...), Registry: reg, Logger: testr.New(t)}
			for range 2 {
				cyc, err := rec.RunOnce(context.Background())
				changes := cyc.Changes
				require.NoError(t, err)
				assert.Empty(t, changeLines(changes))
			}
			assert.Equal(t, before, zoneLines(t, p))
			pv, err := rec.Preview(context.Background())
			require.NoError(t, err)
			pl := pv.Plan
			for _, sk := range pl.Skipped {
				assert.Contains(t, []plan.SkipReason{plan.SkipForeignOwner, plan.SkipUnowned}, sk.Reason, sk.String())
			}
			assert.Len(t, pl.Skipped, len(tt.desired), "every refused wish is explained")
		})
	}
}

func TestRunOnceSourceSuddenlyEmpty(t *testing.T) {
	p, reg := newZone(t, foreignSeed()...)
	desired := make([]*endpoint.Endpoint, 12)
	for i := range desired {
		desired[i] = a(fmt.Sprintf("svc-%d.example.com", i), "192.0.2.1")
	}
	src := source.NewStatic(desired...)
	rec := &zonesync.Reconciler{Source: src, Registry: reg, Logger: testr.New(t)}
	_, err := rec.RunOnce(context.Background())
	require.NoError(t, err)
	before := zoneLines(t, p)

	src.Set() // the source briefly looks empty
	cyc, err := rec.RunOnce(context.Background())
	changes := cyc.Changes
	require.ErrorIs(t, err, zonesync.ErrUnsafePlan)
	var unsafe *plan.UnsafePlanError
	require.ErrorAs(t, err, &unsafe)
	assert.Equal(t, 12, unsafe.Owned, "the foreign and manual records are not ours")
	assert.Equal(t, 12, unsafe.Deletes)
	assert.Len(t, changes.Delete, 12, "the refused plan is returned for inspection")
	assert.Equal(t, before, zoneLines(t, p), "nothing deleted")

	src.Set(desired...) // it recovers
	cyc, err = rec.RunOnce(context.Background())
	changes = cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges())
}

func TestRunOncePolicies(t *testing.T) {
	tests := []struct {
		name        string
		policy      plan.Policy
		keepsGone   bool
		wantChanges []string
	}{
		{name: "nil is sync", wantChanges: []string{"create new.example.com/A 192.0.2.3", "update keep.example.com/A 192.0.2.1 -> 192.0.2.9", "delete gone.example.com/A 192.0.2.2"}},
		{name: "upsert-only never deletes", policy: policy.UpsertOnly, keepsGone: true, wantChanges: []string{"create new.example.com/A 192.0.2.3", "update keep.example.com/A 192.0.2.1 -> 192.0.2.9"}},
		{name: "create-only", policy: policy.CreateOnly, keepsGone: true, wantChanges: []string{"create new.example.com/A 192.0.2.3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, reg := newZone(t,
				a("keep.example.com", "192.0.2.1"), ownershipTXT("a-keep.example.com", "me"),
				a("gone.example.com", "192.0.2.2"), ownershipTXT("a-gone.example.com", "me"),
			)
			rec := &zonesync.Reconciler{
				Source:   source.NewStatic(a("keep.example.com", "192.0.2.9"), a("new.example.com", "192.0.2.3")),
				Registry: reg, Policy: tt.policy, Logger: testr.New(t),
			}
			cyc, err := rec.RunOnce(context.Background())
			changes := cyc.Changes
			require.NoError(t, err)
			assert.Equal(t, tt.wantChanges, changeLines(changes))
			if tt.keepsGone {
				assert.Contains(t, zoneLines(t, p), "gone.example.com A 192.0.2.2")
			}
			cyc, err = rec.RunOnce(context.Background())
			changes = cyc.Changes
			require.NoError(t, err)
			assert.False(t, changes.HasChanges(), "converged under the policy")
		})
	}
}

func TestRunOnceDryRun(t *testing.T) {
	p, reg := newZone(t, a("gone.example.com", "192.0.2.2"), ownershipTXT("a-gone.example.com", "me"))
	before := zoneLines(t, p)
	obs := newCycleObserver()
	rec := &zonesync.Reconciler{
		Source: source.NewStatic(a("new.example.com", "192.0.2.3")), Registry: reg,
		DryRun: true, Observer: obs, Logger: testr.New(t),
	}
	for range 2 {
		cyc, err := rec.RunOnce(context.Background())
		changes := cyc.Changes
		require.NoError(t, err)
		assert.Equal(t, []string{"create new.example.com/A 192.0.2.3", "delete gone.example.com/A 192.0.2.2"}, changeLines(changes))
		c := <-obs.finished
		assert.True(t, c.DryRun)
		assert.False(t, c.Applied)
	}
	assert.Equal(t, before, zoneLines(t, p), "dry run applies nothing")
}

func TestRunOnceFiltersAndTypes(t *testing.T) {
	tests := []struct {
		name        string
		configure   func(*zonesync.Reconciler)
		txt         txt.Config
		wantChanges []string
	}{
		{name: "defaults", wantChanges: []string{"create a.example.com/A 192.0.2.1", "create b.sub.example.com/A 192.0.2.2", "create c.example.com/CNAME a.example.com"}},
		{
			name:        "domain filter",
			configure:   func(r *zonesync.Reconciler) { r.DomainFilter = endpoint.NewDomainFilter([]string{"sub.example.com"}) },
			wantChanges: []string{"create b.sub.example.com/A 192.0.2.2"},
		},
		{
			name:        "excluded type",
			txt:         txt.Config{ExcludeRecordTypes: []string{endpoint.RecordTypeCNAME}},
			wantChanges: []string{"create a.example.com/A 192.0.2.1", "create b.sub.example.com/A 192.0.2.2"},
		},
		{
			name:        "managed types",
			txt:         txt.Config{ManagedRecordTypes: []string{endpoint.RecordTypeCNAME}},
			wantChanges: []string{"create c.example.com/CNAME a.example.com"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newZone(t)
			tt.txt.OwnerID = "me"
			reg, err := txt.New(p, tt.txt)
			require.NoError(t, err)
			rec := &zonesync.Reconciler{
				Source: source.NewStatic(
					a("a.example.com", "192.0.2.1"), a("b.sub.example.com", "192.0.2.2"),
					endpoint.NewEndpoint("c.example.com", endpoint.RecordTypeCNAME, "a.example.com"),
					a("outside.example.org", "192.0.2.4"), // not in the registry's zone
				),
				Registry: reg, Logger: testr.New(t),
			}
			if tt.configure != nil {
				tt.configure(rec)
			}
			cyc, err := rec.RunOnce(context.Background())
			changes := cyc.Changes
			require.NoError(t, err)
			assert.Equal(t, tt.wantChanges, changeLines(changes))
		})
	}
}

func TestRunOnceNoopRegistry(t *testing.T) {
	p := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: []*endpoint.Endpoint{a("manual.example.com", "198.51.100.2")}})
	rec := &zonesync.Reconciler{Source: source.NewStatic(a("web.example.com", "192.0.2.1")), Registry: noop.New(p)}
	cyc, err := rec.RunOnce(context.Background())
	changes := cyc.Changes
	require.NoError(t, err)
	assert.Equal(t, []string{"create web.example.com/A 192.0.2.1", "delete manual.example.com/A 198.51.100.2"}, changeLines(changes),
		"without ownership every record is managed")
	assert.Equal(t, []string{"web.example.com A 192.0.2.1"}, zoneLines(t, p))
}

func TestRunOnceValidation(t *testing.T) {
	_, reg := newZone(t)
	tests := []struct {
		name    string
		rec     *zonesync.Reconciler
		wantErr string
	}{
		{name: "no source", rec: &zonesync.Reconciler{Registry: reg}, wantErr: "zonesync: invalid Reconciler configuration: Source is nil"},
		{name: "no registry", rec: &zonesync.Reconciler{Source: source.NewStatic()}, wantErr: "zonesync: invalid Reconciler configuration: Registry is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.rec.RunOnce(context.Background())
			require.EqualError(t, err, tt.wantErr)
			require.ErrorIs(t, err, zonesync.ErrInvalidConfig)
			_, err = tt.rec.Preview(context.Background())
			require.EqualError(t, err, tt.wantErr)
			require.ErrorIs(t, tt.rec.Run(context.Background()), zonesync.ErrInvalidConfig)
		})
	}
}

func TestRunOnceCanceledContext(t *testing.T) {
	_, reg := newZone(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := &zonesync.Reconciler{Source: source.NewStatic(), Registry: reg}
	_, err := rec.RunOnce(ctx)
	require.ErrorIs(t, err, context.Canceled)
}

func TestRunOnceErrorsNameTheStep(t *testing.T) {
	boom := fmt.Errorf("boom")
	_, reg := newZone(t)
	rec := &zonesync.Reconciler{Source: failingSource{err: boom}, Registry: reg}
	_, err := rec.RunOnce(context.Background())
	require.ErrorIs(t, err, boom)
	assert.EqualError(t, err, "zonesync: reading endpoints from the source: boom")
}

type failingSource struct{ err error }

func (s failingSource) Endpoints(context.Context) ([]*endpoint.Endpoint, error) { return nil, s.err }
func (failingSource) AddEventHandler(context.Context, func())                   {}

func TestObserverCounts(t *testing.T) {
	_, reg := newZone(t, append(foreignSeed(), a("gone.example.com", "192.0.2.2"), ownershipTXT("a-gone.example.com", "me"))...)
	obs := newCycleObserver()
	rec := &zonesync.Reconciler{
		Source:   source.NewStatic(a("new.example.com", "192.0.2.3"), a("other.example.com", "192.0.2.4")),
		Registry: reg, Observer: obs,
	}
	_, err := rec.RunOnce(context.Background())
	require.NoError(t, err)
	c := <-obs.finished
	assert.EqualValues(t, 1, obs.started.Load())
	assert.Equal(t, 3, c.Records, "A records only; ownership TXT records are consumed by the registry")
	assert.Equal(t, 2, c.Desired)
	assert.Equal(t, 1, c.Owned)
	assert.Equal(t, 1, c.Creates)
	assert.Equal(t, 0, c.Updates)
	assert.Equal(t, 1, c.Deletes)
	assert.Equal(t, 1, c.Skipped, "other.example.com belongs to another owner")
	assert.True(t, c.Applied)
	assert.NoError(t, c.Err)
	assert.GreaterOrEqual(t, c.Duration, c.PlanDuration)
}

func TestLogging(t *testing.T) {
	tests := []struct {
		name      string
		verbosity int
		want      []string
	}{
		{
			name: "V(0): one line per cycle",
			want: []string{
				`zonesync "level"=0 "msg"="reconcile cycle finished" "ownerID"="me" "dryRun"=false "records"=0 "desired"=2 "owned"=0 "create"=2 "update"=0 "delete"=0 "skipped"=0 "applied"=true`,
			},
		},
		{
			name:      "V(1): one line per change",
			verbosity: 1,
			want: []string{
				`zonesync "level"=1 "msg"="create" "ownerID"="me" "dryRun"=false "record"="a.example.com/A" "targets"="192.0.2.1" "ttl"=0`,
				`zonesync "level"=1 "msg"="create" "ownerID"="me" "dryRun"=false "record"="b.example.com/A" "targets"="192.0.2.2" "ttl"=0`,
				`zonesync "level"=0 "msg"="reconcile cycle finished" "ownerID"="me" "dryRun"=false "records"=0 "desired"=2 "owned"=0 "create"=2 "update"=0 "delete"=0 "skipped"=0 "applied"=true`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines []string
			logger := funcr.New(func(prefix, args string) {
				if fromRegistry(args) {
					return
				}
				// Durations vary; drop them.
				args = args[:strings.Index(args+` "duration"=`, ` "duration"=`)]
				lines = append(lines, prefix+" "+args)
			}, funcr.Options{Verbosity: tt.verbosity})
			_, reg := newZone(t)
			rec := &zonesync.Reconciler{
				Source:   source.NewStatic(a("a.example.com", "192.0.2.1"), a("b.example.com", "192.0.2.2")),
				Registry: reg, Logger: logger,
			}
			_, err := rec.RunOnce(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tt.want, lines)
		})
	}
}

// fromRegistry reports whether a funcr line is one of the TXT registry's
// own V(1) messages, which reach the Reconciler's logger through the
// context.
func fromRegistry(args string) bool {
	return strings.Contains(args, `"msg"="read records"`) || strings.Contains(args, `"msg"="applied changes"`)
}

func TestLoggerReachesComponents(t *testing.T) {
	var got logr.Logger
	_, reg := newZone(t)
	logger := funcr.New(func(string, string) {}, funcr.Options{})
	rec := &zonesync.Reconciler{Source: loggerSpy{got: &got}, Registry: reg, Logger: logger}
	_, err := rec.RunOnce(context.Background())
	require.NoError(t, err)
	assert.NotNil(t, got.GetSink(), "the source found the Reconciler's logger in its context")
}

type loggerSpy struct{ got *logr.Logger }

func (s loggerSpy) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	*s.got = logr.FromContextOrDiscard(ctx)
	return nil, nil
}
func (loggerSpy) AddEventHandler(context.Context, func()) {}

func TestReconcilersShareNothing(t *testing.T) {
	p1, reg1 := newZone(t)
	p2, reg2 := newZone(t)
	obs1, obs2 := newCycleObserver(), newCycleObserver()
	r1 := &zonesync.Reconciler{Source: source.NewStatic(a("one.example.com", "192.0.2.1")), Registry: reg1, Observer: obs1}
	r2 := &zonesync.Reconciler{Source: source.NewStatic(a("two.example.com", "192.0.2.2")), Registry: reg2, Observer: obs2}
	_, err := r1.RunOnce(context.Background())
	require.NoError(t, err)
	_, err = r2.RunOnce(context.Background())
	require.NoError(t, err)
	assert.EqualValues(t, 1, obs1.started.Load())
	assert.EqualValues(t, 1, obs2.started.Load())
	assert.Contains(t, zoneLines(t, p1), "one.example.com A 192.0.2.1")
	assert.NotContains(t, zoneLines(t, p1), "two.example.com A 192.0.2.2")
	assert.Contains(t, zoneLines(t, p2), "two.example.com A 192.0.2.2")
}

func TestLoggingAtV1(t *testing.T) {
	var lines []string
	logger := funcr.New(func(prefix, args string) {
		if !fromRegistry(args) {
			lines = append(lines, args)
		}
	}, funcr.Options{Verbosity: 1})
	_, reg := newZone(t, append(foreignSeed(),
		a("keep.example.com", "192.0.2.1"), ownershipTXT("a-keep.example.com", "me"),
		a("gone.example.com", "192.0.2.2"), ownershipTXT("a-gone.example.com", "me"))...)
	src := source.NewStatic(a("keep.example.com", "192.0.2.9"), a("other.example.com", "192.0.2.4"))
	rec := &zonesync.Reconciler{Source: src, Registry: reg, Logger: logger}
	_, err := rec.RunOnce(context.Background())
	require.NoError(t, err)
	want := []string{
		`"msg"="update" "ownerID"="me" "dryRun"=false "record"="keep.example.com/A" "targets"="192.0.2.9" "ttl"=0 "oldTargets"="192.0.2.1" "oldTTL"=0`,
		`"msg"="delete" "ownerID"="me" "dryRun"=false "record"="gone.example.com/A" "targets"="192.0.2.2"`,
		`"msg"="skipped" "ownerID"="me" "dryRun"=false "action"="update" "record"="other.example.com/A" "reason"="foreign-owner"`,
	}
	joined := strings.Join(lines, "\n")
	for _, w := range want {
		assert.Contains(t, joined, w)
	}

	lines = nil
	rec.Source = failingSource{err: fmt.Errorf("boom")}
	_, err = rec.RunOnce(context.Background())
	require.Error(t, err)
	require.Len(t, lines, 1, "a failed cycle is logged once, as an error")
	assert.Contains(t, lines[0], `"msg"="reconcile cycle failed" "error"="zonesync: reading endpoints from the source: boom"`)
	assert.NotContains(t, lines[0], `"level"=`, "logr's Error has no verbosity")
}

// TestLoggerFromContext: without a Logger, a cycle logs through the logger
// already in the context (a controller-runtime request logger) and hands it
// on to the source; a Logger that is set wins.
func TestLoggerFromContext(t *testing.T) {
	tests := []struct {
		name    string
		own     bool // set Reconciler.Logger
		wantCtx bool // lines reach the context's logger
		wantOwn bool // lines reach Reconciler.Logger
	}{
		{name: "unset Logger uses the context's", wantCtx: true},
		{name: "Logger wins over the context", own: true, wantOwn: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ctxLines, ownLines []string
			ctxLog := funcr.New(func(_, args string) { ctxLines = append(ctxLines, args) }, funcr.Options{Verbosity: 1}).WithValues("request", "ns/obj")
			_, reg := newZone(t)
			var seen logr.Logger
			rec := &zonesync.Reconciler{Source: loggerSpy{got: &seen}, Registry: reg}
			if tt.own {
				rec.Logger = funcr.New(func(_, args string) { ownLines = append(ownLines, args) }, funcr.Options{})
			}
			_, err := rec.RunOnce(logr.NewContext(context.Background(), ctxLog))
			require.NoError(t, err)
			assert.Equal(t, tt.wantCtx, len(ctxLines) > 0, "context logger lines: %v", ctxLines)
			assert.Equal(t, tt.wantOwn, len(ownLines) > 0, "own logger lines: %v", ownLines)
			if tt.wantCtx {
				assert.Contains(t, strings.Join(ctxLines, "\n"), `"request"="ns/obj" "ownerID"="me" "dryRun"=false "records"=`)
			}
			require.NotNil(t, seen.GetSink(), "the source gets the cycle's logger")
			seen.Info("from the source")
			if tt.wantCtx {
				assert.Contains(t, ctxLines[len(ctxLines)-1], `"msg"="from the source" "request"="ns/obj"`)
			} else {
				assert.Contains(t, ownLines[len(ownLines)-1], `"msg"="from the source"`)
			}
		})
	}
}

// TestFailedCycleLogsError: a failed cycle is logged with logr's Error,
// carrying the error, through the context's logger when Logger is unset.
func TestFailedCycleLogsError(t *testing.T) {
	type entry struct {
		msg string
		err error
	}
	var got []entry
	sink := &errorSink{record: func(msg string, err error) { got = append(got, entry{msg, err}) }}
	_, reg := newZone(t)
	rec := &zonesync.Reconciler{Source: failingSource{err: errors.New("boom")}, Registry: reg}
	_, err := rec.RunOnce(logr.NewContext(context.Background(), logr.New(sink)))
	require.Error(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "reconcile cycle failed", got[0].msg)
	assert.Equal(t, err, got[0].err, "the error logged is the error returned")
}

// errorSink is a logr.LogSink that records Error calls only.
type errorSink struct{ record func(msg string, err error) }

func (s *errorSink) Init(logr.RuntimeInfo)                 {}
func (s *errorSink) Enabled(int) bool                      { return true }
func (s *errorSink) Info(int, string, ...any)              {}
func (s *errorSink) Error(err error, msg string, _ ...any) { s.record(msg, err) }
func (s *errorSink) WithValues(...any) logr.LogSink        { return s }
func (s *errorSink) WithName(string) logr.LogSink          { return s }
