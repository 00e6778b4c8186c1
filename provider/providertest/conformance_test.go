package providertest_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
)

func newInMemory() *inmemory.Provider {
	return inmemory.New(inmemory.Options{Zones: []string{"example.org"}})
}

func TestSuitePassesOnReference(t *testing.T) {
	providertest.TestProvider(t, newReference(), providertest.Options{})
	require.NoError(t, providertest.CheckProvider(t.Context(), newReference(), providertest.Options{}))
}

func TestSuitePassesOnFakes(t *testing.T) {
	fakes := map[string]func() provider.Provider{
		"RecordingProvider":         func() provider.Provider { return providertest.NewRecordingProvider(newReference()) },
		"Intercept":                 func() provider.Provider { return providertest.Intercept(newReference(), providertest.Funcs{}) },
		"FailRandomly(0)":           func() provider.Provider { return providertest.FailRandomly(newReference(), 0, nil, nil) },
		"FailAfterApplyRandomly(0)": func() provider.Provider { return providertest.FailAfterApplyRandomly(newReference(), 0, nil, nil) },
		"WithLatency":               func() provider.Provider { return providertest.WithLatency(newReference(), time.Millisecond) },
		"LimitedProvider": func() provider.Provider {
			return providertest.NewLimitedProvider(newReference(), providertest.APILimits{})
		},
	}
	for name, newProvider := range fakes {
		t.Run(name, func(t *testing.T) {
			providertest.TestProvider(t, newProvider(), providertest.Options{})
			require.NoError(t, providertest.CheckProvider(t.Context(), newProvider(), providertest.Options{}))
		})
	}
}

func TestCheckProviderCleansUp(t *testing.T) {
	p := newReference()
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1"),
	}}))
	require.NoError(t, providertest.CheckProvider(t.Context(), p, providertest.Options{Concurrency: 16}))
	recs, err := p.Records(t.Context())
	require.NoError(t, err)
	require.Len(t, recs, 1, "only the record that was there before remains")
	assert.Equal(t, "www.example.org", recs[0].DNSName)
}

