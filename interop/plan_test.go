package interop

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xplan "sigs.k8s.io/external-dns/plan"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// planCases is the number of random cases of TestPlanAgreement.
const planCases = 5000

// planInput is one random planning problem.
type planInput struct {
	current, desired []*endpoint.Endpoint
	ownerID          string
	include, exclude []string
	managed          []string
}

func (in planInput) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ownerID=%q include=%q exclude=%q managed=%q\n", in.ownerID, in.include, in.exclude, in.managed)
	for _, ep := range in.current {
		fmt.Fprintf(&b, "  current %s labels=%v ps=%v\n", ep, maps.Collect(ep.Labels.All()), ep.ProviderSpecific)
	}
	for _, ep := range in.desired {
		fmt.Fprintf(&b, "  desired %s labels=%v ps=%v\n", ep, maps.Collect(ep.Labels.All()), ep.ProviderSpecific)
	}
	return b.String()
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// randomEndpoint draws one record. Known difference "valid-input-only"
// (docs/compatibility.md, Planning: invalid desired endpoint, white space
// in names): every name and target drawn is valid, so neither side drops
// or holds back an endpoint as invalid.
func randomEndpoint(r *rand.Rand) *endpoint.Endpoint {
	name := pick(r, "a", "b", "c", "d", "A", "www.b") + "." + pick(r, "example.com", "example.com", "example.com", "other.org")
	recordType := pick(r, "A", "A", "AAAA", "CNAME", "CNAME", "MX")
	var targets []string
	n := 1 + r.IntN(3)*r.IntN(2)
	for range n {
		switch recordType {
		case "A":
			// 9.0.0.1 and 10.0.0.2 are in one order as numbers, the
			// other as text: the conflict resolver must compare numbers.
			targets = append(targets, pick(r, "192.0.2.1", "192.0.2.2", "192.0.2.3", "9.0.0.1", "10.0.0.2"))
		case "AAAA":
			targets = append(targets, pick(r, "2001:db8::1", "2001:db8::2", "2001:db8::10", "::9"))
		case "CNAME":
			targets = append(targets, pick(r, "t1.example.net", "t2.example.net"))
		case "MX":
			targets = append(targets, pick(r, "10 mx1.example.net", "20 mx2.example.net"))
		}
	}
	if recordType == "CNAME" {
		targets = targets[:1]
	}
	slices.Sort(targets)
	targets = slices.Compact(targets)
	ep := endpoint.NewEndpointWithTTL(name, recordType, endpoint.TTL(pick(r, 0, 0, 300, 600)), targets...)
	ep.SetIdentifier = pick(r, "", "", "", "s1", "s2")
	switch r.IntN(6) {
	case 0:
		ep.WithProviderSpecific("aws/weight", pick(r, "1", "2"))
	case 1:
		if recordType != "MX" { // alias is valid on A, AAAA and CNAME only
			ep.WithProviderSpecific("alias", "true")
		}
	}
	return ep
}

func randomInput(r *rand.Rand) planInput {
	in := planInput{ownerID: pick(r, "me", "me", "me", "")}
	// Known difference "unique-current" (docs/compatibility.md, Planning:
	// several records for one name, type and set identifier): a provider
	// holds at most one record per (name, set identifier, type), compared
	// in lower case.
	seen := map[string]bool{}
	for range r.IntN(7) {
		ep := randomEndpoint(r)
		k := Key(ep.DNSName, ep.SetIdentifier, ep.RecordType)
		if seen[k] {
			continue
		}
		seen[k] = true
		switch r.IntN(4) {
		case 0, 1:
			ep.WithLabel(endpoint.OwnerLabelKey, "me")
		case 2:
			ep.WithLabel(endpoint.OwnerLabelKey, "other")
		}
		if r.IntN(2) == 0 {
			ep.WithLabel(endpoint.ResourceLabelKey, pick(r, "r1", "r2", "r3"))
		}
		in.current = append(in.current, ep)
	}
	for range r.IntN(7) {
		ep := randomEndpoint(r)
		ep.WithLabel(endpoint.ResourceLabelKey, pick(r, "r1", "r2", "r3"))
		in.desired = append(in.desired, ep)
	}
	ruleTieBreakByData(in.desired)
	switch r.IntN(4) {
	case 1:
		in.include = []string{"example.com"}
	case 2:
		in.include, in.exclude = []string{"example.com"}, []string{"b.example.com"}
	}
	if r.IntN(4) == 0 {
		in.managed = []string{"A", "CNAME", "MX"}
	}
	return in
}

