package plan_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// TestRegression_CNAMEBesideOtherTypes: a CNAME cannot coexist with any
// other type at one name, not only with A and AAAA (differential testing
// against external-dns v0.23.0 created both a TXT and a CNAME).
func TestRegression_CNAMEBesideOtherTypes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		managed []string
		current []*endpoint.Endpoint
		desired []*endpoint.Endpoint
		creates []string
		deletes []string
		skipped []string
	}{
		{
			name:    "TXT and CNAME desired",
			managed: []string{"A", "CNAME", "TXT"},
			desired: []*endpoint.Endpoint{
				ep("example.com", txt, `"hello"`),
				ep("example.com", cname, "LB.example.net"),
			},
			creates: []string{"example.com/TXT"},
			skipped: []string{"create example.com/CNAME cname-conflict"},
		},
		{
			name:    "MX and CNAME desired",
			managed: []string{"A", "CNAME", "MX"},
			desired: []*endpoint.Endpoint{
				ep("mail.example.com", "MX", "10 mx.example.net"),
				ep("mail.example.com", cname, "other.example.net"),
			},
			creates: []string{"mail.example.com/MX"},
			skipped: []string{"create mail.example.com/CNAME cname-conflict"},
		},
		{
			name:    "current CNAME replaced by TXT",
			managed: []string{"A", "CNAME", "TXT"},
			current: []*endpoint.Endpoint{ep("x.example.com", cname, "a.example.net", "@owner=me")},
			desired: []*endpoint.Endpoint{
				ep("x.example.com", txt, `"v"`),
				ep("x.example.com", cname, "a.example.net"),
			},
			creates: []string{"x.example.com/TXT"},
			deletes: []string{"x.example.com/CNAME"},
			skipped: []string{"update x.example.com/CNAME cname-conflict"},
		},
		{
			name:    "CNAME alone is kept",
			managed: []string{"A", "CNAME", "TXT"},
			desired: []*endpoint.Endpoint{ep("y.example.com", cname, "a.example.net")},
			creates: []string{"y.example.com/CNAME"},
		},
		{
			name:    "other set identifier does not conflict",
			managed: []string{"A", "CNAME", "TXT"},
			desired: []*endpoint.Endpoint{
				withSet(ep("z.example.com", txt, `"v"`), "eu"),
				ep("z.example.com", cname, "a.example.net"),
			},
			creates: []string{"z.example.com/CNAME", "z.example.com/TXT/eu"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := (&plan.Plan{OwnerID: "me", ManagedRecords: tc.managed, Current: tc.current, Desired: tc.desired}).Calculate()
			assert.Equal(t, tc.creates, keys(res.Changes.Create))
			assert.Equal(t, tc.deletes, keys(res.Changes.Delete))
			assert.Equal(t, tc.skipped, skips(res))
		})
	}
}

func TestPlanProtected(t *testing.T) {
	failed := map[string]error{"service/default/bad": errors.New(`annotation "ttl": bad value`)}
	current := []*endpoint.Endpoint{
		ep("bad.example.com", a, "192.0.2.1", "@owner=me", "@resource=service/default/bad"),
		ep("gone.example.com", a, "192.0.2.2", "@owner=me", "@resource=service/default/gone"),
		ep("shared.example.com", a, "192.0.2.3", "@owner=me", "@resource=service/default/bad"),
	}
	desired := []*endpoint.Endpoint{
		// Another resource asks for the name of the failed one.
		ep("shared.example.com", a, "192.0.2.9", "@resource=service/default/other"),
		ep("new.example.com", a, "192.0.2.4", "@resource=service/default/new"),
	}
	res := (&plan.Plan{OwnerID: "me", Current: current, Desired: desired, Protected: failed}).Calculate()
	assert.Equal(t, []string{"new.example.com/A"}, keys(res.Changes.Create))
	assert.Equal(t, []string{"gone.example.com/A"}, keys(res.Changes.Delete))
	assert.Empty(t, res.Changes.UpdateNew)
	assert.Equal(t, []string{
		"delete bad.example.com/A source-error",
		"update shared.example.com/A source-error",
	}, skips(res))
	assert.Contains(t, res.Skipped[0].Detail, "service/default/bad")
	assert.Contains(t, res.Skipped[0].Detail, "bad value")

	// Without protection the same input deletes and updates them.
	res = (&plan.Plan{OwnerID: "me", Current: current, Desired: desired}).Calculate()
	assert.Equal(t, []string{"bad.example.com/A", "gone.example.com/A"}, keys(res.Changes.Delete))
	assert.Equal(t, []string{"shared.example.com/A"}, keys(res.Changes.UpdateNew))
}

func TestManagedRecordsCaseInsensitive(t *testing.T) {
	res := (&plan.Plan{
		ManagedRecords: []string{"a", "txt", "Cname"},
		ExcludeRecords: []string{"cname"},
		Desired: []*endpoint.Endpoint{
			ep("a.example.com", a, "192.0.2.1"),
			ep("t.example.com", txt, `"x"`),
			ep("c.example.com", cname, "a.example.com"),
		},
	}).Calculate()
	assert.Equal(t, []string{"a.example.com/A", "t.example.com/TXT"}, keys(res.Changes.Create))
	assert.Equal(t, []string{"create c.example.com/CNAME unmanaged-type"}, skips(res))
}

