package plan

import (
	"slices"

	"github.com/zonesync/zonesync/endpoint"
)

// Changes is a set of record changes for a provider to apply. Its JSON form
// is the one external-dns sends to webhook providers: keys create, updateOld,
// updateNew and delete, each omitted when empty; decoding accepts the keys in
// any case (releases before v0.17 wrote "Create", "UpdateOld", ...).
//
// UpdateOld[i] and UpdateNew[i] describe the same record set before and after
// the change: the two lists are paired by position.
type Changes struct {
	// Create holds records to create.
	Create []*endpoint.Endpoint `json:"create,omitempty"`
	// UpdateOld holds the current state of records to update.
	UpdateOld []*endpoint.Endpoint `json:"updateOld,omitempty"`
	// UpdateNew holds the desired state of records to update.
	UpdateNew []*endpoint.Endpoint `json:"updateNew,omitempty"`
	// Delete holds records to delete.
	Delete []*endpoint.Endpoint `json:"delete,omitempty"`
}

// HasChanges reports whether applying c would change anything: there is a
// create or a delete, or an update pair whose old and new records differ
// (see [endpoint.Endpoint.Equal]). A nil c has no changes.
func (c *Changes) HasChanges() bool {
	if c == nil {
		return false
	}
	if len(c.Create) > 0 || len(c.Delete) > 0 {
		return true
	}
	if len(c.UpdateOld) != len(c.UpdateNew) {
		return true
	}
	for i := range c.UpdateNew {
		if !c.UpdateOld[i].Equal(c.UpdateNew[i]) {
			return true
		}
	}
	return false
}

// clone returns a Changes with copies of c's lists (the endpoints are
// shared). A nil c gives an empty Changes.
func (c *Changes) clone() *Changes {
	if c == nil {
		return &Changes{}
	}
	return &Changes{
		Create:    slices.Clone(c.Create),
		UpdateOld: slices.Clone(c.UpdateOld),
		UpdateNew: slices.Clone(c.UpdateNew),
		Delete:    slices.Clone(c.Delete),
	}
}

// sorted returns c with every list sorted by (DNSName, SetIdentifier,
// RecordType), update pairs kept together. Lists already in order are kept
// as they are; the others are copied before sorting, so c's lists are never
// reordered in place.
func (c *Changes) sorted() *Changes {
	out := *c
	if !slices.IsSortedFunc(c.Create, endpoint.Compare) {
		out.Create = slices.Clone(c.Create)
		slices.SortStableFunc(out.Create, endpoint.Compare)
	}
	if !slices.IsSortedFunc(c.Delete, endpoint.Compare) {
		out.Delete = slices.Clone(c.Delete)
		slices.SortStableFunc(out.Delete, endpoint.Compare)
	}
	if len(c.UpdateOld) == len(c.UpdateNew) && !slices.IsSortedFunc(c.UpdateOld, endpoint.Compare) {
		pairs := make([]updatePair, len(c.UpdateOld))
		for i := range pairs {
			pairs[i] = updatePair{old: c.UpdateOld[i], new: c.UpdateNew[i]}
		}
		slices.SortStableFunc(pairs, func(a, b updatePair) int { return endpoint.Compare(a.old, b.old) })
		out.UpdateOld = make([]*endpoint.Endpoint, len(pairs))
		out.UpdateNew = make([]*endpoint.Endpoint, len(pairs))
		for i, p := range pairs {
			out.UpdateOld[i], out.UpdateNew[i] = p.old, p.new
		}
	}
	return &out
}
