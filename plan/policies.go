package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// Policy filters a calculated set of changes, for example to drop deletes.
// Apply must not modify its argument (the lists or the endpoints in them)
// and returns the changes to keep; it may return its argument unchanged.
// A change whose endpoint is absent from the returned lists is reported in
// [Plan.Skipped] with [SkipPolicy]. Package policy holds the built-in ones.
type Policy interface {
	Apply(changes *Changes) *Changes
}

// PolicyFunc adapts a function to a [Policy]. In skip details the policy is
// named by its type, "plan.PolicyFunc"; give the function a type of its own
// with a String method for a better name.
type PolicyFunc func(changes *Changes) *Changes

// Apply calls f(changes).
func (f PolicyFunc) Apply(changes *Changes) *Changes { return f(changes) }

// rawChanges returns the calculated changes, sorted.
func (pl *planner) rawChanges() *Changes {
	c := &Changes{}
	if len(pl.creates) > 0 {
		slices.SortFunc(pl.creates, endpoint.Compare)
		c.Create = pl.creates
	}
	if len(pl.updates) > 0 {
		slices.SortFunc(pl.updates, func(a, b updatePair) int { return endpoint.Compare(a.old, b.old) })
		c.UpdateOld = make([]*endpoint.Endpoint, len(pl.updates))
		c.UpdateNew = make([]*endpoint.Endpoint, len(pl.updates))
		for i, u := range pl.updates {
			c.UpdateOld[i], c.UpdateNew[i] = u.old, u.new
		}
	}
	if len(pl.deletes) > 0 {
		slices.SortFunc(pl.deletes, endpoint.Compare)
		c.Delete = pl.deletes
	}
	return c
}

// applyPolicies runs the policies in order, records what they dropped and
// returns their result, sorted.
func (pl *planner) applyPolicies(raw *Changes) *Changes {
	// Policies get a copy of the lists, so that raw stays intact for the
	// comparison below even if a policy misbehaves.
	changes := raw.clone()
	for _, pol := range pl.p.Policies {
		if pol == nil {
			continue
		}
		changes = pol.Apply(changes)
		if changes == nil {
			changes = &Changes{}
		}
	}
	n := len(raw.Create) + len(raw.UpdateNew) + len(raw.Delete)
	if n > 0 {
		kept := make(map[*endpoint.Endpoint]struct{}, len(changes.Create)+len(changes.UpdateNew)+len(changes.Delete))
		for _, list := range [][]*endpoint.Endpoint{changes.Create, changes.UpdateNew, changes.Delete} {
			for _, e := range list {
				kept[e] = struct{}{}
			}
		}
		detail := "dropped by " + pl.policyNames()
		pl.policySkips(ActionCreate, raw.Create, kept, detail)
		pl.policySkips(ActionUpdate, raw.UpdateNew, kept, detail)
		pl.policySkips(ActionDelete, raw.Delete, kept, detail)
	}
	return changes.sorted()
}

func (pl *planner) policySkips(action Action, list []*endpoint.Endpoint, kept map[*endpoint.Endpoint]struct{}, detail string) {
	for _, e := range list {
		if _, ok := kept[e]; !ok {
			pl.skip(action, e, SkipPolicy, detail)
		}
	}
}

// policyNames describes the plan's policies for a skip detail: "policy x"
// or "policies x, y", each named by its String method or else its type.
func (pl *planner) policyNames() string {
	var names []string
	for _, pol := range pl.p.Policies {
		switch v := pol.(type) {
		case nil:
		case fmt.Stringer:
			names = append(names, v.String())
		default:
			names = append(names, fmt.Sprintf("%T", pol))
		}
	}
	if len(names) == 1 {
		return "policy " + names[0]
	}
	return "policies " + strings.Join(names, ", ")
}
