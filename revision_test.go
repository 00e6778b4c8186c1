package zonesync_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// readySource is an in-memory source with a readiness switch and a count
// of Endpoints calls.
type readySource struct {
	*source.Static
	ready atomic.Bool
	calls atomic.Int32
}

func (s *readySource) HasSynced() bool { return s.ready.Load() }

func (s *readySource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	s.calls.Add(1)
	return s.Static.Endpoints(ctx)
}

// countingRegistry counts Records calls of the registry it wraps.
type countingRegistry struct {
	registry.Registry
	records atomic.Int32
}

func (r *countingRegistry) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	r.records.Add(1)
	return r.Registry.Records(ctx)
}

func TestRunOnceSourceNotReady(t *testing.T) {
	p, reg := newZone(t, a("old.example.com", "192.0.2.1"), ownershipTXT("a-old.example.com", "me"))
	before := zoneLines(t, p)
	src := &readySource{Static: source.NewStatic()} // a cold cache: empty and not synced
	creg := &countingRegistry{Registry: reg}
	obs := newCycleObserver()
	rec := &zonesync.Reconciler{Source: src, Registry: creg, Observer: obs, Logger: testr.New(t)}

	cyc, err := rec.RunOnce(context.Background())
	changes := cyc.Changes
	require.ErrorIs(t, err, zonesync.ErrSourceNotReady)
	require.ErrorIs(t, err, provider.SoftError, "not ready is transient")
	assert.Nil(t, changes, "nothing planned")
	assert.Zero(t, src.calls.Load(), "the source is not read")
	assert.Zero(t, creg.records.Load(), "the registry is not read")
	assert.Equal(t, before, zoneLines(t, p), "the lone owned record survives (the safety threshold would not protect it)")
	c := <-obs.finished
	assert.ErrorIs(t, c.Err, zonesync.ErrSourceNotReady)
	assert.Nil(t, c.Plan)

	_, err = rec.Preview(context.Background())
	require.ErrorIs(t, err, zonesync.ErrSourceNotReady)

	// Once synced, the cycle runs: the source (still empty) really wants
	// nothing, and the owned record goes.
	src.ready.Store(true)
	cyc, err = rec.RunOnce(context.Background())
	changes = cyc.Changes
	require.NoError(t, err)
	assert.Equal(t, []string{"delete old.example.com/A 192.0.2.1"}, changeLines(changes))
}

// partialSource returns its endpoints with a partial error for the
// resources in failed.
type partialSource struct {
	*source.Static
	failed map[string]error
}

func (s *partialSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := s.Static.Endpoints(ctx)
	if err != nil {
		return nil, err
	}
	var pe *source.PartialError
	for k, e := range s.failed {
		pe = pe.Add(k, e)
	}
	return eps, fmt.Errorf("listing services: %w", pe.OrNil())
}

func svc(i int, target string) *endpoint.Endpoint {
	return a(fmt.Sprintf("svc-%d.example.com", i), target).WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("service/default/svc-%d", i))
}

func TestRunOncePartialSource(t *testing.T) {
	p, reg := newZone(t)
	var desired []*endpoint.Endpoint
	for i := range 10 {
		desired = append(desired, svc(i, "192.0.2.1"))
	}
	inmem := source.NewStatic(desired...)
	rec := &zonesync.Reconciler{Source: inmem, Registry: reg, Logger: testr.New(t)}
	_, err := rec.RunOnce(context.Background())
	require.NoError(t, err)

	// Two services move to a new address, and the tenth now has a bad
	// annotation: the source cannot build its endpoints.
	var moved []*endpoint.Endpoint
	for i := range 9 {
		target := "192.0.2.1"
		if i < 2 {
			target = "192.0.2.2"
		}
		moved = append(moved, svc(i, target))
	}
	inmem.Set(moved...)
	cause := errors.New(`annotation "ttl": "ten minutes" is not a duration`)
	src := &partialSource{Static: inmem, failed: map[string]error{"service/default/svc-9": cause}}
	obs := newCycleObserver()
	rec = &zonesync.Reconciler{Source: src, Registry: reg, Observer: obs, Logger: testr.New(t)}

	cyc, err := rec.RunOnce(context.Background())
	changes := cyc.Changes
	require.Error(t, err)
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, map[string]error{"service/default/svc-9": cause}, pe.Failed)
	assert.ErrorIs(t, err, cause)
	assert.NotErrorIs(t, err, provider.SoftError)
	assert.Equal(t, []string{"update svc-0.example.com/A 192.0.2.1 -> 192.0.2.2", "update svc-1.example.com/A 192.0.2.1 -> 192.0.2.2"},
		changeLines(changes), "the nine good services are planned")
	assert.Empty(t, changes.Delete, "the failed service's record is not deleted")

	c := <-obs.finished
	assert.True(t, c.Applied)
	require.ErrorAs(t, c.Err, &pe, "the observer sees the partial error")
	require.NotNil(t, c.Plan)
	var protected []string
	for _, sk := range c.Plan.Skipped {
		if sk.Reason == plan.SkipSourceError {
			protected = append(protected, string(sk.Action)+" "+sk.Endpoint.Key().String())
		}
	}
	assert.Equal(t, []string{"delete svc-9.example.com/A"}, protected)

	lines := zoneLines(t, p)
	assert.Contains(t, lines, "svc-9.example.com A 192.0.2.1", "the tenth keeps its record")
	assert.Contains(t, lines, "a-svc-9.example.com TXT "+`"heritage=external-dns,external-dns/owner=me,external-dns/resource=service/default/svc-9"`)
	assert.Contains(t, lines, "svc-0.example.com A 192.0.2.2")
	assert.Contains(t, lines, "svc-1.example.com A 192.0.2.2")

	// The preview reports the same, without writing.
	pv, err := rec.Preview(context.Background())
	require.NoError(t, err)
	require.ErrorAs(t, pv.SourceErr, &pe)
	assert.Contains(t, pv.String(), "source-error")
}

