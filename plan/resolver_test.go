package plan_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

func TestPerResourceResolve(t *testing.T) {
	for _, tc := range []struct {
		name       string
		current    *endpoint.Endpoint
		candidates []*endpoint.Endpoint
		want       int // index of the winner in candidates
	}{
		{name: "single", candidates: []*endpoint.Endpoint{ep("x", a, "9.9.9.9")}, want: 0},
		{
			name:       "smallest targets",
			candidates: []*endpoint.Endpoint{ep("x", a, "10.0.0.2"), ep("x", a, "10.0.0.10"), ep("x", a, "10.0.0.1")},
			want:       2,
		},
		{
			name:       "fewer targets first",
			candidates: []*endpoint.Endpoint{ep("x", a, "1.1.1.1", "1.1.1.2"), ep("x", a, "9.9.9.9")},
			want:       1,
		},
		{
			name:       "tie on targets: resource label",
			candidates: []*endpoint.Endpoint{ep("x", a, "1.1.1.1", "@resource=svc/b"), ep("x", a, "1.1.1.1", "@resource=svc/a")},
			want:       1,
		},
		{
			name:       "tie on targets and resource: TTL",
			candidates: []*endpoint.Endpoint{withTTL(ep("x", a, "1.1.1.1"), 600), withTTL(ep("x", a, "1.1.1.1"), 60)},
			want:       1,
		},
		{
			name: "tie up to provider-specific properties",
			candidates: []*endpoint.Endpoint{
				withPS(ep("x", a, "1.1.1.1"), "webhook/w", "2"),
				withPS(ep("x", a, "1.1.1.1"), "webhook/w", "1"),
			},
			want: 1,
		},
		{
			name:       "tie up to target case",
			candidates: []*endpoint.Endpoint{ep("x", cname, "b.example.com"), ep("x", cname, "B.example.com")},
			want:       1,
		},
		{
			name:       "tie up to other labels",
			candidates: []*endpoint.Endpoint{ep("x", a, "1.1.1.1", "@k=2"), ep("x", a, "1.1.1.1", "@k=1")},
			want:       1,
		},
		{
			name:       "the current record's resource wins",
			current:    ep("x", a, "5.5.5.5", "@resource=svc/z"),
			candidates: []*endpoint.Endpoint{ep("x", a, "1.1.1.1", "@resource=svc/a"), ep("x", a, "7.7.7.7", "@resource=svc/z")},
			want:       1,
		},
		{
			name:       "the current record's resource is gone",
			current:    ep("x", a, "5.5.5.5", "@resource=svc/gone"),
			candidates: []*endpoint.Endpoint{ep("x", a, "7.7.7.7", "@resource=svc/z"), ep("x", a, "1.1.1.1", "@resource=svc/a")},
			want:       1,
		},
		// The cases below are external-dns's own expectations for its
		// PerResource (plan/conflict_test.go) and the orders of its
		// Targets.IsLess: IP addresses compare as numbers.
		{
			name:       "IPv4 targets compare as numbers",
			candidates: []*endpoint.Endpoint{ep("x", a, "127.0.0.1", "@resource=r/two"), ep("x", a, "8.8.8.8", "@resource=r/one")},
			want:       1,
		},
		{
			name:       "IPv4 targets compare as numbers, not text",
			candidates: []*endpoint.Endpoint{ep("x", a, "10.0.0.2", "@resource=r/a"), ep("x", a, "9.0.0.1", "@resource=r/b")},
			want:       1,
		},
		{
			name:       "IPv6 targets compare as numbers",
			candidates: []*endpoint.Endpoint{ep("x", aaaa, "2001:db8::10", "@resource=r/a"), ep("x", aaaa, "::9", "@resource=r/b")},
			want:       1,
		},
		{
			name:       "IPv4 before IPv6",
			candidates: []*endpoint.Endpoint{ep("x", txt, "1::", "@resource=r/a"), ep("x", txt, "9.9.9.9", "@resource=r/b")},
			want:       1,
		},
		{
			name:       "an IP address before a host name",
			candidates: []*endpoint.Endpoint{ep("x", cname, "1-2-3-4.example.com", "@resource=r/a"), ep("x", a, "5.5.5.5", "@resource=r/b")},
			want:       1,
		},
		{
			name:       "host names compare as text",
			candidates: []*endpoint.Endpoint{ep("x", cname, "v2", "@resource=r/v2"), ep("x", cname, "v1", "@resource=r/v1")},
			want:       1,
		},
		{
			// external-dns sorts each list by the text of its addresses
			// (10.0.0.1 before 2.0.0.0), then compares the first
			// position as numbers: 3.0.0.0 is below 10.0.0.1.
			name: "several targets: sorted as text, compared as numbers",
			candidates: []*endpoint.Endpoint{
				ep("x", a, "2.0.0.0", "10.0.0.1", "@resource=r/a"),
				ep("x", a, "4.0.0.0", "3.0.0.0", "@resource=r/b"),
			},
			want: 1,
		},
		{
			name: "two spellings of one address tie: the data decides",
			candidates: []*endpoint.Endpoint{
				ep("x", aaaa, "2001:db8::1", "@resource=r/a"),
				ep("x", aaaa, "2001:DB8:0::1", "@resource=r/b"),
			},
			want: 1, // exact text: "2001:DB8:0::1" < "2001:db8::1"
		},
		{
			name:       "takeover when the current record's resource is gone: numeric order",
			current:    ep("x", a, "5.5.5.5", "@resource=r/gone"),
			candidates: []*endpoint.Endpoint{ep("x", a, "10.0.0.2", "@resource=r/a"), ep("x", a, "9.0.0.1", "@resource=r/b")},
			want:       1,
		},
		{
			name:       "the current record's resource asks twice: its smallest",
			current:    ep("x", a, "127.0.0.1", "@resource=r/bar-127"),
			candidates: []*endpoint.Endpoint{ep("x", a, "127.0.0.1", "@resource=r/bar-127"), ep("x", a, "8.8.8.8", "@resource=r/bar-127")},
			want:       1,
		},
		{
			name:       "the current record's resource wins over a smaller target",
			current:    ep("x", a, "127.0.0.1", "@resource=r/bar-127"),
			candidates: []*endpoint.Endpoint{ep("x", a, "192.168.0.1", "@resource=r/bar-192"), ep("x", a, "127.0.0.1", "@resource=r/bar-127")},
			want:       1,
		},
		{
			name:       "the current record's resource wins with the same targets",
			current:    ep("x", cname, "v2", "@resource=r/foo-v2"),
			candidates: []*endpoint.Endpoint{ep("x", cname, "v2", "@resource=r/foo-v2-duplicate"), ep("x", cname, "v2", "@resource=r/foo-v2")},
			want:       1,
		},
		{
			name:       "the current record's resource wins with its updates",
			current:    ep("x", cname, "v1", "@resource=r/foo-v1"),
			candidates: []*endpoint.Endpoint{ep("x", a, "5.5.5.5", "@resource=r/foo-5"), ep("x", cname, "v2", "@resource=r/foo-v2"), withTTL(ep("x", cname, "v1", "@resource=r/foo-v1"), 1)},
			want:       2,
		},
		{
			name:       "a current record without resource label: the smallest labelled candidate",
			current:    ep("x", a, "192.168.0.1"),
			candidates: []*endpoint.Endpoint{ep("x", a, "192.168.0.1", "@resource=r/bar-192"), ep("x", a, "127.0.0.1", "@resource=r/bar-127")},
			want:       1,
		},
		{
			name:       "a current record without resource label stays with a candidate without one",
			current:    ep("x", a, "192.168.0.1"),
			candidates: []*endpoint.Endpoint{ep("x", a, "127.0.0.1", "@resource=r/bar-127"), ep("x", a, "192.168.0.9")},
			want:       1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.candidates[tc.want]
			for _, cands := range [][]*endpoint.Endpoint{tc.candidates, reversed(tc.candidates)} {
				before := slices.Clone(cands)
				win, losers := plan.PerResource{}.Resolve(tc.current, cands)
				require.Same(t, want, win)
				assert.Len(t, losers, len(cands)-1)
				assert.NotContains(t, losers, win)
				assert.Equal(t, before, cands, "Resolve must not modify the candidates")
			}
		})
	}
	win, losers := plan.PerResource{}.Resolve(nil, nil)
	assert.Nil(t, win)
	assert.Nil(t, losers)
}

