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
	Sync plan.Policy = syncPolicy{}
	// UpsertOnly keeps creates and updates and drops deletes: records are
	// never removed.
	UpsertOnly plan.Policy = upsertOnlyPolicy{}
	// CreateOnly keeps creates only: existing records are never touched.
	CreateOnly plan.Policy = createOnlyPolicy{}
)

// syncPolicy is the type of Sync.
type syncPolicy struct{}

// Apply returns a copy of changes with every list kept.
func (syncPolicy) Apply(changes *plan.Changes) *plan.Changes {
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
func (syncPolicy) String() string { return NameSync }

// upsertOnlyPolicy is the type of UpsertOnly.
type upsertOnlyPolicy struct{}

// Apply returns a copy of changes without the deletes.
func (upsertOnlyPolicy) Apply(changes *plan.Changes) *plan.Changes {
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
func (upsertOnlyPolicy) String() string { return NameUpsertOnly }

// createOnlyPolicy is the type of CreateOnly.
type createOnlyPolicy struct{}

// Apply returns a copy of changes with only the creates.
func (createOnlyPolicy) Apply(changes *plan.Changes) *plan.Changes {
	if changes == nil {
		return &plan.Changes{}
	}
	return &plan.Changes{Create: slices.Clone(changes.Create)}
}

// String returns "create-only".
func (createOnlyPolicy) String() string { return NameCreateOnly }

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
