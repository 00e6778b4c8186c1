package inmemory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

func a(name string, targets ...string) *endpoint.Endpoint {
	return endpoint.NewEndpoint(name, endpoint.RecordTypeA, targets...)
}

func records(t *testing.T, p *Provider) []*endpoint.Endpoint {
	t.Helper()
	recs, err := p.Records(context.Background())
	require.NoError(t, err)
	return recs
}

func keys(eps []*endpoint.Endpoint) []string {
	out := make([]string, len(eps))
	for i, e := range eps {
		out[i] = e.Key().String()
	}
	return out
}

func TestApplyChangesValidation(t *testing.T) {
	existing := a("www.example.org", "192.0.2.1")
	tests := []struct {
		name    string
		changes *plan.Changes
		wantErr []error
		wantIn  []string // substrings of the error
	}{
		{
			name:    "outside every zone",
			changes: &plan.Changes{Create: []*endpoint.Endpoint{a("www.example.com", "192.0.2.1")}},
			wantErr: []error{ErrNoZone},
			wantIn:  []string{"www.example.com/A"},
		},
		{
			name:    "suffix without label boundary",
			changes: &plan.Changes{Create: []*endpoint.Endpoint{a("myexample.org", "192.0.2.1")}},
			wantErr: []error{ErrNoZone},
			wantIn:  []string{"myexample.org/A"},
		},
		{
			name:    "create existing",
			changes: &plan.Changes{Create: []*endpoint.Endpoint{a("WWW.example.org.", "192.0.2.9")}},
			wantErr: []error{ErrRecordExists},
			wantIn:  []string{"WWW.example.org/A"},
		},
		{
			name: "update missing",
			changes: &plan.Changes{
				UpdateOld: []*endpoint.Endpoint{a("api.example.org", "192.0.2.1")},
				UpdateNew: []*endpoint.Endpoint{a("api.example.org", "192.0.2.2")},
			},
			wantErr: []error{ErrRecordNotFound},
			wantIn:  []string{"api.example.org/A"},
		},
		{
			name:    "delete missing set identifier",
			changes: &plan.Changes{Delete: []*endpoint.Endpoint{a("www.example.org", "192.0.2.1").WithSetIdentifier("eu")}},
			wantErr: []error{ErrRecordNotFound},
			wantIn:  []string{"www.example.org/A/eu"},
		},
		{
			name:    "invalid target",
			changes: &plan.Changes{Create: []*endpoint.Endpoint{a("api.example.org", "not-an-ip")}},
			wantErr: []error{ErrInvalidChanges},
			wantIn:  []string{"api.example.org/A", "not-an-ip"},
		},
		{
			name:    "nil endpoint",
			changes: &plan.Changes{Create: []*endpoint.Endpoint{nil}},
			wantErr: []error{ErrInvalidChanges},
			wantIn:  []string{"create[0]"},
		},
		{
			name: "unpaired update",
			changes: &plan.Changes{
				UpdateNew: []*endpoint.Endpoint{a("www.example.org", "192.0.2.2")},
			},
			wantErr: []error{ErrInvalidChanges},
			wantIn:  []string{"0 old and 1 new"},
		},
		{
			name:    "nil delete",
			changes: &plan.Changes{Delete: []*endpoint.Endpoint{nil}},
			wantErr: []error{ErrInvalidChanges},
			wantIn:  []string{"delete[0]"},
		},
		{
			name:    "delete without a record type",
			changes: &plan.Changes{Delete: []*endpoint.Endpoint{endpoint.NewEndpoint("www.example.org", "")}},
			wantErr: []error{ErrInvalidChanges},
			wantIn:  []string{"delete www.example.org/", "record type is empty"},
		},
		{
			name: "nil updateOld",
			changes: &plan.Changes{
				UpdateOld: []*endpoint.Endpoint{nil},
				UpdateNew: []*endpoint.Endpoint{a("www.example.org", "192.0.2.2")},
			},
			wantErr: []error{ErrInvalidChanges},
			wantIn:  []string{"updateOld[0]"},
		},
		{
			name: "updateOld with an invalid name",
			changes: &plan.Changes{
				UpdateOld: []*endpoint.Endpoint{a("www..example.org", "192.0.2.1")},
				UpdateNew: []*endpoint.Endpoint{a("www.example.org", "192.0.2.2")},
			},
			wantErr: []error{ErrInvalidChanges},
			wantIn:  []string{"updateOld www..example.org/A", "empty label"},
		},
		{
			name: "invalid updateNew",
			changes: &plan.Changes{
				UpdateOld: []*endpoint.Endpoint{a("www.example.org", "192.0.2.1")},
				UpdateNew: []*endpoint.Endpoint{a("www.example.org")},
			},
			wantErr: []error{ErrInvalidChanges},
			wantIn:  []string{"update www.example.org/A", "no targets"},
		},
		{
			name: "update and delete of one record",
			changes: &plan.Changes{
				UpdateOld: []*endpoint.Endpoint{a("www.example.org", "192.0.2.1")},
				UpdateNew: []*endpoint.Endpoint{a("www.example.org", "192.0.2.2")},
				Delete:    []*endpoint.Endpoint{a("www.example.org", "192.0.2.1")},
			},
			wantErr: []error{ErrDuplicateChange},
			wantIn:  []string{"delete www.example.org/A", "also in update"},
		},
		{
			name: "touched twice",
			changes: &plan.Changes{
				Create: []*endpoint.Endpoint{a("api.example.org", "192.0.2.1"), a("API.example.org", "192.0.2.2")},
			},
			wantErr: []error{ErrDuplicateChange},
			wantIn:  []string{"API.example.org/A"},
		},
		{
			name: "all errors reported",
			changes: &plan.Changes{
				Create: []*endpoint.Endpoint{a("x.example.com", "192.0.2.1")},
				Delete: []*endpoint.Endpoint{a("gone.example.org", "192.0.2.1")},
			},
			wantErr: []error{ErrNoZone, ErrRecordNotFound},
			wantIn:  []string{"x.example.com/A", "gone.example.org/A"},
		},
		{
			name: "valid create beside an invalid delete changes nothing",
			changes: &plan.Changes{
				Create: []*endpoint.Endpoint{a("new.example.org", "192.0.2.1")},
				Delete: []*endpoint.Endpoint{a("gone.example.org", "192.0.2.1")},
			},
			wantErr: []error{ErrRecordNotFound},
			wantIn:  []string{"gone.example.org/A"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(Options{Zones: []string{"example.org"}, Records: []*endpoint.Endpoint{existing}})
			before := records(t, p)
			err := p.ApplyChanges(context.Background(), tt.changes)
			require.Error(t, err)
			for _, want := range tt.wantErr {
				assert.ErrorIs(t, err, want)
			}
			for _, s := range tt.wantIn {
				assert.Contains(t, err.Error(), s)
			}
			assert.Equal(t, before, records(t, p), "a failing call must change nothing")
		})
	}
}