func TestMergeTargetsResolve(t *testing.T) {
	single := ep("x", a, "1.1.1.1")
	win, losers := plan.MergeTargets{}.Resolve(nil, []*endpoint.Endpoint{single})
	assert.Same(t, single, win)
	assert.Empty(t, losers)

	win, losers = plan.MergeTargets{}.Resolve(nil, nil)
	assert.Nil(t, win)
	assert.Nil(t, losers)

	cands := []*endpoint.Endpoint{
		withTTL(ep("x", aaaa, "2001:db8::2", "2001:DB8::1", "@resource=svc/b"), 60),
		withTTL(ep("x", aaaa, "2001:db8:0::2", "@resource=svc/a"), 300),
	}
	before := []*endpoint.Endpoint{cands[0].DeepCopy(), cands[1].DeepCopy()}
	win, losers = plan.MergeTargets{}.Resolve(ep("x", aaaa, "2001:db8::9", "@resource=svc/b"), cands)
	assert.Empty(t, losers)
	assert.Equal(t, endpoint.Targets{"2001:DB8::1", "2001:db8:0::2"}, win.Targets)
	assert.Equal(t, endpoint.TTL(60), win.RecordTTL, "other data comes from the current resource's candidate")
	assert.Equal(t, "svc/b", labelValue(win.Labels, endpoint.ResourceLabelKey))
	assert.Equal(t, before, cands, "Resolve must not modify the candidates")
}