func TestRunOncePartialSourceIsNotAnEmptySource(t *testing.T) {
	// A partial error naming every object with no endpoints at all must not
	// delete anything either.
	p, reg := newZone(t)
	var desired []*endpoint.Endpoint
	for i := range 3 {
		desired = append(desired, svc(i, "192.0.2.1"))
	}
	inmem := source.NewStatic(desired...)
	_, err := (&zonesync.Reconciler{Source: inmem, Registry: reg}).RunOnce(context.Background())
	require.NoError(t, err)
	before := zoneLines(t, p)

	inmem.Set()
	failed := map[string]error{}
	for i := range 3 {
		failed[fmt.Sprintf("service/default/svc-%d", i)] = errors.New("bad")
	}
	cyc, err := (&zonesync.Reconciler{Source: &partialSource{Static: inmem, failed: failed}, Registry: reg}).RunOnce(context.Background())
	changes := cyc.Changes
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	assert.False(t, changes.HasChanges())
	assert.Equal(t, before, zoneLines(t, p))
}

func TestRunOnceSourceHardError(t *testing.T) {
	_, reg := newZone(t)
	boom := errors.New("apiserver unreachable")
	src := source.Source(errSource{err: boom})
	cyc, err := (&zonesync.Reconciler{Source: src, Registry: reg}).RunOnce(context.Background())
	changes := cyc.Changes
	require.ErrorIs(t, err, boom)
	assert.Nil(t, changes)
	var pe *source.PartialError
	assert.False(t, errors.As(err, &pe))
}

type errSource struct{ err error }

func (s errSource) Endpoints(context.Context) ([]*endpoint.Endpoint, error) { return nil, s.err }
func (errSource) AddEventHandler(context.Context, func())                   {}