func TestApplyChanges(t *testing.T) {
	p := New(Options{Zones: []string{"example.org.", "sub.example.org"}, Records: []*endpoint.Endpoint{
		a("www.example.org", "192.0.2.1"),
		a("old.example.org", "192.0.2.1"),
		endpoint.NewEndpoint("txt.example.org", endpoint.RecordTypeTXT, "hello"),
	}})
	ctx := context.Background()
	err := p.ApplyChanges(ctx, &plan.Changes{
		Create: []*endpoint.Endpoint{
			endpoint.NewEndpointWithTTL("B.Sub.Example.org.", endpoint.RecordTypeA, 60, "192.0.2.3", "192.0.2.4").
				WithSetIdentifier("eu").
				WithLabel(endpoint.OwnerLabelKey, "me").
				WithProviderSpecific(endpoint.ProviderSpecificForceUpdate, "true").
				WithProviderSpecific("alias", "false"),
		},
		// Old targets need not match: the key is enough.
		UpdateOld: []*endpoint.Endpoint{a("www.example.org", "198.51.100.1")},
		UpdateNew: []*endpoint.Endpoint{endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.2")},
		Delete:    []*endpoint.Endpoint{a("old.example.org")},
	})
	require.NoError(t, err)

	want := []*endpoint.Endpoint{
		{DNSName: "b.sub.example.org", RecordType: "A", SetIdentifier: "eu", RecordTTL: 60,
			Targets:          endpoint.Targets{"192.0.2.3", "192.0.2.4"},
			ProviderSpecific: endpoint.ProviderSpecific{{Name: "alias", Value: "false"}}},
		{DNSName: "txt.example.org", RecordType: "TXT", Targets: endpoint.Targets{"hello"}},
		{DNSName: "www.example.org", RecordType: "A", RecordTTL: 300, Targets: endpoint.Targets{"192.0.2.2"}},
	}
	assert.Equal(t, want, records(t, p))
}

func TestRenameThroughUpdatePair(t *testing.T) {
	p := New(Options{Zones: []string{"example.org"}, Records: []*endpoint.Endpoint{a("a.example.org", "192.0.2.1"), a("c.example.org", "192.0.2.3")}})
	ctx := context.Background()
	err := p.ApplyChanges(ctx, &plan.Changes{
		UpdateOld: []*endpoint.Endpoint{a("a.example.org", "192.0.2.1")},
		UpdateNew: []*endpoint.Endpoint{a("b.example.org", "192.0.2.2")},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"b.example.org/A", "c.example.org/A"}, keys(records(t, p)))

	err = p.ApplyChanges(ctx, &plan.Changes{
		UpdateOld: []*endpoint.Endpoint{a("b.example.org", "192.0.2.2")},
		UpdateNew: []*endpoint.Endpoint{a("c.example.org", "192.0.2.2")},
	})
	require.ErrorIs(t, err, ErrRecordExists)
}

func TestSortedAndMostSpecificZone(t *testing.T) {
	p := New(Options{Zones: []string{"example.org"}})
	ctx := context.Background()
	// Several calls between two Records calls exercise the merge of pending
	// entries with the sorted snapshot, including entries created and deleted
	// before being merged.
	steps := []*plan.Changes{
		{Create: []*endpoint.Endpoint{a("m.example.org", "192.0.2.1"), a("c.example.org", "192.0.2.1")}},
		{Create: []*endpoint.Endpoint{
			endpoint.NewEndpoint("c.example.org", endpoint.RecordTypeTXT, "x"),
			a("c.example.org", "192.0.2.2").WithSetIdentifier("b"),
			a("c.example.org", "192.0.2.3").WithSetIdentifier("a"),
			a("z.example.org", "192.0.2.1"),
		}},
		{Delete: []*endpoint.Endpoint{a("z.example.org")}},
		{Create: []*endpoint.Endpoint{a("a.example.org", "192.0.2.1")}},
	}
	for _, c := range steps {
		require.NoError(t, p.ApplyChanges(ctx, c))
	}
	want := []string{"a.example.org/A", "c.example.org/A", "c.example.org/TXT", "c.example.org/A/a", "c.example.org/A/b", "m.example.org/A"}
	assert.Equal(t, want, keys(records(t, p)))
	require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{
		Delete: []*endpoint.Endpoint{a("c.example.org")},
		Create: []*endpoint.Endpoint{a("b.example.org", "192.0.2.1")},
	}))
	want = []string{"a.example.org/A", "b.example.org/A", "c.example.org/TXT", "c.example.org/A/a", "c.example.org/A/b", "m.example.org/A"}
	assert.Equal(t, want, keys(records(t, p)))
}

