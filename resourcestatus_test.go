package zonesync_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/policy"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// objectFailSource returns the endpoints of a Static source together with a
// partial error for the objects of failed, as a Kubernetes source does for
// an object whose annotation holds an invalid host name.
type objectFailSource struct {
	*source.Static
	failed map[string]error
}

func (s objectFailSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := s.Static.Endpoints(ctx)
	if err != nil {
		return nil, err
	}
	var pe *source.PartialError
	for key, err := range s.failed {
		pe = pe.Add(key, err)
	}
	return eps, pe.OrNil()
}

// objectLine is a ResourceStatus reduced to what the tests compare.
type objectLine struct {
	Resource string
	State    zonesync.RecordState
	Reason   zonesync.Reason
	Records  int
	Ready    bool
}

func objectLines(sts []zonesync.ResourceStatus) []objectLine {
	var out []objectLine
	for _, s := range sts {
		out = append(out, objectLine{s.Resource, s.State, s.Reason, len(s.Records), s.Ready()})
	}
	return out
}

// TestResourceStatuses runs one cycle after a first one that published
// every object, and checks what each object learns from the Cycle that
// RunOnce returns: every object the cycle heard of, in every state.
func TestResourceStatuses(t *testing.T) {
	obj := func(name, ip, res string) *endpoint.Endpoint {
		return endpoint.NewEndpoint(name, endpoint.RecordTypeA, ip).WithLabel(endpoint.ResourceLabelKey, res)
	}
	first := []*endpoint.Endpoint{
		obj("keep.example.com", "192.0.2.1", "svc/ns/keep"),
		obj("gone.example.com", "192.0.2.2", "svc/ns/gone"),
		obj("badhost.example.com", "192.0.2.3", "svc/ns/badhost"),
		obj("badrecord.example.com", "192.0.2.4", "svc/ns/badrecord"),
		obj("moved.example.com", "192.0.2.5", "svc/ns/moved"),
	}
	second := []*endpoint.Endpoint{
		obj("keep.example.com", "192.0.2.1", "svc/ns/keep"),
		// svc/ns/gone was deleted; svc/ns/badhost could not be read.
		obj("badrecord.example.com", "not-an-address", "svc/ns/badrecord"),
		obj("moved.example.com", "192.0.2.50", "svc/ns/moved"),
		obj("new.example.com", "192.0.2.6", "svc/ns/new"),
		obj("taken.example.com", "192.0.2.7", "svc/ns/foreign"),
		obj("example.com", "192.0.2.8", "svc/ns/apex"),
		obj("www.example.net", "192.0.2.9", "svc/ns/filtered"),
		endpoint.NewEndpoint("bare.example.com", endpoint.RecordTypeA, "192.0.2.10"),
	}
	hostErr := errors.New(`Website ns/badhost: spec.hostname: "bad host!" is not a valid DNS name`)

	// The states of the objects that every scenario shares: the source
	// and the plan decide them, whatever happens when applying.
	shared := []objectLine{
		{"svc/ns/apex", zonesync.RecordSkipped, zonesync.Reason(plan.SkipUnownable), 1, false},
		// The records of the objects that failed are held: the held
		// delete (badhost) or update (badrecord) is listed with them.
		{"svc/ns/badhost", zonesync.RecordInvalid, zonesync.ReasonSourceError, 1, false},
		{"svc/ns/badrecord", zonesync.RecordInvalid, zonesync.Reason(plan.SkipInvalid), 2, false},
		{"svc/ns/filtered", zonesync.RecordSkipped, zonesync.Reason(plan.SkipFilteredOut), 1, false},
		{"svc/ns/foreign", zonesync.RecordSkipped, zonesync.Reason(plan.SkipForeignOwner), 1, false},
	}
	with := func(lines ...objectLine) []objectLine {
		out := append([]objectLine{}, lines...)
		out = append(out, shared...)
		// Sorted by key, as ResourceStatuses returns them.
		sortLines(out)
		return out
	}
	rejectNew := func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
		var kept plan.Changes
		var rejected []provider.Rejection
		kept.Delete, kept.UpdateOld, kept.UpdateNew = c.Delete, c.UpdateOld, c.UpdateNew
		for _, e := range c.Create {
			if e.DNSName == "new.example.com" || e.DNSName == "own-a-new.example.com" {
				rejected = append(rejected, provider.Rejection{Action: "create", Endpoint: e, Reason: errors.New("quota exceeded")})
				continue
			}
			kept.Create = append(kept.Create, e)
		}
		if err := next.ApplyChanges(ctx, &kept); err != nil {
			return err
		}
		return &provider.RejectedError{Rejected: rejected}
	}

	tests := []struct {
		name   string
		dryRun bool
		policy plan.Policy
		apply  func(ctx context.Context, next provider.Provider, c *plan.Changes) error
		want   []objectLine
	}{
		{
			name: "applied",
			want: with(
				objectLine{"", zonesync.RecordApplied, "", 1, true},
				objectLine{"svc/ns/gone", zonesync.RecordDeleted, "", 1, true},
				objectLine{"svc/ns/keep", zonesync.RecordUnchanged, "", 1, true},
				objectLine{"svc/ns/moved", zonesync.RecordApplied, "", 1, true},
				objectLine{"svc/ns/new", zonesync.RecordApplied, "", 1, true},
			),
		},
		{
			name:   "dry run",
			dryRun: true,
			want: with(
				objectLine{"", zonesync.RecordPending, "", 1, false},
				objectLine{"svc/ns/gone", zonesync.RecordPending, "", 1, false},
				objectLine{"svc/ns/keep", zonesync.RecordUnchanged, "", 1, true},
				objectLine{"svc/ns/moved", zonesync.RecordPending, "", 1, false},
				objectLine{"svc/ns/new", zonesync.RecordPending, "", 1, false},
			),
		},
		{
			name:   "upsert-only keeps the deleted object's record",
			policy: policy.UpsertOnly,
			want: with(
				objectLine{"", zonesync.RecordApplied, "", 1, true},
				objectLine{"svc/ns/gone", zonesync.RecordSkipped, zonesync.Reason(plan.SkipPolicy), 1, false},
				objectLine{"svc/ns/keep", zonesync.RecordUnchanged, "", 1, true},
				objectLine{"svc/ns/moved", zonesync.RecordApplied, "", 1, true},
				objectLine{"svc/ns/new", zonesync.RecordApplied, "", 1, true},
			),
		},
		{
			name: "the provider fails",
			apply: func(context.Context, provider.Provider, *plan.Changes) error {
				return errors.New("connection refused")
			},
			want: with(
				// The TXT registry applies per zone: the error names it.
				objectLine{"", zonesync.RecordFailed, zonesync.ReasonZoneFailed, 1, false},
				objectLine{"svc/ns/gone", zonesync.RecordFailed, zonesync.ReasonZoneFailed, 1, false},
				objectLine{"svc/ns/keep", zonesync.RecordUnchanged, "", 1, true},
				objectLine{"svc/ns/moved", zonesync.RecordFailed, zonesync.ReasonZoneFailed, 1, false},
				objectLine{"svc/ns/new", zonesync.RecordFailed, zonesync.ReasonZoneFailed, 1, false},
			),
		},
		{
			name:  "the provider rejects one record",
			apply: rejectNew,
			want: with(
				objectLine{"", zonesync.RecordApplied, "", 1, true},
				objectLine{"svc/ns/gone", zonesync.RecordDeleted, "", 1, true},
				objectLine{"svc/ns/keep", zonesync.RecordUnchanged, "", 1, true},
				objectLine{"svc/ns/moved", zonesync.RecordApplied, "", 1, true},
				objectLine{"svc/ns/new", zonesync.RecordRejected, "", 1, false},
			),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			zone := inmemory.New(inmemory.Options{Zones: []string{"example.com", "example.net"}})
			// Prefix "own-" cannot name the apex record's TXT record in its
			// zone: the apex is unownable.
			other, err := txt.New(zone, txt.Config{OwnerID: "other", Prefix: "own-"})
			require.NoError(t, err)
			require.NoError(t, other.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
				endpoint.NewEndpoint("taken.example.com", endpoint.RecordTypeA, "192.0.2.99"),
			}}))
			var apply func(ctx context.Context, next provider.Provider, c *plan.Changes) error
			p := providertest.Intercept(zone, providertest.Funcs{
				ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
					if apply != nil {
						return apply(ctx, next, c)
					}
					return next.ApplyChanges(ctx, c)
				},
			})
			reg, err := txt.New(p, txt.Config{OwnerID: "me", Prefix: "own-"})
			require.NoError(t, err)
			src := objectFailSource{Static: source.NewStatic(first...), failed: map[string]error{}}
			r := &zonesync.Reconciler{
				Source: src, Registry: reg,
				DomainFilter: endpoint.NewDomainFilter([]string{"example.com"}),
			}
			r.Safety.Disabled = true
			_, err = r.RunOnce(ctx)
			require.NoError(t, err)

			src.Set(second...)
			src.failed["svc/ns/badhost"] = hostErr
			r.DryRun, r.Policy, apply = tt.dryRun, tt.policy, tt.apply
			c, err := r.RunOnce(ctx)
			require.Error(t, err, "the objects the source could not read are reported")
			assert.Equal(t, c.Err, err, "the Cycle holds the error RunOnce returns")
			var pe *source.PartialError
			require.ErrorAs(t, err, &pe)

			got := c.ResourceStatuses()
			assert.Equal(t, tt.want, objectLines(got))
			byKey := map[string]zonesync.ResourceStatus{}
			for _, s := range got {
				byKey[s.Resource] = s
			}
			assert.Equal(t, endpoint.Printable(hostErr.Error()), byKey["svc/ns/badhost"].Message,
				"an object the source could not read says why")
			held := byKey["svc/ns/badhost"].Records[0]
			assert.Equal(t, "badhost.example.com/A", held.Endpoint.Key().String())
			assert.Equal(t, zonesync.RecordSkipped, held.State)
			assert.Equal(t, zonesync.Reason(plan.SkipSourceError), held.Reason, "its record is neither updated nor deleted")
			assert.Contains(t, byKey["svc/ns/badrecord"].Message, "not-an-address")
			assert.Contains(t, byKey["svc/ns/foreign"].Message, `taken.example.com/A: skipped (foreign-owner): `)
			assert.Contains(t, byKey["svc/ns/foreign"].Message, `"other"`)
			assert.Contains(t, byKey["svc/ns/filtered"].Message, "www.example.net/A: skipped (filtered-out)")
			assert.Contains(t, byKey["svc/ns/apex"].Message, "example.com/A: skipped (unownable)")
			if tt.apply != nil && tt.name == "the provider fails" {
				assert.Contains(t, byKey["svc/ns/new"].Message, "connection refused")
			}
			if tt.apply != nil && tt.name == "the provider rejects one record" {
				assert.Contains(t, byKey["svc/ns/new"].Message, "quota exceeded")
			}
		})
	}
}

