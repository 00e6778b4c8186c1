package blueprinttest_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/blueprint/blueprinttest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
)

func newInMemory() *inmemory.Provider {
	return inmemory.New(inmemory.WithZone("example.org"))
}

func TestSuitePassesOnInMemory(t *testing.T) {
	blueprinttest.TestProvider(t, func(t *testing.T) provider.Provider { return newInMemory() })
}

func TestSuitePassesOnFakes(t *testing.T) {
	fakes := map[string]func() provider.Provider{
		"RecordingProvider": func() provider.Provider { return blueprinttest.NewRecordingProvider(newInMemory()) },
		"Intercept":         func() provider.Provider { return blueprinttest.Intercept(newInMemory(), blueprinttest.Funcs{}) },
		"FailRandomly(0)":   func() provider.Provider { return blueprinttest.FailRandomly(newInMemory(), 0, nil, nil) },
		"WithLatency":       func() provider.Provider { return blueprinttest.WithLatency(newInMemory(), time.Millisecond) },
	}
	for name, newProvider := range fakes {
		t.Run(name, func(t *testing.T) {
			blueprinttest.TestProvider(t, func(t *testing.T) provider.Provider { return newProvider() })
			require.NoError(t, blueprinttest.CheckProvider(t.Context(), newProvider()))
		})
	}
}

func TestCheckProviderOnInMemoryCleansUp(t *testing.T) {
	p := inmemory.New(inmemory.WithZone("example.org"), inmemory.WithRecords(
		endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1"),
	))
	require.NoError(t, blueprinttest.CheckProvider(t.Context(), p, blueprinttest.WithConcurrency(16)))
	recs, err := p.Records(t.Context())
	require.NoError(t, err)
	require.Len(t, recs, 1, "only the record that was there before remains")
	assert.Equal(t, "www.example.org", recs[0].DNSName)
}

func TestCheckProviderOtherZone(t *testing.T) {
	p := inmemory.New(inmemory.WithZone("zone.test."))
	require.NoError(t, blueprinttest.CheckProvider(t.Context(), p, blueprinttest.WithZone("Zone.Test."), blueprinttest.WithTimeout(10*time.Second)))
	// The default zone is not served by this provider: creates fail.
	err := blueprinttest.CheckProvider(t.Context(), p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Create: ApplyChanges(create)")
}

// noSetIdentifier rejects records with a set identifier, like a DNS API
// without routing policies.
func noSetIdentifier(p provider.Provider) provider.Provider {
	return blueprinttest.Intercept(p, blueprinttest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			for _, e := range slices.Concat(c.Create, c.UpdateNew) {
				if e.SetIdentifier != "" {
					return errors.New("set identifiers are not supported")
				}
			}
			return next.ApplyChanges(ctx, c)
		},
	})
}

func TestWithoutSetIdentifier(t *testing.T) {
	err := blueprinttest.CheckProvider(t.Context(), noSetIdentifier(newInMemory()))
	require.Error(t, err)
	assert.Equal(t, []string{blueprinttest.BehaviourSetIdentifier, blueprinttest.BehaviourSortedRecords}, behaviours(err))

	require.NoError(t, blueprinttest.CheckProvider(t.Context(), noSetIdentifier(newInMemory()), blueprinttest.WithoutSetIdentifier()))
	blueprinttest.TestProvider(t, func(t *testing.T) provider.Provider { return noSetIdentifier(newInMemory()) }, blueprinttest.WithoutSetIdentifier())
}

// behaviours returns the sorted, distinct behaviours of the violations in err.
func behaviours(err error) []string {
	var out []string
	var walk func(error)
	walk = func(err error) {
		var v *blueprinttest.Violation
		if errors.As(err, &v) && !slices.Contains(out, v.Behaviour) {
			out = append(out, v.Behaviour)
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
		}
	}
	walk(err)
	slices.Sort(out)
	return out
}

// Deliberately broken providers, one broken behaviour each.

