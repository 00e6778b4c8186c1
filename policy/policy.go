package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/plan"
)

// Name is a built-in policy, named as external-dns spells it in --policy.
// It implements [plan.Policy]; the constants below are the only valid
// values, so a policy cannot be changed at run time.
type Name string

// The built-in policies, in order of permissiveness. They are constants:
// sharing them between plans and goroutines is safe.
const (
	// Sync keeps every change: DNS follows the sources exactly.
	Sync Name = "sync"
	// UpsertOnly keeps creates and updates and drops deletes: records are
	// never removed.
	UpsertOnly Name = "upsert-only"
	// CreateOnly keeps creates only: existing records are never touched.
	CreateOnly Name = "create-only"
)

var _ plan.Policy = Sync

// Apply returns a copy of changes with the lists the policy keeps: creates
// always, updates for Sync and UpsertOnly, deletes for Sync. A Name that is
// none of the constants keeps nothing, so that a mistyped name never
// deletes; check names with [ByName]. The endpoints are shared, the lists
// are new.
func (n Name) Apply(changes *plan.Changes) *plan.Changes {
	if changes == nil || !n.valid() {
		return &plan.Changes{}
	}
	out := &plan.Changes{Create: slices.Clone(changes.Create)}
	if n == Sync || n == UpsertOnly {
		out.UpdateOld, out.UpdateNew = slices.Clone(changes.UpdateOld), slices.Clone(changes.UpdateNew)
	}
	if n == Sync {
		out.Delete = slices.Clone(changes.Delete)
	}
	return out
}

// String returns the policy's name, as [ByName] takes it.
func (n Name) String() string { return string(n) }

func (n Name) valid() bool { return n == Sync || n == UpsertOnly || n == CreateOnly }

// Names returns the names [ByName] accepts, in order of permissiveness:
// sync, upsert-only, create-only. The slice is new on every call.
func Names() []string {
	return []string{string(Sync), string(UpsertOnly), string(CreateOnly)}
}

// ByName returns the built-in policy called name: "sync", "upsert-only" or
// "create-only" (exactly, as external-dns spells them in --policy). Any
// other name gives a nil policy and an error that quotes it and lists the
// valid names. The policy returned is a [Name].
func ByName(name string) (plan.Policy, error) {
	if n := Name(name); n.valid() {
		return n, nil
	}
	return nil, fmt.Errorf("unknown policy %q: valid policies are %s", name, strings.Join(Names(), ", "))
}
