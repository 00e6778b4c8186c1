package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/plan"
)

// Policy names accepted by [ByName].
const (
	NameSync       = "sync"
	NameUpsertOnly = "upsert-only"
	NameCreateOnly = "create-only"
)

// The built-in policies. They are stateless values: sharing them between
// plans and goroutines is safe.
var (
	// Sync keeps every change: DNS follows the sources exactly.
	Sync plan.Policy = SyncPolicy{}
	// UpsertOnly keeps creates and updates and drops deletes: records are
	// never removed.
	UpsertOnly plan.Policy = UpsertOnlyPolicy{}
	// CreateOnly keeps creates only: existing records are never touched.
	CreateOnly plan.Policy = CreateOnlyPolicy{}
)

// SyncPolicy is the type of [Sync].
type SyncPolicy struct{}

// Apply returns a copy of changes with every list kept.
func (SyncPolicy) Apply(changes *plan.Changes) *plan.Changes {
	if changes == nil {
		return &plan.Changes{}
	}
	return &plan.Changes{
		Create:    slices.Clone(changes.Create),
		UpdateOld: slices.Clone(changes.UpdateOld),
		UpdateNew: slices.Clone(changes.UpdateNew),
		Delete:    slices.Clone(changes.Delete),
	}
}

// String returns "sync".
func (SyncPolicy) String() string { return NameSync }

// UpsertOnlyPolicy is the type of [UpsertOnly].
type UpsertOnlyPolicy struct{}

// Apply returns a copy of changes without the deletes.
func (UpsertOnlyPolicy) Apply(changes *plan.Changes) *plan.Changes {
	if changes == nil {
		return &plan.Changes{}
	}
	return &plan.Changes{
		Create:    slices.Clone(changes.Create),
		UpdateOld: slices.Clone(changes.UpdateOld),
		UpdateNew: slices.Clone(changes.UpdateNew),
	}
}

// String returns "upsert-only".
func (UpsertOnlyPolicy) String() string { return NameUpsertOnly }

// CreateOnlyPolicy is the type of [CreateOnly].
type CreateOnlyPolicy struct{}

// Apply returns a copy of changes with only the creates.
func (CreateOnlyPolicy) Apply(changes *plan.Changes) *plan.Changes {
	if changes == nil {
		return &plan.Changes{}
	}
	return &plan.Changes{Create: slices.Clone(changes.Create)}
}

// String returns "create-only".
func (CreateOnlyPolicy) String() string { return NameCreateOnly }

// Names returns the names [ByName] accepts, in order of permissiveness:
// sync, upsert-only, create-only. The slice is new on every call.
func Names() []string {
	return []string{NameSync, NameUpsertOnly, NameCreateOnly}
}

// ByName returns the built-in policy called name: "sync", "upsert-only" or
// "create-only" (exactly, as external-dns spells them in --policy). Any
// other name gives an error that quotes it and lists the valid names.
func ByName(name string) (plan.Policy, error) {
	switch name {
	case NameSync:
		return Sync, nil
	case NameUpsertOnly:
		return UpsertOnly, nil
	case NameCreateOnly:
		return CreateOnly, nil
	}
	return nil, fmt.Errorf("unknown policy %q: valid policies are %s", name, strings.Join(Names(), ", "))
}