func unsorted(p provider.Provider) provider.Provider {
	return blueprinttest.Intercept(p, blueprinttest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			recs, err := next.Records(ctx)
			slices.Reverse(recs)
			return recs, err
		},
	})
}

// sharedSlices caches the Records result and hands the same endpoints to
// every caller until the next ApplyChanges.
func sharedSlices(p provider.Provider) provider.Provider {
	var mu sync.Mutex
	var cache []*endpoint.Endpoint
	return blueprinttest.Intercept(p, blueprinttest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			mu.Lock()
			defer mu.Unlock()
			if cache == nil {
				recs, err := next.Records(ctx)
				if err != nil {
					return nil, err
				}
				cache = recs
			}
			return slices.Clone(cache), nil
		},
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			mu.Lock()
			defer mu.Unlock()
			cache = nil
			return next.ApplyChanges(ctx, c)
		},
	})
}

// sharedTargets returns endpoints whose targets share one backing array
// without a capacity limit.
func sharedTargets(p provider.Provider) provider.Provider {
	return blueprinttest.Intercept(p, blueprinttest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			recs, err := next.Records(ctx)
			var all []string
			for _, r := range recs {
				all = append(all, r.Targets...)
			}
			off := 0
			for _, r := range recs {
				r.Targets = all[off : off+len(r.Targets)]
				off += len(r.Targets)
			}
			return recs, err
		},
	})
}

func swallowErrors(p provider.Provider, when func(*plan.Changes) bool) provider.Provider {
	return blueprinttest.Intercept(p, blueprinttest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			err := next.ApplyChanges(ctx, c)
			if err != nil && when(c) {
				return nil
			}
			return err
		},
	})
}

func ignoresContext(p provider.Provider) provider.Provider {
	return blueprinttest.Intercept(p, blueprinttest.Funcs{
		Records: func(_ context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			return next.Records(context.Background())
		},
		ApplyChanges: func(_ context.Context, next provider.Provider, c *plan.Changes) error {
			return next.ApplyChanges(context.Background(), c)
		},
	})
}

// rewrite applies fn to copies of the Create and UpdateNew endpoints.
func rewrite(p provider.Provider, fn func(oldEp, newEp *endpoint.Endpoint)) provider.Provider {
	return blueprinttest.Intercept(p, blueprinttest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			out := &plan.Changes{UpdateOld: c.UpdateOld, Delete: c.Delete}
			for _, e := range c.Create {
				e = e.DeepCopy()
				fn(nil, e)
				out.Create = append(out.Create, e)
			}
			for i, e := range c.UpdateNew {
				e = e.DeepCopy()
				if i < len(c.UpdateOld) {
					fn(c.UpdateOld[i], e)
				}
				out.UpdateNew = append(out.UpdateNew, e)
			}
			return next.ApplyChanges(ctx, out)
		},
	})
}

// busy fails ApplyChanges calls that overlap another one.
func busy(p provider.Provider) provider.Provider {
	var inFlight atomic.Int32
	return blueprinttest.Intercept(p, blueprinttest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			if inFlight.Add(1) > 1 {
				inFlight.Add(-1)
				return errors.New("another change is in progress")
			}
			defer inFlight.Add(-1)
			time.Sleep(5 * time.Millisecond)
			return next.ApplyChanges(ctx, c)
		},
	})
}