func TestCheckProviderOtherZone(t *testing.T) {
	p := newRef("zone.test", refFlaws{})
	require.NoError(t, providertest.CheckProvider(t.Context(), p, providertest.Options{Zone: "Zone.Test.", Timeout: 10 * time.Second}))
	// The default zone is not served by this provider: creates fail.
	err := providertest.CheckProvider(t.Context(), p, providertest.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Create: ApplyChanges(create)")
}

// noSetIdentifier rejects records with a set identifier, like a DNS API
// without routing policies.
func noSetIdentifier(p provider.Provider) provider.Provider {
	return providertest.Intercept(p, providertest.Funcs{
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

func TestNoSetIdentifier(t *testing.T) {
	err := providertest.CheckProvider(t.Context(), noSetIdentifier(newReference()), providertest.Options{})
	require.Error(t, err)
	assert.Equal(t, []string{providertest.RuleSetIdentifier, providertest.RuleSortedRecords}, brokenRules(err))

	require.NoError(t, providertest.CheckProvider(t.Context(), noSetIdentifier(newReference()), providertest.Options{NoSetIdentifier: true}))
	providertest.TestProvider(t, noSetIdentifier(newReference()), providertest.Options{NoSetIdentifier: true})
}

// brokenRules returns the sorted, distinct rules of the violations in err.
func brokenRules(err error) []string {
	var out []string
	var walk func(error)
	walk = func(err error) {
		var v *providertest.Violation
		if errors.As(err, &v) && !slices.Contains(out, v.Rule) {
			out = append(out, v.Rule)
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

// Deliberately broken providers, one broken rule each.

func unsorted(p provider.Provider) provider.Provider {
	return providertest.Intercept(p, providertest.Funcs{
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
	return providertest.Intercept(p, providertest.Funcs{
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
	return providertest.Intercept(p, providertest.Funcs{
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
	return providertest.Intercept(p, providertest.Funcs{
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
	return providertest.Intercept(p, providertest.Funcs{
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
	return providertest.Intercept(p, providertest.Funcs{
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
	return providertest.Intercept(p, providertest.Funcs{
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

// mapTXT applies fn to every TXT target that Records returns.
func mapTXT(p provider.Provider, fn func(string) string) provider.Provider {
	return providertest.Intercept(p, providertest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			recs, err := next.Records(ctx)
			for _, r := range recs {
				if r.RecordType == endpoint.RecordTypeTXT {
					for i, v := range r.Targets {
						r.Targets[i] = fn(v)
					}
				}
			}
			return recs, err
		},
	})
}

// mapNames applies toProvider to every name written and fromProvider to
// every name read, like a provider with its own spelling of names.
func mapNames(p provider.Provider, toProvider, fromProvider func(string) string) provider.Provider {
	each := func(eps []*endpoint.Endpoint) []*endpoint.Endpoint {
		out := make([]*endpoint.Endpoint, len(eps))
		for i, e := range eps {
			out[i] = e.DeepCopy()
			out[i].DNSName = toProvider(e.DNSName)
		}
		return out
	}
	return providertest.Intercept(p, providertest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			recs, err := next.Records(ctx)
			for _, r := range recs {
				r.DNSName = fromProvider(r.DNSName)
			}
			return recs, err
		},
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			return next.ApplyChanges(ctx, &plan.Changes{
				Create: each(c.Create), UpdateOld: each(c.UpdateOld), UpdateNew: each(c.UpdateNew), Delete: each(c.Delete),
			})
		},
	})
}

func identity(s string) string { return s }

// rejectUnknownUpdateOld fails when an UpdateOld entry carries a
// provider-specific property, as a provider that validates every property
// it is given would.
func rejectUnknownUpdateOld(p provider.Provider) provider.Provider {
	return providertest.Intercept(p, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			for _, e := range c.UpdateOld {
				for _, prop := range e.ProviderSpecific {
					return fmt.Errorf("unknown provider-specific property %s", prop.Name)
				}
			}
			return next.ApplyChanges(ctx, c)
		},
	})
}

// staleReads serves, after each successful write, the result of the read
// before it once more: a read cache refreshed one read too late.
func staleReads(p provider.Provider) provider.Provider {
	var mu sync.Mutex
	var last []*endpoint.Endpoint
	written := false
	return providertest.Intercept(p, providertest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			mu.Lock()
			defer mu.Unlock()
			if written && last != nil {
				written = false
				return endpoint.DeepCopyAll(last), nil
			}
			recs, err := next.Records(ctx)
			if err == nil {
				last = endpoint.DeepCopyAll(recs)
				written = false
			}
			return recs, err
		},
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			err := next.ApplyChanges(ctx, c)
			if err == nil {
				mu.Lock()
				written = true
				mu.Unlock()
			}
			return err
		},
	})
}

func TestSuiteFailsOnBrokenProviders(t *testing.T) {
	tests := []struct {
		name  string
		wrap  func(provider.Provider) provider.Provider
		wants []string // the rules reported, sorted
		also  string   // a substring of the error
		// keepsRecords: the broken provider cannot delete, so the suite
		// cannot clean up.
		keepsRecords bool
	}{
		{
			name:  "unsorted Records",
			wrap:  unsorted,
			wants: []string{providertest.RuleSortedRecords},
			also:  "not sorted by (DNSName, SetIdentifier, RecordType)",
		},
		{
			name:  "shared endpoints between Records calls",
			wrap:  sharedSlices,
			wants: []string{providertest.RuleSliceOwnership},
			also:  "after the caller mutated the previous result",
		},
		{
			name:  "targets share a backing array",
			wrap:  sharedTargets,
			wants: []string{providertest.RuleSliceOwnership},
			also:  "returned endpoints share memory",
		},
		{
			name: "duplicate create accepted",
			wrap: func(p provider.Provider) provider.Provider {
				return swallowErrors(p, func(c *plan.Changes) bool { return len(c.Create) > 0 })
			},
			// Swallowing create errors also hides the cancelled context.
			wants: []string{providertest.RuleContext, providertest.RuleCreateExisting},
			also:  "creating an existing record succeeded",
		},
		{
			name: "delete of missing accepted",
			wrap: func(p provider.Provider) provider.Provider {
				return swallowErrors(p, func(c *plan.Changes) bool { return len(c.Delete) > 0 })
			},
			wants: []string{providertest.RuleChangeMissing},
			also:  "deleting a missing record succeeded",
		},
		{
			name: "update of missing accepted",
			wrap: func(p provider.Provider) provider.Provider {
				return swallowErrors(p, func(c *plan.Changes) bool { return len(c.UpdateNew) > 0 })
			},
			wants: []string{providertest.RuleChangeMissing},
			also:  "updating a missing record succeeded",
		},
		{
			name:  "ignores cancelled context",
			wrap:  ignoresContext,
			wants: []string{providertest.RuleContext},
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
			wants: []string{providertest.RuleUpdateTTL},
			also:  "TTL is 300 after update of the TTL from 300 to 600, want 600",
		},
		{
			name: "drops the second target",
			wrap: func(p provider.Provider) provider.Provider {
				return rewrite(p, func(_, newEp *endpoint.Endpoint) { newEp.Targets = newEp.Targets[:1] })
			},
			wants: []string{providertest.RuleMultiTarget, providertest.RuleSliceOwnership},
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
				providertest.RuleConcurrency, providertest.RuleMultiTarget,
				providertest.RuleNameNormalisation, providertest.RuleReadAfterWrite,
				providertest.RuleSetIdentifier, providertest.RuleTXTLongValues,
				providertest.RuleTXTQuotes, providertest.RuleUnknownProviderSpecific,
				providertest.RuleUpdateTargets, providertest.RuleWildcardNames,
			},
			also: `targets are ["192.0.2.20"] after update of the targets, want ["192.0.2.21"]`,
		},
		{
			name: "deletes ignored",
			wrap: func(p provider.Provider) provider.Provider {
				return providertest.Intercept(p, providertest.Funcs{
					ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
						if len(c.Create)+len(c.UpdateNew) == 0 {
							return nil
						}
						return next.ApplyChanges(ctx, c)
					},
				})
			},
			wants: []string{
				providertest.RuleChangeMissing, providertest.RuleConcurrency,
				providertest.RuleDelete, providertest.RuleNameNormalisation,
				providertest.RulePunycodeNames, providertest.RuleReadAfterWrite,
				providertest.RuleSetIdentifier, providertest.RuleUnknownProviderSpecific,
				providertest.RuleWildcardNames,
			},
			also:         "record present after delete",
			keepsRecords: true,
		},
		{
			name: "domain filter of another zone",
			wrap: func(p provider.Provider) provider.Provider {
				return providertest.Intercept(p, providertest.Funcs{
					GetDomainFilter: func(provider.Provider) endpoint.DomainFilterInterface {
						return endpoint.NewDomainFilter([]string{"example.net"})
					},
				})
			},
			wants: []string{providertest.RuleDomainFilter},
			also:  "filter does not match a name in the zone",
		},
		{
			name: "AdjustEndpoints modifies its input",
			wrap: func(p provider.Provider) provider.Provider {
				return providertest.Intercept(p, providertest.Funcs{
					AdjustEndpoints: func(_ context.Context, _ provider.Provider, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
						for _, e := range eps {
							e.RecordTTL = 1
						}
						return eps, nil
					},
				})
			},
			wants: []string{providertest.RuleAdjustEndpoints},
			also:  "modified its input",
		},
		{
			name:  "concurrent changes fail",
			wrap:  busy,
			wants: []string{providertest.RuleConcurrency},
			also:  "another change is in progress",
		},
		{
			name: "drops trailing quotes from TXT values",
			wrap: func(p provider.Provider) provider.Provider {
				return mapTXT(p, func(v string) string { return strings.TrimSuffix(v, `"`) })
			},
			wants: []string{providertest.RuleTXTQuotes},
			also:  `value changed after create: got "zs-trailing-quote", want "zs-trailing-quote\""`,
		},
		{
			name: "unescapes backslashes in TXT values",
			wrap: func(p provider.Provider) provider.Provider {
				return mapTXT(p, func(v string) string { return strings.ReplaceAll(v, `\`, "") })
			},
			wants: []string{providertest.RuleTXTQuotes},
			also:  `got "zs-backslash", want "zs-back\\slash"`,
		},
		{
			name: "truncates TXT values at 255 bytes",
			wrap: func(p provider.Provider) provider.Provider {
				return rewrite(p, func(_, newEp *endpoint.Endpoint) {
					if newEp.RecordType == endpoint.RecordTypeTXT {
						for i, v := range newEp.Targets {
							newEp.Targets[i] = v[:min(len(v), 255)]
						}
					}
				})
			},
			wants: []string{providertest.RuleTXTLongValues},
			also:  "value changed after create of a 256-byte value: got 255 bytes, want 256; first difference at byte 255",
		},
		{
			name:  "fails on unknown provider-specific properties on UpdateOld",
			wrap:  rejectUnknownUpdateOld,
			wants: []string{providertest.RuleUnknownProviderSpecific},
			also:  "failed for an UpdateOld entry with unknown provider-specific properties (txt/force-update, webhook/foo) must be ignored: unknown provider-specific property txt/force-update",
		},
		{
			name: "stale reads after a write",
			wrap: staleReads,
			// Every rule that reads after it wrote sees stale data.
			wants: []string{
				providertest.RuleAdjustEndpoints, providertest.RuleConcurrency,
				providertest.RuleCreateExisting, providertest.RuleDelete,
				providertest.RuleMultiTarget, providertest.RuleNameNormalisation, providertest.RulePunycodeNames,
				providertest.RuleReadAfterWrite, providertest.RuleSetIdentifier, providertest.RuleSliceOwnership,
				providertest.RuleSortedRecords, providertest.RuleTXTLongValues, providertest.RuleTXTQuotes,
				providertest.RuleUnknownProviderSpecific, providertest.RuleUpdateTTL, providertest.RuleUpdateTargets,
				providertest.RuleWildcardNames,
			},
			also: "after a create for which ApplyChanges returned nil; the next Records must show the change",
		},
		{
			name: "returns names with a trailing dot",
			wrap: func(p provider.Provider) provider.Provider {
				return mapNames(p, identity, func(n string) string { return n + "." })
			},
			wants: []string{providertest.RuleNameNormalisation},
			also:  "is not in lower-case A-label form without a trailing dot",
		},
		{
			name: "converts A-labels to Unicode",
			wrap: func(p provider.Provider) provider.Provider {
				return mapNames(p, identity, endpoint.ToUnicode)
			},
			wants: []string{providertest.RulePunycodeNames},
			also:  `name came back as "zs-conformance-`,
		},
		{
			name: "escapes the wildcard label",
			wrap: func(p provider.Provider) provider.Provider {
				return mapNames(p,
					func(n string) string {
						if rest, ok := strings.CutPrefix(n, `\052.`); ok {
							return "*." + rest
						}
						return n
					},
					func(n string) string {
						if rest, ok := strings.CutPrefix(n, "*."); ok {
							return `\052.` + rest
						}
						return n
					})
			},
			wants: []string{providertest.RuleWildcardNames},
			also:  `name came back as "\\052.zs-conformance-`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := newReference()
			err := providertest.CheckProvider(t.Context(), tt.wrap(base), providertest.Options{})
			require.Error(t, err)
			assert.Equal(t, tt.wants, brokenRules(err), "violations: %v", err)
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
	err := providertest.CheckProvider(t.Context(), ignoresContext(newReference()), providertest.Options{})
	require.Error(t, err)
	var v *providertest.Violation
	require.ErrorAs(t, err, &v)
	assert.Equal(t, providertest.RuleContext, v.Rule)
	assert.Contains(t, err.Error(), providertest.NamePrefix)
	assert.Contains(t, err.Error(), "-canceled.example.org/A")
}

func TestCheckProviderStopsWhenContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := providertest.CheckProvider(ctx, newReference(), providertest.Options{})
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "stopped before Create")
	require.Error(t, providertest.CheckProvider(t.Context(), nil, providertest.Options{}))
}

func TestCheckProviderTimeout(t *testing.T) {
	slow := providertest.WithLatency(newReference(), time.Second)
	err := providertest.CheckProvider(t.Context(), slow, providertest.Options{Timeout: 20 * time.Millisecond})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestViolationError(t *testing.T) {
	cause := errors.New("boom")
	v := &providertest.Violation{Rule: "Create", Op: "Records", Record: "a.example.org/A", Msg: "record missing", Err: cause}
	assert.Equal(t, "Create: Records a.example.org/A: record missing: boom", v.Error())
	assert.ErrorIs(t, v, cause)
	v = &providertest.Violation{Rule: "SortedRecords", Op: "Records", Msg: "not sorted"}
	assert.Equal(t, "SortedRecords: Records: not sorted", v.Error())
}

func TestCheckProviderRecoversPanics(t *testing.T) {
	p := providertest.Intercept(newReference(), providertest.Funcs{
		GetDomainFilter: func(provider.Provider) endpoint.DomainFilterInterface { panic("no filter") },
	})
	err := providertest.CheckProvider(t.Context(), p, providertest.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "DomainFilter: (calling the provider): panic: no filter")
}

// swallowExists hides "exists" errors of creates: the create of an existing
// record succeeds and changes nothing.
func swallowExists(p provider.Provider) provider.Provider {
	return providertest.Intercept(p, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			err := next.ApplyChanges(ctx, c)
			if err != nil && strings.Contains(err.Error(), ": exists") {
				return nil
			}
			return err
		},
	})
}

// Providers that differ from the strict reference in how they treat
// existing records and names, with and without the matching declaration.
func TestSuiteOnProviderVariants(t *testing.T) {
	tests := []struct {
		name  string
		p     func() provider.Provider
		opts  providertest.Options
		wants []string // nil: the provider passes
		also  string
	}{
		{
			name: "upsert provider declared Options.Upsert",
			p:    func() provider.Provider { return newRef("example.org", refFlaws{upsert: true}) },
			opts: providertest.Options{Upsert: true},
		},
		{
			name:  "upsert provider not declared",
			p:     func() provider.Provider { return newRef("example.org", refFlaws{upsert: true}) },
			wants: []string{providertest.RuleChangeMissing, providertest.RuleCreateExisting},
			also:  "creating an existing record succeeded; it must fail (declare Options.Upsert if the provider replaces the record)",
		},
		{
			name:  "strict provider declared Options.Upsert",
			p:     newReference,
			opts:  providertest.Options{Upsert: true},
			wants: []string{providertest.RuleCreateExisting},
			also:  "creating an existing record failed; a provider declared Options.Upsert must replace it",
		},
		{
			name:  "create of an existing record ignored, declared Options.Upsert",
			p:     func() provider.Provider { return swallowExists(newReference()) },
			opts:  providertest.Options{Upsert: true},
			wants: []string{providertest.RuleCreateExisting},
			also:  `targets are ["192.0.2.70"] after an upsert create of an existing record, want ["192.0.2.71"]`,
		},
		{
			name:  "create of an existing record ignored",
			p:     func() provider.Provider { return swallowExists(newReference()) },
			wants: []string{providertest.RuleCreateExisting},
			also:  "creating an existing record succeeded; it must fail",
		},
		{
			name:  "does not lower-case names",
			p:     func() provider.Provider { return newRef("example.org", refFlaws{keepCase: true}) },
			wants: []string{providertest.RuleNameNormalisation},
			also:  `is not in lower-case A-label form without a trailing dot after create of Zs-cOnFoRmAnCe-`,
		},
		{
			name:  "does not lower-case names, declared Options.Upsert",
			p:     func() provider.Provider { return newRef("example.org", refFlaws{keepCase: true, upsert: true}) },
			opts:  providertest.Options{Upsert: true},
			wants: []string{providertest.RuleNameNormalisation},
			also:  "record returned 2 times after update addressed as ZS-CONFORMANCE-",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := providertest.CheckProvider(t.Context(), tt.p(), tt.opts)
			if tt.wants == nil {
				require.NoError(t, err)
				providertest.TestProvider(t, tt.p(), tt.opts)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.wants, brokenRules(err), "violations: %v", err)
			assert.Contains(t, err.Error(), tt.also)
		})
	}
}

func TestZonesRule(t *testing.T) {
	tests := []struct {
		name  string
		zones func(ctx context.Context, next provider.Provider) ([]string, error)
		wants []string
	}{
		{"the zone of the records", nil, nil},
		{"a parent zone", func(context.Context, provider.Provider) ([]string, error) { return []string{"org"}, nil }, nil},
		{"another zone", func(context.Context, provider.Provider) ([]string, error) { return []string{"example.com"}, nil },
			[]string{providertest.RuleZones}},
		{"listing fails", func(context.Context, provider.Provider) ([]string, error) { return nil, errors.New("down") },
			[]string{providertest.RuleZones}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := providertest.Intercept(newInMemory(), providertest.Funcs{ListZones: tt.zones})
			err := providertest.CheckProvider(t.Context(), p, providertest.Options{})
			assert.Equal(t, tt.wants, brokenRules(err))
		})
	}
}

// visiting adds a RecordVisitor to a provider: VisitRecords walks what
// records returns, showing it to visit (or lets visit drive a broken walk).
type visiting struct {
	provider.Provider
	walk func(ctx context.Context, p provider.Provider, visit func(*endpoint.Endpoint) error) error
}

func (v visiting) VisitRecords(ctx context.Context, visit func(*endpoint.Endpoint) error) error {
	return v.walk(ctx, v.Provider, visit)
}

func TestVisitRecordsRule(t *testing.T) {
	faithful := func(ctx context.Context, p provider.Provider, visit func(*endpoint.Endpoint) error) error {
		recs, err := p.Records(ctx)
		if err != nil {
			return err
		}
		for _, e := range recs {
			if err := visit(e); err != nil {
				return err
			}
		}
		return nil
	}
	tests := []struct {
		name  string
		walk  func(ctx context.Context, p provider.Provider, visit func(*endpoint.Endpoint) error) error
		wants []string
	}{
		{"shows what Records returns", faithful, nil},
		{"skips TXT records", func(ctx context.Context, p provider.Provider, visit func(*endpoint.Endpoint) error) error {
			recs, err := p.Records(ctx)
			if err != nil {
				return err
			}
			for _, e := range recs {
				if e.RecordType == endpoint.RecordTypeTXT {
					continue
				}
				if err := visit(e); err != nil {
					return err
				}
			}
			return nil
		}, []string{providertest.RuleVisitRecords}},
		{"reverses the order", func(ctx context.Context, p provider.Provider, visit func(*endpoint.Endpoint) error) error {
			recs, err := p.Records(ctx)
			if err != nil {
				return err
			}
			for _, e := range slices.Backward(recs) {
				if err := visit(e); err != nil {
					return err
				}
			}
			return nil
		}, []string{providertest.RuleVisitRecords}},
		{"goes on after an error of the visitor", func(ctx context.Context, p provider.Provider, visit func(*endpoint.Endpoint) error) error {
			recs, err := p.Records(ctx)
			if err != nil {
				return err
			}
			var first error
			for _, e := range recs {
				if err := visit(e); err != nil && first == nil {
					first = err
				}
			}
			return first
		}, []string{providertest.RuleVisitRecords}},
		{"swallows the error of the visitor", func(ctx context.Context, p provider.Provider, visit func(*endpoint.Endpoint) error) error {
			recs, err := p.Records(ctx)
			if err != nil {
				return err
			}
			for _, e := range recs {
				if visit(e) != nil {
					return nil
				}
			}
			return nil
		}, []string{providertest.RuleVisitRecords}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := providertest.CheckProvider(t.Context(), visiting{Provider: newInMemory(), walk: tt.walk}, providertest.Options{})
			assert.Equal(t, tt.wants, brokenRules(err), "violations: %v", err)
		})
	}
}

func TestLacks(t *testing.T) {
	tests := []struct {
		name  string
		p     func() provider.Provider
		lacks map[string]string
		wants []string // rules of the violations, sorted; nil for none
		also  string
	}{
		{
			name:  "declared gap is not a failure",
			p:     func() provider.Provider { return unsorted(newReference()) },
			lacks: map[string]string{providertest.RuleSortedRecords: "the API lists records in its own order"},
		},
		{
			name:  "declared gap that conforms is a violation",
			p:     func() provider.Provider { return newReference() },
			lacks: map[string]string{providertest.RuleSortedRecords: "stale"},
			wants: []string{providertest.RuleSortedRecords},
			also:  "but the provider conforms",
		},
		{
			name:  "unknown rule is a violation",
			p:     func() provider.Provider { return newReference() },
			lacks: map[string]string{"Teleport": "no such thing"},
			wants: []string{"Teleport"},
			also:  "a rule the suite does not have",
		},
		{
			name:  "undeclared gaps still fail",
			p:     func() provider.Provider { return unsorted(newReference()) },
			lacks: map[string]string{providertest.RuleTXTQuotes: "wrong declaration"},
			wants: []string{providertest.RuleSortedRecords, providertest.RuleTXTQuotes},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := providertest.CheckProvider(t.Context(), tt.p(), providertest.Options{Lacks: tt.lacks})
			if tt.wants == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.wants, brokenRules(err))
			assert.Contains(t, err.Error(), tt.also)
		})
	}
	// TestProvider logs a declared gap and passes.
	providertest.TestProvider(t, unsorted(newReference()),
		providertest.Options{Lacks: map[string]string{providertest.RuleSortedRecords: "the API lists records in its own order"}})
}

// declaring gives a provider declared guarantees, whatever it does.
type declaring struct {
	provider.Provider
	g provider.Guarantees
}

func (d declaring) Guarantees() provider.Guarantees { return d.g }

// dropSetIDs loses the set identifier of every change, as external-dns's
// pdns provider does.
func dropSetIDs(p provider.Provider) provider.Provider {
	strip := func(list []*endpoint.Endpoint) []*endpoint.Endpoint {
		out := make([]*endpoint.Endpoint, len(list))
		for i, e := range list {
			out[i] = e.DeepCopy()
			out[i].SetIdentifier = ""
		}
		return out
	}
	return providertest.Intercept(p, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			return next.ApplyChanges(ctx, &plan.Changes{Create: strip(c.Create), UpdateOld: strip(c.UpdateOld), UpdateNew: strip(c.UpdateNew), Delete: strip(c.Delete)})
		},
	})
}

// TestGuaranteesRule: declared guarantees are checked against what the
// provider does and against the options; providers that declare nothing,
// or tell the truth, pass it.
func TestGuaranteesRule(t *testing.T) {
	strict := provider.Guarantees{CreateFailsIfExists: true, KeepsSetIdentifiers: true}
	tests := []struct {
		name  string
		p     func() provider.Provider
		opts  providertest.Options
		wants []string
		also  string
	}{
		{name: "declares nothing", p: newReference},
		{name: "true declaration", p: func() provider.Provider { return declaring{newReference(), strict} }},
		{
			name:  "upsert provider that declares CreateFailsIfExists",
			p:     func() provider.Provider { return declaring{newRef("example.org", refFlaws{upsert: true}), strict} },
			opts:  providertest.Options{Upsert: true},
			wants: []string{providertest.RuleGuarantees},
			also:  "the provider declares CreateFailsIfExists, but creating an existing record succeeded",
		},
		{
			name: "provider that drops set identifiers but declares KeepsSetIdentifiers",
			p: func() provider.Provider {
				return declaring{dropSetIDs(newReference()), provider.Guarantees{KeepsSetIdentifiers: true}}
			},
			opts:  providertest.Options{NoSetIdentifier: true},
			wants: []string{providertest.RuleGuarantees},
			also:  "the provider declares KeepsSetIdentifiers while Options.NoSetIdentifier says it has none",
		},
		{
			name: "lower-case declared type",
			p: func() provider.Provider {
				return declaring{newReference(), provider.Guarantees{RecordTypes: []string{"a"}}}
			},
			wants: []string{providertest.RuleGuarantees},
			also:  `declared record type "a" is not an upper-case type name`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := providertest.CheckProvider(t.Context(), tt.p(), tt.opts)
			if tt.wants == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, brokenRules(err), tt.wants[0], "violations: %v", err)
			assert.Contains(t, err.Error(), tt.also)
		})
	}
}