func TestRecordsAreCopies(t *testing.T) {
	p := New(Options{Zones: []string{"example.org"}, Records: []*endpoint.Endpoint{
		a("a.example.org", "192.0.2.1", "192.0.2.2").WithProviderSpecific("alias", "false"),
		a("b.example.org", "192.0.2.3"),
	}})
	first := records(t, p)
	// Appending to one endpoint's targets must not overwrite its neighbour.
	first[0].Targets = append(first[0].Targets, "192.0.2.99")
	assert.Equal(t, endpoint.Targets{"192.0.2.3"}, first[1].Targets)
	first[0].ProviderSpecific = append(first[0].ProviderSpecific, endpoint.ProviderSpecificProperty{Name: "x"})
	first[1].Targets[0] = "198.51.100.1"
	first[1].DNSName = "changed"
	first[1].WithLabel("k", "v")
	first[0] = nil

	second := records(t, p)
	require.Len(t, second, 2)
	assert.Equal(t, endpoint.Targets{"192.0.2.1", "192.0.2.2"}, second[0].Targets)
	assert.Len(t, second[0].ProviderSpecific, 1)
	assert.Equal(t, "b.example.org", second[1].DNSName)
	assert.Equal(t, endpoint.Targets{"192.0.2.3"}, second[1].Targets)
	assert.Equal(t, endpoint.Labels{}, second[1].Labels)
}