func TestWhy(t *testing.T) {
	base := func() *endpoint.Endpoint {
		return ep("w.example.com", a, "192.0.2.1", "@owner=me", "@resource=service/ns/w")
	}
	for _, tc := range []struct {
		name   string
		old    *endpoint.Endpoint
		new    *endpoint.Endpoint
		want   plan.UpdateReason
		text   string
		isData bool
	}{
		{name: "identical", old: base(), new: base(), want: 0, text: "none"},
		{name: "nil", old: nil, new: base(), want: 0, text: "none"},
		{name: "targets", old: base(), new: ep("w.example.com", a, "192.0.2.2", "@owner=me", "@resource=service/ns/w"),
			want: plan.UpdateTargets, text: "targets", isData: true},
		{name: "target case and order do not count", old: ep("w.example.com", cname, "A.example.net"), new: ep("w.example.com", cname, "a.example.net"),
			want: 0, text: "none"},
		{name: "ttl", old: base(), new: withTTL(base(), 60), want: plan.UpdateTTL, text: "ttl", isData: true},
		{name: "unset new ttl", old: withTTL(base(), 60), new: base(), want: 0, text: "none"},
		{name: "provider specific", old: base(), new: base().WithProviderSpecific("alias", "true"),
			want: plan.UpdateProviderSpecific, text: "provider-specific", isData: true},
		{name: "format upgrade", old: base().WithProviderSpecific(endpoint.ProviderSpecificForceUpdate, "true"), new: base(),
			want: plan.UpdateOwnershipFormat, text: "ownership-format"},
		{name: "owner migration", old: ep("w.example.com", a, "192.0.2.1", "@owner=old", "@resource=service/ns/w"), new: base(),
			want: plan.UpdateOwner, text: "owner"},
		{name: "labels", old: base(), new: base().WithLabel("team", "x"), want: plan.UpdateLabels, text: "labels"},
		{name: "nonce label ignored", old: base().WithLabel(endpoint.TxtEncryptionNonceLabelKey, "n"), new: base(), want: 0, text: "none"},
		{name: "several", old: base().WithProviderSpecific(endpoint.ProviderSpecificForceUpdate, "true"), new: withTTL(ep("w.example.com", a, "192.0.2.3", "@owner=me", "@resource=service/ns/w"), 5),
			want: plan.UpdateTargets | plan.UpdateTTL | plan.UpdateOwnershipFormat, text: "targets,ttl,ownership-format", isData: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := plan.Why(tc.old, tc.new)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.text, got.String())
			assert.Equal(t, tc.isData, got.ChangesData())
		})
	}
}

func TestWhyDoesNotAllocate(t *testing.T) {
	old := ep("w.example.com", a, "192.0.2.1", "@owner=me").WithProviderSpecific(endpoint.ProviderSpecificForceUpdate, "true").WithProviderSpecific("alias", "true")
	new := ep("w.example.com", a, "192.0.2.1", "@owner=me").WithProviderSpecific("alias", "true")
	allocs := testing.AllocsPerRun(100, func() { _ = plan.Why(old, new) })
	require.Zero(t, allocs)
}

func TestPolicyFunc(t *testing.T) {
	dropAll := plan.PolicyFunc(func(*plan.Changes) *plan.Changes { return &plan.Changes{} })
	res := (&plan.Plan{
		Desired:  []*endpoint.Endpoint{ep("a.example.com", a, "192.0.2.1")},
		Policies: []plan.Policy{dropAll},
	}).Calculate()
	assert.False(t, res.Changes.HasChanges())
	require.Len(t, res.Skipped, 1)
	assert.Equal(t, plan.SkipPolicy, res.Skipped[0].Reason)
	assert.Equal(t, plan.ActionCreate, res.Skipped[0].Action)
	assert.Contains(t, res.Skipped[0].Detail, "plan.PolicyFunc")
}

// TestRegression_WhiteSpaceAroundNames: a name with white space is invalid;
// it lands in the row of the name it means and protects that row's records
// instead of making a second row (external-dns: one row).
func TestRegression_WhiteSpaceAroundNames(t *testing.T) {
	current := []*endpoint.Endpoint{ep("a.example.com", a, "192.0.2.1", "@owner=me")}
	for _, name := range []string{" a.example.com", "a.example.com ", "\ta.example.com"} {
		t.Run(name, func(t *testing.T) {
			res := (&plan.Plan{OwnerID: "me", Current: current, Desired: []*endpoint.Endpoint{ep(name, a, "192.0.2.2")}}).Calculate()
			assert.False(t, res.Changes.HasChanges(), res.String())
			require.Len(t, res.Skipped, 2, "the bad endpoint and the delete it holds back")
			actions := map[plan.Action]bool{}
			for _, sk := range res.Skipped {
				assert.Equal(t, plan.SkipInvalid, sk.Reason)
				assert.Contains(t, sk.Detail, "white space")
				actions[sk.Action] = true
			}
			assert.True(t, actions[plan.ActionDelete], "the current record is not deleted")
		})
	}
}

// TestRegression_SharpSAndSSAreOneRow: UTS #46 transitional mapping makes
// "straße" and "strasse" one name, so a CNAME and an A there conflict.
func TestRegression_SharpSAndSSAreOneRow(t *testing.T) {
	res := (&plan.Plan{Desired: []*endpoint.Endpoint{
		ep("strasse.example.com", a, "192.0.2.1"),
		ep("straße.example.com", cname, "lb.example.net"),
	}}).Calculate()
	assert.Equal(t, []string{"strasse.example.com/A"}, keys(res.Changes.Create))
	assert.Equal(t, []string{"create straße.example.com/CNAME cname-conflict"}, skips(res))
}