func (in planInput) external() *xplan.Changes {
	p := &xplan.Plan{
		Current:        FromZonesyncAll(in.current),
		Desired:        FromZonesyncAll(in.desired),
		OwnerID:        in.ownerID,
		ManagedRecords: in.managed,
	}
	if len(in.managed) == 0 {
		p.ManagedRecords = []string{"A", "AAAA", "CNAME"}
	}
	if in.include != nil {
		p.DomainFilter = xendpoint.MatchAllDomainFilters{xendpoint.NewDomainFilterWithExclusions(in.include, in.exclude)}
	}
	return p.Calculate().Changes
}

func (in planInput) zonesync() *plan.Changes {
	p := &plan.Plan{
		Current:        cloneAll(in.current),
		Desired:        cloneAll(in.desired),
		OwnerID:        in.ownerID,
		ManagedRecords: in.managed,
		Resolver:       plan.PerResource{},
	}
	if in.include != nil {
		p.DomainFilter = endpoint.NewDomainFilterWithExclusions(in.include, in.exclude)
	}
	return p.Calculate().Changes
}

func cloneAll(eps []*endpoint.Endpoint) []*endpoint.Endpoint {
	return ToZonesyncAll(FromZonesyncAll(eps))
}

// ruleTieBreakByData (docs/compatibility.md, Planning: conflict between
// resources): when several resources ask for one record set with the same
// targets, external-dns's PerResource takes the first in the order the
// sources returned them; zonesync's takes the smallest by resource label,
// TTL, provider-specific properties and name, whatever the order. Applied
// to the input: the desired endpoints are given to both in zonesync's
// tie-break order, where the two choices coincide. Every case still runs.
func ruleTieBreakByData(desired []*endpoint.Endpoint) {
	slices.SortStableFunc(desired, func(a, b *endpoint.Endpoint) int {
		resA, _ := a.Labels.Get(endpoint.ResourceLabelKey)
		resB, _ := b.Labels.Get(endpoint.ResourceLabelKey)
		if c := strings.Compare(resA, resB); c != 0 {
			return c
		}
		if c := cmp.Compare(a.RecordTTL, b.RecordTTL); c != 0 {
			return c
		}
		if c := slices.CompareFunc(a.ProviderSpecific, b.ProviderSpecific, func(x, y endpoint.ProviderSpecificProperty) int {
			return cmp.Or(strings.Compare(x.Name, y.Name), strings.Compare(x.Value, y.Value))
		}); c != 0 {
			return c
		}
		return strings.Compare(a.DNSName, b.DNSName)
	})
}

// ruleTTLUnsetKeepsCurrent (docs/compatibility.md, Planning: update when
// the desired TTL is unset): external-dns's update of a record whose
// desired TTL is unset carries TTL 0, zonesync's keeps the current TTL.
// Applied to external-dns's result: an update-new with TTL 0 whose
// update-old has a TTL gets that TTL.
func ruleTTLUnsetKeepsCurrent(c *plan.Changes) int {
	applied := 0
	old := map[string]endpoint.TTL{}
	for _, ep := range c.UpdateOld {
		old[Key(ep.DNSName, ep.SetIdentifier, ep.RecordType)] = ep.RecordTTL
	}
	for _, ep := range c.UpdateNew {
		if ttl := old[Key(ep.DNSName, ep.SetIdentifier, ep.RecordType)]; ep.RecordTTL == 0 && ttl != 0 {
			ep.RecordTTL = ttl
			applied++
		}
	}
	return applied
}