func TestInputNotRetainedOrModified(t *testing.T) {
	p := New(Options{Zones: []string{"example.org"}})
	ep := a("a.example.org", "192.0.2.1").WithLabel("owner", "me")
	changes := &plan.Changes{Create: []*endpoint.Endpoint{ep}}
	require.NoError(t, p.ApplyChanges(context.Background(), changes))
	assert.Equal(t, "me", labelValue(ep.Labels, "owner"))
	ep.Targets[0] = "198.51.100.1"
	ep.DNSName = "b.example.org"
	got := records(t, p)
	require.Len(t, got, 1)
	assert.Equal(t, "a.example.org", got[0].DNSName)
	assert.Equal(t, endpoint.Targets{"192.0.2.1"}, got[0].Targets)
}

func TestZones(t *testing.T) {
	p := New(Options{Zones: []string{"B.example.", "a.example", "a.example."}})
	assert.Equal(t, []string{"a.example", "b.example"}, p.zoneList())
	require.NoError(t, p.CreateZone("c.example"))
	err := p.CreateZone("A.EXAMPLE.")
	require.ErrorIs(t, err, ErrZoneExists)
	assert.Contains(t, err.Error(), "a.example")
	require.Error(t, p.CreateZone("bad..zone"))
	assert.Equal(t, []string{"a.example", "b.example", "c.example"}, p.zoneList())

	f := p.GetDomainFilter()
	assert.True(t, f.Match("c.example"))
	assert.True(t, f.Match("x.c.example"))
	assert.False(t, f.Match("d.example"))

	// Records in a zone created later are accepted.
	require.NoError(t, p.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{a("www.c.example", "192.0.2.1")}}))

	custom := endpoint.NewDomainFilter([]string{"only.a.example"})
	p = New(Options{Zones: []string{"a.example"}, DomainFilter: custom})
	assert.Same(t, custom, p.GetDomainFilter())
}

func TestInvalidOptions(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		wantIn []string
	}{
		{
			name:   "record outside every zone",
			opts:   Options{Zones: []string{"example.org"}, Records: []*endpoint.Endpoint{a("x.example.com", "192.0.2.1")}},
			wantIn: []string{"initial records", "x.example.com/A", "not in any zone"},
		},
		{
			name:   "no zone at all",
			opts:   Options{Records: []*endpoint.Endpoint{a("x.example.com", "192.0.2.1")}},
			wantIn: []string{"x.example.com/A"},
		},
		{
			name:   "repeated record",
			opts:   Options{Zones: []string{"example.org"}, Records: []*endpoint.Endpoint{a("x.example.org", "192.0.2.1"), a("x.example.org", "192.0.2.2")}},
			wantIn: []string{"x.example.org/A", "more than once"},
		},
		{
			name:   "invalid zone",
			opts:   Options{Zones: []string{"bad..zone", "example.org"}},
			wantIn: []string{`zone "bad..zone"`, "empty label"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(tt.opts)
			require.ErrorIs(t, p.Err(), ErrInvalidOptions)
			for _, s := range tt.wantIn {
				assert.Contains(t, p.Err().Error(), s)
			}
			_, err := p.Records(context.Background())
			require.ErrorIs(t, err, ErrInvalidOptions)
			err = p.ApplyChanges(context.Background(), &plan.Changes{})
			require.ErrorIs(t, err, ErrInvalidOptions)
		})
	}
	assert.NoError(t, New(Options{Zones: []string{"example.org", "."}}).Err())
}

func TestContextCancelled(t *testing.T) {
	p := New(Options{Zones: []string{"example.org"}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Records(ctx)
	require.ErrorIs(t, err, context.Canceled)
	err = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{a("a.example.org", "192.0.2.1")}})
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, records(t, p))
}

func TestNilChanges(t *testing.T) {
	p := New(Options{Zones: []string{"example.org"}})
	require.NoError(t, p.ApplyChanges(context.Background(), nil))
	require.NoError(t, p.ApplyChanges(context.Background(), &plan.Changes{}))
}

func TestConcurrentUse(t *testing.T) {
	p := New(Options{Zones: []string{"example.org"}})
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 50 {
				ep := a(fmt.Sprintf("w%d-%d.example.org", w, i), "192.0.2.1")
				assert.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{ep}}))
				_, err := p.Records(ctx)
				assert.NoError(t, err)
				if i%2 == 0 {
					assert.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{ep}}))
				}
			}
		})
	}
	wg.Wait()
	assert.Len(t, records(t, p), 8*25)
}

