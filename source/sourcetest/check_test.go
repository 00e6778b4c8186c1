package sourcetest_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/connector"
	"github.com/zonesync/zonesync/source/sourcetest"
)

const timeout = time.Second

func a(name, target, resource string) *endpoint.Endpoint {
	return endpoint.NewEndpoint(name, endpoint.RecordTypeA, target).WithLabel(endpoint.ResourceLabelKey, resource)
}

func twoEndpoints() []*endpoint.Endpoint {
	return []*endpoint.Endpoint{
		a("web.example.com", "192.0.2.10", "service/default/web"),
		a("api.example.com", "192.0.2.11", "service/default/api"),
	}
}

// changer returns a Options.Change that gives st a new endpoint list
// on every call.
func changer(st *source.Static) func(context.Context) error {
	var n atomic.Int64
	return func(context.Context) error {
		i := n.Add(1)
		st.Set(append(twoEndpoints(), a(fmt.Sprintf("v%d.example.com", i), "192.0.2.12", "service/default/v"))...)
		return nil
	}
}

// rules returns the rules of the violations in err, sorted, without
// duplicates.
func rules(t *testing.T, err error) []string {
	t.Helper()
	var out []string
	joined, ok := err.(interface{ Unwrap() []error })
	require.True(t, ok, "CheckSource returns errors.Join of violations, got %T: %v", err, err)
	for _, e := range joined.Unwrap() {
		var v *sourcetest.Violation
		require.ErrorAs(t, e, &v)
		out = append(out, v.Rule)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Broken sources, one per rule; each embeds a working Static and breaks
// one thing.

type neverSynced struct{ *source.Static }

func (neverSynced) HasSynced() bool { return false }

type invalidEndpoints struct{ *source.Static }

func (s invalidEndpoints) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := s.Static.Endpoints(ctx)
	return append(eps, endpoint.NewEndpoint("bad..example.com", endpoint.RecordTypeA, "192.0.2.99")), err
}

type shuffled struct {
	*source.Static
	calls atomic.Int64
}

func (s *shuffled) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := s.Static.Endpoints(ctx)
	if s.calls.Add(1)%2 == 0 {
		slices.Reverse(eps)
	}
	return eps, err
}

type sharesEndpoints struct{ eps []*endpoint.Endpoint }

func (s sharesEndpoints) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return slices.Clone(s.eps), nil // a new slice, but the same endpoints
}

func (sharesEndpoints) AddEventHandler(context.Context, func()) {}

type ignoresContext struct{ *source.Static }

func (s ignoresContext) Endpoints(context.Context) ([]*endpoint.Endpoint, error) {
	return s.Static.Endpoints(context.Background())
}

// badPartial, once failing, reports a key that is not a resource key and
// drops the endpoints of the objects that did not fail.
type badPartial struct {
	*source.Static
	failing atomic.Bool
}

func (s *badPartial) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if s.failing.Load() {
		return nil, (&source.PartialError{}).Add("web", errors.New("bad ttl"))
	}
	return s.Static.Endpoints(ctx)
}

type deaf struct{ *source.Static }

func (deaf) AddEventHandler(context.Context, func()) {}

type ignoresHandlerContext struct{ *source.Static }

func (s ignoresHandlerContext) AddEventHandler(_ context.Context, h func()) {
	s.Static.AddEventHandler(context.Background(), h)
}

func TestCheckSourceCatchesEachBrokenRule(t *testing.T) {
	tests := []struct {
		name string
		src  func() (source.Source, sourcetest.Options)
		want string
	}{
		{"never synced", func() (source.Source, sourcetest.Options) {
			return neverSynced{source.NewStatic(twoEndpoints()...)}, sourcetest.Options{Timeout: timeout}
		}, sourcetest.RuleReadiness},
		{"invalid endpoint", func() (source.Source, sourcetest.Options) {
			return invalidEndpoints{source.NewStatic(twoEndpoints()...)}, sourcetest.Options{Timeout: timeout, ValidEndpoints: true}
		}, sourcetest.RuleValidEndpoints},
		{"a TXT endpoint whose value reads as an ownership record", func() (source.Source, sourcetest.Options) {
			claim := endpoint.NewEndpoint("claim.example.com", endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=default"`).
				WithLabel(endpoint.ResourceLabelKey, "crd/default/claim")
			return source.NewStatic(append(twoEndpoints(), claim)...), sourcetest.Options{Timeout: timeout, ValidEndpoints: true}
		}, sourcetest.RuleValidEndpoints},
		{"order changes between calls", func() (source.Source, sourcetest.Options) {
			return &shuffled{Static: source.NewStatic(twoEndpoints()...)}, sourcetest.Options{Timeout: timeout, Deterministic: true}
		}, sourcetest.RuleDeterminism},
		{"returns its own endpoints", func() (source.Source, sourcetest.Options) {
			return sharesEndpoints{eps: twoEndpoints()}, sourcetest.Options{Timeout: timeout}
		}, sourcetest.RuleSliceOwnership},
		{"ignores its context", func() (source.Source, sourcetest.Options) {
			return ignoresContext{source.NewStatic(twoEndpoints()...)}, sourcetest.Options{Timeout: timeout}
		}, sourcetest.RuleContext},
		{"partial error with a bad key and no other endpoints", func() (source.Source, sourcetest.Options) {
			s := &badPartial{Static: source.NewStatic(twoEndpoints()...)}
			return s, sourcetest.Options{Timeout: timeout, Fail: func(context.Context) error { s.failing.Store(true); return nil }}
		}, sourcetest.RulePartialErrors},
		{"handlers never called", func() (source.Source, sourcetest.Options) {
			st := source.NewStatic(twoEndpoints()...)
			return deaf{st}, sourcetest.Options{Timeout: timeout, Change: changer(st)}
		}, sourcetest.RuleEvents},
		{"handlers called after their context is done", func() (source.Source, sourcetest.Options) {
			st := source.NewStatic(twoEndpoints()...)
			return ignoresHandlerContext{st}, sourcetest.Options{Timeout: timeout, Change: changer(st)}
		}, sourcetest.RuleEvents},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, opts := tt.src()
			err := sourcetest.CheckSource(t.Context(), src, opts)
			require.Error(t, err)
			assert.Equal(t, []string{tt.want}, rules(t, err), "every violation: %v", err)
		})
	}
}

