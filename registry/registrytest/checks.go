package registrytest

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry"
)

func checkOwnerIDStable(s *session) {
	reg, ok := s.registry(s.opts.OwnerID)
	if !ok {
		return
	}
	want := s.opts.OwnerID
	if s.opts.NoOwnership {
		want = ""
	}
	check := func(when string) {
		if got := reg.OwnerID(); got != want {
			s.fail("OwnerID", "", fmt.Sprintf("returned %q %s, want %q", got, when, want), nil)
		}
	}
	check("after New")
	check("when asked again")
	if _, ok := s.records(reg, "New"); !ok {
		return
	}
	check("after Records")
	created := ep("owner-id."+zoneA, "192.0.2.5")
	if s.apply(reg, "create", &plan.Changes{Create: []*endpoint.Endpoint{created}}, created) {
		check("after ApplyChanges")
	}
}

func checkForeignRecordsNotOwned(s *session) {
	_, seen, _ := s.readForeign()
	for _, r := range seen {
		s.expectNotOurs(r, "Records", "a record written by someone else")
	}
}

// readForeign seeds the provider with records of others, builds a registry
// of the owner being checked and reads them through it. It returns the
// registry and the foreign records as the registry reports them, having
// failed for each it does not report; ok is false when a step failed.
func (s *session) readForeign() (reg registry.Registry, seen []*endpoint.Endpoint, ok bool) {
	foreign, ok := s.seedForeign()
	if !ok {
		return nil, nil, false
	}
	reg, ok = s.registry(s.opts.OwnerID)
	if !ok {
		return nil, nil, false
	}
	recs, ok := s.records(reg, "the provider was given records of others")
	if !ok {
		return nil, nil, false
	}
	for _, f := range foreign {
		r, found := find(recs, f)
		if !found && s.opts.Shared {
			// In shared mode a record set shared by others that this
			// owner does not contribute to is reported by SharedRecords
			// instead; as Records would, it is not ours.
			r, found = sharedRecord(reg, f)
		}
		if !found {
			s.fail("Records", keyOf(f), "does not report a record that exists in the provider", nil)
			continue
		}
		seen = append(seen, r)
	}
	return reg, seen, true
}

// sharedRecord returns the record set of f's key that reg reports through
// registry.SharedReporter, with the verdict of a record of somebody else.
func sharedRecord(reg registry.Registry, f *endpoint.Endpoint) (*endpoint.Endpoint, bool) {
	sr, ok := registry.As[registry.SharedReporter](reg)
	if !ok {
		return nil, false
	}
	for _, rec := range sr.SharedRecords() {
		if rec.Record != nil && rec.Key.DNSName == f.DNSName && rec.Key.RecordType == f.RecordType && rec.Key.SetIdentifier == f.SetIdentifier {
			r := rec.Record.DeepCopy()
			r.SetOwnership(endpoint.OwnedByOther)
			return r, true
		}
	}
	return nil, false
}

// expectNotOurs fails when r carries the registry's owner label or an
// ownership verdict that makes it ours (or, for a registry without
// ownership, any owner label, or a verdict other than ours: every record
// is the caller's there).
func (s *session) expectNotOurs(r *endpoint.Endpoint, op, what string) {
	owner, has := ownerOf(r)
	switch v := r.Ownership(); {
	case s.opts.NoOwnership && has:
		s.fail(op, keyOf(r), fmt.Sprintf("reports %s with owner label %q; a registry without ownership reports none", what, owner), nil)
	case s.opts.NoOwnership && v != endpoint.OwnedByUs:
		s.fail(op, keyOf(r), fmt.Sprintf("reports %s with the ownership verdict %q; a registry without ownership reports every record as %q", what, v, endpoint.OwnedByUs), nil)
	case s.opts.NoOwnership:
	case has && owner == s.opts.OwnerID:
		s.fail(op, keyOf(r), fmt.Sprintf("lends its owner label %q to %s", owner, what), nil)
	case v == endpoint.OwnershipUndecided:
		s.fail(op, keyOf(r), fmt.Sprintf("reports %s without an ownership verdict (endpoint.Endpoint.SetOwnership)", what), nil)
	case v.Mine():
		s.fail(op, keyOf(r), fmt.Sprintf("reports %s with the ownership verdict %q", what, v), nil)
	}
}

