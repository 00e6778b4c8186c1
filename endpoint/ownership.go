package endpoint

import (
	"fmt"
	"slices"
	"strings"
)

// Owners names who may change records: the owner id a registry writes and,
// during a migration, the old owner id whose records it takes over. It is
// the one statement of the ownership rule; the planner, the Reconciler's
// safety tally and the TXT registry all ask it.
type Owners struct {
	// OwnerID is the owner id of this deployment; "" means no ownership
	// is tracked (the no-op registry): every record counts as ours.
	OwnerID string
	// OldOwnerID, when set together with OwnerID, is the owner id whose
	// records are taken over: they count as ours and are relabelled.
	OldOwnerID string
}

// Check reports whether the current record e may be updated or deleted
// (owned) and whether it must be relabelled with OwnerID because its owner
// label is OldOwnerID. Without an OwnerID every record is owned and none is
// relabelled; otherwise a record is owned when its owner label is OwnerID,
// or OldOwnerID when that is set. A nil e is not owned.
func (o Owners) Check(e *Endpoint) (owned, relabel bool) {
	if e == nil {
		return false, false
	}
	if o.OwnerID == "" {
		return true, false
	}
	owner, ok := e.Labels.Get(OwnerLabelKey)
	switch {
	case !ok:
		return false, false
	case owner == o.OwnerID:
		return true, false
	case o.OldOwnerID != "" && owner == o.OldOwnerID:
		return true, true
	}
	return false, false
}

// Owns reports whether the current record e may be updated or deleted; see
// [Owners.Check].
func (o Owners) Owns(e *Endpoint) bool {
	owned, _ := o.Check(e)
	return owned
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
