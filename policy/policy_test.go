package policy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/policy"
)

func sample() *plan.Changes {
	return &plan.Changes{
		Create:    []*endpoint.Endpoint{endpoint.NewEndpoint("c.example.com", endpoint.RecordTypeA, "192.0.2.1")},
		UpdateOld: []*endpoint.Endpoint{endpoint.NewEndpoint("u.example.com", endpoint.RecordTypeA, "192.0.2.2")},
		UpdateNew: []*endpoint.Endpoint{endpoint.NewEndpoint("u.example.com", endpoint.RecordTypeA, "192.0.2.3")},
		Delete:    []*endpoint.Endpoint{endpoint.NewEndpoint("d.example.com", endpoint.RecordTypeA, "192.0.2.4")},
	}
}

func TestPolicies(t *testing.T) {
	in := sample()
	for _, tc := range []struct {
		name                   string
		policy                 plan.Policy
		create, update, delete bool
	}{
		{name: "sync", policy: policy.Sync, create: true, update: true, delete: true},
		{name: "upsert-only", policy: policy.UpsertOnly, create: true, update: true},
		{name: "create-only", policy: policy.CreateOnly, create: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := sample()
			out := tc.policy.Apply(in)
			require.NotNil(t, out)
			assert.Equal(t, tc.create, len(out.Create) == 1, "create kept")
			assert.Equal(t, tc.update, len(out.UpdateOld) == 1 && len(out.UpdateNew) == 1, "update kept")
			assert.Equal(t, tc.delete, len(out.Delete) == 1, "delete kept")
			if tc.create {
				assert.Same(t, in.Create[0], out.Create[0], "endpoints are shared, not copied")
				out.Create[0] = nil // the result's lists are the caller's
			}
			if tc.update {
				out.UpdateNew[0] = nil
			}
			assert.Equal(t, before, in, "Apply must not modify its argument")

			empty := tc.policy.Apply(nil)
			require.NotNil(t, empty)
			assert.False(t, empty.HasChanges())
			assert.Equal(t, tc.name, tc.policy.(interface{ String() string }).String())
		})
	}
}

func TestByName(t *testing.T) {
	for _, tc := range []struct {
		name    string
		want    plan.Policy
		wantErr string
	}{
		{name: "sync", want: policy.Sync},
		{name: "upsert-only", want: policy.UpsertOnly},
		{name: "create-only", want: policy.CreateOnly},
		{name: "", wantErr: `unknown policy "": valid policies are sync, upsert-only, create-only`},
		{name: "Sync", wantErr: `unknown policy "Sync": valid policies are sync, upsert-only, create-only`},
		{name: "upsert_only", wantErr: `unknown policy "upsert_only"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := policy.ByName(tc.name)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestNamesIsACopy(t *testing.T) {
	names := policy.Names()
	names[0] = "changed"
	assert.Equal(t, []string{"sync", "upsert-only", "create-only"}, policy.Names())
	for _, n := range policy.Names() {
		_, err := policy.ByName(n)
		assert.NoError(t, err, n)
	}
}

// TestPoliciesInPlan checks that what a policy drops from a plan is reported.
func TestPoliciesInPlan(t *testing.T) {
	p := &plan.Plan{
		Current: []*endpoint.Endpoint{
			endpoint.NewEndpoint("u.example.com", endpoint.RecordTypeA, "192.0.2.2"),
			endpoint.NewEndpoint("d.example.com", endpoint.RecordTypeA, "192.0.2.4"),
		},
		Desired: []*endpoint.Endpoint{
			endpoint.NewEndpoint("c.example.com", endpoint.RecordTypeA, "192.0.2.1"),
			endpoint.NewEndpoint("u.example.com", endpoint.RecordTypeA, "192.0.2.3"),
		},
	}
	for _, tc := range []struct {
		policy plan.Policy
		want   []string
		skips  []string
	}{
		{policy: policy.Sync, want: []string{"create c.example.com", "update u.example.com", "delete d.example.com"}},
		{policy: policy.UpsertOnly, want: []string{"create c.example.com", "update u.example.com"}, skips: []string{"delete d.example.com/A policy"}},
		{policy: policy.CreateOnly, want: []string{"create c.example.com"}, skips: []string{"delete d.example.com/A policy", "update u.example.com/A policy"}},
	} {
		t.Run(tc.policy.(interface{ String() string }).String(), func(t *testing.T) {
			q := *p
			q.Policies = []plan.Policy{tc.policy}
			res := q.Calculate()
			var got, skips []string
			for _, e := range res.Changes.Create {
				got = append(got, "create "+e.DNSName)
			}
			for _, e := range res.Changes.UpdateNew {
				got = append(got, "update "+e.DNSName)
			}
			for _, e := range res.Changes.Delete {
				got = append(got, "delete "+e.DNSName)
			}
			for _, s := range res.Skipped {
				skips = append(skips, string(s.Action)+" "+s.Endpoint.Key().String()+" "+string(s.Reason))
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.skips, skips)
		})
	}
}

// TestUnknownNameKeepsNothing: a Name that is not a constant changes
// nothing rather than deleting.
func TestUnknownNameKeepsNothing(t *testing.T) {
	out := policy.Name("delete-all").Apply(sample())
	require.NotNil(t, out)
	assert.False(t, out.HasChanges())
	var pol plan.Policy = policy.Sync // the SPEC's Policy: policy.Sync
	assert.Equal(t, "sync", pol.(policy.Name).String())
}