// expectOurs fails when r does not carry the registry's owner label and the
// verdict ours (or, for a registry without ownership, carries an owner
// label, or another verdict).
func (s *session) expectOurs(r *endpoint.Endpoint, op, what string) {
	owner, has := ownerOf(r)
	switch v := r.Ownership(); {
	case s.opts.NoOwnership && has:
		s.fail(op, keyOf(r), fmt.Sprintf("reports %s with owner label %q; a registry without ownership reports none", what, owner), nil)
	case !s.opts.NoOwnership && owner != s.opts.OwnerID:
		s.fail(op, keyOf(r), fmt.Sprintf("reports %s with owner label %q (set: %t), want %q", what, owner, has, s.opts.OwnerID), nil)
	case v != endpoint.OwnedByUs:
		s.fail(op, keyOf(r), fmt.Sprintf("reports %s with the ownership verdict %q, want %q", what, v, endpoint.OwnedByUs), nil)
	}
}

func checkOwnershipVerdict(s *session) {
	// A provider that returns its own owner label with a record (as
	// external-dns's coredns provider does) claims nothing by it (without
	// ownership, every record is the caller's anyway).
	const claimed = "claimed." + zoneA
	if !s.write(&plan.Changes{Create: []*endpoint.Endpoint{ep(claimed, "192.0.2.70")}}) {
		return
	}
	labelling := providertest.Intercept(s.p, providertest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			recs, err := next.Records(ctx)
			for _, r := range recs {
				if r != nil && r.DNSName == claimed {
					r.Labels.Set(endpoint.OwnerLabelKey, s.opts.OwnerID)
				}
			}
			return recs, err
		},
	})
	sp := s.p
	s.p = labelling
	reg, ok := s.seededRegistry()
	s.p = sp
	if !ok {
		return
	}
	recs, ok := s.records(reg, "seeding, with a provider that returns an owner label")
	if !ok {
		return
	}
	owners := endpoint.Owners{OwnerID: reg.OwnerID()}
	for _, r := range recs {
		v := r.Ownership()
		switch {
		case v == endpoint.OwnershipUndecided:
			s.fail("Records", keyOf(r), "returns a record without an ownership verdict (endpoint.Endpoint.SetOwnership)", nil)
		case v != owners.Verdict(r):
			owner, _ := ownerOf(r)
			s.fail("Records", keyOf(r), fmt.Sprintf("returns a record whose verdict %q contradicts the owner label %q it reports (the rule gives %q)",
				v, owner, owners.Verdict(r)), nil)
		}
		if r.DNSName == claimed && !s.opts.NoOwnership {
			s.expectNotOurs(r, "Records", "a record whose provider returned the registry's own owner label")
		}
	}
	if _, found := find(recs, ep(claimed)); !found {
		s.fail("Records", claimed+"/A", "does not report a record that exists in the provider", nil)
	}
}

