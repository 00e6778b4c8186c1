package endpoint_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

func TestOwnersCheck(t *testing.T) {
	owned := func(owner string) *endpoint.Endpoint {
		ep := endpoint.NewEndpoint("a.example.org", endpoint.RecordTypeA, "192.0.2.1")
		if owner != "" {
			ep.Labels.Set(endpoint.OwnerLabelKey, owner)
		}
		return ep
	}
	tests := []struct {
		name           string
		owners         endpoint.Owners
		ep             *endpoint.Endpoint
		owns, relabels bool
	}{
		{"no owner id owns everything", endpoint.Owners{}, owned(""), true, false},
		{"no owner id owns other owners' records", endpoint.Owners{}, owned("other"), true, false},
		{"own record", endpoint.Owners{OwnerID: "me"}, owned("me"), true, false},
		{"record without owner label", endpoint.Owners{OwnerID: "me"}, owned(""), false, false},
		{"foreign record", endpoint.Owners{OwnerID: "me"}, owned("other"), false, false},
		{"old owner's record is taken over", endpoint.Owners{OwnerID: "me", OldOwnerID: "old"}, owned("old"), true, true},
		{"old owner id alone means nothing", endpoint.Owners{OldOwnerID: "old"}, owned("other"), true, false},
		{"empty owner label is no old owner", endpoint.Owners{OwnerID: "me"}, owned(""), false, false},
		{"nil endpoint", endpoint.Owners{OwnerID: "me"}, nil, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, r := tt.owners.Check(tt.ep)
			assert.Equal(t, tt.owns, o)
			assert.Equal(t, tt.relabels, r)
			assert.Equal(t, tt.owns, tt.owners.Owns(tt.ep))
		})
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