func TestCompactionWithoutReads(t *testing.T) {
	p := New(Options{Zones: []string{"example.org"}})
	ctx := context.Background()
	for i := range 3000 {
		ep := a(fmt.Sprintf("n%05d.example.org", 3000-i), "192.0.2.1")
		require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{ep}}))
		require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{
			UpdateOld: []*endpoint.Endpoint{ep},
			UpdateNew: []*endpoint.Endpoint{a(ep.DNSName, "192.0.2.2")},
		}))
	}
	p.mu.Lock()
	garbage := len(p.store.pending) + p.store.nDead
	p.mu.Unlock()
	assert.LessOrEqual(t, garbage, 3000*2, "pending and dead entries stay bounded")
	got := records(t, p)
	require.Len(t, got, 3000)
	assert.Equal(t, "n00001.example.org", got[0].DNSName)
	assert.Equal(t, endpoint.Targets{"192.0.2.2"}, got[2999].Targets)
}

func TestRootZone(t *testing.T) {
	p := New(Options{Zones: []string{"."}})
	require.NoError(t, p.Err())
	require.NoError(t, p.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{a("any.where.test", "192.0.2.1")}}))
	assert.Equal(t, []string{"."}, p.zoneList())
	assert.True(t, p.GetDomainFilter().Match("any.where.test"))
}

// TestHashCollisions forces every key onto one hash so that the overflow
// map does all the work.
func TestHashCollisions(t *testing.T) {
	for _, hash := range []func(key) uint64{
		func(key) uint64 { return 42 },
		func(k key) uint64 { return uint64(len(k.name) % 3) },
	} {
		p := New(Options{Zones: []string{"example.org"}})
		p.store.hash = hash
		ctx := context.Background()
		var create []*endpoint.Endpoint
		for i := range 40 {
			create = append(create, a(fmt.Sprintf("n%d.example.org", i), "192.0.2.1"))
		}
		require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Create: create}))
		require.Len(t, records(t, p), 40)
		require.ErrorIs(t, p.ApplyChanges(ctx, &plan.Changes{Create: create[5:6]}), ErrRecordExists)

		// Delete the first record (the one in the index) and some in the
		// overflow, update others, before and after compaction.
		require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{
			Delete:    []*endpoint.Endpoint{create[0], create[7], create[8]},
			UpdateOld: []*endpoint.Endpoint{create[1], create[9]},
			UpdateNew: []*endpoint.Endpoint{a(create[1].DNSName, "192.0.2.2"), a(create[9].DNSName, "192.0.2.2")},
		}))
		require.ErrorIs(t, p.ApplyChanges(ctx, &plan.Changes{Delete: create[7:8]}), ErrRecordNotFound)
		require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Create: create[0:1]}))
		got := records(t, p)
		require.Len(t, got, 38)
		byName := map[string]endpoint.Targets{}
		for _, r := range got {
			byName[r.DNSName] = r.Targets
		}
		assert.Equal(t, endpoint.Targets{"192.0.2.1"}, byName["n0.example.org"])
		assert.Equal(t, endpoint.Targets{"192.0.2.2"}, byName["n1.example.org"])
		assert.Equal(t, endpoint.Targets{"192.0.2.2"}, byName["n9.example.org"])
		assert.NotContains(t, byName, "n7.example.org")
		for _, e := range create[10:] {
			require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{e}}))
		}
		assert.Len(t, records(t, p), 8)
	}
}

