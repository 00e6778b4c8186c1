package registrytest

import (
	"fmt"
	"slices"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/registry"
)

// sharedName is the record set the shared-mode checks share.
const sharedName = "shared." + zoneA

// sharedCreate reads reg and creates its contribution rec through it,
// as a Reconciler would: a create when Records does not report the record
// set as ours, an update of what it reports otherwise.
func (s *session) sharedWrite(reg registry.Registry, op string, rec *endpoint.Endpoint) bool {
	recs, ok := s.records(reg, op)
	if !ok {
		return false
	}
	c := &plan.Changes{}
	for _, r := range recs {
		if r.Key() == rec.Key() {
			if r.Ownership() != endpoint.OwnedByUs {
				s.fail("Records", keyOf(r), fmt.Sprintf("before %s: a shared record set is reported with verdict %v, want our own contribution (or nothing)", op, r.Ownership()), nil)
				return false
			}
			if len(rec.Targets) == 0 {
				c.Delete = []*endpoint.Endpoint{r}
			} else {
				c.UpdateOld, c.UpdateNew = []*endpoint.Endpoint{r}, []*endpoint.Endpoint{rec}
			}
		}
	}
	if len(rec.Targets) > 0 && len(c.UpdateNew) == 0 && len(c.Delete) == 0 {
		c.Create = []*endpoint.Endpoint{rec}
	}
	if !c.HasChanges() {
		return true
	}
	return s.apply(reg, op, c, rec)
}

// rawRecord returns the record set key as the provider holds it.
func (s *session) rawRecord(key endpoint.Key) (*endpoint.Endpoint, bool) {
	recs, ok := s.rawRecords()
	if !ok {
		return nil, false
	}
	for _, r := range recs {
		if r.Key() == key {
			return r, true
		}
	}
	return nil, true
}

// checkSharedContributions: two owners contribute to one record set; the
// provider holds the union, and each owner reports its own contribution.
func checkSharedContributions(s *session) {
	mine, ok := s.registry(s.opts.OwnerID)
	if !ok {
		return
	}
	other, ok := s.registry(otherOwnerID)
	if !ok {
		return
	}
	if !s.sharedWrite(mine, "create of the first contribution", ep(sharedName, "192.0.2.1")) ||
		!s.sharedWrite(other, "create of the second contribution", ep(sharedName, "192.0.2.2")) {
		return
	}
	want := endpoint.Targets{"192.0.2.1", "192.0.2.2"}
	got, ok := s.rawRecord(ep(sharedName).Key())
	if !ok {
		return
	}
	if got == nil || !got.Targets.Same(want) {
		s.fail("provider Records", sharedName+"/A", fmt.Sprintf("after two owners contributed, the provider holds %v, want the union %v", targetsOf(got), want), nil)
		return
	}
	for _, c := range []struct {
		reg  registry.Registry
		want string
	}{{mine, "192.0.2.1"}, {other, "192.0.2.2"}} {
		recs, ok := s.records(c.reg, "two contributions")
		if !ok {
			return
		}
		i := slices.IndexFunc(recs, func(r *endpoint.Endpoint) bool { return r.Key() == got.Key() })
		if i < 0 || !recs[i].Targets.Same(endpoint.Targets{c.want}) || recs[i].Ownership() != endpoint.OwnedByUs {
			s.fail("Records", sharedName+"/A", fmt.Sprintf("owner %q must report its own contribution [%s] as ours", c.reg.OwnerID(), c.want), nil)
		}
	}
	if sr, ok := registry.As[registry.SharedReporter](mine); !ok {
		s.fail("SharedReporter", "", "a registry in shared mode must implement registry.SharedReporter", nil)
	} else if recs := sr.SharedRecords(); len(recs) != 1 || recs[0].Live() != 2 {
		s.fail("SharedRecords", sharedName+"/A", fmt.Sprintf("want one shared record set with 2 live contributions, got %d record set(s)", len(recs)), nil)
	}
}

// checkSharedLeave: an owner leaving removes only its targets; the last one
// leaving removes the record set and everything written for it.
func checkSharedLeave(s *session) {
	before, ok := s.rawRecords()
	if !ok {
		return
	}
	mine, ok := s.registry(s.opts.OwnerID)
	if !ok {
		return
	}
	other, ok := s.registry(otherOwnerID)
	if !ok {
		return
	}
	if !s.sharedWrite(mine, "create of the first contribution", ep(sharedName, "192.0.2.1")) ||
		!s.sharedWrite(other, "create of the second contribution", ep(sharedName, "192.0.2.2")) ||
		!s.sharedWrite(mine, "delete of the first contribution", ep(sharedName)) {
		return
	}
	got, ok := s.rawRecord(ep(sharedName).Key())
	if !ok {
		return
	}
	if got == nil || !got.Targets.Same(endpoint.Targets{"192.0.2.2"}) {
		s.fail("provider Records", sharedName+"/A", fmt.Sprintf("after one of two owners left, the provider holds %v, want the other's [192.0.2.2]", targetsOf(got)), nil)
		return
	}
	if !s.sharedWrite(other, "delete of the last contribution", ep(sharedName)) {
		return
	}
	after, ok := s.rawRecords()
	if !ok {
		return
	}
	if len(after) != len(before) {
		s.fail("provider Records", sharedName+"/A", fmt.Sprintf("after the last owner left, the provider holds %d records, %d before the first contribution", len(after), len(before)), nil)
	}
}

// checkSharedForeignNotJoined: a record set in shared scope that is not
// shared — written directly, or created the usual way by a registry not in
// shared mode — is never joined: Records does not report it as ours and a
// create there leaves it as it was.
func checkSharedForeignNotJoined(s *session) {
	plain := ep(sharedName, "192.0.2.9")
	if !s.write(&plan.Changes{Create: []*endpoint.Endpoint{plain}}) {
		return
	}
	mine, ok := s.registry(s.opts.OwnerID)
	if !ok {
		return
	}
	recs, ok := s.records(mine, "a record written directly")
	if !ok {
		return
	}
	for _, r := range recs {
		if r.Key() == plain.Key() && r.Ownership().Mine() {
			s.fail("Records", keyOf(r), "a record written directly is reported as ours in shared mode", nil)
		}
	}
	_ = mine.ApplyChanges(s.ctx, &plan.Changes{Create: []*endpoint.Endpoint{ep(sharedName, "192.0.2.1")}}) // may fail: it must not join
	got, ok := s.rawRecord(plain.Key())
	if !ok {
		return
	}
	if got == nil || !got.Targets.Same(plain.Targets) {
		s.fail("ApplyChanges(create)", keyOf(plain), fmt.Sprintf("a create joined a record set that is not shared: it holds %v, was %v", targetsOf(got), plain.Targets), nil)
	}
}

func targetsOf(e *endpoint.Endpoint) endpoint.Targets {
	if e == nil {
		return nil
	}
	return e.Targets
}