func sortLines(lines []objectLine) {
	for i := 1; i < len(lines); i++ {
		for j := i; j > 0 && lines[j].Resource < lines[j-1].Resource; j-- {
			lines[j], lines[j-1] = lines[j-1], lines[j]
		}
	}
}

// TestResourceStatusesSummary checks how the records of one object sum up
// into its state, reason and message.
func TestResourceStatusesSummary(t *testing.T) {
	a := rec("a.example.com", "192.0.2.1", "crd/ns/x")
	b := rec("b.example.com", "192.0.2.2", "crd/ns/x")
	c := rec("c.example.com", "192.0.2.3", "crd/ns/x")
	tests := []struct {
		name   string
		cycle  zonesync.Cycle
		state  zonesync.RecordState
		reason zonesync.Reason
		msg    string
	}{
		{"unchanged", zonesync.Cycle{Plan: &plan.Plan{Desired: []*endpoint.Endpoint{a, b}, Changes: &plan.Changes{}}},
			zonesync.RecordUnchanged, "", ""},
		{"one applied, one unchanged", zonesync.Cycle{Applied: true, Plan: &plan.Plan{Desired: []*endpoint.Endpoint{a, b}, Changes: &plan.Changes{Create: []*endpoint.Endpoint{a}}}},
			zonesync.RecordApplied, "", ""},
		{"a record deleted, one kept", zonesync.Cycle{Applied: true, Plan: &plan.Plan{Desired: []*endpoint.Endpoint{a}, Changes: &plan.Changes{Delete: []*endpoint.Endpoint{b}}}},
			zonesync.RecordApplied, "", ""},
		{"every record deleted", zonesync.Cycle{Applied: true, Plan: &plan.Plan{Changes: &plan.Changes{Delete: []*endpoint.Endpoint{a, b}}}},
			zonesync.RecordDeleted, "", ""},
		{"two skipped, the first named, the other counted", zonesync.Cycle{Plan: &plan.Plan{Desired: []*endpoint.Endpoint{a, b, c}, Changes: &plan.Changes{},
			Skipped: []plan.Skip{
				{Action: plan.ActionCreate, Endpoint: b, Reason: plan.SkipForeignOwner, Detail: "owned by \"them\"\n"},
				{Action: plan.ActionCreate, Endpoint: c, Reason: plan.SkipLostConflict},
			}}},
			zonesync.RecordSkipped, zonesync.Reason(plan.SkipForeignOwner), `b.example.com/A: skipped (foreign-owner): "owned by \"them\"\n"; and 1 more records skipped`},
		{"failed outranks skipped", zonesync.Cycle{Err: errors.New("boom"), Plan: &plan.Plan{Desired: []*endpoint.Endpoint{a, b}, Changes: &plan.Changes{Create: []*endpoint.Endpoint{b}},
			Skipped: []plan.Skip{{Action: plan.ActionCreate, Endpoint: a, Reason: plan.SkipPolicy}}}},
			zonesync.RecordFailed, zonesync.ReasonError, "b.example.com/A: failed (error): boom"},
		{"a held delete", zonesync.Cycle{Plan: &plan.Plan{Changes: &plan.Changes{},
			Skipped: []plan.Skip{{Action: plan.ActionDelete, Endpoint: a, Reason: plan.SkipPolicy, Detail: "upsert-only"}}}},
			zonesync.RecordSkipped, zonesync.Reason(plan.SkipPolicy), "a.example.com/A: skipped (policy): upsert-only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sts := tt.cycle.ResourceStatuses()
			require.Len(t, sts, 1)
			assert.Equal(t, "crd/ns/x", sts[0].Resource)
			assert.Equal(t, tt.state, sts[0].State)
			assert.Equal(t, tt.reason, sts[0].Reason)
			assert.Equal(t, tt.msg, sts[0].Message)
		})
	}
	assert.Nil(t, zonesync.Cycle{Err: errors.New("no plan")}.ResourceStatuses(), "nothing is known without a plan")
}