// TestRandomOperationsMatchModel applies random change sets and compares
// Records with a simple map model after each, so that every path of the
// snapshot merge (partial and full rebuilds, removed and replaced records)
// is checked.
func TestRandomOperationsMatchModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := New(Options{Zones: []string{"example.org"}})
	ctx := context.Background()
	model := map[endpoint.Key]*endpoint.Endpoint{}
	types := []string{endpoint.RecordTypeA, endpoint.RecordTypeTXT}
	for round := range 300 {
		var c plan.Changes
		touched := map[endpoint.Key]bool{}
		for range rng.IntN(20) + 1 {
			name := fmt.Sprintf("n%03d.example.org", rng.IntN(200))
			typ := types[rng.IntN(2)]
			target := fmt.Sprintf("192.0.2.%d", rng.IntN(250))
			if typ == endpoint.RecordTypeTXT {
				target = fmt.Sprintf("text-%d", rng.IntN(1000))
			}
			e := endpoint.NewEndpointWithTTL(name, typ, endpoint.TTL(rng.IntN(3)*300), target)
			if rng.IntN(4) == 0 {
				e.SetIdentifier = fmt.Sprintf("s%d", rng.IntN(3))
			}
			if rng.IntN(5) == 0 {
				e.SetProviderSpecificProperty("zs/weight", fmt.Sprint(rng.IntN(10)))
			}
			k := e.Key()
			if touched[k] {
				continue
			}
			touched[k] = true
			if _, ok := model[k]; !ok {
				c.Create = append(c.Create, e)
			} else if rng.IntN(2) == 0 {
				c.Delete = append(c.Delete, e)
			} else {
				c.UpdateOld = append(c.UpdateOld, model[k])
				c.UpdateNew = append(c.UpdateNew, e)
			}
		}
		require.NoError(t, p.ApplyChanges(ctx, &c), "round %d", round)
		for _, e := range c.Create {
			model[e.Key()] = e
		}
		for _, e := range c.UpdateNew {
			model[e.Key()] = e
		}
		for _, e := range c.Delete {
			delete(model, e.Key())
		}
		if rng.IntN(3) > 0 {
			continue // let changes pile up between reads
		}
		want := make([]*endpoint.Endpoint, 0, len(model))
		for _, e := range model {
			want = append(want, e.DeepCopy())
		}
		slices.SortFunc(want, func(a, b *endpoint.Endpoint) int {
			return cmp.Or(strings.Compare(a.DNSName, b.DNSName), strings.Compare(a.SetIdentifier, b.SetIdentifier), strings.Compare(a.RecordType, b.RecordType))
		})
		require.Equal(t, want, records(t, p), "round %d", round)
		require.Equal(t, want, visited(t, p), "round %d", round)
	}
}

// TestManySmallCompactions reads after every write, so that every record
// is merged into a snapshot of its own arena, and the arenas are bounded.
func TestManySmallCompactions(t *testing.T) {
	p := New(Options{Zones: []string{"example.org"}, Records: []*endpoint.Endpoint{a("zz-keep.example.org", "192.0.2.1").WithProviderSpecific("zs/weight", "5")}})
	ctx := context.Background()
	for i := range 2 * maxArenas {
		e := endpoint.NewEndpoint(fmt.Sprintf("n%03d.example.org", i), endpoint.RecordTypeTXT, fmt.Sprintf("text %d", i))
		require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{e}}))
		got := records(t, p)
		require.Len(t, got, i+2)
		last := got[len(got)-1]
		assert.Equal(t, "zz-keep.example.org", last.DNSName)
		assert.Equal(t, endpoint.ProviderSpecific{{Name: "zs/weight", Value: "5"}}, last.ProviderSpecific)
		assert.Equal(t, endpoint.Targets{fmt.Sprintf("text %d", i)}, got[i].Targets)
		p.mu.Lock()
		arenas := len(p.store.snap.arenas)
		p.mu.Unlock()
		assert.LessOrEqual(t, arenas, maxArenas)
	}
}

// TestNumberOfOptions: New takes zero or one Options; more is an invalid
// option (no "later wins" merging).
func TestNumberOfOptions(t *testing.T) {
	filter := endpoint.NewDomainFilter([]string{"only.example.org"})
	tests := []struct {
		name    string
		opts    []Options
		wantErr string // empty: valid
	}{
		{name: "none: a provider without zones"},
		{name: "one", opts: []Options{{Zones: []string{"example.org"}, DomainFilter: filter}}},
		{name: "two", opts: []Options{{Zones: []string{"example.com"}}, {DomainFilter: filter}}, wantErr: "at most one Options, got 2"},
		{name: "two empty", opts: []Options{{}, {}}, wantErr: "at most one Options, got 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(tt.opts...)
			if tt.wantErr == "" {
				require.NoError(t, p.Err())
				_, err := p.Records(context.Background())
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, p.Err(), ErrInvalidOptions)
			assert.Contains(t, p.Err().Error(), tt.wantErr)
			_, err := p.Records(context.Background())
			require.ErrorIs(t, err, ErrInvalidOptions)
		})
	}
	assert.Same(t, filter, New(Options{Zones: []string{"example.org"}, DomainFilter: filter}).GetDomainFilter())
}

