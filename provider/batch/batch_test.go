package batch_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/clock/clocktest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/batch"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
)

// newBatch is batch.New for options that are valid.
func newBatch(t testing.TB, p provider.Provider, opts batch.Options) *batch.Provider {
	t.Helper()
	b, err := batch.New(p, opts)
	require.NoError(t, err)
	return b
}

func rec(i int) *endpoint.Endpoint {
	return endpoint.NewEndpoint(fmt.Sprintf("r%03d.example.com", i), "A", fmt.Sprintf("192.0.2.%d", i%250))
}

// owned returns rec(i) and an ownership TXT for it, labelled the way the
// TXT registry labels them.
func owned(i int) (*endpoint.Endpoint, *endpoint.Endpoint) {
	r := rec(i)
	t := endpoint.NewEndpoint("own-"+r.DNSName, "TXT", `"heritage=external-dns,external-dns/owner=me"`).
		WithLabel(endpoint.OwnedRecordLabelKey, r.DNSName)
	return r, t
}

func applyCalls(rp *providertest.RecordingProvider) []*plan.Changes {
	var out []*plan.Changes
	for _, c := range rp.CallsTo(providertest.MethodApplyChanges) {
		out = append(out, c.Changes)
	}
	return out
}

func names(eps []*endpoint.Endpoint) []string {
	out := make([]string, len(eps))
	for i, e := range eps {
		out[i] = e.DNSName
	}
	return out
}

// TestBatchLimits: batches respect both limits and a record never travels
// without its ownership TXT, although the registry appends the TXT records
// after all the records.
func TestBatchLimits(t *testing.T) {
	const n = 10
	var records, txts []*endpoint.Endpoint
	for i := range n {
		r, x := owned(i)
		records, txts = append(records, r), append(txts, x)
	}
	changes := &plan.Changes{Create: append(records, txts...)}
	tests := []struct {
		name  string
		opts  batch.Options
		calls int
	}{
		{"records bound", batch.Options{MaxRecords: 5}, 5},                                   // 2 groups of 2 values per call
		{"bytes bound", batch.Options{MaxValueBytes: 2 * (len(txts[0].Targets[0]) + 12)}, 5}, // value+IP, twice
		{"defaults fit", batch.Options{}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
			rp := providertest.NewRecordingProvider(zone)
			require.NoError(t, newBatch(t, rp, tt.opts).ApplyChanges(context.Background(), changes))
			calls := applyCalls(rp)
			assert.Len(t, calls, tt.calls)
			for _, c := range calls {
				got := map[string]int{}
				for _, ep := range c.Create {
					name, _ := provider.GroupKey(ep)
					got[name]++
				}
				for name, k := range got {
					assert.Equal(t, 2, k, "%s travels with its TXT", name)
				}
			}
			recs, err := zone.Records(context.Background())
			require.NoError(t, err)
			assert.Len(t, recs, 2*n)
		})
	}
}

func TestDeletesFirst(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: []*endpoint.Endpoint{rec(1), rec(2)}})
	rp := providertest.NewRecordingProvider(zone)
	err := newBatch(t, rp, batch.Options{MaxRecords: 1}).ApplyChanges(context.Background(), &plan.Changes{
		Create: []*endpoint.Endpoint{rec(3)},
		Delete: []*endpoint.Endpoint{rec(1), rec(2)},
	})
	require.NoError(t, err)
	calls := applyCalls(rp)
	require.Len(t, calls, 3)
	assert.Equal(t, []string{"r001.example.com"}, names(calls[0].Delete))
	assert.Equal(t, []string{"r002.example.com"}, names(calls[1].Delete))
	assert.Equal(t, []string{"r003.example.com"}, names(calls[2].Create))
}

// poison returns a provider that refuses, atomically, every change set that
// holds one of the poisoned names.
func poison(p provider.Provider, bad ...string) provider.Provider {
	return providertest.Intercept(p, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			for _, list := range [][]*endpoint.Endpoint{c.Create, c.UpdateNew, c.Delete} {
				for _, ep := range list {
					for _, b := range bad {
						if ep.DNSName == b {
							return fmt.Errorf("InvalidChangeBatch: bad value for %s", b)
						}
					}
				}
			}
			return next.ApplyChanges(ctx, c)
		},
	})
}