func TestSuiteFailsOnBrokenProviders(t *testing.T) {
	tests := []struct {
		name  string
		wrap  func(provider.Provider) provider.Provider
		wants []string // the behaviours reported, sorted
		also  string   // a substring of the error
		// keepsRecords: the broken provider cannot delete, so the suite
		// cannot clean up.
		keepsRecords bool
	}{
		{
			name:  "unsorted Records",
			wrap:  unsorted,
			wants: []string{blueprinttest.BehaviourSortedRecords},
			also:  "not sorted by (DNSName, SetIdentifier, RecordType)",
		},
		{
			name:  "shared endpoints between Records calls",
			wrap:  sharedSlices,
			wants: []string{blueprinttest.BehaviourReturnedSlicesAreCopies},
			also:  "after the caller mutated the previous result",
		},
		{
			name:  "targets share a backing array",
			wrap:  sharedTargets,
			wants: []string{blueprinttest.BehaviourReturnedSlicesAreCopies},
			also:  "returned endpoints share memory",
		},
		{
			name: "duplicate create accepted",
			wrap: func(p provider.Provider) provider.Provider {
				return swallowErrors(p, func(c *plan.Changes) bool { return len(c.Create) > 0 })
			},
			// Swallowing create errors also hides the cancelled context.
			wants: []string{blueprinttest.BehaviourContextCanceled, blueprinttest.BehaviourDuplicateCreateFails},
			also:  "creating an existing record succeeded",
		},
		{
			name: "delete of missing accepted",
			wrap: func(p provider.Provider) provider.Provider {
				return swallowErrors(p, func(c *plan.Changes) bool { return len(c.Delete) > 0 })
			},
			wants: []string{blueprinttest.BehaviourDeleteMissingFails},
			also:  "deleting a missing record succeeded",
		},
		{
			name: "update of missing accepted",
			wrap: func(p provider.Provider) provider.Provider {
				return swallowErrors(p, func(c *plan.Changes) bool { return len(c.UpdateNew) > 0 })
			},
			wants: []string{blueprinttest.BehaviourDeleteMissingFails},
			also:  "updating a missing record succeeded",
		},
		{
			name:  "ignores cancelled context",
			wrap:  ignoresContext,
			wants: []string{blueprinttest.BehaviourContextCanceled},
			also:  "succeeded with a cancelled context",
		},
		{
			name: "ignores TTL updates",
			wrap: func(p provider.Provider) provider.Provider {
				return rewrite(p, func(oldEp, newEp *endpoint.Endpoint) {
					if oldEp != nil {
						newEp.RecordTTL = oldEp.RecordTTL
					}
				})
			},
			wants: []string{blueprinttest.BehaviourUpdateTTL},
			also:  "TTL is 300 after update of the TTL from 300 to 600, want 600",
		},
		{
			name: "drops the second target",
			wrap: func(p provider.Provider) provider.Provider {
				return rewrite(p, func(_, newEp *endpoint.Endpoint) { newEp.Targets = newEp.Targets[:1] })
			},
			wants: []string{blueprinttest.BehaviourMultiTarget, blueprinttest.BehaviourReturnedSlicesAreCopies},
			also:  "create with three targets",
		},
		{
			name: "ignores target updates",
			wrap: func(p provider.Provider) provider.Provider {
				return rewrite(p, func(oldEp, newEp *endpoint.Endpoint) {
					if oldEp != nil {
						newEp.Targets = oldEp.Targets
					}
				})
			},
			wants: []string{
				blueprinttest.BehaviourConcurrentApply, blueprinttest.BehaviourMultiTarget,
				blueprinttest.BehaviourSetIdentifier, blueprinttest.BehaviourUpdateTargets,
			},
			also: `targets are ["192.0.2.20"] after update of the targets, want ["192.0.2.21"]`,
		},
		{
			name: "deletes ignored",
			wrap: func(p provider.Provider) provider.Provider {
				return blueprinttest.Intercept(p, blueprinttest.Funcs{
					ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
						if len(c.Create)+len(c.UpdateNew) == 0 {
							return nil
						}
						return next.ApplyChanges(ctx, c)
					},
				})
			},
			wants: []string{
				blueprinttest.BehaviourConcurrentApply, blueprinttest.BehaviourDelete,
				blueprinttest.BehaviourDeleteMissingFails, blueprinttest.BehaviourSetIdentifier,
			},
			also:         "record present after delete",
			keepsRecords: true,
		},
		{
			name: "domain filter of another zone",
			wrap: func(p provider.Provider) provider.Provider {
				return blueprinttest.Intercept(p, blueprinttest.Funcs{
					GetDomainFilter: func(provider.Provider) endpoint.DomainFilterInterface {
						return endpoint.NewDomainFilter([]string{"example.net"})
					},
				})
			},
			wants: []string{blueprinttest.BehaviourDomainFilter},
			also:  "filter does not match a name in the zone",
		},
		{
			name: "AdjustEndpoints modifies its input",
			wrap: func(p provider.Provider) provider.Provider {
				return blueprinttest.Intercept(p, blueprinttest.Funcs{
					AdjustEndpoints: func(_ provider.Provider, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
						for _, e := range eps {
							e.RecordTTL = 1
						}
						return eps, nil
					},
				})
			},
			wants: []string{blueprinttest.BehaviourDomainFilter},
			also:  "modified its input",
		},
		{
			name:  "concurrent changes fail",
			wrap:  busy,
			wants: []string{blueprinttest.BehaviourConcurrentApply},
			also:  "another change is in progress",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := newInMemory()
			err := blueprinttest.CheckProvider(t.Context(), tt.wrap(base))
			require.Error(t, err)
			assert.Equal(t, tt.wants, behaviours(err), "violations: %v", err)
			assert.Contains(t, err.Error(), tt.also)
			for _, want := range tt.wants {
				assert.Contains(t, err.Error(), want+": ")
			}
			// Every violation names an operation.
			for _, line := range strings.Split(err.Error(), "\n") {
				assert.Regexp(t, `^\w+: (Records|ApplyChanges\(\w+\)|GetDomainFilter|AdjustEndpoints)`, line)
			}
			if tt.keepsRecords {
				return
			}
			// The suite cleaned up after itself.
			recs, rerr := base.Records(t.Context())
			require.NoError(t, rerr)
			assert.Empty(t, recs)
		})
	}
}

