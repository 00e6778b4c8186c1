package registry_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
)

// TestApplyOutcome: the one reading of an ApplyChanges error per change.
func TestApplyOutcome(t *testing.T) {
	com := endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1")
	org := endpoint.NewEndpoint("b.example.org", endpoint.RecordTypeA, "192.0.2.2")
	locked := errors.New("locked")
	rejectOrg := []provider.Rejection{{Action: "create", Endpoint: org, Reason: locked}}
	down := errors.New("connection refused")
	type res struct {
		state registry.ApplyState
		cause error
	}
	tests := []struct {
		name     string
		err      error
		rejected []provider.Rejection
		action   plan.Action
		com, org res
	}{
		{"no error", nil, nil, plan.ActionCreate, res{registry.Applied, nil}, res{registry.Applied, nil}},
		{"rejections listed without an error", nil, rejectOrg, plan.ActionCreate, res{registry.Applied, nil}, res{registry.Rejected, locked}},
		{"failed as a whole", down, nil, plan.ActionCreate, res{registry.Failed, down}, res{registry.Failed, down}},
		{"one rejected, the rest applied", &provider.RejectedError{Rejected: rejectOrg}, rejectOrg, plan.ActionCreate,
			res{registry.Applied, nil}, res{registry.Rejected, locked}},
		{"a rejection wrapped", fmt.Errorf("applying: %w", &provider.RejectedError{Rejected: rejectOrg}), rejectOrg, plan.ActionCreate,
			res{registry.Applied, nil}, res{registry.Rejected, locked}},
		{"a rejection of a create does not reject a delete", &provider.RejectedError{Rejected: rejectOrg}, rejectOrg, plan.ActionDelete,
			res{registry.Applied, nil}, res{registry.Applied, nil}},
		{"a rejection and another error", errors.Join(&provider.RejectedError{Rejected: rejectOrg}, down), rejectOrg, plan.ActionCreate,
			res{registry.Failed, nil}, res{registry.Rejected, locked}},
		{"a rejection naming no record", &provider.RejectedError{Rejected: []provider.Rejection{{Action: "create", Reason: locked}}}, nil, plan.ActionCreate,
			res{registry.Failed, nil}, res{registry.Failed, nil}},
		{"one zone failed", errors.Join(&provider.ZoneError{Zone: "example.org", Err: down}), nil, plan.ActionUpdate,
			res{registry.Applied, nil}, res{registry.ZoneFailed, nil}},
		{"a zone with only rejections applied the rest", &provider.ZoneError{Zone: "example.org", Err: &provider.RejectedError{Rejected: rejectOrg}}, rejectOrg, plan.ActionCreate,
			res{registry.Applied, nil}, res{registry.Rejected, locked}},
		{"the zone of names outside every zone holds none", &provider.ZoneError{Zone: "", Err: down}, nil, plan.ActionCreate,
			res{registry.Applied, nil}, res{registry.Applied, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := registry.NewApplyOutcome(tt.err, tt.rejected)
			for _, c := range []struct {
				ep   *endpoint.Endpoint
				want res
			}{{com, tt.com}, {org, tt.org}} {
				st, cause := o.Of(tt.action, c.ep)
				assert.Equal(t, c.want.state, st, "%s: %s", c.ep.DNSName, st)
				switch {
				case st == registry.Applied:
					assert.NoError(t, cause)
				case c.want.cause != nil:
					assert.Equal(t, c.want.cause, cause)
				default:
					assert.Equal(t, tt.err, cause, "the call's error")
				}
			}
		})
	}
}

func TestApplyOutcomeMatchesNamesCanonically(t *testing.T) {
	rej := []provider.Rejection{{Action: "delete", Endpoint: endpoint.NewEndpoint("WWW.Example.COM.", "a", "192.0.2.1"), Reason: errors.New("no")}}
	o := registry.NewApplyOutcome(&provider.RejectedError{Rejected: rej}, rej)
	st, _ := o.Of(plan.ActionDelete, endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.1"))
	assert.Equal(t, registry.Rejected, st)
	assert.Equal(t, "rejected", st.String())
}

// TestOwnershipOf: the one report of a registry's ownership settings.
func TestOwnershipOf(t *testing.T) {
	tests := []struct {
		name    string
		r       registry.Registry
		want    registry.Ownership
		wantErr string
	}{
		{"owner id only", &plain{owner: "me"}, registry.Ownership{OwnerID: "me"}, ""},
		{"reported", &reporting{plain{owner: "me"}, registry.Ownership{OwnerID: "me", OldOwnerID: "old", ManagedRecordTypes: []string{"a", " txt ", "A"}}},
			registry.Ownership{OwnerID: "me", OldOwnerID: "old", ManagedRecordTypes: []string{"A", "TXT"}}, ""},
		{"reported through a wrapper", wrap("me", &reporting{plain{owner: "inner"}, registry.Ownership{OwnerID: "me"}}), registry.Ownership{OwnerID: "me"}, ""},
		{"contradiction", &reporting{plain{owner: "me"}, registry.Ownership{OwnerID: "you"}}, registry.Ownership{OwnerID: "me"},
			`owner id "you" in Ownership and "me" in OwnerID`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := registry.OwnershipOf(tt.r)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// reporting is a registry that reports the given ownership.
type reporting struct {
	plain
	own registry.Ownership
}

func (r *reporting) Ownership() registry.Ownership { return r.own }