func TestBisection(t *testing.T) {
	const n = 200
	var creates []*endpoint.Endpoint
	for i := range n {
		r, x := owned(i)
		creates = append(creates, r, x)
	}
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	rp := providertest.NewRecordingProvider(poison(zone, "r017.example.com", "own-r150.example.com"))
	err := newBatch(t, rp, batch.Options{MaxRecords: 100}).ApplyChanges(context.Background(), &plan.Changes{Create: creates})
	require.Error(t, err)
	assert.ErrorIs(t, err, provider.SoftError, "rejected changes are retried next cycle")
	rej := provider.Rejected(err)
	var got []string
	for _, r := range rej {
		got = append(got, r.Action+" "+r.Endpoint.DNSName)
		assert.ErrorContains(t, r.Reason, "InvalidChangeBatch")
	}
	assert.Equal(t, []string{"create r017.example.com", "create own-r017.example.com",
		"create r150.example.com", "create own-r150.example.com"}, got, "each group refused as a unit")
	assert.Contains(t, err.Error(), "create r017.example.com/A: InvalidChangeBatch: bad value for r017.example.com")

	recs, rerr := zone.Records(context.Background())
	require.NoError(t, rerr)
	assert.Len(t, recs, 2*(n-2), "every valid group applied")
	// 4 batches of 50 groups; two fail and are halved down to one group
	// each: 4 + 2·2·log2(50)-ish calls, far from one call per group.
	assert.Less(t, len(applyCalls(rp)), 40)
}

func TestSoftErrorIsNotSplit(t *testing.T) {
	throttled := provider.NewSoftError(errors.New("Throttling: rate exceeded"))
	calls := 0
	p := providertest.Intercept(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			calls++
			if calls == 2 {
				return throttled
			}
			return next.ApplyChanges(ctx, c)
		},
	})
	err := newBatch(t, p, batch.Options{MaxRecords: 1}).ApplyChanges(context.Background(), &plan.Changes{
		Create: []*endpoint.Endpoint{rec(1), rec(2), rec(3)},
	})
	require.ErrorIs(t, err, throttled)
	assert.Empty(t, provider.Rejected(err))
	assert.Equal(t, 2, calls, "the call stops at the soft error")
}

func TestTooLarge(t *testing.T) {
	big := endpoint.NewEndpoint("big.example.com", "TXT", strings.Repeat("x", 300))
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	err := newBatch(t, zone, batch.Options{MaxValueBytes: 100}).ApplyChanges(context.Background(), &plan.Changes{
		Create: []*endpoint.Endpoint{rec(1), big, rec(2)},
	})
	require.ErrorIs(t, err, batch.ErrTooLarge)
	assert.ErrorContains(t, err, "big.example.com/TXT")
	rej := provider.Rejected(err)
	require.Len(t, rej, 1)
	assert.Equal(t, "big.example.com", rej[0].Endpoint.DNSName)
	recs, rerr := zone.Records(context.Background())
	require.NoError(t, rerr)
	assert.Len(t, recs, 2)
}

func TestPauseHonoursContext(t *testing.T) {
	clk := clocktest.New(time.Unix(0, 0))
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	p := newBatch(t, zone, batch.Options{MaxRecords: 1, Pause: time.Second, Clock: clk})
	go func() {
		done <- p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{rec(1), rec(2), rec(3)}})
	}()
	assert.Equal(t, time.Second, <-clk.Timers(), "pause after the first batch")
	clk.Advance(time.Second)
	assert.Equal(t, time.Second, <-clk.Timers(), "pause after the second batch")
	cancel()
	err := <-done
	require.ErrorIs(t, err, context.Canceled)
	recs, rerr := zone.Records(context.Background())
	require.NoError(t, rerr)
	assert.Len(t, recs, 2)
}