func checkOrphanOwnershipNotLent(s *session) {
	if s.opts.NoOwnership {
		return // no ownership data, nothing to orphan
	}
	reg, ok := s.readRegistry()
	if !ok {
		return
	}
	created := ep("orphan."+zoneA, "192.0.2.10")
	if !s.apply(reg, "create", &plan.Changes{Create: []*endpoint.Endpoint{created}}, created) {
		return
	}
	raw, ok := s.rawRecords()
	if !ok {
		return
	}
	stored, found := find(raw, created)
	if !found {
		s.fail("ApplyChanges(create)", keyOf(created), "the record is not in the provider", nil)
		return
	}
	// Somebody deletes the record, leaving the ownership data; the
	// registry reads the zone and sees the ownership data orphaned.
	if !s.write(&plan.Changes{Delete: []*endpoint.Endpoint{stored}}) {
		return
	}
	if _, ok := s.records(reg, "the record was deleted behind the registry's back"); !ok {
		return
	}
	// Then somebody else writes a record of that name and type.
	intruder := ep(created.DNSName, "192.0.2.99")
	if !s.write(&plan.Changes{Create: []*endpoint.Endpoint{intruder}}) {
		return
	}
	recs, ok := s.records(reg, "someone else wrote a record where the registry's was")
	if !ok {
		return
	}
	if r, found := find(recs, intruder); found {
		s.expectNotOurs(r, "Records", "a record someone else wrote next to its orphaned ownership data")
	} else {
		s.fail("Records", keyOf(intruder), "does not report a record that exists in the provider", nil)
	}
}

func checkForeignChangesRefused(s *session) {
	if s.opts.NoOwnership {
		return // every record is the caller's
	}
	reg, seen, ok := s.readForeign()
	if !ok {
		return
	}
	for _, r := range seen {
		moved := r.DeepCopy()
		moved.Targets = endpoint.Targets{"192.0.2.200"}
		s.expectRefused(reg, "update", &plan.Changes{UpdateOld: []*endpoint.Endpoint{r}, UpdateNew: []*endpoint.Endpoint{moved}}, r)
		s.expectRefused(reg, "delete", &plan.Changes{Delete: []*endpoint.Endpoint{r}}, r)
	}
}

// expectRefused applies c, which changes a record the registry does not
// own, and fails unless the call fails with registry.ErrNotOwned and leaves
// the provider as it was.
func (s *session) expectRefused(reg registry.Registry, op string, c *plan.Changes, subject *endpoint.Endpoint) {
	before, ok := s.rawRecords()
	if !ok {
		return
	}
	err := reg.ApplyChanges(s.ctx, c)
	if !errors.Is(err, registry.ErrNotOwned) {
		s.fail("ApplyChanges("+op+")", keyOf(subject), "of a record the registry does not own did not fail with registry.ErrNotOwned", err)
	}
	after, ok := s.rawRecords()
	if ok && !sameRecords(before, after) {
		s.fail("ApplyChanges("+op+")", keyOf(subject), "of a record the registry does not own changed the provider", err)
	}
}

func checkOwnershipTravelsWithRecord(s *session) {
	plain := ep("plain."+zoneA, "192.0.2.1")
	if !s.write(&plan.Changes{Create: []*endpoint.Endpoint{plain}}) {
		return
	}
	reg, ok := s.registry(s.opts.OwnerID)
	if !ok {
		return
	}
	initial, ok := s.rawRecords()
	if !ok {
		return
	}
	hiddenBefore, ok := s.hidden(reg, "New")
	if !ok {
		return
	}
	created := ep("owned."+zoneA, "192.0.2.20")
	if !s.apply(reg, "create", &plan.Changes{Create: []*endpoint.Endpoint{created}}, created) {
		return
	}
	if !s.expectStored(created, "create") {
		return
	}
	hidden, ok := s.hidden(reg, "create")
	if !ok {
		return
	}
	switch added := len(hidden) - len(hiddenBefore); {
	case s.opts.NoOwnership && added != 0:
		s.fail("ApplyChanges(create)", keyOf(created), fmt.Sprintf("wrote %d record(s) beside it that Records does not report; a registry without ownership writes none", added), nil)
	case s.opts.OwnershipOutsideProvider && added != 0:
		s.fail("ApplyChanges(create)", keyOf(created), fmt.Sprintf("wrote %d record(s) beside it that Records does not report; a registry that keeps its ownership data outside the provider writes none", added), nil)
	case !s.opts.NoOwnership && !s.opts.OwnershipOutsideProvider && added <= 0:
		s.fail("ApplyChanges(create)", keyOf(created), "wrote no ownership data to the provider (no record beside it that Records does not report)", nil)
	}
	s.expectOwnedByNewRegistry(created, "create")

	recs, ok := s.records(reg, "create")
	if !ok {
		return
	}
	old, found := find(recs, created)
	if !found {
		s.fail("Records", keyOf(created), "does not report the record it created", nil)
		return
	}
	updated := old.DeepCopy()
	updated.Targets = endpoint.Targets{"192.0.2.21"}
	if !s.apply(reg, "update", &plan.Changes{UpdateOld: []*endpoint.Endpoint{old}, UpdateNew: []*endpoint.Endpoint{updated}}, old) {
		return
	}
	if !s.expectStored(ep(created.DNSName, "192.0.2.21"), "update") {
		return
	}
	s.expectOwnedByNewRegistry(created, "update")

	if recs, ok = s.records(reg, "update"); !ok {
		return
	}
	if old, found = find(recs, created); !found {
		s.fail("Records", keyOf(created), "does not report the record it updated", nil)
		return
	}
	if !s.apply(reg, "delete", &plan.Changes{Delete: []*endpoint.Endpoint{old}}, old) {
		return
	}
	if after, ok := s.rawRecords(); ok && !sameRecords(initial, after) {
		s.fail("ApplyChanges(delete)", keyOf(created), fmt.Sprintf("left the provider with %v, want %v as before the create (the record and its ownership data gone)", after, initial), nil)
	}
}