func TestCheckSourceBadPartialErrorReportsBoth(t *testing.T) {
	s := &badPartial{Static: source.NewStatic(twoEndpoints()...)}
	err := sourcetest.CheckSource(t.Context(), s, sourcetest.Options{Timeout: timeout, Fail: func(context.Context) error { s.failing.Store(true); return nil }})
	require.Error(t, err)
	assert.ErrorContains(t, err, "PartialErrors: Endpoints web: a key of a *PartialError is not a resource key")
	assert.ErrorContains(t, err, "PartialErrors: Endpoints web.example.com/A: the endpoint of an object that did not fail is missing")
}

func TestCheckSourceRealSources(t *testing.T) {
	wrapped := func(wrap func(source.Source) source.Source) func() (source.Source, sourcetest.Options) {
		return func() (source.Source, sourcetest.Options) {
			st := source.NewStatic(twoEndpoints()...)
			return wrap(st), sourcetest.Options{Timeout: timeout, Change: changer(st)}
		}
	}
	tests := []struct {
		name string
		src  func() (source.Source, sourcetest.Options)
	}{
		{"Empty", func() (source.Source, sourcetest.Options) {
			return source.Empty{}, sourcetest.Options{Timeout: timeout}
		}},
		{"Static", wrapped(func(s source.Source) source.Source { return s })},
		{"Multi", wrapped(func(s source.Source) source.Source {
			other := source.NewStatic(a("db.example.com", "192.0.2.20", "service/default/db"))
			return source.NewMulti([]source.Source{s, other}, source.MultiOptions{})
		})},
		{"Dedup", wrapped(func(s source.Source) source.Source { return source.NewDedup(s) })},
		{"TargetFilter", wrapped(func(s source.Source) source.Source {
			return source.NewTargetFilter(s, source.TargetFilterOptions{Include: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}})
		})},
		{"NAT64", wrapped(func(s source.Source) source.Source {
			n, err := source.NewNAT64(s, source.NAT64Options{Prefixes: []netip.Prefix{netip.MustParsePrefix("64:ff9b::/96")}, SynthesizeAAAA: true})
			require.NoError(t, err)
			return n
		})},
		{"PTR", wrapped(func(s source.Source) source.Source { return source.NewPTR(s, source.PTROptions{}) })},
		{"DefaultTargets", wrapped(func(s source.Source) source.Source {
			return source.NewDefaultTargets(s, source.DefaultTargetsOptions{Targets: []string{"198.51.100.1"}, ReplaceExisting: true})
		})},
		{"PostProcessor", wrapped(func(s source.Source) source.Source {
			return source.NewPostProcessor(s, source.PostProcessorOptions{DefaultTTL: 300, MinTTL: 60, Provider: "webhook", PreferAlias: true})
		})},
		{"Fake", func() (source.Source, sourcetest.Options) {
			return sourcetest.NewFake("example.com", 20, sourcetest.FakeOptions{}), sourcetest.Options{Timeout: timeout}
		}},
		{"Connector", func() (source.Source, sourcetest.Options) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			served := source.NewStatic(twoEndpoints()...)
			done := make(chan error, 1)
			ctx, cancel := context.WithCancel(t.Context())
			t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
			go func() { done <- connector.Serve(ctx, l, served.Endpoints, connector.ServeOptions{}) }()
			c, err := connector.New(l.Addr().String(), connector.Options{})
			require.NoError(t, err)
			return c, sourcetest.Options{Timeout: timeout}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, opts := tt.src()
			// The sources of this module also promise what the optional
			// checks check.
			opts.Deterministic, opts.ValidEndpoints = true, true
			assert.NoError(t, sourcetest.CheckSource(t.Context(), src, opts))
		})
	}
}

// The contract does not promise an order, nor valid endpoints: a source
// that shuffles its endpoints, or returns one the Reconciler will skip as
// invalid, keeps it, and fails only the optional check that asks for more.
func TestOptionalChecksAreNotRules(t *testing.T) {
	shuffling := &shuffled{Static: source.NewStatic(twoEndpoints()...)}
	require.NoError(t, sourcetest.CheckSource(t.Context(), shuffling, sourcetest.Options{Timeout: timeout}))
	invalid := invalidEndpoints{source.NewStatic(twoEndpoints()...)}
	require.NoError(t, sourcetest.CheckSource(t.Context(), invalid, sourcetest.Options{Timeout: timeout}))
}

func TestCheckSourceNilAndDoneContext(t *testing.T) {
	assert.ErrorContains(t, sourcetest.CheckSource(t.Context(), nil, sourcetest.Options{}), "source is nil")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, sourcetest.CheckSource(ctx, source.NewStatic(), sourcetest.Options{}), context.Canceled)
}

func TestTestSource(t *testing.T) {
	st := source.NewStatic(twoEndpoints()...)
	sourcetest.TestSource(t, st, sourcetest.Options{Timeout: timeout, Change: changer(st)})
}