func TestCheckProviderNamesRecords(t *testing.T) {
	err := blueprinttest.CheckProvider(t.Context(), ignoresContext(newInMemory()))
	require.Error(t, err)
	var v *blueprinttest.Violation
	require.ErrorAs(t, err, &v)
	assert.Equal(t, blueprinttest.BehaviourContextCanceled, v.Behaviour)
	assert.Contains(t, err.Error(), blueprinttest.NamePrefix)
	assert.Contains(t, err.Error(), "-canceled.example.org/A")
}

func TestCheckProviderStopsWhenContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := blueprinttest.CheckProvider(ctx, newInMemory())
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "stopped before Create")
	require.Error(t, blueprinttest.CheckProvider(t.Context(), nil))
}

func TestCheckProviderTimeout(t *testing.T) {
	slow := blueprinttest.WithLatency(newInMemory(), time.Second)
	err := blueprinttest.CheckProvider(t.Context(), slow, blueprinttest.WithTimeout(20*time.Millisecond))
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestViolationError(t *testing.T) {
	cause := errors.New("boom")
	v := &blueprinttest.Violation{Behaviour: "Create", Op: "Records", Record: "a.example.org/A", Msg: "record missing", Err: cause}
	assert.Equal(t, "Create: Records a.example.org/A: record missing: boom", v.Error())
	assert.ErrorIs(t, v, cause)
	v = &blueprinttest.Violation{Behaviour: "SortedRecords", Op: "Records", Msg: "not sorted"}
	assert.Equal(t, "SortedRecords: Records: not sorted", v.Error())
}

func TestCheckProviderRecoversPanics(t *testing.T) {
	p := blueprinttest.Intercept(newInMemory(), blueprinttest.Funcs{
		GetDomainFilter: func(provider.Provider) endpoint.DomainFilterInterface { panic("no filter") },
	})
	err := blueprinttest.CheckProvider(t.Context(), p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "DomainFilter: (calling the provider): panic: no filter")
}
