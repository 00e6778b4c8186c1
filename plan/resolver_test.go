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