func reversed(in []*endpoint.Endpoint) []*endpoint.Endpoint {
	out := slices.Clone(in)
	slices.Reverse(out)
	return out
}

// TestPerResourceInPlans: the planner with the default resolver makes
// external-dns's choices on the examples (numeric order of IP
// targets, a create and a takeover).
func TestPerResourceInPlans(t *testing.T) {
	runCalcCases(t, []calcCase{
		{
			name: "create: 8.8.8.8 before 127.0.0.1",
			plan: plan.Plan{ManagedRecords: []string{a}, Desired: []*endpoint.Endpoint{
				ep("app.example.com", a, "8.8.8.8", "@resource=service/default/one"),
				ep("app.example.com", a, "127.0.0.1", "@resource=service/default/two"),
			}},
			want:      []string{"create app.example.com/A 8.8.8.8"},
			wantSkips: []string{"create app.example.com/A lost-conflict"},
		},
		{
			name: "create: ::9 before 2001:db8::10",
			plan: plan.Plan{Desired: []*endpoint.Endpoint{
				ep("app.example.com", aaaa, "2001:db8::10", "@resource=service/default/one"),
				ep("app.example.com", aaaa, "::9", "@resource=service/default/two"),
			}},
			want:      []string{"create app.example.com/AAAA ::9"},
			wantSkips: []string{"create app.example.com/AAAA lost-conflict"},
		},
		{
			name: "takeover when the owning resource is gone: 9.0.0.1 before 10.0.0.2",
			plan: plan.Plan{OwnerID: "me",
				Current: []*endpoint.Endpoint{ep("app.example.com", a, "192.0.2.1", "@owner=me", "@resource=service/default/gone")},
				Desired: []*endpoint.Endpoint{
					ep("app.example.com", a, "10.0.0.2", "@resource=service/default/one"),
					ep("app.example.com", a, "9.0.0.1", "@resource=service/default/two"),
				}},
			want:      []string{"update app.example.com/A 192.0.2.1 -> 9.0.0.1"},
			wantSkips: []string{"update app.example.com/A lost-conflict"},
		},
	})
}
