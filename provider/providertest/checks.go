package providertest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

const (
	typeA     = endpoint.RecordTypeA
	typeTXT   = endpoint.RecordTypeTXT
	typeCNAME = endpoint.RecordTypeCNAME
)

func checkCreate(s *session) {
	eps := []*endpoint.Endpoint{
		ep(s.name("create-a"), typeA, 300, "192.0.2.10"),
		ep(s.name("create-txt"), typeTXT, 300, "zs-conformance-text"),
		ep(s.name("create-cname"), typeCNAME, 300, s.name("create-a")),
	}
	if !s.create(eps...) {
		return
	}
	recs, ok := s.records("create")
	if !ok {
		return
	}
	for _, want := range eps {
		s.expect(recs, want, "create")
	}
	for _, r := range recs {
		if r == nil {
			s.fail("Records", "", "returned a nil endpoint", nil)
		}
	}
}

func checkUpdateTargets(s *session) {
	old := ep(s.name("update-targets"), typeA, 300, "192.0.2.20")
	if !s.create(old) {
		return
	}
	updated := ep(old.DNSName, typeA, 300, "192.0.2.21")
	if !s.update(old, updated) {
		return
	}
	if recs, ok := s.records("update"); ok {
		s.expect(recs, updated, "update of the targets")
	}
}

func checkUpdateTTL(s *session) {
	old := ep(s.name("update-ttl"), typeA, 300, "192.0.2.25")
	if !s.create(old) {
		return
	}
	if recs, ok := s.records("create"); ok {
		s.expect(recs, old, "create")
	}
	updated := ep(old.DNSName, typeA, 600, "192.0.2.25")
	if !s.update(old, updated) {
		return
	}
	if recs, ok := s.records("update"); ok {
		s.expect(recs, updated, "update of the TTL from 300 to 600")
	}
}

func checkDelete(s *session) {
	gone := ep(s.name("delete-a"), typeA, 300, "192.0.2.30")
	kept := ep(s.name("delete-b"), typeA, 300, "192.0.2.31")
	gtxt := ep(s.name("delete-a"), typeTXT, 300, "zs-conformance-text")
	if !s.create(gone, kept, gtxt) {
		return
	}
	if !s.apply("delete", &plan.Changes{Delete: []*endpoint.Endpoint{gone.DeepCopy(), gtxt.DeepCopy()}}, gone) {
		return
	}
	if recs, ok := s.records("delete"); ok {
		s.expectAbsent(recs, gone, "delete")
		s.expectAbsent(recs, gtxt, "delete")
		s.expect(recs, kept, "deleting another record")
	}
}

func checkMultiTarget(s *session) {
	multi := ep(s.name("multi"), typeA, 300, "192.0.2.40", "192.0.2.41", "192.0.2.42")
	txt := ep(s.name("multi"), typeTXT, 300, "zs-one", "zs-two")
	if !s.create(multi, txt) {
		return
	}
	if recs, ok := s.records("create"); ok {
		s.expect(recs, multi, "create with three targets")
		s.expect(recs, txt, "create with two targets")
	}
	updated := ep(multi.DNSName, typeA, 300, "192.0.2.43", "192.0.2.41")
	if !s.update(multi, updated) {
		return
	}
	if recs, ok := s.records("update"); ok {
		s.expect(recs, updated, "update from three targets to two")
	}
}

func checkSetIdentifier(s *session) {
	name := s.name("set-identifier")
	eu := ep(name, typeA, 300, "192.0.2.50").WithSetIdentifier("zs-eu")
	us := ep(name, typeA, 300, "192.0.2.51").WithSetIdentifier("zs-us")
	if !s.create(eu, us) {
		return
	}
	if recs, ok := s.records("create"); ok {
		s.expect(recs, eu, "create of two set identifiers")
		s.expect(recs, us, "create of two set identifiers")
		s.expectAbsent(recs, ep(name, typeA, 0), "create of records with set identifiers only")
	}
	eu2 := ep(name, typeA, 300, "192.0.2.52").WithSetIdentifier("zs-eu")
	if !s.update(eu, eu2) {
		return
	}
	if recs, ok := s.records("update"); ok {
		s.expect(recs, eu2, "update of one set identifier")
		s.expect(recs, us, "update of another set identifier")
	}
	if !s.apply("delete", &plan.Changes{Delete: []*endpoint.Endpoint{us.DeepCopy()}}, us) {
		return
	}
	if recs, ok := s.records("delete"); ok {
		s.expectAbsent(recs, us, "delete")
		s.expect(recs, eu2, "delete of another set identifier")
	}
}

