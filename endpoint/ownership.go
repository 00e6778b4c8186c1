package endpoint

import (
	"fmt"
	"slices"
	"strings"
)

// Ownership is the verdict on one current record: whose it is. A registry
// decides it once, when it reads the record ([Owners.Verdict]), and attaches
// it to the record ([Endpoint.SetOwnership]); the planner, the safety
// threshold's counts and the record statuses read it from there and never
// decide it again. The zero value, [OwnershipUndecided], is the verdict of a
// record that no registry has judged.
type Ownership uint8

// Ownership verdicts.
const (
	// OwnershipUndecided: no registry has judged the record. Consumers
	// fall back to [Owners.Verdict] of its labels ([Owners.Of]).
	OwnershipUndecided Ownership = iota
	// OwnedByUs: the record is ours; it may be updated and deleted.
	OwnedByUs
	// OwnedByOldOwner: the record is ours under the old owner id of a
	// migration ([Owners.OldOwnerID]); it may be updated and deleted, and
	// the planner relabels it with the new owner id.
	OwnedByOldOwner
	// OwnedByOther: another owner id holds the record; it is never
	// changed.
	OwnedByOther
	// OwnedByNobody: nothing says who owns the record (created by hand or
	// by another tool); it is never changed.
	OwnedByNobody
)

// Mine reports whether the verdict lets this deployment update or delete
// the record: [OwnedByUs] or [OwnedByOldOwner].
func (o Ownership) Mine() bool { return o == OwnedByUs || o == OwnedByOldOwner }

// String returns the verdict as a short stable word: "undecided", "ours",
// "ours-old-owner", "other-owner" or "nobody".
func (o Ownership) String() string {
	switch o {
	case OwnershipUndecided:
		return "undecided"
	case OwnedByUs:
		return "ours"
	case OwnedByOldOwner:
		return "ours-old-owner"
	case OwnedByOther:
		return "other-owner"
	case OwnedByNobody:
		return "nobody"
	}
	return fmt.Sprintf("Ownership(%d)", uint8(o))
}

// Owners names who may change records: the owner id a registry writes and,
// during a migration, the old owner id whose records it takes over. Its
// [Owners.Verdict] is the one statement of the ownership rule: registries
// apply it once to every record they read, and everything downstream reads
// the verdict the record carries ([Owners.Of]).
type Owners struct {
	// OwnerID is the owner id of this deployment; "" means no ownership
	// is tracked (the no-op registry): every record counts as ours.
	OwnerID string
	// OldOwnerID, when set together with OwnerID, is the owner id whose
	// records are taken over: they count as ours and are relabelled.
	OldOwnerID string
}

// Verdict decides whose the current record e is from its owner label
// ([OwnerLabelKey]), the label a registry gives a record from its ownership
// data: without an OwnerID every record is [OwnedByUs]; otherwise a record
// whose owner label is OwnerID is OwnedByUs, one whose owner label is
// OldOwnerID (when that is set) is [OwnedByOldOwner], one with another
// non-empty owner label is [OwnedByOther], and one without an owner label
// (or with an empty one) is [OwnedByNobody]. A nil e is OwnedByNobody.
//
// Verdict ignores any verdict e already carries: it is the rule a registry
// applies when it reads a record. To read the verdict of a record, use
// [Owners.Of].
func (o Owners) Verdict(e *Endpoint) Ownership {
	if e == nil {
		return OwnedByNobody
	}
	if o.OwnerID == "" {
		return OwnedByUs
	}
	owner, _ := e.Labels.Get(OwnerLabelKey)
	switch {
	case owner == "":
		return OwnedByNobody
	case owner == o.OwnerID:
		return OwnedByUs
	case o.OldOwnerID != "" && owner == o.OldOwnerID:
		return OwnedByOldOwner
	}
	return OwnedByOther
}

// Of returns the verdict on the current record e: the one a registry
// attached to it ([Endpoint.Ownership]), or, for a record no registry has
// judged (built by hand, or read by a registry that attaches none),
// [Owners.Verdict] of its labels. A nil e is [OwnedByNobody].
func (o Owners) Of(e *Endpoint) Ownership {
	if e == nil {
		return OwnedByNobody
	}
	if v := e.ownership; v != OwnershipUndecided {
		return v
	}
	return o.Verdict(e)
}

// ManagedTypes returns the record types to manage: types (empty means
// [DefaultManagedRecordTypes]) trimmed and upper-cased, with empty entries
// and duplicates dropped, minus the types of exclude (compared the same
// way), in the order given. It returns an error naming both lists when no
// type is left; the list is then empty. It is the one normalisation of
// managed record types: the planner, the Reconciler and the TXT registry use
// it.
func ManagedTypes(types, exclude []string) ([]string, error) {
	base := types
	if len(base) == 0 {
		base = DefaultManagedRecordTypes()
	}
	out := make([]string, 0, len(base))
	for _, t := range base {
		t = strings.ToUpper(strings.TrimSpace(t))
		if t == "" || slices.Contains(out, t) ||
			slices.ContainsFunc(exclude, func(x string) bool { return strings.EqualFold(strings.TrimSpace(x), t) }) {
			continue
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return out, fmt.Errorf("managed record types %q minus excluded types %q leave no type to manage", types, exclude)
	}
	return out, nil
}
