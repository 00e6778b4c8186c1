package txt_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/txt"
)

func TestOwnership(t *testing.T) {
	tests := []struct {
		name string
		cfg  txt.Config
		want registry.Ownership
	}{
		{
			name: "defaults",
			cfg:  txt.Config{OwnerID: "me"},
			want: registry.Ownership{OwnerID: "me", ManagedRecordTypes: []string{"A", "AAAA", "CNAME"}},
		},
		{
			name: "old owner",
			cfg:  txt.Config{OwnerID: "me", OldOwnerID: "old"},
			want: registry.Ownership{OwnerID: "me", OldOwnerID: "old", ManagedRecordTypes: []string{"A", "AAAA", "CNAME"}},
		},
		{
			name: "types compared case-insensitively, reported upper-case, duplicates dropped",
			cfg:  txt.Config{OwnerID: "me", ManagedRecordTypes: []string{"a", "Mx", "A", "txt", "cname"}, ExcludeRecordTypes: []string{"CName", "TXT"}},
			want: registry.Ownership{OwnerID: "me", ManagedRecordTypes: []string{"A", "MX"}},
		},
		{
			name: "exclusions applied to the default list",
			cfg:  txt.Config{OwnerID: "me", ExcludeRecordTypes: []string{"aaaa"}},
			want: registry.Ownership{OwnerID: "me", ManagedRecordTypes: []string{"A", "CNAME"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := txt.New(newZone(), tt.cfg)
			require.NoError(t, err)
			got := reg.Ownership()
			assert.Equal(t, tt.want, got)
			assert.Equal(t, reg.OwnerID(), got.OwnerID)
			got.ManagedRecordTypes[0] = "changed"
			assert.Equal(t, tt.want, reg.Ownership(), "the slice is new on every call")
		})
	}
}

func TestOwnershipRejectsEveryTypeExcluded(t *testing.T) {
	_, err := txt.New(newZone(), txt.Config{OwnerID: "me", ManagedRecordTypes: []string{"A", "aaaa"}, ExcludeRecordTypes: []string{"AAAA", "a"}})
	require.ErrorIs(t, err, txt.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "ExcludeRecordTypes")
}

// TestManagedTypesCaseInsensitive: a lower-case managed type still forces
// the rewrite of a missing typed TXT of records of that type.
func TestManagedTypesCaseInsensitive(t *testing.T) {
	legacy := `"heritage=external-dns,external-dns/owner=default"`
	zone := newZone(endpoint.NewEndpoint("app.example.com", "MX", "10 mail.example.com"), txtRecord("app.example.com", legacy))
	reg := newRegistry(t, zone, txt.Config{ManagedRecordTypes: []string{"mx"}})
	recs, err := reg.Records(t.Context())
	require.NoError(t, err)
	require.Len(t, recs, 1)
	_, forced := recs[0].GetProviderSpecificProperty(endpoint.ProviderSpecificForceUpdate)
	assert.True(t, forced)
}