// ruleEmptyOwnerLabel: when external-dns updates a record, the update-new
// inherits the owner label of the current record, and a current record
// without one gives it an empty owner label; zonesync leaves the label
// out. Both mean "no owner" to both registries (an empty owner is never
// written: such updates only happen with an empty OwnerID, that is without
// a registry that writes ownership). Applied to both results: an owner
// label with an empty value is removed.
func ruleEmptyOwnerLabel(c *plan.Changes) int {
	applied := 0
	for _, list := range [][]*endpoint.Endpoint{c.Create, c.UpdateOld, c.UpdateNew, c.Delete} {
		for _, ep := range list {
			if v, ok := ep.Labels.Get(endpoint.OwnerLabelKey); ok && v == "" {
				ep.Labels.Delete(endpoint.OwnerLabelKey)
				applied++
			}
		}
	}
	return applied
}

// ruleCNAMEBesideUnmanaged (docs/compatibility.md, Planning: a CNAME at a
// name that holds a record of a type the plan does not manage):
// external-dns plans the create, which a DNS service refuses (a CNAME
// shares its name with nothing); zonesync skips it (reason
// cname-conflict). Applied to external-dns's result: creates of CNAME
// records at such names are removed.
func ruleCNAMEBesideUnmanaged(in planInput, c *plan.Changes) int {
	managed, _ := endpoint.ManagedTypes(in.managed, nil)
	blocked := map[string]bool{}
	for _, ep := range in.current {
		if !slices.Contains(managed, strings.ToUpper(ep.RecordType)) {
			blocked[endpoint.ToALabel(strings.TrimSpace(ep.DNSName))] = true
		}
	}
	applied := 0
	c.Create = slices.DeleteFunc(c.Create, func(ep *endpoint.Endpoint) bool {
		if ep.RecordType == endpoint.RecordTypeCNAME && blocked[endpoint.ToALabel(strings.TrimSpace(ep.DNSName))] {
			applied++
			return true
		}
		return false
	})
	return applied
}

// diffLines returns the lines only in a and those only in b.
func diffLines(a, b []string) (onlyA, onlyB []string) {
	count := map[string]int{}
	for _, l := range a {
		count[l]++
	}
	for _, l := range b {
		count[l]--
	}
	for _, l := range a {
		if count[l] > 0 {
			onlyA = append(onlyA, l)
			count[l]--
		}
	}
	for _, l := range b {
		if count[l] < 0 {
			onlyB = append(onlyB, l)
			count[l]++
		}
	}
	return onlyA, onlyB
}

// TestPlanAgreement runs external-dns's plan.Calculate and zonesync's (with
// the PerResource resolver) on random current and desired sets and
// requires the same changes, compared as sets per list.
func TestPlanAgreement(t *testing.T) {
	applied := map[string]int{}
	withChanges := 0
	for seed := range uint64(planCases) {
		r := rand.New(rand.NewPCG(seed, 14))
		in := randomInput(r)
		x := ChangesToZonesync(in.external())
		z := in.zonesync()
		applied["ttl-unset-keeps-current"] += ruleTTLUnsetKeepsCurrent(x)
		applied["cname-beside-unmanaged"] += ruleCNAMEBesideUnmanaged(in, x)
		applied["empty-owner-label"] += ruleEmptyOwnerLabel(x) + ruleEmptyOwnerLabel(z)
		xl, zl := changeLists(x), changeLists(z)
		if !emptyChanges(z) {
			withChanges++
		}
		for i, list := range []string{"create", "updateOld", "updateNew", "delete"} {
			onlyX, onlyZ := diffLines(xl[i], zl[i])
			if len(onlyX)+len(onlyZ) > 0 {
				t.Fatalf("seed %d: %s differs\nonly external-dns:\n  %s\nonly zonesync:\n  %s\ninput:\n%s", seed, list,
					strings.Join(onlyX, "\n  "), strings.Join(onlyZ, "\n  "), in)
			}
		}
	}
	t.Logf("%d cases agree (%d with changes); known-difference rules applied: %v", planCases, withChanges, applied)
	// The generator must keep producing plans worth comparing.
	if withChanges < planCases/2 {
		t.Fatalf("only %d of %d cases have changes", withChanges, planCases)
	}
}

// resolverCase is one conflict: the current record (nil for a new record
// set) and the candidates.
type resolverCase struct {
	name       string
	current    *endpoint.Endpoint
	candidates []*endpoint.Endpoint
}

func candidateEP(recordType, resource string, targets ...string) *endpoint.Endpoint {
	ep := endpoint.NewEndpoint("app.example.com", recordType, targets...)
	if resource != "" {
		ep.WithLabel(endpoint.ResourceLabelKey, resource)
	}
	return ep
}

