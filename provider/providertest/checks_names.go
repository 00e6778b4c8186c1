package providertest

import (
	"fmt"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// checkReadAfterWrite reads before every write, so that a provider that
// serves reads from a cache it does not refresh after its own writes is
// caught: once ApplyChanges has returned nil, the next Records must show
// the change.
func checkReadAfterWrite(s *session) {
	const after = "ApplyChanges returned nil; the next Records must show the change"
	rec := ep(s.name("read-after-write"), typeA, 300, "192.0.2.150")
	if _, ok := s.records("nothing was written (first read)"); !ok {
		return
	}
	if !s.create(rec) {
		return
	}
	if recs, ok := s.records("create"); ok {
		s.expect(recs, rec, "a create for which "+after)
	}
	updated := ep(rec.DNSName, typeA, 300, "192.0.2.151")
	if !s.update(rec, updated) {
		return
	}
	if recs, ok := s.records("update"); ok {
		s.expect(recs, updated, "an update for which "+after)
	}
	if !s.apply("delete", &plan.Changes{Delete: []*endpoint.Endpoint{updated.DeepCopy()}}, updated) {
		return
	}
	if recs, ok := s.records("delete"); ok {
		s.expectAbsent(recs, updated, "a delete for which "+after)
	}
	again := ep(rec.DNSName, typeA, 300, "192.0.2.152")
	if !s.create(again) {
		return
	}
	if recs, ok := s.records("create of a deleted record"); ok {
		s.expect(recs, again, "a create of a deleted record for which "+after)
	}
}

// mixedCase returns name with every other letter upper case.
func mixedCase(name string) string {
	b := []byte(name)
	for i, c := range b {
		if i%2 == 0 && c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// titleCase returns name with the first letter of every label upper case.
func titleCase(name string) string {
	b := []byte(name)
	for i, c := range b {
		if (i == 0 || b[i-1] == '.') && c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// expectCanonicalNames reports every record whose name is not in the form
// of the provider contract: lower-case A-labels without a trailing dot
// ([endpoint.ToALabel]).
func (s *session) expectCanonicalNames(recs []*endpoint.Endpoint, after string) {
	for _, r := range recs {
		if r == nil {
			s.fail("Records", "", "returned a nil endpoint", nil)
			continue
		}
		if want := endpoint.ToALabel(r.DNSName); r.DNSName != want {
			s.fail("Records", keyOf(r), fmt.Sprintf("name %q is not in lower-case A-label form without a trailing dot after %s (want %q)", r.DNSName, after, want), nil)
		}
	}
}

// checkNameNormalisation writes one record under several spellings of its
// name: the provider must store it once under the canonical name (lower
// case, no trailing dot), return that name, and find the record whatever
// the spelling of an update or delete.
func checkNameNormalisation(s *session) {
	canon := s.name("mixed-case")
	spelled := mixedCase(canon) + "."
	if !s.create(ep(spelled, typeA, 300, "192.0.2.160")) {
		return
	}
	after := "create of " + spelled
	if recs, ok := s.records(after); ok {
		s.expectCanonicalNames(recs, after)
		s.expect(recs, ep(canon, typeA, 300, "192.0.2.160"), after)
	}

	upper := strings.ToUpper(canon)
	updated := ep(upper+".", typeA, 300, "192.0.2.161")
	if s.update(ep(upper, typeA, 300, "192.0.2.160"), updated) {
		after = "update addressed as " + upper
		if recs, ok := s.records(after); ok {
			s.expectCanonicalNames(recs, after)
			s.expect(recs, ep(canon, typeA, 300, "192.0.2.161"), after)
		}
	}

	title := titleCase(canon) + "."
	if s.apply("delete", &plan.Changes{Delete: []*endpoint.Endpoint{ep(title, typeA, 300, "192.0.2.161")}}, ep(title, typeA, 0)) {
		if recs, ok := s.records("delete addressed as " + title); ok {
			s.expectAbsent(recs, ep(canon, typeA, 0), "delete addressed as "+title)
		}
	}
}

// sameName reports whether a and b name the same domain in any form
// (case, trailing dot, A-label or Unicode).
func sameName(a, b string) bool {
	return endpoint.ToALabel(a) == endpoint.ToALabel(b)
}

// expectName checks that want is returned under exactly its name; when it
// is not, it looks for the record under another form of the name (with
// match) and names that form.
func (s *session) expectName(recs []*endpoint.Endpoint, want *endpoint.Endpoint, after, rule string, match func(got string) bool) {
	if len(find(recs, want)) > 0 {
		s.expect(recs, want, after)
		return
	}
	for _, r := range recs {
		if s.owns(r) && r.RecordType == want.RecordType && r.SetIdentifier == want.SetIdentifier && match(r.DNSName) {
			s.fail("Records", keyOf(want), fmt.Sprintf("name came back as %q after %s; %s", r.DNSName, after, rule), nil)
			return
		}
	}
	s.fail("Records", keyOf(want), "record missing after "+after, nil)
}

// punycodeLabel is the A-label of "münchen".
const punycodeLabel = "xn--mnchen-3ya"

// checkPunycodeNames writes a name holding an A-label, in the canonical
// form zonesync uses on the wire: it must come back unchanged, not
// converted to Unicode.
func checkPunycodeNames(s *session) {
	rec := ep(s.prefix+"idn."+punycodeLabel+"."+s.cfg.zone, typeA, 300, "192.0.2.170")
	if !s.create(rec) {
		return
	}
	const rule = "a name in lower-case A-label form must come back unchanged"
	if recs, ok := s.records("create"); ok {
		s.expectName(recs, rec, "create", rule, func(got string) bool { return sameName(got, rec.DNSName) })
	}
	if !s.apply("delete", &plan.Changes{Delete: []*endpoint.Endpoint{rec.DeepCopy()}}, rec) {
		return
	}
	if recs, ok := s.records("delete"); ok {
		for _, r := range recs {
			if s.owns(r) && r.RecordType == typeA && sameName(r.DNSName, rec.DNSName) {
				s.fail("Records", keyOf(rec), fmt.Sprintf("record present after delete (as %q)", r.DNSName), nil)
			}
		}
	}
}

// checkWildcardNames writes records under a wildcard name: they must come
// back under the same name, with "*" as the first label (not escaped), and
// be updated and deleted through it.
func checkWildcardNames(s *session) {
	base := s.name("wildcard")
	a := ep("*."+base, typeA, 300, "192.0.2.180")
	txt := ep("*."+base, typeTXT, 300, "zs-conformance-wildcard")
	if !s.create(a, txt) {
		return
	}
	const rule = `a wildcard name must come back with "*" as its first label`
	otherForm := func(got string) bool {
		n := canonicalName(got)
		return n != base && strings.HasSuffix(n, "."+base)
	}
	if recs, ok := s.records("create"); ok {
		s.expectName(recs, a, "create", rule, otherForm)
		s.expectName(recs, txt, "create", rule, otherForm)
		s.expectAbsent(recs, ep(base, typeA, 0), "create of a wildcard below it")
	}
	updated := ep(a.DNSName, typeA, 300, "192.0.2.181")
	if !s.update(a, updated) {
		return
	}
	if recs, ok := s.records("update"); ok {
		s.expectName(recs, updated, "update", rule, otherForm)
	}
	if !s.apply("delete", &plan.Changes{Delete: []*endpoint.Endpoint{updated.DeepCopy(), txt.DeepCopy()}}, updated) {
		return
	}
	if recs, ok := s.records("delete"); ok {
		s.expectAbsent(recs, updated, "delete")
		s.expectAbsent(recs, txt, "delete")
	}
}