func checkDomainFilter(s *session) {
	f := s.p.GetDomainFilter()
	if f == nil {
		s.fail("GetDomainFilter", "", "returned nil; return an empty *endpoint.DomainFilter to match every name", nil)
	} else {
		for _, n := range []string{s.cfg.zone, s.name("filter"), strings.ToUpper(s.name("filter")) + "."} {
			if !f.Match(n) {
				s.fail("GetDomainFilter", n, "filter does not match a name in the zone the provider manages", nil)
			}
		}
	}
}

func checkAdjustEndpoints(s *session) {
	in := []*endpoint.Endpoint{
		ep(s.name("adjust"), typeA, 300, "192.0.2.60"),
		ep(s.name("adjust"), typeTXT, 300, "zs-conformance-text"),
	}
	before := make([]*endpoint.Endpoint, len(in))
	for i, e := range in {
		before[i] = e.DeepCopy()
	}
	out, err := s.p.AdjustEndpoints(s.ctx, in)
	if err != nil {
		s.fail("AdjustEndpoints", keyOf(in[0]), "failed on valid endpoints", err)
		return
	}
	for i := range in {
		if !in[i].Equal(before[i]) {
			s.fail("AdjustEndpoints", keyOf(before[i]), fmt.Sprintf("modified its input (now %v); copy before changing", in[i]), nil)
		}
		if len(find(out, before[i])) == 0 {
			s.fail("AdjustEndpoints", keyOf(before[i]), "dropped a valid endpoint", nil)
		}
	}
	// The adjusted endpoints must be accepted.
	if s.create(out...) {
		if recs, ok := s.records("create of adjusted endpoints"); ok {
			for _, e := range before {
				if len(find(recs, e)) == 0 {
					s.fail("Records", keyOf(e), "adjusted endpoint missing after create", nil)
				}
			}
		}
	}
}

func checkCreateExisting(s *session) {
	first := ep(s.name("existing"), typeA, 300, "192.0.2.70")
	if !s.create(first) {
		return
	}
	second := ep(first.DNSName, typeA, 600, "192.0.2.71")
	err := s.p.ApplyChanges(s.ctx, &plan.Changes{Create: []*endpoint.Endpoint{second}})
	switch {
	case err == nil && !s.cfg.upsert:
		s.fail("ApplyChanges(create)", keyOf(second), "creating an existing record succeeded; it must fail (declare Options.Upsert if the provider replaces the record)", nil)
	case err == nil:
		if recs, ok := s.records("create of an existing record"); ok {
			s.expect(recs, second, "an upsert create of an existing record")
		}
	default:
		if s.cfg.upsert {
			s.fail("ApplyChanges(create)", keyOf(second), "creating an existing record failed; a provider declared Options.Upsert must replace it", err)
		}
		if recs, ok := s.records("create of an existing record"); ok {
			s.expect(recs, first, "a failed create of an existing record")
		}
	}
}

func checkChangeMissing(s *session) {
	missing := ep(s.name("missing"), typeA, 300, "192.0.2.80")
	if err := s.p.ApplyChanges(s.ctx, &plan.Changes{Delete: []*endpoint.Endpoint{missing}}); err == nil {
		s.fail("ApplyChanges(delete)", keyOf(missing), "deleting a missing record succeeded; it must fail", nil)
	}
	oldEp := ep(s.name("missing-update"), typeA, 300, "192.0.2.81")
	newEp := ep(oldEp.DNSName, typeA, 300, "192.0.2.82")
	err := s.p.ApplyChanges(s.ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{oldEp}, UpdateNew: []*endpoint.Endpoint{newEp}})
	recs, ok := s.records("update of a missing record")
	switch {
	case err != nil:
		if ok {
			s.expectAbsent(recs, newEp, "a rejected update of a missing record")
		}
	case s.cfg.upsert:
		// An upsert provider may create the record.
		if ok {
			s.expect(recs, newEp, "an upsert update of a missing record that succeeded")
		}
	default:
		s.fail("ApplyChanges(update)", keyOf(oldEp), "updating a missing record succeeded; it must fail", nil)
	}
}

// checkOrder reports the first pair of records out of order.
func (s *session) checkOrder(recs []*endpoint.Endpoint, after string) {
	for i := 1; i < len(recs); i++ {
		a, b := recs[i-1], recs[i]
		if a == nil || b == nil {
			s.fail("Records", "", "returned a nil endpoint", nil)
			return
		}
		if endpoint.Compare(a, b) > 0 {
			s.fail("Records", keyOf(b), fmt.Sprintf("not sorted by (DNSName, SetIdentifier, RecordType) after %s: %s comes before it", after, keyOf(a)), nil)
			return
		}
	}
}