// resolveBoth runs external-dns's PerResource (ResolveCreate without a
// current record, ResolveUpdate with one) and zonesync's on one conflict
// and returns the targets and resource label of each winner. Rule
// tie-break-by-data: external-dns gets the candidates in zonesync's order
// of their data (the targets as endpoint.Targets.IsLess orders them, then
// as written, then the resource label), where its "first in source order"
// is zonesync's choice.
func resolveBoth(c resolverCase) (x, z string) {
	cands := slices.Clone(c.candidates)
	slices.SortStableFunc(cands, func(a, b *endpoint.Endpoint) int {
		switch {
		case a.Targets.IsLess(b.Targets):
			return -1
		case b.Targets.IsLess(a.Targets):
			return 1
		}
		resA, _ := a.Labels.Get(endpoint.ResourceLabelKey)
		resB, _ := b.Labels.Get(endpoint.ResourceLabelKey)
		return cmp.Or(slices.Compare(a.Targets, b.Targets), strings.Compare(resA, resB))
	})
	describe := func(targets []string, resource string) string {
		return strings.Join(targets, ",") + " from " + strconv.Quote(resource)
	}
	// external-dns sorts the candidates (ResolveUpdate) and the targets of
	// the endpoints it compares in place: describe its winner by the
	// candidate it came from.
	xc := FromZonesyncAll(cands)
	given := slices.Clone(xc)
	var xw *xendpoint.Endpoint
	if c.current == nil {
		xw = xplan.PerResource{}.ResolveCreate(xc)
	} else {
		xw = xplan.PerResource{}.ResolveUpdate(FromZonesync(c.current), xc)
	}
	for i, e := range FromZonesyncAll(cands) {
		if given[i] == xw {
			x = describe(e.Targets, e.Labels[xendpoint.ResourceLabelKey])
		}
	}
	zw, _ := plan.PerResource{}.Resolve(c.current, c.candidates)
	res, _ := zw.Labels.Get(endpoint.ResourceLabelKey)
	return x, describe(zw.Targets, res)
}

