package plan_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// judged returns e with the verdict v attached, as a registry does.
func judged(e *endpoint.Endpoint, v endpoint.Ownership) *endpoint.Endpoint {
	e.SetOwnership(v)
	return e
}

// TestPlanReadsTheVerdict: the planner takes a current record's verdict as
// it comes, whatever its owner label says; records without a verdict are
// judged by the rule with OwnerID and OldOwnerID.
func TestPlanReadsTheVerdict(t *testing.T) {
	tests := []struct {
		name    string
		current []*endpoint.Endpoint
		desired []*endpoint.Endpoint
		want    []string
		skips   []string
		owned   int
	}{
		{
			name:    "an owner label claims nothing against the verdict nobody",
			current: []*endpoint.Endpoint{judged(ep("a.example.com", "A", "192.0.2.1", "@owner=me"), endpoint.OwnedByNobody)},
			desired: []*endpoint.Endpoint{ep("a.example.com", "A", "192.0.2.9")},
			skips:   []string{"update a.example.com/A unowned"},
		},
		{
			name:    "verdict other owner",
			current: []*endpoint.Endpoint{judged(ep("a.example.com", "A", "192.0.2.1", "@owner=other"), endpoint.OwnedByOther)},
			desired: []*endpoint.Endpoint{ep("b.example.com", "A", "192.0.2.9")},
			want:    []string{"create b.example.com/A 192.0.2.9"},
		},
		{
			name:    "verdict ours without any label",
			current: []*endpoint.Endpoint{judged(ep("a.example.com", "A", "192.0.2.1"), endpoint.OwnedByUs)},
			want:    []string{"delete a.example.com/A 192.0.2.1"},
			owned:   1,
		},
		{
			name:    "verdict ours under the old owner id: relabelled though the data are right",
			current: []*endpoint.Endpoint{judged(ep("a.example.com", "A", "192.0.2.1", "@owner=old"), endpoint.OwnedByOldOwner)},
			desired: []*endpoint.Endpoint{ep("a.example.com", "A", "192.0.2.1")},
			want:    []string{"update a.example.com/A 192.0.2.1 -> 192.0.2.1"},
			owned:   1,
		},
		{
			name:    "no verdict: the labels' rule",
			current: []*endpoint.Endpoint{ep("a.example.com", "A", "192.0.2.1", "@owner=me"), ep("b.example.com", "A", "192.0.2.2", "@owner=other")},
			want:    []string{"delete a.example.com/A 192.0.2.1"},
			owned:   1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := (&plan.Plan{Current: tt.current, Desired: tt.desired, OwnerID: "me"}).Calculate()
			assert.Equal(t, tt.want, summary(p.Changes))
			assert.Equal(t, tt.skips, skips(p))
			assert.Equal(t, tt.owned, p.Owned.Total)
		})
	}
}

// TestSupportedHoldsTheRow: an endpoint the provider cannot store is
// skipped as unsupported, and the records at its name and set identifier
// are held as they are; the rest of the plan goes ahead.
func TestSupportedHoldsTheRow(t *testing.T) {
	ours := func(e *endpoint.Endpoint) *endpoint.Endpoint { return judged(e, endpoint.OwnedByUs) }
	current := []*endpoint.Endpoint{
		ours(withSet(ep("a.example.com", "A", "192.0.2.1"), "eu")),
		ours(ep("b.example.com", "A", "192.0.2.2")),
		ours(ep("c.example.com", "A", "192.0.2.3")),
	}
	desired := []*endpoint.Endpoint{
		withSet(ep("a.example.com", "A", "192.0.2.10"), "eu"),  // refused: the record at eu stays
		withSet(ep("new.example.com", "A", "192.0.2.11"), "x"), // refused: not created
		ep("b.example.com", "A", "192.0.2.20"),                 // updated
	}
	refuse := errors.New("set identifiers are not kept")
	p := (&plan.Plan{Current: current, Desired: desired, OwnerID: "me", Supported: func(e *endpoint.Endpoint) error {
		if e.SetIdentifier != "" {
			return refuse
		}
		return nil
	}}).Calculate()
	assert.Equal(t, []string{"update b.example.com/A 192.0.2.2 -> 192.0.2.20", "delete c.example.com/A 192.0.2.3"}, summary(p.Changes))
	assert.Equal(t, []string{"delete a.example.com/A/eu unsupported", "update a.example.com/A/eu unsupported", "create new.example.com/A/x unsupported"}, skips(p),
		"the refused endpoint is skipped, and the record it would have replaced is held")
	for _, s := range p.Skipped {
		assert.Contains(t, s.Detail, refuse.Error())
	}
	assert.Contains(t, p.Skipped[0].Detail, "held back")

	// An invalid endpoint is reported as invalid, never asked about.
	asked := 0
	p = (&plan.Plan{Desired: []*endpoint.Endpoint{ep("bad name.example.com", "A", "192.0.2.1")}, Supported: func(*endpoint.Endpoint) error {
		asked++
		return nil
	}}).Calculate()
	assert.Equal(t, []string{"create bad name.example.com/A invalid"}, skips(p))
	assert.Zero(t, asked)

	// A row held for an unsupported endpoint keeps its current records
	// from being deleted.
	p = (&plan.Plan{
		Current: []*endpoint.Endpoint{ours(withSet(ep("a.example.com", "A", "192.0.2.1"), "eu")), ours(withSet(ep("a.example.com", "AAAA", "2001:db8::1"), "eu"))},
		Desired: []*endpoint.Endpoint{withSet(ep("a.example.com", "A", "192.0.2.1"), "eu")},
		OwnerID: "me", Supported: func(*endpoint.Endpoint) error { return refuse },
	}).Calculate()
	assert.Empty(t, summary(p.Changes))
	assert.Equal(t, []string{"delete a.example.com/A/eu unsupported", "update a.example.com/A/eu unsupported", "delete a.example.com/AAAA/eu unsupported"}, skips(p))
}

