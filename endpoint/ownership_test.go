package endpoint_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

func TestOwnersVerdict(t *testing.T) {
	owned := func(owner string) *endpoint.Endpoint {
		ep := endpoint.NewEndpoint("a.example.org", endpoint.RecordTypeA, "192.0.2.1")
		if owner != "" {
			ep.Labels.Set(endpoint.OwnerLabelKey, owner)
		}
		return ep
	}
	emptyOwner := endpoint.NewEndpoint("a.example.org", endpoint.RecordTypeA, "192.0.2.1").WithLabel(endpoint.OwnerLabelKey, "")
	tests := []struct {
		name   string
		owners endpoint.Owners
		ep     *endpoint.Endpoint
		want   endpoint.Ownership
	}{
		{"no owner id owns everything", endpoint.Owners{}, owned(""), endpoint.OwnedByUs},
		{"no owner id owns other owners' records", endpoint.Owners{}, owned("other"), endpoint.OwnedByUs},
		{"own record", endpoint.Owners{OwnerID: "me"}, owned("me"), endpoint.OwnedByUs},
		{"record without owner label", endpoint.Owners{OwnerID: "me"}, owned(""), endpoint.OwnedByNobody},
		{"empty owner label", endpoint.Owners{OwnerID: "me", OldOwnerID: "old"}, emptyOwner, endpoint.OwnedByNobody},
		{"foreign record", endpoint.Owners{OwnerID: "me"}, owned("other"), endpoint.OwnedByOther},
		{"old owner's record is taken over", endpoint.Owners{OwnerID: "me", OldOwnerID: "old"}, owned("old"), endpoint.OwnedByOldOwner},
		{"old owner id alone means nothing", endpoint.Owners{OldOwnerID: "old"}, owned("other"), endpoint.OwnedByUs},
		{"owner ids compare exactly", endpoint.Owners{OwnerID: "me"}, owned("Me"), endpoint.OwnedByOther},
		{"nil endpoint", endpoint.Owners{OwnerID: "me"}, nil, endpoint.OwnedByNobody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.owners.Verdict(tt.ep)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want, tt.owners.Of(tt.ep), "an undecided record falls back to the rule")
			assert.Equal(t, tt.want == endpoint.OwnedByUs || tt.want == endpoint.OwnedByOldOwner, got.Mine())
		})
	}
}

// TestOwnersOfCarriedVerdict: a verdict a registry attached wins over the
// labels, whatever they say; copies keep it, the JSON form and Equal ignore
// it.
func TestOwnersOfCarriedVerdict(t *testing.T) {
	owners := endpoint.Owners{OwnerID: "me"}
	claimed := endpoint.NewEndpoint("a.example.org", endpoint.RecordTypeA, "192.0.2.1").WithLabel(endpoint.OwnerLabelKey, "me")
	claimed.SetOwnership(endpoint.OwnedByNobody)
	assert.Equal(t, endpoint.OwnedByNobody, owners.Of(claimed), "an owner label claims nothing against the registry's verdict")
	assert.Equal(t, endpoint.OwnedByUs, owners.Verdict(claimed), "Verdict is the rule itself")

	ours := endpoint.NewEndpoint("b.example.org", endpoint.RecordTypeA, "192.0.2.2")
	ours.SetOwnership(endpoint.OwnedByUs)
	assert.Equal(t, endpoint.OwnedByUs, owners.Of(ours))
	assert.Equal(t, endpoint.OwnedByUs, ours.DeepCopy().Ownership())
	assert.Equal(t, endpoint.OwnedByUs, endpoint.DeepCopyAll([]*endpoint.Endpoint{ours})[0].Ownership())
	plain := endpoint.NewEndpoint("b.example.org", endpoint.RecordTypeA, "192.0.2.2")
	assert.True(t, plain.Equal(ours), "Equal ignores the verdict")
	a, err := json.Marshal(ours)
	require.NoError(t, err)
	b, err := json.Marshal(plain)
	require.NoError(t, err)
	assert.JSONEq(t, string(b), string(a), "the verdict is not in the JSON form")
}

func TestOwnershipString(t *testing.T) {
	for o, want := range map[endpoint.Ownership]string{
		endpoint.OwnershipUndecided: "undecided",
		endpoint.OwnedByUs:          "ours",
		endpoint.OwnedByOldOwner:    "ours-old-owner",
		endpoint.OwnedByOther:       "other-owner",
		endpoint.OwnedByNobody:      "nobody",
		endpoint.Ownership(42):      "Ownership(42)",
	} {
		assert.Equal(t, want, o.String())
	}
}

func TestManagedTypes(t *testing.T) {
	tests := []struct {
		name           string
		types, exclude []string
		want           []string
		wantErr        bool
	}{
		{"empty means the default", nil, nil, []string{"A", "AAAA", "CNAME"}, false},
		{"upper-cased, trimmed, deduplicated", []string{" txt", "A", "a ", "TXT"}, nil, []string{"TXT", "A"}, false},
		{"empty entries dropped", []string{"", "mx", "  "}, nil, []string{"MX"}, false},
		{"exclusions compared case-insensitively", []string{"A", "AAAA", "MX"}, []string{"aaaa", " mx "}, []string{"A"}, false},
		{"exclusions apply to the default", nil, []string{"cname"}, []string{"A", "AAAA"}, false},
		{"nothing left", []string{"A"}, []string{"a"}, []string{}, true},
		{"only empty entries", []string{"", " "}, nil, []string{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := endpoint.ManagedTypes(tt.types, tt.exclude)
			if tt.wantErr {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