// expectStored fails unless the provider holds want (name, type, targets).
func (s *session) expectStored(want *endpoint.Endpoint, after string) bool {
	raw, ok := s.rawRecords()
	if !ok {
		return false
	}
	got, found := find(raw, want)
	if !found || !got.Targets.Same(want.Targets) {
		s.fail("ApplyChanges("+after+")", keyOf(want), fmt.Sprintf("the provider holds %v, want targets %v", got, want.Targets), nil)
		return false
	}
	return true
}

// expectOwnedByNewRegistry fails unless a registry built afresh over the
// provider, which can only know what the provider holds, reports the record
// with want's key as owned.
func (s *session) expectOwnedByNewRegistry(want *endpoint.Endpoint, after string) {
	fresh, ok := s.registry(s.opts.OwnerID)
	if !ok {
		return
	}
	recs, ok := s.records(fresh, after+" (read by a new registry)")
	if !ok {
		return
	}
	r, found := find(recs, want)
	if !found {
		s.fail("Records", keyOf(want), "a new registry does not report the record after "+after, nil)
		return
	}
	s.expectOurs(r, "Records", "its record, read by a new registry after "+after+",")
}

func checkPerZoneErrors(s *session) {
	reg, ok := s.readRegistry()
	if !ok {
		return
	}
	good := ep("per-zone."+zoneA, "192.0.2.40")
	bad := ep("per-zone."+zoneB, "192.0.2.41")
	s.failZone = zoneB
	err := reg.ApplyChanges(s.ctx, &plan.Changes{Create: []*endpoint.Endpoint{good, bad}})
	s.failZone = ""
	const op = "ApplyChanges(create in two zones)"
	if !errors.Is(err, providertest.ErrInjected) {
		s.fail(op, keyOf(bad), "does not return the provider's error for zone "+zoneB, err)
	}
	if zones := provider.FailedZones(err); !slices.Equal(zones, []string{zoneB}) {
		s.fail(op, keyOf(bad), fmt.Sprintf("the error names the failed zones %q (provider.ZoneError), want [%s]", zones, zoneB), err)
	}
	raw, ok := s.rawRecords()
	if !ok {
		return
	}
	if _, found := find(raw, bad); found {
		s.fail(op, keyOf(bad), "the record of the failing zone is in the provider", nil)
	}
	if _, found := find(raw, good); !found {
		s.fail(op, keyOf(good), "the record of the zone that did not fail was not applied", err)
		return
	}
	s.expectOwnedByNewRegistry(good, "a create whose other zone failed")
}