// TestResourceStatusesInvalidWithoutResource: an invalid endpoint without
// a resource label is reported under "" with its records, not under the
// key the partial error gives it.
func TestResourceStatusesInvalidWithoutResource(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	r := &zonesync.Reconciler{Source: source.NewStatic(endpoint.NewEndpoint("x.example.com", endpoint.RecordTypeA, "nope")), Registry: reg}
	c, err := r.RunOnce(t.Context())
	require.Error(t, err)
	assert.Equal(t, []objectLine{{"", zonesync.RecordInvalid, zonesync.Reason(plan.SkipInvalid), 1, false}}, objectLines(c.ResourceStatuses()))
}

// TestRunOnceReturnsTheCycle: the value RunOnce returns is the Cycle the
// Observer gets, and RunOnce calls that start no cycle return the error in
// it.
func TestRunOnceReturnsTheCycle(t *testing.T) {
	h := newStatusHarness(t)
	h.src.Set(rec("www.example.com", "192.0.2.1", "svc/ns/web"))
	c, err := h.r.RunOnce(t.Context())
	require.NoError(t, err)
	assert.Equal(t, h.obs.c.Start, c.Start)
	assert.Same(t, h.obs.c.Plan, c.Plan)
	assert.Len(t, c.Changes.Create, 1)
	assert.Len(t, c.Create, 1, "the changes read as they did when RunOnce returned *plan.Changes")
	assert.True(t, c.HasChanges())
	assert.True(t, c.Applied)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	c, err = h.r.RunOnce(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, err, c.Err)
	assert.Nil(t, c.Plan)
	assert.Nil(t, c.Changes, "nothing planned")
	assert.False(t, c.HasChanges())
	assert.Equal(t, -1, c.Owned)

	c, err = (&zonesync.Reconciler{}).RunOnce(t.Context())
	require.ErrorIs(t, err, zonesync.ErrInvalidConfig)
	assert.Equal(t, err, c.Err)
	assert.False(t, c.HasChanges())
}

func TestRecordStatusString(t *testing.T) {
	ep := endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.1")
	for _, tc := range []struct {
		name string
		s    zonesync.RecordStatus
		want string
	}{
		{"applied", zonesync.RecordStatus{Endpoint: ep, State: zonesync.RecordApplied}, "www.example.com/A: applied"},
		{"reason and message", zonesync.RecordStatus{Endpoint: ep, State: zonesync.RecordSkipped, Reason: "foreign-owner", Message: "owned by \"b\""},
			`www.example.com/A: skipped (foreign-owner): owned by "b"`},
		{"control characters made printable", zonesync.RecordStatus{Endpoint: ep, State: zonesync.RecordFailed, Message: "bad\nline"},
			`www.example.com/A: failed: "bad\nline"`},
		{"no endpoint", zonesync.RecordStatus{State: zonesync.RecordInvalid, Reason: "invalid"}, "?: invalid (invalid)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.s.String())
		})
	}
}