func checkSortedRecords(s *session) {
	eps := []*endpoint.Endpoint{
		ep(s.name("sort-c"), typeA, 300, "192.0.2.90"),
		ep(s.name("sort-a"), typeTXT, 300, "zs-conformance-text"),
		ep(s.name("sort-b"), typeA, 300, "192.0.2.91"),
		ep(s.name("sort-a"), typeA, 300, "192.0.2.92"),
	}
	if s.cfg.setIdentifier {
		eps = append(eps,
			ep(s.name("sort-a"), typeA, 300, "192.0.2.93").WithSetIdentifier("zs-2"),
			ep(s.name("sort-a"), typeA, 300, "192.0.2.94").WithSetIdentifier("zs-1"),
		)
	}
	if !s.create(eps...) {
		return
	}
	recs, ok := s.records("create")
	if !ok {
		return
	}
	if len(recs) < len(eps) {
		s.fail("Records", "", fmt.Sprintf("returned %d records after creating %d", len(recs), len(eps)), nil)
	}
	s.checkOrder(recs, "create")
	more := []*endpoint.Endpoint{
		ep(s.name("sort-0"), typeA, 300, "192.0.2.95"),
		ep(s.name("sort-bb"), typeTXT, 300, "zs-conformance-text"),
	}
	if !s.create(more...) {
		return
	}
	if recs, ok := s.records("a second create"); ok {
		s.checkOrder(recs, "a second create")
	}
}

func checkSliceOwnership(s *session) {
	a := ep(s.name("copies-a"), typeA, 300, "192.0.2.100", "192.0.2.101")
	b := ep(s.name("copies-b"), typeA, 300, "192.0.2.102")
	want := []*endpoint.Endpoint{a.DeepCopy(), b.DeepCopy()}

	changes := &plan.Changes{Create: []*endpoint.Endpoint{a, b}}
	if !s.apply("create", changes, a) {
		return
	}
	for i, e := range changes.Create {
		if len(changes.Create) != len(want) || !e.Equal(want[i]) {
			s.fail("ApplyChanges(create)", keyOf(want[min(i, len(want)-1)]), "modified the changes it was given", nil)
			break
		}
	}
	// The provider must not keep the caller's endpoints.
	a.Targets[0] = "198.51.100.1"
	a.RecordTTL = 1
	b.DNSName = s.name("copies-mutated")
	recs, ok := s.records("mutating applied endpoints")
	if !ok {
		return
	}
	for _, w := range want {
		s.expect(recs, w, "the caller mutated the endpoints it had applied")
	}

	// Mutating one result must not change the next, and appending to one
	// endpoint's targets must not overwrite another's.
	var own []*endpoint.Endpoint
	var snap []endpoint.Targets
	for _, r := range recs {
		if s.owns(r) {
			own = append(own, r)
			snap = append(snap, append(endpoint.Targets(nil), r.Targets...))
		}
	}
	mine := len(own)
	for i, r := range own {
		r.Targets = append(r.Targets, "198.51.100.2")
		for j, other := range own {
			if j != i && !slices.Equal(other.Targets[:len(snap[j])], snap[j]) {
				s.fail("Records", keyOf(other), "appending to the targets of "+keyOf(r)+" changed this endpoint's targets: returned endpoints share memory", nil)
			}
		}
	}
	for _, r := range own {
		r.Targets[0] = "198.51.100.3"
		r.RecordTTL = 2
		r.SetProviderSpecificProperty("zs-conformance", "mutated")
		r.WithLabel("zs-conformance", "mutated")
	}
	if mine != len(want) {
		s.fail("Records", "", fmt.Sprintf("returned %d of the %d records created", mine, len(want)), nil)
	}
	for i := range recs {
		recs[i] = nil
	}
	again, ok := s.records("the caller mutated the previous result")
	if !ok {
		return
	}
	for _, w := range want {
		s.expect(again, w, "the caller mutated the previous result")
		for _, g := range find(again, w) {
			if _, set := g.GetProviderSpecificProperty("zs-conformance"); set {
				s.fail("Records", keyOf(w), "provider-specific properties of a previous result show through", nil)
			}
			if _, set := g.Labels.Get("zs-conformance"); set {
				s.fail("Records", keyOf(w), "labels of a previous result show through", nil)
			}
		}
	}
}

func checkContext(s *session) {
	ctx, cancel := context.WithCancel(s.ctx)
	cancel()
	if _, err := s.p.Records(ctx); err == nil {
		s.fail("Records", "", "succeeded with a cancelled context; it must fail", nil)
	} else if !errors.Is(err, context.Canceled) {
		s.fail("Records", "", "error for a cancelled context does not wrap context.Canceled", err)
	}
	e := ep(s.name("canceled"), typeA, 300, "192.0.2.110")
	if err := s.p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{e}}); err == nil {
		s.fail("ApplyChanges(create)", keyOf(e), "succeeded with a cancelled context; it must fail", nil)
	} else if !errors.Is(err, context.Canceled) {
		s.fail("ApplyChanges(create)", keyOf(e), "error for a cancelled context does not wrap context.Canceled", err)
	}
	if recs, ok := s.records("ApplyChanges with a cancelled context"); ok {
		s.expectAbsent(recs, e, "ApplyChanges with a cancelled context")
	}
}