// TestPerResourceAgreement runs external-dns's conflict resolver and
// zonesync's PerResource on the cases of external-dns's own tests
// (plan/conflict_test.go), the cases of issue 34 (IP targets compared as
// numbers) and random conflicts over IPv4 and IPv6 addresses in several
// spellings, host names and text, with and without resource labels, and
// requires the same winner.
func TestPerResourceAgreement(t *testing.T) {
	cases := []resolverCase{
		{name: "create: 127.0.0.1 before 192.168.0.1", candidates: []*endpoint.Endpoint{
			candidateEP("A", "ingress/default/bar-127", "127.0.0.1"), candidateEP("A", "ingress/default/bar-192", "192.168.0.1")}},
		{name: "create: an IP before a host name", candidates: []*endpoint.Endpoint{
			candidateEP("A", "ingress/default/foo-5", "5.5.5.5"), candidateEP("CNAME", "ingress/default/foo-v1", "v1")}},
		{name: "create: host names as text", candidates: []*endpoint.Endpoint{
			candidateEP("CNAME", "ingress/default/foo-v2", "v2"), candidateEP("CNAME", "ingress/default/foo-v1", "v1")}},
		{name: "update: the same resource twice", current: candidateEP("A", "ingress/default/bar-127", "127.0.0.1"), candidates: []*endpoint.Endpoint{
			candidateEP("A", "ingress/default/bar-127", "8.8.8.8"), candidateEP("A", "ingress/default/bar-127", "127.0.0.1")}},
		{name: "update: the existing resource", current: candidateEP("A", "ingress/default/bar-127", "127.0.0.1"), candidates: []*endpoint.Endpoint{
			candidateEP("A", "ingress/default/bar-192", "192.168.0.1"), candidateEP("A", "ingress/default/bar-127", "127.0.0.1")}},
		{name: "update: the existing resource with equal targets", current: candidateEP("CNAME", "ingress/default/foo-v2", "v2"), candidates: []*endpoint.Endpoint{
			candidateEP("CNAME", "ingress/default/foo-v2", "v2"), candidateEP("CNAME", "ingress/default/foo-v2-duplicate", "v2")}},
		{name: "update: the resource was deleted", current: candidateEP("CNAME", "ingress/default/foo-v1", "v1"), candidates: []*endpoint.Endpoint{
			candidateEP("A", "ingress/default/foo-5", "5.5.5.5"), candidateEP("CNAME", "ingress/default/foo-v2", "v2")}},
		{name: "update: a legacy record without resource label", current: candidateEP("A", "", "192.168.0.1"), candidates: []*endpoint.Endpoint{
			candidateEP("A", "ingress/default/bar-127", "127.0.0.1"), candidateEP("A", "ingress/default/bar-192", "192.168.0.1")}},
		{name: "update: an unlabelled record stays with an unlabelled candidate", current: candidateEP("A", "", "192.168.0.1"), candidates: []*endpoint.Endpoint{
			candidateEP("A", "ingress/default/bar-127", "127.0.0.1"), candidateEP("A", "", "192.168.0.9")}},
		{name: "issue 34: 8.8.8.8 before 127.0.0.1", candidates: []*endpoint.Endpoint{
			candidateEP("A", "resource/one", "8.8.8.8"), candidateEP("A", "resource/two", "127.0.0.1")}},
		{name: "issue 34: 9.0.0.1 before 10.0.0.2", candidates: []*endpoint.Endpoint{
			candidateEP("A", "resource/one", "10.0.0.2"), candidateEP("A", "resource/two", "9.0.0.1")}},
		{name: "issue 34: ::9 before 2001:db8::10", candidates: []*endpoint.Endpoint{
			candidateEP("AAAA", "resource/one", "2001:db8::10"), candidateEP("AAAA", "resource/two", "::9")}},
		{name: "issue 34: takeover", current: candidateEP("A", "resource/gone", "192.0.2.1"), candidates: []*endpoint.Endpoint{
			candidateEP("A", "resource/one", "10.0.0.2"), candidateEP("A", "resource/two", "9.0.0.1")}},
		{name: "several targets: sorted as text, compared as numbers", candidates: []*endpoint.Endpoint{
			candidateEP("A", "resource/one", "2.0.0.0", "10.0.0.1"), candidateEP("A", "resource/two", "4.0.0.0", "3.0.0.0")}},
		{name: "two spellings of one address", candidates: []*endpoint.Endpoint{
			candidateEP("AAAA", "resource/one", "2001:db8::1", "2001:db8::5"), candidateEP("AAAA", "resource/two", "2001:DB8:0::1", "2001:db8::3")}},
	}
	pool := []string{
		"9.0.0.1", "10.0.0.2", "127.0.0.1", "8.8.8.8", "192.0.2.1", "1.2.3.4",
		"::9", "2001:db8::10", "2001:db8::1", "2001:DB8::1", "2001:db8:0::1", "1::", "fe80::1%eth0",
		"1-2-3-4.example.com", "v1", "V1", "a.example.com", "text with spaces",
	}
	resources := []string{"", "r/one", "r/two", "r/three"}
	r := rand.New(rand.NewPCG(34, 2))
	for i := range 3000 {
		c := resolverCase{name: fmt.Sprintf("random %d", i)}
		for range 2 + r.IntN(3) {
			var targets []string
			for range 1 + r.IntN(3) {
				targets = append(targets, pick(r, pool...))
			}
			c.candidates = append(c.candidates, candidateEP("A", pick(r, resources...), targets...))
		}
		if r.IntN(2) == 0 {
			c.current = candidateEP("A", pick(r, resources...), pick(r, pool...))
		}
		cases = append(cases, c)
	}
	for _, c := range cases {
		x, z := resolveBoth(c)
		if x != z {
			var b strings.Builder
			if c.current != nil {
				fmt.Fprintf(&b, "current %s %v\n", c.current.Targets, maps.Collect(c.current.Labels.All()))
			}
			for _, e := range c.candidates {
				fmt.Fprintf(&b, "candidate %s %v\n", e.Targets, maps.Collect(e.Labels.All()))
			}
			t.Fatalf("%s: external-dns picks %s, zonesync %s\n%s", c.name, x, z, b.String())
		}
	}
}
