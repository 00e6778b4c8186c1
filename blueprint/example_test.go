package blueprint_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/zonesync/zonesync/blueprint"
	"github.com/zonesync/zonesync/clock/clocktest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
)

// A provider caches its zone list and reads its API only when the cache has
// expired. The fake clock makes expiry visible.
func ExampleZoneCache() {
	clk := clocktest.New(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	cache := blueprint.NewZoneCacheWithClock[[]string](5*time.Minute, clk)

	apiCalls := 0
	listZones := func() []string {
		if !cache.Expired() {
			return cache.Get()
		}
		apiCalls++
		zones := []string{"example.org", "example.net"}
		cache.Reset(zones)
		return zones
	}

	fmt.Println(listZones(), apiCalls)
	clk.Advance(time.Minute)
	fmt.Println(listZones(), apiCalls)
	clk.Advance(5 * time.Minute)
	fmt.Println("expired:", cache.Expired(), "stale value:", cache.Get())
	fmt.Println(listZones(), apiCalls)
	// Output:
	// [example.org example.net] 1
	// [example.org example.net] 1
	// expired: true stale value: [example.org example.net]
	// [example.org example.net] 2
}

// With a TTL of zero the cache is disabled: it never holds a value.
func ExampleNewZoneCache_disabled() {
	cache := blueprint.NewZoneCache[[]string](0)
	cache.Reset([]string{"example.org"})
	fmt.Println(cache.Expired(), cache.Get() == nil)
	// Output:
	// true true
}

// CheckProvider returns every violation of the provider contract; a
// conforming provider gives nil.
func ExampleCheckProvider() {
	ctx := context.Background()
	p := inmemory.New(inmemory.WithZone("example.org"))
	fmt.Println("inmemory:", blueprint.CheckProvider(ctx, p))

	// A provider that forgets TTL changes.
	broken := blueprint.Intercept(p, blueprint.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			fixed := &plan.Changes{Create: c.Create, UpdateOld: c.UpdateOld, Delete: c.Delete}
			for i, e := range c.UpdateNew {
				e = e.DeepCopy()
				e.RecordTTL = c.UpdateOld[i].RecordTTL
				fixed.UpdateNew = append(fixed.UpdateNew, e)
			}
			return next.ApplyChanges(ctx, fixed)
		},
	})
	err := blueprint.CheckProvider(ctx, broken, blueprint.WithoutSetIdentifier())
	var v *blueprint.Violation
	if errors.As(err, &v) {
		fmt.Println("broken:", v.Behaviour, v.Op, "-", v.Msg)
	}
	// Output:
	// inmemory: <nil>
	// broken: UpdateTTL Records - TTL is 300 after update of the TTL from 300 to 600, want 600
}

// Intercept changes one method of a provider; the others pass through.
// Here every second ApplyChanges call fails with a soft (transient) error.
func ExampleIntercept() {
	ctx := context.Background()
	calls := 0
	p := blueprint.Intercept(inmemory.New(inmemory.WithZone("example.org")), blueprint.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			calls++
			if calls%2 == 0 {
				return provider.NewSoftError(errors.New("rate limited"))
			}
			return next.ApplyChanges(ctx, c)
		},
	})
	for _, name := range []string{"a.example.org", "b.example.org", "c.example.org"} {
		err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
			endpoint.NewEndpoint(name, endpoint.RecordTypeA, "192.0.2.1"),
		}})
		fmt.Println(name, err, errors.Is(err, provider.SoftError))
	}
	recs, _ := p.Records(ctx)
	fmt.Println(len(recs), "records")
	// Output:
	// a.example.org <nil> false
	// b.example.org soft error: rate limited true
	// c.example.org <nil> false
	// 2 records
}

// FailRandomly fails a share of calls; the same seed gives the same
// failures.
func ExampleFailRandomly() {
	ctx := context.Background()
	p := blueprint.FailRandomly(inmemory.New(inmemory.WithZone("example.org")), 0.5,
		rand.New(rand.NewPCG(1, 2)), provider.NewSoftError(errors.New("timeout")))
	failed := 0
	for range 100 {
		if _, err := p.Records(ctx); err != nil {
			failed++
		}
	}
	fmt.Println(failed > 30 && failed < 70)
	// Output:
	// true
}

// RecordingProvider shows what a caller asked of its provider.
func ExampleRecordingProvider() {
	ctx := context.Background()
	p := blueprint.NewRecordingProvider(inmemory.New(inmemory.WithZone("example.org")))
	_ = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1"),
	}})
	_, _ = p.Records(ctx)
	for _, c := range p.Calls() {
		switch c.Method {
		case blueprint.MethodApplyChanges:
			fmt.Println(c.Method, "create", c.Changes.Create[0].Key(), c.Err)
		case blueprint.MethodRecords:
			fmt.Println(c.Method, len(c.Endpoints), c.Err)
		}
	}
	// Output:
	// ApplyChanges create www.example.org/A <nil>
	// Records 1 <nil>
}

// WithLatency slows a provider down; a context deadline still ends the call.
func ExampleWithLatency() {
	p := blueprint.WithLatency(inmemory.New(inmemory.WithZone("example.org")), time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := p.Records(ctx)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output:
	// true
}