func checkConcurrency(s *session) {
	n := s.cfg.concurrency
	created := make([]*endpoint.Endpoint, n)
	updated := make([]*endpoint.Endpoint, n)
	for i := range n {
		created[i] = ep(s.name(fmt.Sprintf("concurrent-%d", i)), typeA, 300, fmt.Sprintf("192.0.2.%d", 120+i%100))
		updated[i] = ep(created[i].DNSName, typeA, 300, fmt.Sprintf("198.51.100.%d", i%250))
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if !s.create(created[i]) {
				return
			}
			if _, err := s.p.Records(s.ctx); err != nil {
				s.fail("Records", "", "failed during concurrent changes", err)
			}
			s.update(created[i], updated[i])
		})
	}
	wg.Wait()
	recs, ok := s.records("concurrent creates and updates")
	if !ok {
		return
	}
	for _, u := range updated {
		s.expect(recs, u, "concurrent creates and updates")
	}
	for i := range n {
		wg.Go(func() {
			s.apply("delete", &plan.Changes{Delete: []*endpoint.Endpoint{updated[i].DeepCopy()}}, updated[i])
		})
	}
	wg.Wait()
	if recs, ok := s.records("concurrent deletes"); ok {
		for _, u := range updated {
			s.expectAbsent(recs, u, "concurrent deletes")
		}
	}
}

// checkZones checks the optional zones capability: a provider that lists
// its zones ([provider.ZonesOf]) lists one that holds the suite's names,
// since callers send each zone's changes in a call of their own.
func checkZones(s *session) {
	zones, ok, err := provider.ZonesOf(s.ctx, s.p)
	if !ok {
		return // the capability is optional
	}
	if err != nil {
		s.fail("ListZones", "", "failed", err)
		return
	}
	m := provider.NewZoneMatcher(zones...)
	for _, n := range []string{s.cfg.zone, s.name("zones")} {
		if _, ok := m.Zone(n); !ok {
			s.fail("ListZones", n, fmt.Sprintf("no listed zone holds this name (zones: %v)", zones), nil)
		}
	}
}

// checkVisitRecords checks the optional record visitor: what VisitRecords
// shows (copied during each call, as a caller must) is what Records
// returns, in the same order, and an error of the visitor stops the walk
// and comes back.
func checkVisitRecords(s *session) {
	v, ok := s.p.(provider.RecordVisitor)
	if !ok {
		return
	}
	eps := []*endpoint.Endpoint{
		ep(s.name("visit-a"), typeA, 300, "192.0.2.110", "192.0.2.111"),
		ep(s.name("visit-a"), typeTXT, 300, "zs-conformance-text"),
		ep(s.name("visit-b"), typeA, 300, "192.0.2.112"),
	}
	if s.cfg.setIdentifier {
		eps = append(eps, ep(s.name("visit-b"), typeA, 300, "192.0.2.113").WithSetIdentifier("zs-1"))
	}
	if !s.create(eps...) {
		return
	}
	recs, ok := s.records("create")
	if !ok {
		return
	}
	var seen []*endpoint.Endpoint
	if err := v.VisitRecords(s.ctx, func(e *endpoint.Endpoint) error {
		seen = append(seen, e.DeepCopy())
		return nil
	}); err != nil {
		s.fail("VisitRecords", "", "failed where Records succeeded", err)
		return
	}
	if got, want := recordLines(seen), recordLines(recs); !slices.Equal(got, want) {
		s.fail("VisitRecords", "", fmt.Sprintf("showed %d records that differ from the %d of Records:\n%s\nRecords:\n%s",
			len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n")), nil)
	}

	stop := errors.New("providertest: stop")
	calls := 0
	err := v.VisitRecords(s.ctx, func(*endpoint.Endpoint) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) {
		s.fail("VisitRecords", "", "did not return the error of the visitor", err)
	}
	if calls != 1 {
		s.fail("VisitRecords", "", fmt.Sprintf("called the visitor %d times after it returned an error on the first record", calls), nil)
	}
}

// recordLines renders records one line each, every field included.
func recordLines(eps []*endpoint.Endpoint) []string {
	out := make([]string, 0, len(eps))
	for _, e := range eps {
		if e == nil {
			out = append(out, "<nil>")
			continue
		}
		out = append(out, fmt.Sprintf("%s %s %q ttl=%d targets=%q labels=%s ps=%v",
			e.DNSName, e.RecordType, e.SetIdentifier, e.RecordTTL, []string(e.Targets), e.Labels, e.ProviderSpecific))
	}
	return out
}
