package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// Registry is a provider that also tracks ownership.
type Registry interface {
	// Records returns the provider's records with ownership labels attached
	// (endpoint.OwnerLabelKey and the labels stored with the ownership).
	// The slice and the endpoints (labels included) belong to the caller.
	Records(ctx context.Context) ([]*endpoint.Endpoint, error)
	// ApplyChanges applies changes and writes the matching ownership data.
	// A change the registry will not apply (an update or delete of a record
	// it does not own) is never dropped silently: the call fails with an
	// error that names the record and matches [ErrNotOwned].
	ApplyChanges(ctx context.Context, changes *plan.Changes) error
	// AdjustEndpoints passes desired endpoints to the provider's
	// AdjustEndpoints.
	AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error)
	// GetDomainFilter returns the provider's domain filter.
	GetDomainFilter() endpoint.DomainFilterInterface
	// OwnerID returns the id this registry writes as owner ("" = none).
	OwnerID() string
}

// Ownership is the ownership configuration of a registry: the settings that
// the planner must share with it. They are configured once, on the registry;
// a Reconciler reads them from there (see [OwnershipReporter]).
type Ownership struct {
	// OwnerID is the owner id the registry writes ("" = none: every
	// record counts as ours).
	OwnerID string
	// OldOwnerID is the owner id whose records the registry takes over
	// ("" = no migration).
	OldOwnerID string
	// ManagedRecordTypes are the record types the registry manages, in
	// upper case, exclusions already removed; empty means the registry
	// does not restrict them.
	ManagedRecordTypes []string
}

// OwnershipReporter is implemented by registries that know more of their
// ownership configuration than the owner id. A Reconciler uses it as the
// one source of truth: it plans with the registry's old owner id and
// managed record types, and refuses to run when its own settings
// contradict them.
type OwnershipReporter interface {
	// Ownership returns the registry's ownership configuration. The
	// slices are new on every call.
	Ownership() Ownership
}

// OwnershipOf returns the ownership configuration of r, the one report a
// Reconciler plans with: the owner id of [Registry.OwnerID] and, when r is
// an [OwnershipReporter] (found with [As]), its old owner id and managed
// record types, upper-cased with exclusions removed (empty: r does not
// restrict them). Registry.OwnerID is part of the fixed interface, so a
// reporter states its owner id twice; OwnershipOf is the one place that
// joins the two and fails when they disagree, naming both: a registry
// that contradicts itself must not be planned for.
func OwnershipOf(r Registry) (Ownership, error) {
	own := Ownership{OwnerID: r.OwnerID()}
	rep, ok := As[OwnershipReporter](r)
	if !ok {
		return own, nil
	}
	reported := rep.Ownership()
	if reported.OwnerID != own.OwnerID {
		return own, fmt.Errorf("the registry reports owner id %q in Ownership and %q in OwnerID: the registry contradicts itself; "+
			"until its two methods agree no cycle runs and every record stays as it is", reported.OwnerID, own.OwnerID)
	}
	if len(reported.ManagedRecordTypes) > 0 {
		// Empty or all-blank: the registry does not restrict them.
		reported.ManagedRecordTypes, _ = endpoint.ManagedTypes(reported.ManagedRecordTypes, nil)
	}
	return reported, nil
}

// ErrNotOwned is matched (errors.Is) by the error of an ApplyChanges call
// that asked a registry to update or delete a record it does not own.
var ErrNotOwned = errors.New("record not owned by this registry")

// OwnabilityChecker is implemented by registries that can tell, before
// anything is written, that they could not record the ownership of a
// record (the TXT registry cannot name the ownership TXT of an apex record
// without a templated prefix, for instance). A Reconciler asks it about
// every create of a plan and skips those it refuses, with their own
// reason, instead of sending them and failing the cycle.
type OwnabilityChecker interface {
	// CheckOwnable returns nil when the registry can record the ownership
	// of ep, or an error naming the record and saying what to change.
	CheckOwnable(ep *endpoint.Endpoint) error
}

// DesiredChecker is implemented by registries that refuse some desired
// endpoints as input, for reasons only they can judge: the TXT registry
// refuses a TXT value it would read back as one of its ownership records
// (a copy of an encrypted ownership value, which only its key reveals). A
// Reconciler asks it about every desired endpoint that passed
// [endpoint.Endpoint.ValidateDesired]; an endpoint it refuses is handled
// like an invalid one: not planned ([plan.SkipInvalid]), its records held,
// and its object reported as failed in the cycle's partial error.
type DesiredChecker interface {
	// CheckDesired returns nil for an acceptable desired endpoint, or an
	// error naming it and saying why it is refused. It must not modify
	// ep.
	CheckDesired(ep *endpoint.Endpoint) error
}

// SettingsWarner is implemented by registries that can tell, from what
// they last read, that their settings (owner id, TXT prefix or suffix, ...)
// leave records that are owned today without an owner. A Reconciler's
// Preview shows the warnings.
type SettingsWarner interface {
	// SettingsWarnings returns one sentence per problem found by the last
	// Records call, in a stable order; nil when there is none.
	SettingsWarnings() []string
}

// Repairer is implemented by registries that find, when they read, ownership
// records to repair that a plan may not touch: an ownership record of theirs
// whose record is gone and no longer desired, or one that must not lend
// ownership to a record that appeared at its name from elsewhere. A
// Reconciler that is not in dry run calls ApplyChanges when PendingRepairs
// reports work, even for a plan without changes, so that the repair is made;
// ApplyChanges makes the repairs that the changes it is given leave standing.
type Repairer interface {
	// PendingRepairs returns the number of repairs the last Records call
	// found.
	PendingRepairs() int
}