func TestForwardsZones(t *testing.T) {
	ctx := context.Background()
	zones, ok, err := provider.ZonesOf(ctx, newBatch(t, inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), batch.Options{}))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, []string{"example.com"}, zones)
	_, ok, err = provider.ZonesOf(ctx, newBatch(t, providertest.Intercept(plainProvider{}, providertest.Funcs{}), batch.Options{}))
	require.NoError(t, err)
	assert.False(t, ok)
}

type plainProvider struct{ provider.BaseProvider }

func (plainProvider) Records(context.Context) ([]*endpoint.Endpoint, error) { return nil, nil }
func (plainProvider) ApplyChanges(context.Context, *plan.Changes) error     { return nil }

// Records that differ only in set identifier are groups of their own, each
// with its TXT.
func TestSetIdentifierGroups(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	rp := providertest.NewRecordingProvider(zone)
	var creates []*endpoint.Endpoint
	for _, id := range []string{"", "eu", "us"} {
		r, x := owned(1)
		creates = append(creates, r.WithSetIdentifier(id), x.WithSetIdentifier(id))
	}
	require.NoError(t, newBatch(t, rp, batch.Options{MaxRecords: 2}).ApplyChanges(context.Background(), &plan.Changes{Create: creates}))
	calls := applyCalls(rp)
	require.Len(t, calls, 3)
	for i, id := range []string{"", "eu", "us"} {
		require.Len(t, calls[i].Create, 2)
		for _, ep := range calls[i].Create {
			assert.Equal(t, id, ep.SetIdentifier)
		}
	}
}

// A nil endpoint (malformed input) is refused by the provider and named as
// such; the valid changes around it are applied.
func TestNilEndpoint(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	err := newBatch(t, zone, batch.Options{}).ApplyChanges(context.Background(), &plan.Changes{
		Create: []*endpoint.Endpoint{rec(1), nil, rec(2)},
	})
	require.ErrorIs(t, err, inmemory.ErrInvalidChanges)
	rej := provider.Rejected(err)
	require.Len(t, rej, 1)
	assert.Nil(t, rej[0].Endpoint)
	assert.Contains(t, err.Error(), "create <nil>")
	recs, rerr := zone.Records(context.Background())
	require.NoError(t, rerr)
	assert.Len(t, recs, 2)
}

// The wrapper logs through the logger of the context.
func TestLogsThroughTheContext(t *testing.T) {
	var lines []string
	log := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: 1})
	ctx := logr.NewContext(context.Background(), log)
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	require.NoError(t, newBatch(t, zone, batch.Options{MaxRecords: 1}).ApplyChanges(ctx, &plan.Changes{
		Create: []*endpoint.Endpoint{rec(1), rec(2)},
	}))
	require.Len(t, lines, 1)
	assert.Contains(t, lines[0], `"msg"="applied in batches" "calls"=2 "rejected"=0`)
}

func TestNewInvalidOptions(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	tests := []struct {
		name  string
		p     provider.Provider
		opts  batch.Options
		field string // named in the error; empty: valid
	}{
		{name: "zero options", p: zone},
		{name: "all set", p: zone, opts: batch.Options{MaxRecords: 1, MaxValueBytes: 1, Pause: time.Second}},
		{name: "nil provider", p: nil, field: "provider is nil"},
		{name: "negative MaxRecords", p: zone, opts: batch.Options{MaxRecords: -1}, field: "Options.MaxRecords"},
		{name: "negative MaxValueBytes", p: zone, opts: batch.Options{MaxValueBytes: -1}, field: "Options.MaxValueBytes"},
		{name: "negative Pause", p: zone, opts: batch.Options{Pause: -time.Second}, field: "Options.Pause"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := batch.New(tt.p, tt.opts)
			if tt.field == "" {
				require.NoError(t, err)
				require.NotNil(t, p)
				return
			}
			require.ErrorIs(t, err, batch.ErrInvalidOptions)
			assert.Contains(t, err.Error(), tt.field)
			assert.Nil(t, p)
		})
	}
}