// TestOwnershipSettingsInOnePlace: the registry is the one source of truth
// for the owner id, the old owner id and the managed types.
func TestOwnershipSettingsInOnePlace(t *testing.T) {
	t.Run("old owner id set on the registry only", func(t *testing.T) {
		p, _ := newZone(t, a("web.example.com", "192.0.2.1"), ownershipTXT("a-web.example.com", "old"))
		reg := newTXT(t, p, txtConfig{owner: "me", oldOwner: "old"})
		rec := &zonesync.Reconciler{Source: source.NewStatic(a("web.example.com", "192.0.2.1")), Registry: reg, Logger: testr.New(t)}
		cyc, err := rec.RunOnce(context.Background())
		changes := cyc.Changes
		require.NoError(t, err)
		require.Len(t, changes.UpdateNew, 1, "the migration relabels the record")
		why := plan.Why(changes.UpdateOld[0], changes.UpdateNew[0])
		assert.NotZero(t, why&(plan.UpdateOwner|plan.UpdateOwnershipFormat), why.String())
		assert.False(t, why.ChangesData(), why.String())
		assert.Contains(t, zoneLines(t, p), `a-web.example.com TXT "heritage=external-dns,external-dns/owner=me"`)

		cyc, err = rec.RunOnce(context.Background())
		changes = cyc.Changes
		require.NoError(t, err)
		assert.False(t, changes.HasChanges(), "converged: no update printed again and again")
	})
	t.Run("managed types from the registry", func(t *testing.T) {
		p, _ := newZone(t)
		reg := newTXT(t, p, txtConfig{owner: "me", managed: []string{"cname"}})
		rec := &zonesync.Reconciler{Source: source.NewStatic(
			a("a.example.com", "192.0.2.1"),
			endpoint.NewEndpoint("c.example.com", endpoint.RecordTypeCNAME, "a.example.com"),
		), Registry: reg}
		cyc, err := rec.RunOnce(context.Background())
		changes := cyc.Changes
		require.NoError(t, err)
		assert.Equal(t, []string{"create c.example.com/CNAME a.example.com"}, changeLines(changes))
	})
	t.Run("same types in both places, any case", func(t *testing.T) {
		p, _ := newZone(t)
		reg := newTXT(t, p, txtConfig{owner: "me", managed: []string{"A", "CNAME", "TXT"}, exclude: []string{"txt"}})
		rec := &zonesync.Reconciler{Source: source.NewStatic(a("a.example.com", "192.0.2.1")), Registry: reg,
			ManagedRecordTypes: []string{"cname", "a"}}
		_, err := rec.RunOnce(context.Background())
		require.NoError(t, err)
	})
	t.Run("contradicting types are refused", func(t *testing.T) {
		p, _ := newZone(t, a("a.example.com", "192.0.2.1"), ownershipTXT("a-a.example.com", "me"))
		before := zoneLines(t, p)
		reg := newTXT(t, p, txtConfig{owner: "me"})
		rec := &zonesync.Reconciler{Source: source.NewStatic(), Registry: reg, ManagedRecordTypes: []string{"A", "TXT"}}
		_, err := rec.RunOnce(context.Background())
		require.ErrorIs(t, err, zonesync.ErrInvalidConfig)
		assert.Contains(t, err.Error(), "[A TXT]")
		assert.Contains(t, err.Error(), "[A AAAA CNAME]")
		assert.Contains(t, err.Error(), "leave the Reconciler's ManagedRecordTypes and ExcludeRecordTypes empty", "says what to change")
		assert.Contains(t, err.Error(), "every record stays as it is", "says what happens meanwhile")
		require.ErrorIs(t, rec.Run(context.Background()), zonesync.ErrInvalidConfig, "Run stops at once")
		assert.Equal(t, before, zoneLines(t, p))
	})
	t.Run("a registry without a report uses the Reconciler's types", func(t *testing.T) {
		fr := &fakeRegistry{owner: "me"}
		rec := &zonesync.Reconciler{Source: source.NewStatic(
			a("a.example.com", "192.0.2.1"),
			endpoint.NewEndpoint("t.example.com", endpoint.RecordTypeTXT, `"x"`),
		), Registry: fr, ManagedRecordTypes: []string{"a", "txt"}}
		cyc, err := rec.RunOnce(context.Background())
		changes := cyc.Changes
		require.NoError(t, err)
		assert.Equal(t, []string{"create a.example.com/A 192.0.2.1", `create t.example.com/TXT "x"`}, changeLines(changes))
	})
}

func TestPreview(t *testing.T) {
	var seed []*endpoint.Endpoint
	for i := range 10 {
		seed = append(seed, svc(i, "192.0.2.1"), ownershipTXT(fmt.Sprintf("a-svc-%d.example.com", i), "me"))
	}
	p, reg := newZone(t, seed...)
	before := zoneLines(t, p)
	rec := &zonesync.Reconciler{Source: source.NewStatic(svc(0, "192.0.2.1")), Registry: reg}
	pv, err := rec.Preview(context.Background())
	require.NoError(t, err)
	require.NotNil(t, pv.Unsafe, "deleting 9 of 10 is refused")
	assert.Equal(t, 9, pv.Unsafe.Deletes)
	assert.Equal(t, 10, pv.Owned)
	assert.Len(t, pv.Plan.Changes.Delete, 9)
	assert.Contains(t, pv.String(), "safety: refused: unsafe plan refused")
	assert.Equal(t, before, zoneLines(t, p), "a preview writes nothing")
}

type txtConfig struct {
	owner, oldOwner  string
	managed, exclude []string
}

func newTXT(t *testing.T, p provider.Provider, c txtConfig) *txt.Registry {
	t.Helper()
	reg, err := txt.New(p, txt.Config{OwnerID: c.owner, OldOwnerID: c.oldOwner, ManagedRecordTypes: c.managed, ExcludeRecordTypes: c.exclude})
	require.NoError(t, err)
	return reg
}