func checkSliceOwnership(s *session) {
	reg, ok := s.seededRegistry()
	if !ok {
		return
	}
	first, ok := s.records(reg, "seeding")
	if !ok {
		return
	}
	want := endpoint.DeepCopyAll(first)
	for _, r := range first {
		r.DNSName = "mutated." + r.DNSName
		if len(r.Targets) > 0 {
			r.Targets[0] = "192.0.2.254"
		}
		r.Labels.Set(endpoint.OwnerLabelKey, "registrytest-mutant")
		r.Labels.Set("registrytest-mutated", "true")
		r.SetProviderSpecificProperty("registrytest/mutated", "true")
	}
	second, ok := s.records(reg, "the caller changed the records of the previous call")
	if !ok {
		return
	}
	if !sameRecords(want, second) {
		s.fail("Records", "", fmt.Sprintf("changing what Records returned changed the next result: got %v, want %v", second, want), nil)
	}
	// No two records of one result share their labels.
	if len(second) > 1 {
		second[0].Labels.Set("registrytest-only-here", "true")
		for _, r := range second[1:] {
			if _, shared := r.Labels.Get("registrytest-only-here"); shared {
				s.fail("Records", keyOf(r), "shares its labels with "+keyOf(second[0]), nil)
			}
		}
	}
}

// seededRegistry returns a registry over a provider holding records of
// every kind: written directly, of another owner, and created by the
// registry itself.
func (s *session) seededRegistry() (registry.Registry, bool) {
	if _, ok := s.seedForeign(); !ok {
		return nil, false
	}
	reg, ok := s.readRegistry()
	if !ok {
		return nil, false
	}
	ours := []*endpoint.Endpoint{ep("ours-1."+zoneA, "192.0.2.50"), ep("ours-2."+zoneA, "192.0.2.51", "192.0.2.52")}
	if !s.apply(reg, "create", &plan.Changes{Create: ours}, ours[0]) {
		return nil, false
	}
	return reg, true
}

func checkAdjustEndpoints(s *session) {
	reg, ok := s.registry(s.opts.OwnerID)
	if !ok {
		return
	}
	in := []*endpoint.Endpoint{
		endpoint.NewEndpoint("adjust-1."+zoneA, endpoint.RecordTypeA, "192.0.2.60"),
		ep("adjust-2."+zoneA, "192.0.2.61").WithLabel("resource", "registrytest").WithProviderSpecific("registrytest/property", "1"),
		endpoint.NewEndpointWithTTL("adjust-3."+zoneA, endpoint.RecordTypeCNAME, 60, "adjust-1."+zoneA),
	}
	pointers := slices.Clone(in)
	want := endpoint.DeepCopyAll(in)
	if _, err := reg.AdjustEndpoints(s.ctx, in); err != nil {
		s.fail("AdjustEndpoints", "", "failed", err)
	}
	for i := range in {
		if in[i] != pointers[i] {
			s.fail("AdjustEndpoints", keyOf(want[i]), "replaced an element of the slice it was given", nil)
		} else if !in[i].Equal(want[i]) {
			s.fail("AdjustEndpoints", keyOf(want[i]), fmt.Sprintf("modified an endpoint it was given: %v, was %v", in[i], want[i]), nil)
		}
	}
}

func checkSortedRecords(s *session) {
	reg, ok := s.seededRegistry()
	if !ok {
		return
	}
	first, ok := s.records(reg, "seeding")
	if !ok {
		return
	}
	second, ok := s.records(reg, "a Records call")
	if !ok {
		return
	}
	if !sameRecords(first, second) {
		s.fail("Records", "", fmt.Sprintf("two calls without a write in between differ: %v, then %v", first, second), nil)
	}
	if !slices.IsSortedFunc(first, endpoint.Compare) {
		s.fail("Records", "", fmt.Sprintf("not sorted by name, set identifier and type: %v", first), nil)
	}
}
