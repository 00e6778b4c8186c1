package plan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// TestOutcomes: the plan's own classification of each desired endpoint,
// the owner named by a foreign-owner skip, and the existing records.
func TestOutcomes(t *testing.T) {
	cur := []*endpoint.Endpoint{
		ep("same.example.com", "A", "192.0.2.1", "@owner=me"),
		ep("moved.example.com", "A", "192.0.2.2", "@owner=me"),
		ep("theirs.example.com", "A", "192.0.2.3", "@owner=them"),
		ep("nobody.example.com", "A", "192.0.2.4"),
		ep("alias.example.com", "CNAME", "same.example.com", "@owner=me"),
	}
	winner := ep("conflict.example.com", "A", "192.0.2.5", "@resource=svc/a/a")
	loser := ep("conflict.example.com", "A", "192.0.2.6", "@resource=svc/a/b")
	type want struct {
		reason  plan.SkipReason
		owner   string
		changed bool
	}
	tests := []struct {
		name string
		e    *endpoint.Endpoint
		want want
	}{
		{"unchanged", ep("same.example.com", "A", "192.0.2.1"), want{}},
		{"updated", ep("moved.example.com", "A", "192.0.2.20"), want{changed: true}},
		{"created", ep("new.example.com", "A", "192.0.2.30"), want{changed: true}},
		{"foreign owner, named", ep("theirs.example.com", "A", "192.0.2.33"), want{reason: plan.SkipForeignOwner, owner: "them"}},
		{"no owner", ep("nobody.example.com", "A", "192.0.2.44"), want{reason: plan.SkipUnowned}},
		{"filtered out", ep("other.example.org", "A", "192.0.2.7"), want{reason: plan.SkipFilteredOut}},
		{"unmanaged type", ep("mx.example.com", "MX", "10 mail.example.com"), want{reason: plan.SkipUnmanagedType}},
		{"conflict winner", winner, want{changed: true}},
		{"conflict loser", loser, want{reason: plan.SkipLostConflict}},
		{"unchanged cname", ep("alias.example.com", "CNAME", "same.example.com"), want{}},
	}
	var desired []*endpoint.Endpoint
	for _, tt := range tests {
		desired = append(desired, tt.e)
	}
	p := (&plan.Plan{Current: cur, Desired: desired, OwnerID: "me", DomainFilter: endpoint.NewDomainFilter([]string{"example.com"})}).Calculate()
	o := p.Outcomes()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := o.Of(tt.e)
			assert.Equal(t, tt.want.reason, got.Skip.Reason)
			assert.Equal(t, tt.want.reason != "", got.Skipped())
			assert.Equal(t, tt.want.owner, got.Skip.Owner)
			assert.Equal(t, tt.want.changed, got.Changed)
		})
	}
	// same, moved, theirs, nobody (A) and alias (CNAME) are in DNS; the
	// filtered, unmanaged and new ones are not.
	assert.Equal(t, map[string]int{"A": 4, "CNAME": 1}, p.Existing())
}

func TestExistingNilWithoutMatches(t *testing.T) {
	p := (&plan.Plan{Desired: []*endpoint.Endpoint{ep("a.example.com", "A", "192.0.2.1")}}).Calculate()
	assert.Nil(t, p.Existing())
}