// TestOwnedIn: the planner's count of the records it may change, in total
// and per zone.
func TestOwnedIn(t *testing.T) {
	current := []*endpoint.Endpoint{
		judged(ep("a.big.example", "A", "192.0.2.1"), endpoint.OwnedByUs),
		judged(ep("b.big.example", "A", "192.0.2.2"), endpoint.OwnedByOldOwner),
		judged(ep("c.big.example", "A", "192.0.2.3"), endpoint.OwnedByOther),
		judged(ep("a.small.example", "A", "192.0.2.4"), endpoint.OwnedByUs),
		judged(ep("a.small.example", "MX", "10 mail.small.example"), endpoint.OwnedByUs), // not managed
		judged(ep("a.elsewhere.example", "A", "192.0.2.5"), endpoint.OwnedByUs),
		judged(ep("a.filtered.example", "A", "192.0.2.6"), endpoint.OwnedByUs),
	}
	p := (&plan.Plan{Current: current, OwnerID: "me", DomainFilter: endpoint.NewDomainFilterWithExclusions(nil, []string{"filtered.example"})}).Calculate()
	assert.Equal(t, 4, p.Owned.Total)
	assert.Nil(t, p.Owned.Zone)
	zone := func(name string) (string, bool) {
		for _, z := range []string{"big.example", "small.example"} {
			if name == z || len(name) > len(z) && name[len(name)-len(z)-1:] == "."+z {
				return z, true
			}
		}
		return "", false
	}
	got := p.OwnedIn(zone)
	assert.Equal(t, 4, got.Total)
	assert.Equal(t, map[string]int{"big.example": 2, "small.example": 1}, got.PerZone)
	assert.NotNil(t, got.Zone)
	assert.Equal(t, p.Owned, p.OwnedIn(nil))
}

// TestCNAMEBesideUnmanagedRecord: a CNAME is never created at a name that
// holds a record of a type the plan does not manage (a TXT of somebody
// else's, an MX), and nothing is created beside an unmanaged CNAME: the
// DNS service would refuse the create, together with the rest of the
// change set on some providers.
func TestCNAMEBesideUnmanagedRecord(t *testing.T) {
	current := []*endpoint.Endpoint{
		ep("txt.example.com", "TXT", `"foreign"`),
		ep("mx.example.com", "MX", "10 mail.example.com", "@owner=me"),
		ep("own.example.com", "TXT", `"heritage=external-dns"`, "@ownedRecord=x.example.com"),
	}
	desired := []*endpoint.Endpoint{
		ep("txt.example.com", "CNAME", "target.example.net"),
		withSet(ep("mx.example.com", "CNAME", "target.example.net"), "s1"),
		ep("own.example.com", "CNAME", "target.example.net"),
		ep("free.example.com", "CNAME", "target.example.net"),
		ep("mx.example.com", "A", "192.0.2.1"),
	}
	p := (&plan.Plan{Current: current, Desired: desired, OwnerID: "me"}).Calculate()
	assert.Equal(t, []string{"create free.example.com/CNAME target.example.net", "create mx.example.com/A 192.0.2.1", "create own.example.com/CNAME target.example.net"},
		summary(p.Changes), "an A beside an MX is fine; ownership records are the registry's business")
	assert.Equal(t, []string{"create mx.example.com/CNAME/s1 cname-conflict", "create txt.example.com/CNAME cname-conflict"}, skips(p))
	for _, s := range p.Skipped {
		assert.Contains(t, s.Detail, "cannot share a name")
	}

	// An unmanaged CNAME keeps every other type out.
	p = (&plan.Plan{
		Current:        []*endpoint.Endpoint{ep("cname.example.com", "CNAME", "elsewhere.example.net")},
		Desired:        []*endpoint.Endpoint{ep("cname.example.com", "A", "192.0.2.1"), ep("other.example.com", "A", "192.0.2.2")},
		ManagedRecords: []string{"A"}, OwnerID: "me",
	}).Calculate()
	assert.Equal(t, []string{"create other.example.com/A 192.0.2.2"}, summary(p.Changes))
	assert.Equal(t, []string{"create cname.example.com/A cname-conflict"}, skips(p))
}