// labelValue returns the value of key in l, "" when it is not set.
func labelValue(l endpoint.Labels, key string) string {
	v, _ := l.Get(key)
	return v
}

// TestRecordSize guards the size of a stored record, one per record in
// the zone (see rec).
func TestRecordSize(t *testing.T) {
	assert.Equal(t, uintptr(40), unsafe.Sizeof(rec{}))
}

// visited returns deep copies of the records VisitRecords shows.
func visited(t *testing.T, p *Provider) []*endpoint.Endpoint {
	t.Helper()
	var out []*endpoint.Endpoint
	require.NoError(t, p.VisitRecords(context.Background(), func(ep *endpoint.Endpoint) error {
		out = append(out, ep.DeepCopy())
		return nil
	}))
	return out
}

func TestVisitRecords(t *testing.T) {
	p := New(Options{Zones: []string{"example.org"}, Records: []*endpoint.Endpoint{
		a("c.example.org", "192.0.2.5"),
		a("a.example.org", "192.0.2.1", "192.0.2.2").WithProviderSpecific("alias", "false").WithSetIdentifier("eu"),
		endpoint.NewEndpointWithTTL("b.example.org", endpoint.RecordTypeTXT, 300, "one", "two", "three"),
		a("a.example.org", "192.0.2.3"),
	}})
	ctx := context.Background()
	want := records(t, p)
	require.Equal(t, want, visited(t, p), "same records, same order as Records")

	t.Run("a visitor breaking the rules changes nothing stored", func(t *testing.T) {
		require.NoError(t, p.VisitRecords(ctx, func(ep *endpoint.Endpoint) error {
			ep.Targets[0] = "198.51.100.1"
			ep.Targets = append(ep.Targets, "198.51.100.2")
			if len(ep.ProviderSpecific) > 0 {
				ep.ProviderSpecific[0].Value = "true"
			}
			ep.DNSName = "changed.example.org"
			ep.SetIdentifier = "changed"
			ep.Labels.Set("k", "v")
			return nil
		}))
		assert.Equal(t, want, records(t, p))
		assert.Equal(t, want, visited(t, p))
	})
	t.Run("an error from visit stops the walk and is returned", func(t *testing.T) {
		errStop := errors.New("stop")
		calls := 0
		err := p.VisitRecords(ctx, func(ep *endpoint.Endpoint) error {
			calls++
			if calls == 2 {
				return errStop
			}
			return nil
		})
		require.Same(t, errStop, err)
		assert.Equal(t, 2, calls)
	})
	t.Run("cancelled context", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		err := p.VisitRecords(cctx, func(*endpoint.Endpoint) error {
			t.Fatal("visit called")
			return nil
		})
		require.ErrorIs(t, err, context.Canceled)
	})
	t.Run("invalid options", func(t *testing.T) {
		bad := New(Options{Records: []*endpoint.Endpoint{a("x.example.com", "192.0.2.1")}})
		err := bad.VisitRecords(ctx, func(*endpoint.Endpoint) error { return nil })
		require.ErrorIs(t, err, ErrInvalidOptions)
	})
}

// TestOwnershipTXTNamesRoundTrip: a TXT name that only ownership records
// have ("a-*.apps.example.com", the TXT of a wildcard record) can be
// created, updated and deleted: every change checks names with the same
// rule (endpoint.ValidateRecordName).
func TestOwnershipTXTNamesRoundTrip(t *testing.T) {
	ctx := context.Background()
	p := New(Options{Zones: []string{"example.com"}})
	txt := endpoint.NewEndpoint("a-*.apps.example.com", endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=o"`)
	require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{txt}}))
	changed := txt.DeepCopy()
	changed.Targets = endpoint.Targets{`"heritage=external-dns,external-dns/owner=p"`}
	require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{txt}, UpdateNew: []*endpoint.Endpoint{changed}}))
	require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{changed}}))
	recs, err := p.Records(ctx)
	require.NoError(t, err)
	assert.Empty(t, recs)

	// A record of another type keeps the strict rule.
	bad := endpoint.NewEndpoint("a-*.apps.example.com", endpoint.RecordTypeA, "192.0.2.1")
	assert.Error(t, p.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{bad}}))
}
