package providertest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// expectExact checks that want is stored once and that its targets are
// exactly those written, byte for byte (in any order).
func (s *session) expectExact(recs []*endpoint.Endpoint, want *endpoint.Endpoint, after string) {
	one, ok := s.findOne(recs, want, after)
	if !ok {
		return
	}
	g := slices.Sorted(slices.Values(one.Targets))
	w := slices.Sorted(slices.Values(want.Targets))
	if len(g) != len(w) {
		s.fail("Records", keyOf(want), fmt.Sprintf("%d targets after %s, want %d: %s", len(g), after, len(w), describeTargets(g)), nil)
		return
	}
	for i := range w {
		if g[i] != w[i] {
			s.fail("Records", keyOf(want), fmt.Sprintf("value changed after %s: %s", after, describeDiff(g[i], w[i])), nil)
		}
	}
}

// describeDiff says where got first differs from want, quoting short
// values in full and long ones around the difference.
func describeDiff(got, want string) string {
	const short = 80
	if len(got) <= short && len(want) <= short {
		return fmt.Sprintf("got %q, want %q", got, want)
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-20)
	return fmt.Sprintf("got %d bytes, want %d; first difference at byte %d: got %q, want %q",
		len(got), len(want), i, excerpt(got, from), excerpt(want, from))
}

func excerpt(v string, from int) string {
	if from >= len(v) {
		return ""
	}
	return v[from:min(len(v), from+40)]
}

func describeTargets(ts []string) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		if len(t) > 40 {
			parts[i] = fmt.Sprintf("%q… (%d bytes)", t[:40], len(t))
		} else {
			parts[i] = fmt.Sprintf("%q", t)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func checkTXTQuotes(s *session) {
	// Values that need escaping in DNS presentation format; a provider
	// must store and return them byte for byte.
	values := []string{
		`"heritage=external-dns,external-dns/owner=zs-conformance"`,
		`zs "embedded" quotes`,
		`zs-trailing-quote"`,
		`"zs-leading-quote`,
		`zs \"backslash-escaped\" quotes`,
		`zs-back\slash`,
	}
	eps := make([]*endpoint.Endpoint, len(values))
	for i, v := range values {
		eps[i] = ep(s.name(fmt.Sprintf("txt-quotes-%d", i)), typeTXT, 300, v)
	}
	if !s.create(eps...) {
		return
	}
	if recs, ok := s.records("create"); ok {
		for _, want := range eps {
			s.expectExact(recs, want, "create")
		}
	}
	updated := ep(eps[0].DNSName, typeTXT, 300, `"heritage=external-dns,external-dns/owner=zs-conformance,external-dns/resource=service/default/zs"`)
	if !s.update(eps[0], updated) {
		return
	}
	if recs, ok := s.records("update"); ok {
		s.expectExact(recs, updated, "update")
	}
}

// longTXTValue returns a value of n bytes made of words, with a quoted
// phrase from byte 250 on, across byte 255 where DNS splits a TXT value
// into character strings. It ends with a dot.
func longTXTValue(n int, word string) string {
	var b strings.Builder
	for i := 0; b.Len() < 250; i++ {
		fmt.Fprintf(&b, "%s-%d ", word, i)
	}
	v := b.String()[:250] + `a "quoted" phrase `
	b.Reset()
	b.WriteString(v)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%s-%d ", word, i)
	}
	out := []byte(b.String()[:n])
	out[n-1] = '.'
	return string(out)
}

func checkTXTLongValues(s *session) {
	var eps []*endpoint.Endpoint
	for _, n := range []int{255, 256, 700} {
		eps = append(eps, ep(s.name(fmt.Sprintf("txt-long-%d", n)), typeTXT, 300, longTXTValue(n, "zs-long")))
	}
	if !s.create(eps...) {
		return
	}
	if recs, ok := s.records("create"); ok {
		for _, want := range eps {
			s.expectExact(recs, want, fmt.Sprintf("create of a %d-byte value", len(want.Targets[0])))
		}
	}
	last := eps[len(eps)-1]
	updated := ep(last.DNSName, typeTXT, 300, longTXTValue(600, "zs-updated"))
	if !s.update(last, updated) {
		return
	}
	if recs, ok := s.records("update"); ok {
		s.expectExact(recs, updated, "update to a 600-byte value")
	}
}

// unknownProperties are provider-specific properties that no provider
// knows: the TXT registry's force-update flag, another provider's property
// and an invented one.
func unknownProperties(e *endpoint.Endpoint) *endpoint.Endpoint {
	return e.DeepCopy().
		WithProviderSpecific(endpoint.ProviderSpecificForceUpdate, "true").
		WithProviderSpecific("webhook/foo", "bar").
		WithProviderSpecific("zs-conformance/unknown", "1")
}

// checkUnknownProviderSpecific sends UpdateOld and Delete entries with
// provider-specific properties the provider does not know: they identify
// the record and must be ignored.
func checkUnknownProviderSpecific(s *session) {
	rec := ep(s.name("unknown-properties"), typeA, 300, "192.0.2.190")
	if !s.create(rec) {
		return
	}
	oldEp := unknownProperties(rec)
	updated := ep(rec.DNSName, typeA, 300, "192.0.2.191")
	const ignored = "unknown provider-specific properties (txt/force-update, webhook/foo) must be ignored"
	err := s.p.ApplyChanges(s.ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{oldEp}, UpdateNew: []*endpoint.Endpoint{updated}})
	if err != nil {
		s.fail("ApplyChanges(update)", keyOf(oldEp), "failed for an UpdateOld entry with "+ignored, err)
	} else if recs, ok := s.records("update"); ok {
		s.expect(recs, updated, "an update whose UpdateOld entry has unknown provider-specific properties")
	}
	current := rec
	if err == nil {
		current = updated
	}
	del := unknownProperties(current)
	if err := s.p.ApplyChanges(s.ctx, &plan.Changes{Delete: []*endpoint.Endpoint{del}}); err != nil {
		s.fail("ApplyChanges(delete)", keyOf(del), "failed for a Delete entry with "+ignored, err)
		return
	}
	if recs, ok := s.records("delete"); ok {
		s.expectAbsent(recs, del, "a delete whose entry has unknown provider-specific properties")
	}
}
