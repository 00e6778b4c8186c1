package blueprinttest_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/zonesync/zonesync/blueprint/blueprinttest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
)

// CheckProvider returns every violation of the provider contract; a
// conforming provider gives nil.
func ExampleCheckProvider() {
	ctx := context.Background()
	p := inmemory.New(inmemory.WithZone("example.org"))
	fmt.Println("inmemory:", blueprinttest.CheckProvider(ctx, p))

	// A provider that forgets TTL changes.
	broken := blueprinttest.Intercept(p, blueprinttest.Funcs{
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
	err := blueprinttest.CheckProvider(ctx, broken, blueprinttest.WithoutSetIdentifier())
	var v *blueprinttest.Violation
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
	p := blueprinttest.Intercept(inmemory.New(inmemory.WithZone("example.org")), blueprinttest.Funcs{
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
	p := blueprinttest.FailRandomly(inmemory.New(inmemory.WithZone("example.org")), 0.5,
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
	p := blueprinttest.NewRecordingProvider(inmemory.New(inmemory.WithZone("example.org")))
	_ = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1"),
	}})
	_, _ = p.Records(ctx)
	for _, c := range p.Calls() {
		switch c.Method {
		case blueprinttest.MethodApplyChanges:
			fmt.Println(c.Method, "create", c.Changes.Create[0].Key(), c.Err)
		case blueprinttest.MethodRecords:
			fmt.Println(c.Method, len(c.Endpoints), c.Err)
		}
	}
	// Output:
	// ApplyChanges create www.example.org/A <nil>
	// Records 1 <nil>
}

// WithLatency slows a provider down; a context deadline still ends the call.
func ExampleWithLatency() {
	p := blueprinttest.WithLatency(inmemory.New(inmemory.WithZone("example.org")), time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := p.Records(ctx)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output:
	// true
}
