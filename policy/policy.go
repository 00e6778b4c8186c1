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
	Sync plan.Policy = listPolicy{name: NameSync, keepUpdates: true, keepDeletes: true}
	// UpsertOnly keeps creates and updates and drops deletes: records are
	// never removed.
	UpsertOnly plan.Policy = listPolicy{name: NameUpsertOnly, keepUpdates: true}
	// CreateOnly keeps creates only: existing records are never touched.
	CreateOnly plan.Policy = listPolicy{name: NameCreateOnly}
)

// listPolicy keeps some of the lists of a Changes: creates always,
// updates and deletes when asked to. It is the type of the built-in
// policies.
type listPolicy struct {
	name                     string
	keepUpdates, keepDeletes bool
}

// Apply returns a copy of changes with the lists the policy keeps.
func (p listPolicy) Apply(changes *plan.Changes) *plan.Changes {
	if changes == nil {
		return &plan.Changes{}
	}
	out := &plan.Changes{Create: slices.Clone(changes.Create)}
	if p.keepUpdates {
		out.UpdateOld, out.UpdateNew = slices.Clone(changes.UpdateOld), slices.Clone(changes.UpdateNew)
	}
	if p.keepDeletes {
		out.Delete = slices.Clone(changes.Delete)
	}
	return out
}

// String returns the policy's name, as ByName takes it.
func (p listPolicy) String() string { return p.name }

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
