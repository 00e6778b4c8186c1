package providertest_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
)

// CheckProvider returns every violation of the provider contract, each a
// *Violation naming the rule, the operation and what went wrong; a
// conforming provider gives nil.
func ExampleCheckProvider() {
	ctx := context.Background()
	// A provider that forgets TTL changes.
	broken := providertest.Intercept(inmemory.New(inmemory.Options{Zones: []string{"example.org"}}), providertest.Funcs{
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
	err := providertest.CheckProvider(ctx, broken, providertest.Options{Zone: "example.org"})
	var v *providertest.Violation
	if errors.As(err, &v) {
		fmt.Println(v.Rule, v.Op, "-", v.Msg)
	}
	// Output:
	// UpdateTTL Records - TTL is 300 after update of the TTL from 300 to 600, want 600
}

// A provider whose creates replace existing records (as Route 53 UPSERT
// does) declares it with Options.Upsert; the suite then checks that a create of
// an existing record replaces it, instead of requiring it to fail.
func ExampleOptions_upsert() {
	ctx := context.Background()
	upsert := providertest.Intercept(inmemory.New(inmemory.Options{Zones: []string{"example.org"}}), providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			recs, err := next.Records(ctx)
			if err != nil {
				return err
			}
			replace := &plan.Changes{UpdateOld: c.UpdateOld, UpdateNew: c.UpdateNew, Delete: c.Delete}
			for _, e := range c.Create {
				i := slices.IndexFunc(recs, func(r *endpoint.Endpoint) bool { return r.Key() == e.Key() })
				if i < 0 {
					replace.Create = append(replace.Create, e)
					continue
				}
				replace.UpdateOld = append(replace.UpdateOld, recs[i])
				replace.UpdateNew = append(replace.UpdateNew, e)
			}
			return next.ApplyChanges(ctx, replace)
		},
	})
	for _, declared := range []bool{false, true} {
		err := providertest.CheckProvider(ctx, upsert, providertest.Options{Upsert: declared})
		found := false
		var v *providertest.Violation
		for _, e := range unjoin(err) {
			if errors.As(e, &v) && v.Rule == providertest.RuleCreateExisting {
				fmt.Printf("Upsert %v: %s\n", declared, v.Msg)
				found = true
			}
		}
		if !found {
			fmt.Printf("Upsert %v: no CreateExisting violation\n", declared)
		}
	}
	// Output:
	// Upsert false: creating an existing record succeeded; it must fail (declare Options.Upsert if the provider replaces the record)
	// Upsert true: no CreateExisting violation
}

// unjoin returns the errors joined in err (errors.Join), or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// Intercept changes one method of a provider; the others pass through.
// Here every second ApplyChanges call fails with a soft (transient) error.
func ExampleIntercept() {
	ctx := context.Background()
	calls := 0
	p := providertest.Intercept(inmemory.New(inmemory.Options{Zones: []string{"example.org"}}), providertest.Funcs{
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
	p := providertest.FailRandomly(inmemory.New(inmemory.Options{Zones: []string{"example.org"}}), 0.5,
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
	p := providertest.NewRecordingProvider(inmemory.New(inmemory.Options{Zones: []string{"example.org"}}))
	_ = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1"),
	}})
	_, _ = p.Records(ctx)
	for _, c := range p.Calls() {
		switch c.Method {
		case providertest.MethodApplyChanges:
			fmt.Println(c.Method, "create", c.Changes.Create[0].Key(), c.Err)
		case providertest.MethodRecords:
			fmt.Println(c.Method, len(c.Endpoints), c.Err)
		}
	}
	// Output:
	// ApplyChanges create www.example.org/A <nil>
	// Records 1 <nil>
}

// WithLatency slows a provider down; a context deadline still ends the call.
func ExampleWithLatency() {
	p := providertest.WithLatency(inmemory.New(inmemory.Options{Zones: []string{"example.org"}}), time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := p.Records(ctx)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output:
	// true
}
